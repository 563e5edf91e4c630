"""Chopsticks benchmarks: a full retrograde solve of every rule set (target <= 50 ms each) and a hard computer
move (the board render is in bench_boards)."""

from __future__ import annotations

import random

from bench._timing import Row, measure_ms, timed_row, value_row
from games.chopsticks import GAME
from games.chopsticks.computer import solve, solve_uncached
from games.chopsticks.rules import Variant

SOLVE_LIMIT_MS = 50.0


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
    solve(Variant())
    start = GAME.new_state()
    rng = random.Random(0)
    rows.append(timed_row("chopsticks hard move (solution cached)",
                          lambda: GAME.computer_move(start, "hard", rng), repeat=50))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
