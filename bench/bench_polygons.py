"""Polygons & Dots benchmarks: exact face scoring of a closed path through 10, 20 and 30 dots (target at 20 dots:
median <= 50 ms) with its growth rate, the computer's scorer of closed paths in its exact search, and the ``hard``
move in both phases (target: median <= 1 s); the largest board render is in bench_boards."""

from __future__ import annotations

import math
import random
import statistics
import time

from bench._timing import Row, measure_ms, timed_row, value_row
from games.polygons import GAME, computer
from games.polygons.rules import face_sides, faces_of_path, score_sides

SCORING_LIMIT_MS = 50.0
HARD_LIMIT_MS = 1000.0
DRAWINGS = 5
"""Random drawings per dot count."""


def _random_drawing(count: int, size: int, rng: random.Random) -> tuple[list[tuple[int, int]], list[int]]:
    """``count`` random lattice points with no three collinear and a random closed path through them."""
    points: list[tuple[int, int]] = []
    while len(points) < count:
        p = (rng.randrange(size + 1), rng.randrange(size + 1))
        if p in points:
            continue
        if any((b[0] - a[0]) * (p[1] - a[1]) == (b[1] - a[1]) * (p[0] - a[0])
               for i, a in enumerate(points) for b in points[i + 1:]):
            continue
        points.append(p)
    return points, rng.sample(range(count), count)


def _star(count: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Points in convex position (on a parabola) joined as a star: close to the most crossings possible."""
    step = count // 2 - 1 if count % 2 == 0 else count // 2
    while math.gcd(step, count) != 1:
        step -= 1
    points = [(i, i * i) for i in range(count)]
    return points, [(i * step) % count for i in range(count)]


def _search_scorer_us(rng: random.Random) -> list[float]:
    """Microseconds a closed path of 10 dots (0..15) takes in the exact search's scorer, once the drawing has met
    its segments: the median of 5 runs over 2,000 random paths, for each of :data:`DRAWINGS` placements."""
    medians = []
    for _ in range(DRAWINGS):
        points, _path = _random_drawing(10, 15, rng)
        drawing = computer.endgame(points).drawing
        paths = [rng.sample(range(10), 10) for _ in range(2000)]
        for path in paths[:300]:
            drawing.margin(path)
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            for path in paths:
                drawing.margin(path)
            runs.append((time.perf_counter() - start) / len(paths) * 1e6)
        medians.append(statistics.median(runs))
    return medians


def _hard_times(variant: dict[str, int], seed: int) -> dict[str, list[float]]:
    """Milliseconds of every hard move of a hard-against-medium game, by phase."""
    rng = random.Random(seed)
    state = GAME.new_state(variant)
    times: dict[str, list[float]] = {"place": [], "draw": []}
    while not state.is_over:
        if state.current_seat == seed % 2:
            start = time.perf_counter()
            move = GAME.computer_move(state, "hard", rng)
            times[state.phase].append((time.perf_counter() - start) * 1000.0)
        else:
            move = GAME.computer_move(state, "medium", rng)
        state = state.apply(move)
    return times


def run() -> list[Row]:
    """Return the benchmark rows (about 25 s on an idle machine)."""
    rows: list[Row] = []
    rng = random.Random(20)
    medians: dict[int, float] = {}
    for count in (10, 20, 30):
        samples, faces = [], []
        for _ in range(DRAWINGS):
            points, path = _random_drawing(count, 30, rng)
            samples.append(measure_ms(lambda p=points, q=path: score_sides(face_sides(p, q)), repeat=10)[0])
            faces.append(len(faces_of_path(points, path)))
        medians[count] = statistics.median(samples)
        limit = SCORING_LIMIT_MS if count == 20 else None
        rows.append(Row(f"polygons face scoring, {count} dots (exact)", medians[count], min(samples), max(samples),
                        "ms", "" if limit is None else f"<= {limit:g} ms",
                        None if limit is None else medians[count] <= limit,
                        note=f"random closed paths on 0..30, {DRAWINGS} drawings, median {statistics.median(faces):g} "
                             "faces"))
    growth = math.log(medians[30] / medians[10]) / math.log(3)
    rows.append(value_row("polygons face scoring growth exponent (10 -> 30 dots)", growth, "k",
                          note=f"time ~ n^{growth:.2f}: the segment pairs are O(n^2), the arrangement O((n + X) log) "
                               "for X crossings (X ~ n^2 / 5 for random paths, n^2 / 2 at most)"))
    for count in (20, 30):
        points, path = _star(count)
        faces = len(faces_of_path(points, path))
        rows.append(timed_row(f"polygons face scoring, {count}-dot star (most crossings)",
                              lambda p=points, q=path: score_sides(face_sides(p, q)), repeat=10,
                              limit_ms=SCORING_LIMIT_MS if count == 20 else None,
                              note=f"points on a parabola joined with step ~n/2: {faces} faces"))

    scorer = _search_scorer_us(rng)
    rows.append(Row("polygons exact search: a closed path of 10 dots scored", statistics.median(scorer), min(scorer),
                    max(scorer), "us", note=f"{DRAWINGS} placements on 0..15, 2,000 random closed paths each, the "
                                            "search's scorer (crossings found by each segment's mask)"))
    for dots, seeds in ((5, (0, 1)), (10, (2, 3))):
        times: dict[str, list[float]] = {"place": [], "draw": []}
        for seed in seeds:
            for phase, values in _hard_times({"size": 15, "dots": dots}, seed).items():
                times[phase] += values
        for phase, values in times.items():
            median = statistics.median(values)
            rows.append(Row(f"polygons hard move, {dots} dots each, {phase} phase", median, min(values), max(values),
                            "ms", f"<= {HARD_LIMIT_MS:g} ms", median <= HARD_LIMIT_MS,
                            note=f"{len(values)} moves of 2 games against medium"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
