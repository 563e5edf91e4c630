"""Rules core of Gröbner Nim: the seed's vectors, random games checked against sympy, states, variants, computer."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import GAMES, IllegalMove, InvalidMove, InvalidState, InvalidVariant, Termination
from games.groebner_nim import GAME
from games.groebner_nim.computer import solitaire_plan
from games.groebner_nim.rules import (
    GroebnerNimState,
    Pair,
    Stick,
    buchberger,
    format_stick,
    format_sticks,
    is_groebner_basis,
    minimal_reduced_basis,
    pair_result,
    parse_start,
    random_start,
    s_stick_points,
)

VECTORS = json.loads((Path(__file__).parents[2] / "seeds" / "groebner_nim.json").read_text(encoding="utf-8"))
X, Y = sympy.symbols("x y")


def start_state(vector: dict, **options: object) -> GroebnerNimState:
    return GAME.new_state({"start": vector["start"], "order": vector["order"], **options})


def as_poly(stick: Stick) -> sympy.Expr:
    return X ** stick.head[0] * Y ** stick.head[1] + X ** stick.tail[0] * Y ** stick.tail[1]


def sympy_reduced_basis(sticks: tuple[Stick, ...], order: str) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The reduced Gröbner basis computed by sympy, as (head, tail) pairs with sympy's own leading monomials."""
    basis = sympy.groebner([as_poly(stick) for stick in sticks], X, Y, modulus=2, order=order)
    found = set()
    for poly in basis.polys:
        monomials = poly.monoms(order=order)  # largest first under ``order``
        assert len(monomials) == 2, poly
        assert poly.LM(order=order) == monomials[0]
        found.add((tuple(monomials[0]), tuple(monomials[1])))
    return found


def our_reduced_basis(state: GroebnerNimState) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    return {(stick.head, stick.tail) for stick in minimal_reduced_basis(state.sticks, state.variant.order)}


# --------------------------------------------------------------------------------------------------------------
# The source's vectors


@pytest.mark.parametrize("example", VECTORS["head_examples"])
def test_head_follows_the_order(example: dict) -> None:
    p, q = (tuple(point) for point in example["points"])
    assert Stick.from_points(p, q, example["order"]).head == tuple(example["head"])
    assert Stick.from_points(q, p, example["order"]).head == tuple(example["head"])


@pytest.mark.parametrize("vector", VECTORS["games"], ids=lambda vector: vector["name"])
def test_worked_game(vector: dict) -> None:
    state = start_state(vector)
    assert [format_stick(stick) for stick in state.sticks] == vector["start_sticks"]
    if "s_stick_points" in vector:
        first = state.parse_move(vector["moves"][0]["pair"])
        points = s_stick_points(*(state.sticks[i] for i in first.indices))
        assert sorted(points) == sorted(tuple(point) for point in vector["s_stick_points"][0])
    for step in vector["moves"]:
        before = len(state.sticks)
        state = state.play(step["pair"])
        if step["adds"] is None:
            assert len(state.sticks) == before and state.added[-1] is None
        else:
            assert format_stick(state.sticks[-1]) == step["adds"]
            assert state.added[-1] == before + 1
        assert state.is_basis() is step["over"] is state.is_over
    assert {format_stick(stick) for stick in state.final_basis()} == set(vector["reduced_basis"])
    assert our_reduced_basis(state) == sympy_reduced_basis(state.sticks[: state.start_count], vector["order"])


@pytest.mark.parametrize("vector", VECTORS["games"], ids=lambda vector: vector["name"])
@pytest.mark.parametrize("mode", ["duel", "bonus_turn", "solitaire"])
def test_worked_game_outcome(vector: dict, mode: str) -> None:
    options = {"mode": "solitaire"} if mode == "solitaire" else {"bonus_turn": mode == "bonus_turn"}
    state = start_state(vector, **options)
    for step in vector["moves"]:
        state = state.play(step["pair"])
    outcome = state.outcome
    assert outcome is not None and state.current_seat is None and state.legal_moves() == []
    turns = len(vector["moves"])
    if mode == "solitaire":
        assert state.par == vector["par"]
        assert (outcome.winner, outcome.draw, outcome.scores) == (None, False, (turns,))
        assert outcome.termination is Termination.NATURAL
        assert GAME.describe_end(outcome) == f"the sticks form a Gröbner basis in {turns} turn{'s' * (turns != 1)}"
    else:
        expected = vector[mode]
        assert (list(outcome.scores), outcome.winner, outcome.draw) == (
            expected["scores"], expected["winner"], expected["draw"])


@pytest.mark.parametrize("vector", VECTORS["already_basis"], ids=lambda v: f"{v['start']} {v['order']}")
def test_start_that_is_already_a_basis(vector: dict) -> None:
    sticks = parse_start(vector["start"], vector["order"])
    assert is_groebner_basis(sticks, vector["order"])
    assert buchberger(sticks, vector["order"]).par == 0
    with pytest.raises(InvalidVariant, match="already form a Gröbner basis"):
        start_state(vector)


@pytest.mark.parametrize("vector", VECTORS["bad_starts"], ids=lambda v: v["start"])
def test_bad_custom_start_is_rejected_with_a_reason(vector: dict) -> None:
    if vector.get("random"):
        state = GAME.new_state({"start": vector["start"]}, random.Random(1))
        assert state.variant.start is None and len(state.sticks) == 2
        return
    with pytest.raises(InvalidVariant, match="start") as error:
        GAME.new_state({"start": vector["start"]})
    assert vector["says"] in str(error.value)


@pytest.mark.parametrize(("text", "canonical"), VECTORS["notation"]["valid"])
def test_notation_parses_and_round_trips(text: str, canonical: str) -> None:
    state = start_state(VECTORS["games"][0])
    move = state.parse_move(text)
    assert state.format_move(move) == canonical
    assert state.parse_move(state.format_move(move)) == move


@pytest.mark.parametrize(("text", "says"), VECTORS["notation"]["invalid"])
def test_malformed_notation(text: str, says: str) -> None:
    state = start_state(VECTORS["games"][0])
    with pytest.raises(InvalidMove, match=says):
        state.parse_move(text)


@pytest.mark.parametrize("vector", VECTORS["hard_duel"], ids=lambda v: v["name"])
def test_hard_duel_choice(vector: dict) -> None:
    state = start_state(vector)
    for text in vector["moves"]:
        state = state.play(text)
    assert state.format_move(GAME.computer_move(state, "hard", random.Random(0))) == vector["best"]


# --------------------------------------------------------------------------------------------------------------
# Random starts against sympy


def random_game(seed: int, order: str, count: int) -> GroebnerNimState:
    """A random game from a raw random draw (any start that is not a basis, fair or not)."""
    rng = random.Random(seed)
    state = GAME.new_state({"start": format_sticks(random_start(count, order, rng)), "order": order})
    for _ in range(2000):
        if state.is_over:
            return state
        state = state.apply(rng.choice(state.legal_moves()))
    raise AssertionError("the game did not end")


@pytest.mark.slow  # cross-check: random games against sympy's Gröbner bases
@pytest.mark.parametrize("order", ["grevlex", "lex"])
def test_finished_random_games_match_sympy(order: str) -> None:
    for seed in range(110):
        state = random_game(seed, order, 2 + seed % 5)
        start = state.sticks[: state.start_count]
        assert not is_groebner_basis(start, order)
        assert all(max(*stick.head, *stick.tail) <= 9 for stick in start)
        assert our_reduced_basis(state) == sympy_reduced_basis(start, order), seed
        # the end: no pair at all adds a stick, picked or not
        assert all(pair_result(state.sticks, i, j, order) is None
                   for j in range(len(state.sticks)) for i in range(j))


@pytest.mark.parametrize("order", ["grevlex", "lex"])
def test_game_continues_exactly_while_some_pair_adds_a_stick(order: str) -> None:
    for seed in range(25):
        rng = random.Random(1000 + seed)
        state = GAME.new_state({"start": format_sticks(random_start(3, order, rng)), "order": order})
        while not state.is_over:
            assert state.adding_pairs(), "a game that is not over must have a pair that adds a stick"
            state = state.apply(rng.choice(state.legal_moves()))
            picked = [pair.indices for pair in state.picked]
            assert all(pair_result(state.sticks, i, j, order) is None for i, j in picked)
        assert state.adding_pairs() == []


@pytest.mark.slow  # equivalence: par against Buchberger's pairs
@pytest.mark.parametrize("order", ["grevlex", "lex"])
def test_playing_buchbergers_pairs_takes_par_turns(order: str) -> None:
    for seed in range(30):
        state = GAME.new_state({"mode": "solitaire", "sticks": 2 + seed % 5, "order": order}, random.Random(seed))
        run = buchberger(state.sticks, order)
        assert state.par_exact and 1 <= state.par <= len(run.productive) <= run.par
        for i, j in run.considered[: run.par]:
            assert not state.is_over
            state = state.apply(Pair.from_indices(i, j))
        assert state.is_over and state.ply == run.par
        assert state.sticks == run.sticks[: len(state.sticks)]


def test_random_start_is_reproducible_and_redrawn_from_bases() -> None:
    first = GAME.new_state({"sticks": 4}, random.Random(7))
    again = GAME.new_state({"sticks": 4}, random.Random(7))
    assert first == again and len(first.sticks) == 4 and not first.is_over
    for seed in range(40):
        state = GAME.new_state({"sticks": 2, "order": "lex"}, random.Random(seed))
        assert not is_groebner_basis(state.sticks, "lex") and len(set(state.sticks)) == 2


# --------------------------------------------------------------------------------------------------------------
# Variants, moves, errors


def test_variant_defaults_and_seats() -> None:
    assert GAME.variant_defaults() == {"mode": "duel", "sticks": 2, "order": "grevlex", "bonus_turn": False,
                                       "start": None}
    assert GAMES["groebner_nim"] is GAME
    assert GAME.seats_for({"mode": "solitaire"}) == 1
    assert GAME.seats_for({}) == GAME.seats_for(None) == 2
    state = GAME.new_state(None, random.Random(0))
    assert state.seats == 2 and state.par is None and state.to_dict()["variant"] == GAME.variant_defaults()
    solo = GAME.new_state({"mode": "solitaire"}, random.Random(0))
    assert solo.seats == 1 and solo.par is not None and solo.scores == (0,)


@pytest.mark.parametrize(
    ("variant", "says"),
    [
        ({"colour": "red"}, "There is no option `colour`"),
        ({"mode": "trio"}, "`mode` must be one of duel, solitaire, not `trio`"),
        ({"sticks": 1}, "`sticks` must be a whole number from 2 to 6"),
        ({"sticks": 7}, "`sticks` must be a whole number from 2 to 6"),
        ({"sticks": True}, "`sticks`"),
        ({"sticks": "3"}, "`sticks`"),
        ({"order": "deglex"}, "`order` must be one of grevlex, lex, not `deglex`"),
        ({"bonus_turn": "yes"}, "`bonus_turn` must be true or false"),
        ({"start": 5}, "`start` must be text"),
    ],
)
def test_invalid_variant_names_the_option(variant: dict, says: str) -> None:
    with pytest.raises(InvalidVariant, match=says):
        GAME.new_state(variant, random.Random(0))
    if "mode" in variant:
        with pytest.raises(InvalidVariant):
            GAME.seats_for(variant)


def test_custom_start_is_stored_canonically() -> None:
    state = GAME.new_state({"start": "x³+1;  xy² - y³", "sticks": 5})
    assert state.variant.start == "x^3 + 1, x*y^2 + y^3"
    assert state.variant.sticks == 2
    assert format_sticks(state.sticks) == state.variant.start


def test_illegal_moves_say_why() -> None:
    state = start_state(VECTORS["games"][2])  # x+y^2, y^3+1 under grevlex: 1-2 adds stick 3
    with pytest.raises(IllegalMove, match="no stick 3; the sticks are numbered 1 to 2"):
        state.play("1-3")
    state = state.play("1-2")
    with pytest.raises(IllegalMove, match=r"1-2 was already picked on turn 1.*e\.g\. 1-3, 2-3"):
        state.play("2-1")
    with pytest.raises(IllegalMove, match="pair of stick numbers"):
        state.apply("1-3")  # type: ignore[arg-type]
    state = state.play("1-3")
    assert state.is_over
    with pytest.raises(IllegalMove, match="game is over"):
        state.play("2-3")
    with pytest.raises(IllegalMove, match="game is over"):
        GAME.computer_move(state, "easy", random.Random(0))


def test_pair_value_rules() -> None:
    assert Pair(1, 3) == Pair.from_indices(2, 0) and Pair(1, 3).indices == (0, 2)
    with pytest.raises(InvalidMove, match="smaller stick number first"):
        Pair(3, 1)
    with pytest.raises(InvalidMove, match="itself"):
        Pair(2, 2)


def test_bonus_turn_keeps_the_seat_only_after_adding() -> None:
    state = start_state(VECTORS["games"][2], bonus_turn=True)
    state = state.play("1-2")
    assert state.current_seat == 0 and state.scores == (3, 0)
    state = state.play("2-3")  # reduces to nothing: the turn passes
    assert state.current_seat == 1 and state.scores == (3, 0)
    plain = start_state(VECTORS["games"][2]).play("1-2")
    assert plain.current_seat == 1


# --------------------------------------------------------------------------------------------------------------
# Serialisation


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    count=st.integers(2, 6),
    order=st.sampled_from(["grevlex", "lex"]),
    mode=st.sampled_from(["duel", "solitaire"]),
    bonus=st.booleans(),
    plies=st.integers(0, 40),
)
def test_random_play_through_round_trips(seed: int, count: int, order: str, mode: str, bonus: bool,
                                         plies: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state({"sticks": count, "order": order, "mode": mode, "bonus_turn": bonus}, rng)
    for _ in range(plies):
        if state.is_over:
            break
        move = rng.choice(state.legal_moves())
        assert state.parse_move(state.format_move(move)) == move
        state = state.apply(move)
        data = json.loads(json.dumps(state.to_dict()))
        assert data["game"] == "groebner_nim" and data["ply"] == state.ply
        assert GAME.load(data) == state
    assert state.is_over == (state.outcome is not None) == state.is_basis()
    if state.is_over:
        assert our_reduced_basis(state) == sympy_reduced_basis(state.sticks[: state.start_count], order)


def tampered(change) -> dict:
    state = start_state(VECTORS["games"][2]).play("1-2").play("2-3")
    data = json.loads(json.dumps(state.to_dict()))
    assert GroebnerNimState.from_dict(data) == state
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(game="chopsticks"), "not a groebner_nim state"),
        (lambda d: d.pop("sticks"), "lacks sticks"),
        (lambda d: d["variant"].update(order="plex"), "Invalid variant"),
        (lambda d: d["variant"].pop("bonus_turn"), "exactly the options"),
        (lambda d: d["variant"].update(start="x+y^2, y^3+1"), "canonical"),
        (lambda d: d["start_sticks"].__setitem__(0, [[0, 3], [1, 1]]), "differ from the custom start"),
        (lambda d: d["sticks"][2].__setitem__(1, [0, 1]), "stored `sticks`"),
        (lambda d: d.update(scores=[0, 3]), "stored `scores`"),
        (lambda d: d.update(current_seat=1), "stored `current_seat`"),
        (lambda d: d.update(added=[3, 4]), "stored `added`"),
        (lambda d: d.update(ply=5), "stored `ply`"),
        (lambda d: d.update(is_basis=True), "stored `is_basis`"),
        (lambda d: d["picked"].append("1-2"), "already picked"),
        (lambda d: d["picked"].append("1-9"), "no stick 9"),
        (lambda d: d["picked"].append("seven"), "not a pair"),
        (lambda d: d.update(picked="1-2"), "list of pairs"),
        (lambda d: d["picked"].extend(["1-3", "1-2"]), "game is over"),
    ],
)
def test_impossible_states_are_rejected(change, says: str) -> None:
    with pytest.raises(InvalidState, match=says):
        GroebnerNimState.from_dict(tampered(change))


def random_start_data(sticks: list) -> dict:
    state = GAME.new_state({"sticks": 2}, random.Random(3))
    data = state.to_dict()
    data["start_sticks"] = data["sticks"] = sticks
    return data


@pytest.mark.parametrize(
    ("sticks", "says"),
    [
        ([[[10, 0], [0, 1]], [[2, 2], [0, 3]]], "coordinates 0 to 9"),
        ([[[0, 3], [3, 0]], [[2, 2], [0, 1]]], "head second"),
        ([[[3, 0], [3, 0]], [[2, 2], [0, 1]]], "two equal points"),
        ([[[3, 0], [-1, 0]], [[2, 2], [0, 1]]], "non-negative"),
        ([[[3, 0], [0, 0]]], "2 start sticks"),
        ([[[0, 3], [0, 1]], [[3, 0], [1, 0]]], "already form a Gröbner basis"),
        ([[[3, 0], [0, 0]], [[3, 0], [0, 0]]], "same"),
        ("x^3+1", "must be a list"),
        ([[3, 0]], "is not a stick"),
    ],
)
def test_impossible_random_starts_are_rejected(sticks: list, says: str) -> None:
    with pytest.raises(InvalidState, match=says):
        GroebnerNimState.from_dict(random_start_data(sticks))


def test_state_is_immutable() -> None:
    state = start_state(VECTORS["games"][0])
    with pytest.raises(AttributeError):
        state.sticks = ()  # type: ignore[misc]
    assert state.play("1-2") != state and len(state.sticks) == 2


# --------------------------------------------------------------------------------------------------------------
# Computer players


@pytest.mark.slow  # strength: every level's searches played out twice
@pytest.mark.parametrize("mode", ["duel", "solitaire"])
def test_computer_levels_play_legal_moves_deterministically(mode: str, search_without_cpu_cap: None) -> None:
    for seed in range(4):
        state = GAME.new_state({"mode": mode, "sticks": 3, "order": "lex"}, random.Random(seed))
        for level in ("easy", "medium", "hard"):
            move = GAME.computer_move(state, level, random.Random(seed))
            assert move in state.legal_moves()
            assert GAME.computer_move(state, level, random.Random(seed)) == move
            if level != "easy":
                assert state.preview(move) is not None
    with pytest.raises(ValueError, match="Unknown level"):
        GAME.computer_move(state, "expert", random.Random(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("order", ["grevlex", "lex"])
def test_hard_solitaire_plays_par(order: str) -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new_state({"mode": "solitaire", "sticks": 2 + seed % 4, "order": order}, rng)
        assert state.par_exact
        while not state.is_over:
            state = state.apply(GAME.computer_move(state, "hard", rng))
        assert state.ply == state.par
        assert state.outcome is not None and state.outcome.scores == (state.par,)
        assert state.par_text() == f"par {state.par}"


def test_solitaire_plan_completes_the_basis() -> None:
    for seed in range(6):
        state = GAME.new_state({"mode": "solitaire", "sticks": 4}, random.Random(seed))
        plan = solitaire_plan(state.sticks, "grevlex", nodes=300)
        for pair in plan:
            state = state.apply(Pair.from_indices(*pair))
            assert state.added[-1] is not None
        assert state.is_over


@pytest.mark.slow  # strength: hard against easy, played out
def test_hard_duel_beats_easy_more_often_than_not() -> None:
    margin = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new_state({"sticks": 2}, rng)
        hard_seat = seed % 2
        while not state.is_over:
            level = "hard" if state.current_seat == hard_seat else "easy"
            state = state.apply(GAME.computer_move(state, level, rng))
        margin += state.scores[hard_seat] - state.scores[1 - hard_seat]
    assert margin > 0


def test_a_solitaire_stored_before_exact_par_loads_with_its_par() -> None:
    """Par is fixed when a match starts: a state stored when par was Buchberger's count (no ``par_exact``) keeps
    that par as an upper bound instead of failing to load."""
    state = GAME.new_state({"mode": "solitaire"}, random.Random(5))
    state = state.apply(GAME.computer_move(state, "easy", random.Random(1)))
    legacy = state.to_dict()
    del legacy["par_exact"]
    legacy["par"] = state.par + 3  # the old par, larger than the exact one
    loaded = GAME.load(legacy)
    assert (loaded.par, loaded.par_exact) == (state.par + 3, False)
    assert "par ≤" in loaded.par_text()


def test_a_duel_with_a_par_is_refused() -> None:
    data = GAME.new_state({}, random.Random(5)).to_dict()
    data["par"] = 4
    with pytest.raises(InvalidState, match="no par"):
        GAME.load(data)
