"""Gröbner Nim benchmarks: the end-of-game test against sympy, the hard computer, the renderer.

Rows:

* end-of-game test after a move (``is_groebner_basis`` on the sticks, skipping picked pairs, as ``apply`` runs
  it) and ``sympy.groebner`` over GF(2) on the same sticks, timed side by side on the same positions, and their
  ratio (target: ours at least 10x faster);
* the hard computer's move time, duel and solitaire (target: median <= 1 s);
* render time (<= 10 ms) and PNG size (<= 30 KB) of the largest board (6 sticks, exponents to 20).
"""

from __future__ import annotations

import random
import statistics
import time

from bench._timing import Row, timed_row, value_row
from bench.largest_boards import render_rows
from games.groebner_nim import GAME, GroebnerNimState, is_groebner_basis
from renderers.groebner_nim import render


def _positions(count: int) -> list[GroebnerNimState]:
    """Seeded positions right after a move (both orders, 2–6 start sticks); every third game is played out."""
    positions = []
    for seed in range(count):
        rng = random.Random(seed)
        order = ("grevlex", "lex")[seed % 2]
        state = GAME.new_state({"sticks": 2 + seed % 5, "order": order}, rng)
        for _ in range(rng.randint(1, 6) if seed % 3 else 10**4):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_moves()))
        positions.append(state)
    return positions


def _end_test_rows() -> list[Row]:
    import sympy  # test/bench-only dependency

    x, y = sympy.symbols("x y")
    positions = _positions(24)
    polys = [
        [x**s.head[0] * y**s.head[1] + x**s.tail[0] * y**s.tail[1] for s in state.sticks] for state in positions
    ]
    picked = [[pair.indices for pair in state.picked] for state in positions]

    def ours() -> None:
        for state, done in zip(positions, picked, strict=True):
            is_groebner_basis(state.sticks, state.variant.order, done)

    def theirs() -> None:
        for state, generators in zip(positions, polys, strict=True):
            sympy.groebner(generators, x, y, modulus=2, order=state.variant.order)

    finished = sum(state.is_over for state in positions)
    note = f"{finished} of {len(positions)} positions are finished games (a full check)"
    ours_row = timed_row("groebner_nim end test, 24 positions", ours, repeat=15, note=note)
    sympy_row = timed_row("sympy.groebner, same 24 positions", theirs, repeat=5, note=note)
    ratio = sympy_row.median / ours_row.median
    return [ours_row, sympy_row,
            value_row("groebner_nim end test speed-up vs sympy", ratio, "x", limit=10, at_least=True)]


def _row(name: str, samples: list[float], note: str) -> Row:
    median = statistics.median(samples)
    return Row(name, median, min(samples), max(samples), "ms", "<= 1000 ms", median <= 1000, note)


def _hard_rows() -> list[Row]:
    duel = []
    for seed in range(6):
        rng = random.Random(100 + seed)
        state = GAME.new_state({"sticks": 4, "order": ("grevlex", "lex")[seed % 2]}, rng)
        for _ in range(4):
            if state.is_over:
                break
            start = time.perf_counter()
            move = GAME.computer_move(state, "hard", rng)
            duel.append((time.perf_counter() - start) * 1000.0)
            state = state.apply(move)
    solitaire = []
    for seed in range(12):
        rng = random.Random(200 + seed)
        state = GAME.new_state({"mode": "solitaire", "sticks": 6, "order": ("grevlex", "lex")[seed % 2]}, rng)
        start = time.perf_counter()
        GAME.computer_move(state, "hard", rng)  # first move of a new start: the plan is searched, not cached
        solitaire.append((time.perf_counter() - start) * 1000.0)
    return [
        _row("groebner_nim hard move (duel, 4 sticks)", duel, f"{len(duel)} moves in 6 games"),
        _row("groebner_nim hard first move (solitaire, 6 sticks)", solitaire, "12 starts; later moves reuse the plan"),
    ]


def _render_rows() -> list[Row]:
    return render_rows("groebner_nim", render, "6 sticks, exponents to 20, finished")


def run() -> list[Row]:
    """Return the Gröbner Nim benchmark rows (about 15 s)."""
    return [*_end_test_rows(), *_hard_rows(), *_render_rows()]


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
