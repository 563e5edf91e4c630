"""Grid Game of Differences benchmarks: the ``hard`` move at n = 8 (target: median <= 1 s), the exact solve of
positions with 5 marks left (target <= 1 s each) and, for information, the Monte-Carlo move on the largest grid and
the full solve of the empty 8 x 8 grid (the largest board render is in bench_boards)."""

from __future__ import annotations

import random
import statistics
import time

from bench._timing import Row, measure_ms, timed_row, value_row
from games.differences import GAME
from games.differences.computer import solve
from games.differences.rules import DifferencesState

HARD_LIMIT_MS = 1000.0
SOLVE_LIMIT_MS = 1000.0


def _random_position(n: int, unique: bool, left: int, rng: random.Random) -> DifferencesState:
    state = GAME.new_state({"n": n, "unique": unique})
    while state.n - state.ply > left:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def _hard_game_times(n: int, unique: bool, seed: int) -> list[float]:
    """Milliseconds of every move of a hard-against-hard game (each search starts cold)."""
    rng = random.Random(seed)
    state = GAME.new_state({"n": n, "unique": unique})
    times = []
    while not state.is_over:
        start = time.perf_counter()
        move = GAME.computer_move(state, "hard", rng)
        times.append((time.perf_counter() - start) * 1000.0)
        state = state.apply(move)
    return times


def run() -> list[Row]:
    """Return the benchmark rows (about 20 s on an idle machine)."""
    rows: list[Row] = []
    times: list[float] = []
    first: list[float] = []
    for seed, unique in ((0, False), (1, True), (2, False), (3, True)):
        game = _hard_game_times(8, unique, seed)
        times += game
        first.append(game[0])
    median = statistics.median(times)
    rows.append(Row("differences hard move n=8, every move of 4 games", median, min(times), max(times), "ms",
                    f"<= {HARD_LIMIT_MS:g} ms", median <= HARD_LIMIT_MS,
                    note=f"{len(times)} moves, both scoring variants; exact search from the empty grid"))
    rows.append(Row("differences hard move n=8, empty grid", statistics.median(first), min(first), max(first), "ms",
                    f"<= {HARD_LIMIT_MS:g} ms", statistics.median(first) <= HARD_LIMIT_MS,
                    note="the slowest move of a game (8 marks left)"))

    rng = random.Random(7)
    worst, worst_label = 0.0, ""
    for n in (8, 10, 12, 15):
        for unique in (False, True):
            for _ in range(3):
                state = _random_position(n, unique, 5, rng)
                median_ms = measure_ms(lambda state=state: solve(state), repeat=5)[0]
                if median_ms > worst:
                    squares = " ".join(str(mark.square) for mark in state.marks)
                    worst, worst_label = median_ms, f"n={n} unique={unique} marks {squares}"
    rows.append(value_row("differences exact solve, 5 marks left (worst of 24)", worst, "ms", SOLVE_LIMIT_MS,
                          note=f"median of 5 per position; worst {worst_label}"))
    for unique in (False, True):
        empty = GAME.new_state({"n": 8, "unique": unique})
        rows.append(timed_row(f"differences exact solve, empty 8x8 grid, unique={unique}", lambda empty=empty:
                              solve(empty), repeat=3, note="the whole game: value 0, a draw under perfect play"))

    big = GAME.new_state({"n": 15})
    rows.append(timed_row("differences hard move n=15, empty grid (Monte-Carlo)",
                          lambda: GAME.computer_move(big, "hard", random.Random(0)), repeat=3))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
