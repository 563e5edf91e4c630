"""Chopsticks benchmarks: a full retrograde solve of every rule set (target <= 50 ms each), the board render
(target <= 20 ms and <= 100 KB) and a hard computer move."""

from __future__ import annotations

import random

from bench._timing import Row, measure_ms, timed_row, value_row
from games.chopsticks import GAME, ChopsticksState, Variant, solve, solve_uncached
from renderers.chopsticks import render

SOLVE_LIMIT_MS = 50.0
RENDER_LIMIT_MS = 20.0
RENDER_LIMIT_BYTES = 100_000


def _sample_state() -> ChopsticksState:
    """A mid-game position with a dead hand and a tap arrow (the busiest board)."""
    return ChopsticksState.start(None, ((3, 1), (4, 2)), 0).play("LL")


def run() -> list[Row]:
    """Return the benchmark rows (about 10 s on an idle machine)."""
    rows: list[Row] = []
    medians = {}
    for variant in Variant.every():
        medians[variant] = measure_ms(lambda variant=variant: solve_uncached(variant), repeat=5)[0]
    slowest = max(medians, key=medians.__getitem__)
    rows.append(value_row(
        "chopsticks full solve, max over 48 rule sets", medians[slowest], "ms", SOLVE_LIMIT_MS,
        note=f"median of 5 per rule set; fastest {min(medians.values()):.1f} ms; slowest {slowest.to_dict()}",
    ))
    rows.append(timed_row("chopsticks full solve, default rules", lambda: solve_uncached(Variant()), SOLVE_LIMIT_MS,
                          repeat=10))
    state = _sample_state()
    names = ("alice", "bob")
    rows.append(timed_row("chopsticks render", lambda: render(state, names), RENDER_LIMIT_MS, repeat=30))
    rows.append(value_row("chopsticks render size", len(render(state, names)), "bytes", RENDER_LIMIT_BYTES))
    solve(Variant())
    start = GAME.new_state()
    rng = random.Random(0)
    rows.append(timed_row("chopsticks hard move (solution cached)",
                          lambda: GAME.computer_move(start, "hard", rng), repeat=50))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
