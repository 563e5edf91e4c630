"""Alt text of every board: present, within Discord's 1,024 characters, naming whose turn it is (or the result), the
score and the last move; and the position in it, read back by the parsers below, is the position itself wherever
it fits whole (over 1,000 random positions of every game, every variant up to its largest)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import renderers
from bench.largest_boards import LARGEST, NAMES
from games import GAMES, Outcome, State, Termination
from games.chopsticks import ChopsticksState
from games.differences import DifferencesState, parse_square
from games.groebner_nim.rules import GroebnerNimState, Pair, Stick, initial_state, read_variant
from games.napkin_chess import NapkinState, parse_move
from games.polygons import PolygonsState
from renderers._alt import ALT_TEXT_LIMIT, Listing, compose
from renderers._common import outcome_text
from renderers.napkin_chess import free_alt_text
from renderers.standings import SWISS_COLUMNS
from renderers.standings import alt_text as standings_alt_text
from tests.renderers.positions import PER_GAME, positions

GAME_KEYS = sorted(LARGEST)
NAME_PAIRS = [("alice", "bob"), NAMES, ("Alexandria Featherstonehaugh Jr.", "W" * 32),
              ("Ἀριστοτέλης Νικολάου-Παπαδόπ", "Zoë: left hand 4, right hand 4.")]
"""Names the positions are said with, in turn: short, long, Discord's longest (32 characters), and a name that
imitates the alt text itself."""


def _names(index: int, seats: int) -> list[str]:
    return list(NAME_PAIRS[index % len(NAME_PAIRS)][:seats])


# ------------------------------------------------------------------------------------------------ parsers


def _after(text: str, pattern: str) -> re.Match[str]:
    match = re.search(pattern, text)
    assert match is not None, f"{pattern!r} not in {text!r}"
    return match


def parse_chopsticks(text: str, names: Sequence[str], state: State[Any]) -> tuple[Any, ...]:
    """The hands per seat, and the seat to move (``None`` once the game is over)."""
    hands = []
    for name in names:
        match = _after(text, re.escape(name) + r": left hand (\d), right hand (\d)\.")
        hands.append((int(match.group(1)), int(match.group(2))))
    seat = next((seat for seat, name in enumerate(names) if f"{name} to move." in text), None)
    return (hands[0], hands[1]), seat


def parse_differences(text: str, names: Sequence[str], state: State[Any]) -> DifferencesState:
    n = int(_after(text, r"on a grid of (\d+) × \1 squares").group(1))
    unique = "only the differences that occur exactly once" in text
    marks = []
    for name in names:
        match = re.search(f"Marks of {re.escape(name)}, in the order placed: ([a-o0-9, ]+)\\.", text)
        marks.append(match.group(1).split(", ") if match else [])
    parsed = GAMES["differences"].new_state({"n": n, "unique": unique})
    for index in range(len(marks[0]) + len(marks[1])):
        parsed = parsed.apply(parse_square(marks[index % 2][index // 2]))
    assert isinstance(parsed, DifferencesState)
    return parsed


def parse_napkin_chess(text: str, names: Sequence[str], state: State[Any]) -> NapkinState:
    width, height = _after(text, r"The napkin is ([\d.]+) by ([\d.]+) units").groups()
    hole = "A hole of radius 1" in text
    left = [int(n) for n in _after(text, r"Supply left: (\d+) of size 2, (\d+) of size 3, (\d+) of size 4").groups()]
    match = re.search(r"newest first: ((?:\d@[\d.]+,[\d.]+(?:; )?)+)\.", text)
    moves = [parse_move(item) for item in reversed(match.group(1).split("; "))] if match else []
    supply = [count + sum(move.size == size for move in moves) for size, count in zip((2, 3, 4), left, strict=True)]
    scoring = "last_mover" if "last player able to place" in text else "points"
    parsed = GAMES["napkin_chess"].new_state({"width": float(width), "height": float(height), "hole": hole,
                                              "coins_2": supply[0], "coins_3": supply[1], "coins_4": supply[2],
                                              "first_coin_two": False, "scoring": scoring})
    for move in moves:
        parsed = parsed.apply(move)
    assert isinstance(parsed, NapkinState)
    return parsed


def parse_polygons(text: str, names: Sequence[str], state: State[Any]) -> PolygonsState:
    size, dots = (int(n) for n in _after(text, r"from 0 to (\d+) in both directions; each player places (\d+)")
                  .groups())
    komi_match = re.search(r"starts with (\d+) faces? of komi", text)
    points: dict[str, tuple[int, int]] = {}
    for name in names:
        match = re.search(f"Dots of {re.escape(name)}: ((?:[A-Z] \\d+,\\d+(?:; )?)+)\\.", text)
        for item in match.group(1).split("; ") if match else []:
            letter, xy = item.split(" ")
            x, y = xy.split(",")
            points[letter] = (int(x), int(y))
    order = sorted(points)
    path_match = re.search(r"Path: ([A-Z](?:-[A-Z])+)\.", text)
    path = tuple(order.index(letter) for letter in path_match.group(1).split("-")) if path_match else ()
    return PolygonsState(size, dots, tuple(points[letter] for letter in order), path,
                         int(komi_match.group(1)) if komi_match else 0)


_TERM = re.compile(r"^(?:1|(?:x(?:\^(\d+))?)?\*?(?:y(?:\^(\d+))?)?)$")


def _point(term: str) -> tuple[int, int]:
    match = _TERM.match(term)
    assert match is not None and term, term
    a = 0 if "x" not in term else int(match.group(1) or 1)
    b = 0 if "y" not in term else int(match.group(2) or 1)
    return a, b


def parse_groebner_nim(text: str, names: Sequence[str], state: State[Any]) -> GroebnerNimState:
    head = _after(text, r"Gröbner Nim board, move \d+: (solitaire|duel with bonus turns|duel), (grevlex|lex) order")
    mode = "solitaire" if head.group(1) == "solitaire" else "duel"
    order = head.group(2)
    start_count = int(_after(text, r"Sticks 1 to (\d+) are the start\.").group(1))
    listed = _after(text, r"Sticks by number, head first: ([^.]+)\.").group(1).split("; ")
    sticks = []
    for number, item in enumerate(listed, start=1):
        label, polynomial = item.split(": ")
        assert int(label) == number
        head_term, tail_term = polynomial.split(" + ")
        sticks.append(Stick(_point(head_term), _point(tail_term)))
    variant, _ = read_variant({"mode": mode, "order": order, "bonus_turn": "bonus turns" in head.group(1),
                               "sticks": max(2, min(6, start_count))})
    assert isinstance(state, GroebnerNimState)
    parsed: GroebnerNimState = initial_state(variant, tuple(sticks[:start_count]), (state.par, state.par_exact))
    picked = re.search(r"Picked pairs in order: ([^.]+)\.", text)
    for item in picked.group(1).split("; ") if picked else []:
        pair, _, rest = item.partition(" ")
        first, second = (int(n) for n in pair.split("-"))
        parsed = parsed.apply(Pair(first, second))
        added = parsed.added[-1]
        assert rest == ("reduced to zero" if added is None else f"added {added}"), (item, added)
    assert parsed.sticks == tuple(sticks)
    return parsed


def _same_groebner(parsed: State[Any], state: State[Any]) -> bool:
    assert isinstance(parsed, GroebnerNimState) and isinstance(state, GroebnerNimState)
    return (parsed.sticks, parsed.picked, parsed.added, parsed.movers, parsed.basis) == \
        (state.sticks, state.picked, state.added, state.movers, state.basis)


def _same_napkin(parsed: State[Any], state: State[Any]) -> bool:
    assert isinstance(parsed, NapkinState) and isinstance(state, NapkinState)
    return (parsed.coins, parsed.supply, parsed.variant.width, parsed.variant.height, parsed.variant.hole_centre) == \
        (state.coins, state.supply, state.variant.width, state.variant.height, state.variant.hole_centre)


def _same_chopsticks(parsed: Any, state: State[Any]) -> bool:
    assert isinstance(state, ChopsticksState)
    return bool(parsed == (state.hands, state.current_seat))


PARSERS: dict[str, tuple[Callable[[str, Sequence[str], State[Any]], Any], Callable[[Any, State[Any]], bool]]] = {
    "chopsticks": (parse_chopsticks, _same_chopsticks),
    "differences": (parse_differences, lambda parsed, state: parsed == state),
    "napkin_chess": (parse_napkin_chess, _same_napkin),
    "polygons": (parse_polygons, lambda parsed, state: parsed == state),
    "groebner_nim": (parse_groebner_nim, _same_groebner),
}
"""Each game's parser of the position part of its alt text, and what "the same position" means for it (the hands and
the seat to move; the grid and its marks in order; the napkin, its coins in order and the supply; the lattice, the
dots and the path; the sticks, the picked pairs and what each added)."""
CUT = re.compile(r"more marks? of|older coins? not|more dots? of|newer sticks? not|later pairs? not")
"""What an alt text says when it leaves out part of the position itself (other listings may be cut too: the
differences of the Grid Game, the faces' sides, the pairs not picked yet)."""


# ------------------------------------------------------------------------------------------------ tests


def _turn(state: State[Any], names: Sequence[str]) -> str:
    if state.outcome is not None:
        if state.game == "groebner_nim" and state.seats == 1:
            return "Basis complete"
        return outcome_text(state.game, names, state.outcome) + "."
    return f"{names[state.current_seat or 0]} to move."


def _mover(state: State[Any]) -> int:
    """The seat that made the last move."""
    if isinstance(state, ChopsticksState):
        return state.positions[-2][1]
    if isinstance(state, PolygonsState):  # dots alternate from seat 0, and so do segments
        return (len(state.path) - 2) % 2 if state.path else (len(state.points) - 1) % 2
    if isinstance(state, GroebnerNimState):  # a bonus turn keeps the mover
        return state.movers[-1] % state.seats
    return (state.ply - 1) % 2


def _score(state: State[Any], names: Sequence[str]) -> str | None:
    scores = state.scores
    if scores is None:
        return None
    if state.seats == 1:
        return f"Turns so far: {scores[0]};"
    return f"Score: {names[0]} {scores[0]}, {names[1]} {scores[1]}."


@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_position_says_the_turn_the_score_the_last_move_and_itself(key: str) -> None:
    parse, same = PARSERS[key]
    whole = 0
    for index, state in enumerate(positions(key)):
        names = _names(index, state.seats)
        text = renderers.alt_text(state, names)
        assert 0 < len(text) <= ALT_TEXT_LIMIT
        assert "\n" not in text
        assert _turn(state, names) in text, (text, _turn(state, names))
        score = _score(state, names)
        assert score is None or score in text, (text, score)
        last = state.last_move
        if last is not None:
            assert f"Last move: {names[_mover(state)]} " in text, text
            assert state.format_move(last) in text, (text, state.format_move(last))
        else:
            assert "Last move" not in text and " yet." in text, text
        if CUT.search(text):
            continue
        whole += 1
        assert same(parse(text, names, state), state), text
    assert whole >= PER_GAME // 2, f"only {whole} positions of {key} fit whole"


@pytest.mark.parametrize("key", GAME_KEYS)
def test_the_largest_boards_fit_and_say_what_they_leave_out(key: str) -> None:
    state = LARGEST[key]()
    text = renderers.alt_text(state, NAMES)
    assert len(text) <= ALT_TEXT_LIMIT
    if key == "napkin_chess":  # 70 coins do not fit: the oldest are left out, and counted
        kept = len(re.search(r"newest first: ([^a-z]+?)\. \d", text).group(1).split("; "))
        assert f"{len(state.coins) - kept} older coins not listed." in text
        assert parse_move(re.search(r"newest first: (\d@[\d.]+,[\d.]+)", text).group(1)) == state.last_move


def test_a_result_by_a_player_is_said_not_the_turn() -> None:
    state = GAMES["chopsticks"].new_state().play("LL")
    outcome = Outcome(1, False, None, Termination.RESIGNED, loser=0)
    text = renderers.alt_text(state, ["Ann", "Bob"], outcome=outcome)
    assert "Ann resigned: Bob wins." in text and "to move" not in text


def test_compose_keeps_the_first_items_and_counts_the_rest() -> None:
    listing = Listing("Items: {items}.", [f"item {n}" for n in range(100)],
                      ("{count} more item.", "{count} more items."))
    text = compose(["Head."], [listing], limit=60)
    kept = text.count("item ")
    assert text == "Head. Items: " + ", ".join(f"item {n}" for n in range(kept)) + f". {100 - kept} more items."
    assert len(text) <= 60 and kept == 4
    assert compose(["Head."], [listing]).count("item ") == 100


def test_other_games_get_the_turn_the_score_and_the_last_move() -> None:
    state = GAMES["tictactoe"].new_state().play("b2")  # the sixth game (tests/extra_games) has no alt_text of its own
    text = renderers.alt_text(state, ["Ann", "Bob"])
    assert text == "Tic-tac-toe board, move 1. Players: Ann, Bob. Bob to move. Last move: b2."


def test_the_free_map_says_where_a_coin_fits_and_the_board() -> None:
    state = GAMES["napkin_chess"].new_state({"preset": "holed"}).play("2@5,5").play("4@20,22")
    text = free_alt_text(state, ["Ann", "Bob"], 4)
    assert text.startswith("Map of where a size 4 coin still fits, shaded green. It fits from x ")
    assert len(text) <= ALT_TEXT_LIMIT and "Ann to move." in text and "4@20,22" in text
    example = re.search(r"for example (4@\d+(?:\.\d+)?,\d+(?:\.\d+)?)", text).group(1)
    assert state.is_legal(parse_move(example))
    full = GAMES["napkin_chess"].new_state({"width": 8, "height": 8, "coins_2": 3}).play("2@4,4")
    assert "it fits nowhere" in free_alt_text(full, ["Ann", "Bob"], 4)


def test_standings_say_every_row_until_the_limit() -> None:
    rows = [[str(n), f"Player number {n}", "3", "4", "6.5", "3", "1512"] for n in range(1, 26)]
    text = standings_alt_text("Spring cup · standings after round 3 of 5", SWISS_COLUMNS, rows)
    assert text.startswith("Standings table: Spring cup · standings after round 3 of 5. 1. Player number 1: Pts 3, "
                           "BH-1 4, SB 6.5, Games 3, Rating 1512;")
    assert len(text) <= ALT_TEXT_LIMIT and text.endswith("more rows not listed.")
    assert standings_alt_text("Cup", SWISS_COLUMNS, []) == "Standings table: Cup. No players yet."
