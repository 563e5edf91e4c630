"""The busiest boards of each game, for the render benchmarks and the legibility tests: the largest variant,
played well into the game.

Each builder is seeded and returns the same position every time. Names are long on purpose ("Computer 2 (medium)"
is what the bot calls the computer in seat 1), so the panels' name fitting is exercised too.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import renderers
from bench._timing import Row, value_row
from games import GAMES, State
from games.chopsticks import ChopsticksState
from renderers._common import PNG_COMPRESS_LEVEL, to_png

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
"""Most milliseconds one render of a game's largest board may take (median, wall time; the issue's budget). The CPU
time of the same renders is held to it too, in a row of its own: on a shared machine the wall time also counts what
other processes took."""
RENDER_LIMIT_KB = 30.0
"""Most kilobytes (1,000 bytes) the PNG of a game's largest board may take."""
RENDER_ROUNDS = 60
"""Renders of each largest board (interleaved: one of each game per round, so that the machine's load falls on
all of them alike)."""

DESCRIBED = {
    "chopsticks": "a dead hand, the tap arrow",
    "differences": "15 x 15, 11 of 15 marks",
    "napkin_chess": "60 x 60 napkin, 70 coins",
    "polygons": "lattice 30, 20 dots, finished",
    "groebner_nim": "6 sticks, exponents to 20, finished",
}
"""The largest boards in the row names."""


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} / {five:.1f}"


def board_rows(rounds: int = RENDER_ROUNDS) -> list[Row]:
    """Render time and PNG size of every game's busiest board (:data:`LARGEST`), each next to its anchor.

    Every timed render starts from a fresh copy of the state (``from_dict`` of its ``to_dict``, made before the
    clock starts), so nothing the state caches (Polygons' faces) is reused. The anchor, timed in the same rounds,
    is the PNG encoding alone of the same board: what no drawing can save, and how fast the machine was at that
    moment. The machine is shared, so each row gives the median with the minimum (the render undisturbed) and the
    maximum, and the load average at the start and at the end; a row of its own gives the CPU time of the same
    renders (``time.process_time``: what the render costs, whatever else runs), held to the same budget.
    """
    boards = {key: build() for key, build in LARGEST.items()}
    names = {key: NAMES[: state.seats] for key, state in boards.items()}
    drawn = {key: renderers.draw_board(state, names[key]) for key, state in boards.items()}
    levels = {key: getattr(renderers.renderer_for(key), "PNG_LEVEL", PNG_COMPRESS_LEVEL) for key in boards}
    times: dict[str, list[float]] = {key: [] for key in boards}
    cpu: dict[str, list[float]] = {key: [] for key in boards}
    anchors: dict[str, list[float]] = {key: [] for key in boards}
    for key, state in boards.items():  # warm: fonts, text masks, palettes
        renderers.render(type(state).from_dict(state.to_dict()), names[key])
    load_before = _load()
    for _ in range(rounds):
        for key, state in boards.items():
            fresh = type(state).from_dict(state.to_dict())
            began, began_cpu = time.perf_counter(), time.process_time()
            renderers.render(fresh, names[key])
            times[key].append((time.perf_counter() - began) * 1000)
            cpu[key].append((time.process_time() - began_cpu) * 1000)
            began = time.perf_counter()
            to_png(drawn[key], levels[key])
            anchors[key].append((time.perf_counter() - began) * 1000)
    load_after = _load()
    rows = []
    for key, state in boards.items():
        png = renderers.render(state, names[key])
        samples, anchor, used = times[key], anchors[key], cpu[key]
        median = statistics.median(samples)
        loads = (f"load average (1 / 5 min) {load_before} at the start, {load_after} at the end, on "
                 f"{os.cpu_count()} CPUs")
        rows.append(Row(
            f"{key} render, largest board ({DESCRIBED[key]})", median, min(samples), max(samples), "ms",
            f"<= {RENDER_LIMIT_MS:g} ms", median <= RENDER_LIMIT_MS,
            f"wall time, p50 of {rounds} renders, min {min(samples):.2f} ms; anchor, the PNG encoding alone (zlib "
            f"level {levels[key]}): p50 {statistics.median(anchor):.2f} ms, min {min(anchor):.2f} ms; {loads}"))
        cpu_median = statistics.median(used)
        rows.append(Row(
            f"{key} render CPU time, largest board", cpu_median, min(used), max(used), "ms",
            f"<= {RENDER_LIMIT_MS:g} ms", cpu_median <= RENDER_LIMIT_MS,
            f"time.process_time of the same {rounds} renders: what a render costs, whatever else the machine runs"))
        rows.append(value_row(f"{key} render PNG size, largest board ({DESCRIBED[key]})", len(png) / 1000, "KB",
                              RENDER_LIMIT_KB, note=f"names {names[key][0]!r} and {names[key][-1]!r}"))
    return rows
