"""The busiest boards of each game, for the render benchmarks and the legibility tests: the largest variant,
played well into the game.

Each builder is seeded and returns the same position every time. Names are long on purpose ("Computer 2 (medium)"
is what the bot calls the computer in seat 1), so the panels' name fitting is exercised too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bench._timing import Row, timed_row, value_row
from games import GAMES, State
from games.chopsticks import ChopsticksState

NAMES = ("Alexandria Featherstonehaugh", "Computer 2 (medium)")
"""Long display names: the 32-character limit of Discord comes close, and the computer's name has a suffix."""

GROEBNER_START = "x^20*y^3+y^15, x^17+x^2*y^11, y^20+x^9*y^4, x^14*y^14+x^5, x^19*y^7+y^2, x^3*y^18+x^12*y"
"""Six sticks with exponents up to 20 (the largest custom start the rules accept)."""


def chopsticks() -> State[Any]:
    """A Chopsticks position with a dead hand and the tap arrow that killed it (every board is the same size)."""
    return ChopsticksState.start(None, ((3, 1), (4, 2)), 0).play("LL")


def differences() -> State[Any]:
    """A 15 x 15 grid with 11 of 15 marks placed (both difference lists long, the last mark highlighted)."""
    state = GAMES["differences"].new_state({"n": 15, "unique": True})
    rng = random.Random(3)
    for _ in range(11):
        state = state.apply(rng.choice(list(state.legal_moves())))
    return state


def napkin_chess() -> State[Any]:
    """The largest napkin (60 x 60 units) with a large supply, 70 coins placed by the easy computer."""
    game = GAMES["napkin_chess"]
    state = game.new_state({"width": 60, "height": 60, "coins_2": 60, "coins_3": 40, "coins_4": 30, "hole": True})
    rng = random.Random(6)
    for _ in range(70):
        if state.is_over:
            break
        state = state.apply(game.computer_move(state, "easy", rng))
    return state


def polygons() -> State[Any]:
    """Lattice 0..30 with 10 dots each, played to the end (every dot placed, the closed path drawn)."""
    game = GAMES["polygons"]
    state = game.new_state({"size": 30, "dots": 10})
    rng = random.Random(7)
    while not state.is_over:
        state = state.apply(game.computer_move(state, "easy", rng))
    return state


def groebner_nim() -> State[Any]:
    """Six sticks with exponents up to 20, played by random pairs to the end (the basis panel shown)."""
    state = GAMES["groebner_nim"].new_state({"start": GROEBNER_START, "order": "grevlex"})
    rng = random.Random(4)
    while not state.is_over:
        state = state.apply(rng.choice(list(state.legal_moves())))
    return state


LARGEST: dict[str, Callable[[], State[Any]]] = {
    "chopsticks": chopsticks,
    "differences": differences,
    "napkin_chess": napkin_chess,
    "polygons": polygons,
    "groebner_nim": groebner_nim,
}
"""Game key -> builder of its busiest board."""


RENDER_LIMIT_MS = 10.0
"""Target for one board render (issue: boards within 10 ms and 30 KB on this machine, largest variant)."""
RENDER_LIMIT_KB = 30.0


def render_rows(key: str, render: Callable[..., bytes], what: str) -> list[Row]:
    """The render time and PNG size rows of ``key``'s busiest board (:data:`LARGEST`), drawn by ``render``.

    ``what`` describes the board in the row names (``"15 x 15, 11 marks"``). Time: median of 50 renders.
    """
    state = LARGEST[key]()
    names = NAMES[: state.seats]
    png = render(state, names)
    note = f"{len(png) / 1000:.1f} KB; names {names[0]!r} and {names[-1]!r}"
    return [
        timed_row(f"{key} render, largest board ({what})", lambda: render(state, names), RENDER_LIMIT_MS,
                  repeat=50, note=note),
        value_row(f"{key} render PNG size, largest board ({what})", len(png) / 1000, "KB", RENDER_LIMIT_KB),
    ]
