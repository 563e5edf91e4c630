"""What every game declares about itself (games.declaration, games.options): options, move commands, command_for,
the templates; and the outcome every finished game stores (games.outcome)."""

from __future__ import annotations

import gc
import random
import re
from typing import Any

import pytest

from games import GAMES, LEVELS, IllegalMove, InvalidState, InvalidVariant, Option, Outcome, Termination
from games.chopsticks.computer import best_moves as chopsticks_best_moves
from games.options import check_options
from renderers._common import outcome_text

KEYS = tuple(GAMES)
TITLES = {"chopsticks": "Chopsticks", "differences": "Grid Game of Differences", "napkin_chess": "Napkin Chess",
          "polygons": "Polygons & Dots", "groebner_nim": "Gröbner Nim"}
COMMANDS = {"chopsticks": "chopsticks", "differences": "differences", "napkin_chess": "napkin",
            "polygons": "polygons", "groebner_nim": "groebner"}


def playout(key: str, seed: int, variant: dict[str, Any] | None = None) -> list[Any]:
    """The states of an ``easy`` computer game of ``key`` from the first demo's variant."""
    game = GAMES[key]
    rng = random.Random(seed)
    state = game.new_state(dict(game.demo[0].variant) if variant is None else variant, rng)
    states = [state]
    while not state.is_over and state.ply < 60:
        state = state.apply(game.computer_move(state, "easy", rng))
        states.append(state)
    return states


# ------------------------------------------------------------------------------------------- check_options

OPTIONS = (
    Option("n", "Grid size", 8, "int", minimum=4, maximum=15),
    Option("unique", "Count once", False, "bool"),
    Option("splits", "Splits", "transfer", "choice", choices=("transfer", "even", "none")),
    Option("start", "Start", None, "text", max_length=10),
)


def test_check_options_fills_defaults_in_order() -> None:
    assert check_options(OPTIONS, None) == {"n": 8, "unique": False, "splits": "transfer", "start": None}
    assert check_options(OPTIONS, {"splits": "even", "n": 4}) == {"n": 4, "unique": False, "splits": "even",
                                                                   "start": None}


@pytest.mark.parametrize(("given", "says"), [
    ({"colour": "red"}, "There is no option `colour`; the options are n, unique, splits, start."),
    ({"n": "8"}, "Option `n` must be a whole number from 4 to 15, not `8`."),
    ({"n": True}, "Option `n` must be a whole number from 4 to 15, not `True`."),
    ({"n": 16}, "Option `n` must be a whole number from 4 to 15, not `16`."),
    ({"n": 3}, "Option `n` must be a whole number from 4 to 15, not `3`."),
    ({"unique": "yes"}, "Option `unique` must be true or false, not `yes`."),
    ({"splits": "all"}, "Option `splits` must be one of transfer, even, none, not `all`."),
    ({"start": "x" * 11}, "Option `start` must be text of at most 10 characters."),
])
def test_check_options_refuses_quoting_the_value(given: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidVariant) as error:
        check_options(OPTIONS, given)
    assert str(error.value) == says


def test_check_options_refuses_what_is_not_a_mapping() -> None:
    with pytest.raises(InvalidVariant, match="named options"):
        check_options(OPTIONS, ["n", 8])  # type: ignore[arg-type]  # deliberately the wrong shape


# ------------------------------------------------------------------------------------------- declarations


def test_the_registry_finds_the_five_games_with_their_declarations() -> None:
    assert set(TITLES) <= set(KEYS)  # the five, and the tests' own extra games
    for key, game in GAMES.items():
        if key not in TITLES:
            continue
        assert game.key == key == game.state_class.game
        assert game.title == TITLES[key]
        assert game.command == COMMANDS[key]
        assert game.source and game.natural_end and game.moves and game.demo
        for option in game.options:
            assert len(option.description) <= 100, (key, option.name)
            assert len(option.command_description()) <= 100, (key, option.name)
        for command in game.moves:
            assert len(command.description) <= 100
            assert all(len(param.description) <= 100 for param in command.params)



def test_the_pickers_text_adds_the_range_and_default_the_picker_would_not_show() -> None:
    assert Option("n", "Grid size n×n", 8, "int", minimum=4, maximum=15).command_description() == \
        "Grid size n×n (4–15, default 8)"
    assert Option("width", "Napkin width", None, "int", minimum=8, maximum=60).command_description() == \
        "Napkin width (8–60)"
    assert Option("preset", "Preset", "classic", "choice", choices=("classic", "holed")).command_description() == \
        "Preset (default classic)"
    assert Option("hole", "A hole", None, "bool").command_description() == "A hole"

@pytest.mark.parametrize("key", KEYS)
def test_variant_defaults_are_the_declared_defaults_and_load(key: str) -> None:
    game = GAMES[key]
    defaults = game.variant_defaults()
    assert game.variant(defaults) == defaults  # a stored variant is accepted again unchanged
    state = game.new_state(defaults, random.Random(0))
    assert game.load(state.to_dict()).to_dict() == state.to_dict()
    with pytest.raises(InvalidVariant, match="There is no option `colour`"):
        game.variant({"colour": "red"})


@pytest.mark.parametrize("key", KEYS)
def test_demo_matches_are_valid_variants_with_a_level_per_seat(key: str) -> None:
    game = GAMES[key]
    for demo in game.demo:
        variant = game.variant(demo.variant)
        assert len(demo.levels) == game.seats_for(variant)
        for option, value in demo.variant.items():
            assert variant[option] == value  # what the demo asks for is applied


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("seed", range(3))
def test_command_for_round_trips_through_assemble(key: str, seed: int) -> None:
    """Over random play-outs: the command for each legal move's notation, assembled from its options as a player
    would type them, gives back the notation, which the game parses to the same move."""
    game = GAMES[key]
    commands = {command.name: command for command in game.moves}
    for state in playout(key, seed):
        if state.is_over:
            continue
        for move in list(state.legal_moves())[:12]:
            notation = state.format_move(move)
            name, options = game.command_for(state, notation)
            command = commands[name]
            assert set(options) <= {param.name for param in command.params}
            assert all(param.name in options for param in command.params if param.required)
            text = command.assemble(options)
            assert state.parse_move(text) == move
            assert state.format_move(state.parse_move(text)) == notation


@pytest.mark.parametrize("key", [key for key in KEYS if key != "napkin_chess"])  # sizes: tested below
def test_suggestions_are_values_of_legal_moves(key: str) -> None:
    """Every autocomplete suggestion is a value some legal move's command takes (suggestions offer legal moves)."""
    game = GAMES[key]
    for state in playout(key, 1)[:-1]:
        legal_values: dict[str, set[str]] = {}
        for move in state.legal_moves():
            name, options = game.command_for(state, state.format_move(move))
            legal_values.setdefault(name, set()).update(options.values())
        for command in game.moves:
            for param in command.params:
                if param.suggest is None:
                    continue
                offered = {item[1] if isinstance(item, tuple) else item for item in param.suggest(state, {})}
                assert offered <= legal_values.get(command.name, set()), (state.ply, command.name, param.name)
                if command.name in legal_values and param.required and len(command.params) == 1:
                    assert offered == legal_values[command.name]


def test_groebner_second_suggestions_follow_first() -> None:
    game = GAMES["groebner_nim"]
    state = game.new_state({"sticks": 4}, random.Random(2))
    second = next(param for param in game.moves[0].params if param.name == "second")
    assert second.suggest is not None
    assert second.suggest(state, {"first": "2"}) == ["1", "3", "4"]
    picked = state.play("1-2")
    if not picked.is_over:
        assert "2" not in second.suggest(picked, {"first": "1"})


def test_napkin_sizes_are_labelled_with_what_is_left() -> None:
    game = GAMES["napkin_chess"]
    size = game.moves[0].params[0]
    assert size.suggest is not None
    assert size.suggest(game.new_state({"preset": "quick"}), {}) == [("2 (10 left)", "2"), ("3 (6 left)", "3"),
                                                                     ("4 (3 left)", "4")]


def test_assemble_keeps_todays_notation() -> None:
    napkin, polygons, groebner = GAMES["napkin_chess"], GAMES["polygons"], GAMES["groebner_nim"]
    assert napkin.moves[0].assemble({"size": " 3", "x": "12.5 ", "y": "7"}) == "3@12.5,7"
    with pytest.raises(ValueError, match="`5` is not a coin size"):
        napkin.moves[0].assemble({"size": "5", "x": "1", "y": "1"})
    dot, connect = polygons.moves
    assert dot.assemble({"x": "3", "y": " 4"}) == "3,4"
    assert connect.assemble({"to": "C", "from": "A"}) == "A-C"
    assert connect.assemble({"to": "C"}) == "C"
    assert groebner.moves[0].assemble({"first": "1", "second": "3"}) == "1-3"


# ------------------------------------------------------------------------------------------- templates


@pytest.mark.parametrize("key", KEYS)
def test_computer_move_checks_state_level_and_game_over_once(key: str) -> None:
    game = GAMES[key]
    other = GAMES[next(k for k in KEYS if k != key)]
    state = game.new_state(dict(game.demo[0].variant), random.Random(0))
    with pytest.raises(TypeError, match=re.escape(f"needs a {game.title} state")):
        game.computer_move(other.new_state({}, random.Random(0)), "easy", random.Random(0))
    levels = ", ".join(level for level in LEVELS if level in game.level_descriptions)
    with pytest.raises(ValueError, match=re.escape(f"Unknown level 'expert'; the levels are {levels}.")):
        game.computer_move(state, "expert", random.Random(0))  # type: ignore[arg-type]  # an unknown level
    final = playout(key, 5)[-1]
    if final.is_over:
        with pytest.raises(IllegalMove, match="The game is over"):
            game.computer_move(final, "easy", random.Random(0))


@pytest.mark.parametrize("key", KEYS)
def test_the_computer_searches_with_the_garbage_collector_paused(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = GAMES[key]
    state = game.new_state(dict(game.demo[0].variant), random.Random(0))
    seen: list[bool] = []
    choose = type(game).choose_move

    def watched(self: Any, state: Any, level: Any, rng: random.Random) -> Any:
        seen.append(gc.isenabled())
        return choose(self, state, level, rng)

    monkeypatch.setattr(type(game), "choose_move", watched)
    assert gc.isenabled()
    move = game.computer_move(state, "hard", random.Random(0))
    assert seen == [False] and gc.isenabled()
    state.apply(move)  # raises unless the move is legal
    gc.disable()  # a caller that had paused it keeps it paused
    try:
        game.computer_move(state, "easy", random.Random(0))
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("key", KEYS)
def test_from_dict_frame_rejects_what_every_game_rejects(key: str) -> None:
    game = GAMES[key]
    data = game.new_state(dict(game.demo[0].variant), random.Random(0)).to_dict()
    with pytest.raises(InvalidState, match="must be a dict"):
        game.load([data])  # type: ignore[arg-type]  # deliberately not a mapping
    with pytest.raises(InvalidState, match="lacks variant"):
        game.load({k: v for k, v in data.items() if k != "variant"})
    with pytest.raises(InvalidState, match="not a"):
        game.load({**data, "game": "chess"})
    with pytest.raises(InvalidState):
        game.load({**data, "variant": {"colour": "red"}})


# ------------------------------------------------------------------------------------------- outcomes


@pytest.mark.parametrize("key", KEYS)
def test_finished_state_outcome_is_typed_and_checked_on_load(key: str) -> None:
    """A finished game's outcome has a termination; a state that stores its outcome loads only when the stored
    outcome is the one its replay derives."""
    final = next((states[-1] for seed in range(20) if (states := playout(key, seed))[-1].is_over), None)
    assert final is not None
    outcome = final.outcome
    assert outcome is not None and outcome.termination in (Termination.NATURAL, Termination.REPETITION,
                                                           Termination.MOVE_LIMIT)
    data = final.to_dict()
    assert GAMES[key].load(data).to_dict() == data
    if "outcome" in data:
        assert data["outcome"] == outcome.to_dict()
        with pytest.raises(InvalidState):
            GAMES[key].load({**data, "outcome": {**outcome.to_dict(), "termination": "resigned"}})


def test_a_stored_outcome_reads_back_and_a_malformed_one_is_refused() -> None:
    typed = Outcome(1, False, (3, 5), Termination.RESIGNED, loser=0)
    assert Outcome.from_dict(typed.to_dict()) == typed
    for malformed in ({"winner": 0}, {"winner": 0, "draw": False, "scores": None, "reason": "bob ran out of time"},
                      {**typed.to_dict(), "termination": "gave up"}, {**typed.to_dict(), "draw": "no"}):
        with pytest.raises(InvalidState):
            Outcome.from_dict(malformed)


@pytest.mark.parametrize(("outcome", "text"), [
    (Outcome(0, False, None, Termination.NATURAL), "Ann wins: both hands are dead"),
    (Outcome(None, True, None, Termination.REPETITION), "Draw: third repetition"),
    (Outcome(None, True, None, Termination.MOVE_LIMIT), "Draw: move limit"),
    (Outcome(1, False, None, Termination.RESIGNED, loser=0), "Ann resigned: Bob wins"),
    (Outcome(0, False, None, Termination.OUT_OF_TIME, loser=1), "Bob ran out of time: Ann wins"),
    (Outcome(None, True, None, Termination.DRAW_AGREED), "Draw agreed"),
    (Outcome(None, False, (4,), Termination.RESIGNED, loser=0), "Ann resigned"),
])
def test_outcome_line_reads_the_termination(outcome: Outcome, text: str) -> None:
    assert outcome_text("chopsticks", ["Ann", "Bob"], outcome) == text


def test_outcome_line_may_set_the_winner_apart_and_reads_the_same_otherwise() -> None:
    bold = lambda name: f"**{name}**"  # noqa: E731 - what the bot's boards do
    resigned = Outcome(1, False, None, Termination.RESIGNED, loser=0)
    assert resigned.result(["Ann", "Bob"], "resigned", winner_style=bold) == "Ann resigned: **Bob** wins"
    drawn = Outcome(None, True, None, Termination.REPETITION)
    assert drawn.result(["Ann", "Bob"], "third repetition", winner_style=bold) == "Draw: third repetition"


def test_solitaire_end_names_the_turns() -> None:
    game = GAMES["groebner_nim"]
    assert game.describe_end(Outcome(None, False, (1,), Termination.NATURAL)) == \
        "the sticks form a Gröbner basis in 1 turn"
    assert outcome_text("groebner_nim", ["Ann"], Outcome(None, False, (6,), Termination.NATURAL)) == \
        "Finished: the sticks form a Gröbner basis in 6 turns"


# ------------------------------------------------------------------------------------------- levels


@pytest.mark.parametrize("key", KEYS)
def test_every_game_says_what_its_levels_do(key: str) -> None:
    game = GAMES[key]
    described = list(game.level_descriptions)
    assert described[:3] == ["easy", "medium", "hard"]
    assert set(described) <= set(LEVELS)
    for level, words in game.level_descriptions.items():
        assert words and words == words.strip() and not words.endswith(".") and level not in words.split()[:1]
    state = game.new_state(dict(game.demo[0].variant), random.Random(0))
    assert game.levels_for(state)[:3] == ("easy", "medium", "hard")
    if "perfect" not in game.levels_for(state):
        with pytest.raises(ValueError, match=re.escape(f"{game.title} has no perfect level with these options")):
            game.computer_move(state, "perfect", random.Random(0))


def test_perfect_is_offered_where_the_game_is_solved_and_plays_as_the_solver() -> None:
    chopsticks, differences, polygons = GAMES["chopsticks"], GAMES["differences"], GAMES["polygons"]
    assert "perfect" in chopsticks.levels_for(chopsticks.new_state({"rollover": True}))
    assert "perfect" in differences.levels_for(differences.new_state({"n": 8}))
    assert "perfect" not in differences.levels_for(differences.new_state({"n": 9}))
    assert "perfect" not in polygons.levels_for(polygons.new_state({}))
    state = chopsticks.new_state({})
    for seed in range(5):
        move = chopsticks.computer_move(state, "perfect", random.Random(seed))
        assert move in chopsticks_best_moves(state)
    grid = differences.new_state({"n": 6})
    value = differences.exact_value(grid, 0)
    for seed in range(3):
        move = differences.computer_move(grid, "perfect", random.Random(seed))
        assert differences.exact_value(grid.apply(move), 0).amount == value.amount
    with pytest.raises(ValueError, match="has no perfect level with these options; the levels are easy, medium, hard"):
        differences.computer_move(differences.new_state({"n": 12}), "perfect", random.Random(0))
