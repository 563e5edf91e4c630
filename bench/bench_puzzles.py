"""Puzzle benchmarks, per game: examining a position of the computer's self-play (is it a puzzle? the generator's
work per position, and the bound ``napkin puzzles generate`` keeps), and proving a shipped puzzle again (what serving
one costs when it is checked first; target: median <= 100 ms, so that the whole shipped set is proven again in well
under a minute), with the puzzles found per self-play match."""

from __future__ import annotations

import statistics
import time

from bench._timing import Row, percentile, value_row
from games.puzzles import RULES, Source, find_puzzle, shipped, verify
from games.puzzles.generate import self_play

VERIFY_LIMIT_MS = 100.0
MATCHES = 6
"""Self-play matches per game whose positions are examined."""
SEED = "bench"


def _rows_examine(key: str) -> list[Row]:
    rules = RULES[key]
    times: list[float] = []
    found = 0
    for match in range(MATCHES):
        for state, _ in self_play(key, SEED, match):
            if not rules.in_range(state):
                continue
            started = time.process_time()
            puzzle = find_puzzle(key, state, Source("self-play", state.ply, SEED, match))
            times.append((time.process_time() - started) * 1000.0)
            found += puzzle is not None
    if not times:
        return [value_row(f"puzzles {key}: examine one self-play position", float("nan"), "ms",
                          note="no position in range")]
    return [
        Row(f"puzzles {key}: examine one self-play position (CPU)", statistics.median(times), min(times), max(times),
            "ms", note=f"n={len(times)} positions of {MATCHES} matches; p90 {percentile(times, 0.9):.1f} ms"),
        value_row(f"puzzles {key}: puzzles found per self-play match", found / MATCHES, "puzzles"),
    ]


def _verify_times(key: str) -> list[float]:
    """CPU milliseconds to prove each shipped puzzle of ``key`` again (every one must hold)."""
    times: list[float] = []
    for puzzle in shipped():
        if puzzle.game != key:
            continue
        started = time.process_time()
        reason = verify(puzzle)
        times.append((time.process_time() - started) * 1000.0)
        assert reason is None, (puzzle.id, reason)
    return times


def run() -> list[Row]:
    """Return the benchmark rows (about a minute on an idle machine)."""
    rows: list[Row] = []
    everything = 0.0
    count = 0
    for key in RULES:
        rows += _rows_examine(key)
        times = _verify_times(key)
        everything += sum(times) / 1000.0
        count += len(times)
        median = statistics.median(times)
        rows.append(Row(f"puzzles {key}: prove a shipped puzzle again (CPU)", median, min(times), max(times), "ms",
                        f"<= {VERIFY_LIMIT_MS:g} ms", median <= VERIFY_LIMIT_MS,
                        f"n={len(times)}; all of them {sum(times) / 1000:.1f} s; p99 {percentile(times, 0.99):.0f} ms"))
    rows.append(value_row("puzzles: prove the whole shipped set again (CPU)", everything, "s",
                          note=f"{count} puzzles"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
