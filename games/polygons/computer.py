"""The computer of Polygons & Dots: random play-outs, an exact search of the last segments, and the players.

Rules follow ``seeds/polygons.md``; this module only reads positions built with :mod:`games.polygons.rules`
(which never imports it). The ``hard`` player compares candidate moves by random play-outs to the end (UCB1) and
searches the drawing exactly once at most :data:`HARD_EXACT_LEFT` dots are left to connect; the same play-outs
(:func:`estimate`) and exact search (:func:`exact_value`) serve reviews.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from games.base import Estimate, GameValue, Level
from games.polygons.rules import Connect, Move, Place, Point, PolygonsState, face_sides, line_points, score_sides

HARD_ROLLOUTS_DRAW = 400
"""Random play-outs the ``hard`` computer spends on a drawing move."""
HARD_ROLLOUTS_PLACE = 240
"""Random play-outs the ``hard`` computer spends on a placement move."""
HARD_PLACE_CANDIDATES = 12
"""Lattice points the ``hard`` computer compares when placing a dot."""
HARD_FIRST_CANDIDATES = 16
"""Opening segments the ``hard`` computer compares."""
HARD_EXACT_LEFT = 5
"""With at most this many unconnected dots the ``hard`` computer searches the rest of the game exactly."""
REVIEW_PLAYOUTS = 200
"""Random play-outs behind each estimate of a review (:func:`estimate`)."""


class _Playout:
    """A mutable copy of a position for fast random play-outs (placement, drawing, final score)."""

    __slots__ = ("blocked", "path", "points", "size", "total")

    def __init__(self, state: PolygonsState) -> None:
        self.size = state.size
        self.total = state.total_dots
        self.points = list(state.points)
        self.path = list(state.path)
        self.blocked = set(state.blocked) if state.phase == "place" else set()

    def place(self, point: Point) -> None:
        for other in self.points:
            self.blocked.update(line_points(other, point, self.size))
        self.blocked.add(point)
        self.points.append(point)

    def random_point(self, rng: random.Random) -> Point | None:
        side = self.size + 1
        for _ in range(64):
            point = (rng.randrange(side), rng.randrange(side))
            if point not in self.blocked:
                return point
        free = [(x, y) for x in range(side) for y in range(side) if (x, y) not in self.blocked]
        return rng.choice(free) if free else None

    def finish(self, rng: random.Random) -> tuple[int, int]:
        """Play randomly to the end and return the final ``(odd, even)`` scores."""
        while len(self.points) < self.total:
            point = self.random_point(rng)
            if point is None:
                break
            self.place(point)
        if not self.path:
            self.path = rng.sample(range(len(self.points)), 2)
        used = set(self.path)
        rest = [i for i in range(len(self.points)) if i not in used]
        rng.shuffle(rest)
        self.path.extend(rest)
        return score_sides(face_sides(self.points, self.path, True))


def _value(scores: tuple[int, int], seat: int) -> float:
    """Play-out value for ``seat`` in ``[0, 1]``: win 1, draw 0.5, loss 0, nudged by the margin."""
    margin = scores[seat] - scores[1 - seat]
    base = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
    return 0.9 * base + 0.1 * (0.5 + max(-10, min(10, margin)) / 20)


def _monte_carlo(state: PolygonsState, candidates: Sequence[Move], rollouts: int, rng: random.Random) -> Move:
    """Return the candidate with the best mean play-out value, spreading ``rollouts`` by UCB1."""
    seat = state.current_seat
    assert seat is not None
    children = [state.apply(move) for move in candidates]
    totals = [0.0] * len(candidates)
    visits = [0] * len(candidates)

    def sample(k: int) -> None:
        totals[k] += _value(_Playout(children[k]).finish(rng), seat)
        visits[k] += 1

    for k in range(len(candidates)):
        sample(k)
    for n in range(len(candidates), max(rollouts, len(candidates))):
        log_n = math.log(n)
        k = max(range(len(candidates)), key=lambda i: totals[i] / visits[i] + math.sqrt(1.5 * log_n / visits[i]))
        sample(k)
    best = max(totals[k] / visits[k] for k in range(len(candidates)))
    return candidates[next(k for k in range(len(candidates)) if totals[k] / visits[k] == best)]


def _exact_draw(state: PolygonsState, rng: random.Random) -> Move:
    """Search the rest of the drawing exactly; return a move maximising the mover's final margin."""
    seat = state.current_seat
    assert seat is not None
    points = state.points

    def margin(path: list[int], rest: list[int], mover: int) -> int:
        if not rest:
            odd, even = score_sides(face_sides(points, path, True))
            return (odd - even) if seat == 0 else (even - odd)
        values = []
        for k, dot in enumerate(rest):
            values.append(margin([*path, dot], rest[:k] + rest[k + 1 :], 1 - mover))
        return max(values) if mover == seat else min(values)

    moves = [move for move in state.legal_moves() if isinstance(move, Connect)]
    rest = [i for i in range(len(points)) if i not in set(state.path)]
    values = [margin([*state.path, m.end], [r for r in rest if r != m.end], 1 - seat) for m in moves]
    best = max(values)
    return rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])


def _greedy_draw(state: PolygonsState, rng: random.Random) -> Move:
    """Return the segment that leaves the best (provisional or final) score margin for the mover."""
    seat = state.current_seat
    assert seat is not None
    moves = state.legal_moves()
    if not state.path:
        return rng.choice(moves)
    values = []
    for move in moves:
        odd, even = state.apply(move).scores
        values.append((odd - even) if seat == 0 else (even - odd))
    best = max(values)
    return rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])


def _exact_margin(points: Sequence[Point], path: list[int], mover: int) -> int:
    """The final face margin for ``mover`` (to draw the next segment from the end of ``path``) under perfect play,
    searching every order of the dots left (as :func:`_exact_draw`)."""
    rest = [i for i in range(len(points)) if i not in set(path)]

    def margin(path: list[int], rest: list[int], to_move: int) -> int:
        if not rest:
            odd, even = score_sides(face_sides(points, path, True))
            return odd - even if mover == 0 else even - odd
        values = [margin([*path, dot], rest[:k] + rest[k + 1:], 1 - to_move) for k, dot in enumerate(rest)]
        return max(values) if to_move == mover else min(values)

    return margin(path, rest, mover)


def choose_move(state: PolygonsState, level: Level, rng: random.Random) -> Move:
    """The computer's move for the seat to move of a running ``state`` at ``level``.

    ``easy`` plays a random legal move. ``medium`` places at random and draws the segment that leaves the
    best score margin (provisional faces, or the final faces for the last segment). ``hard`` compares
    candidate moves by random play-outs to the end (UCB1, a fixed number of play-outs, so it is
    deterministic for a seeded ``rng``) and searches the last few segments exactly.
    """
    if state.phase == "place":
        if level != "hard":
            return Place(*rng.choice(state.legal_points()))
        points = state.legal_points()
        candidates = rng.sample(points, min(HARD_PLACE_CANDIDATES, len(points)))
        return _monte_carlo(state, [Place(*p) for p in candidates], HARD_ROLLOUTS_PLACE, rng)
    if level == "easy":
        return rng.choice(state.legal_moves())
    if level == "medium":
        return _greedy_draw(state, rng)
    if state.path and len(state.points) - len(state.path) <= HARD_EXACT_LEFT:
        return _exact_draw(state, rng)
    moves = state.legal_moves()
    if not state.path:
        moves = rng.sample(moves, min(HARD_FIRST_CANDIDATES, len(moves)))
    return _monte_carlo(state, moves, HARD_ROLLOUTS_DRAW, rng)

def exact_value(state: PolygonsState, seat: int) -> GameValue | None:
    """The value of ``state`` for ``seat`` (kind ``"margin"``: the seat's final faces minus the opponent's under
    perfect play) once the path is started and at most :data:`HARD_EXACT_LEFT` dots are left to connect (the
    ``hard`` player's exact search); ``None`` before."""
    if state.phase == "over":
        odd, even = state.scores
        return GameValue("margin", odd - even if seat == 0 else even - odd, 0)
    mover = state.current_seat
    left = len(state.points) - len(state.path)
    if state.phase != "draw" or not state.path or mover is None or left > HARD_EXACT_LEFT:
        return None
    best = _exact_margin(state.points, list(state.path), mover)
    return GameValue("margin", best if seat == mover else -best, left)

def estimate(state: PolygonsState, seat: int, rng: random.Random) -> Estimate:
    """The ``hard`` player's evaluation of ``state`` for ``seat``: the mean final face margin of
    :data:`REVIEW_PLAYOUTS` random play-outs (kind ``"margin"``; a finished game: its margin)."""
    if state.phase == "over":
        odd, even = state.scores
        return Estimate("margin", float(odd - even if seat == 0 else even - odd))
    total = 0
    for _ in range(REVIEW_PLAYOUTS):
        odd, even = _Playout(state).finish(rng)
        total += odd - even if seat == 0 else even - odd
    return Estimate("margin", total / REVIEW_PLAYOUTS)
