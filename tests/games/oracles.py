"""Reference implementations that the game tests check the production code against: plain, slow or built on
another library, and used by tests only (none of them ships in ``games/``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import shapely

from games.differences.computer import solve
from games.differences.rules import DifferencesState, Square
from games.errors import IllegalMove
from games.polygons.rules import Point, face_sides, score_sides


def differences_best_moves(state: DifferencesState) -> tuple[int, list[Square]]:
    """``(solve(state), every legal move that keeps that value)``, the moves by column then row: one exact solve per
    legal move.

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(f"The game is over: all {state.n} marks are placed.")
    value = solve(state)
    return value, [move for move in state.legal_moves() if solve(state.apply(move)) == value]


def faces_by_shapely(
    points: Sequence[Point], path: Sequence[int], closed: bool = True, grid_size: float = 1e-9
) -> list[tuple[int, float]]:
    """Return ``(sides, area)`` of every bounded face, computed in floating point with shapely.

    The segments are noded by :func:`shapely.unary_union` (snap-rounded to ``grid_size`` so that segments
    meeting at one point meet at one node) and the faces built by :func:`shapely.polygonize`; the sides of a
    face are the turning vertices of its exterior and interior rings: the cross-check of
    :func:`games.polygons.rules.faces_of_path`.
    """
    pairs = [(path[i], path[i + 1]) for i in range(len(path) - 1)]
    if closed and len(path) >= 3:
        pairs.append((path[-1], path[0]))
    if not pairs:
        return []
    lines = [shapely.LineString([points[a], points[b]]) for a, b in pairs]
    noded = shapely.unary_union(lines, grid_size=grid_size)
    polygons = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
    result = []
    for polygon in polygons:
        rings = [polygon.exterior, *polygon.interiors]
        sides = sum(_turns(list(ring.coords)[:-1]) for ring in rings)
        result.append((sides, float(polygon.area)))
    return result


def _turns(ring: list[tuple[float, float]]) -> int:
    """Count the vertices of a closed ring where the direction changes.

    The relative tolerance is 1e-6: snap-rounding moves a node by up to ``grid_size``, which bends a boundary
    that runs straight through it (where a dangling segment of an open path meets it) by about 1e-9, while two
    different segments between lattice points (coordinates up to 30) meet at a sine of at least 1/1800.
    """
    count = 0
    n = len(ring)
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = ring[i - 1], ring[i], ring[(i + 1) % n]
        ax, ay, bx, by = x1 - x0, y1 - y0, x2 - x1, y2 - y1
        if abs(ax * by - ay * bx) > 1e-6 * math.hypot(ax, ay) * math.hypot(bx, by):
            count += 1
    return count


def polygons_margin(points: Sequence[Point], path: Sequence[int], mover: int) -> int:
    """The final face margin for ``mover`` (to draw the next segment from the end of ``path``) under perfect play:
    plain minimax over every order of the dots left, each closed path scored by the rules'
    :func:`games.polygons.rules.face_sides` (the cross-check of the computer's exact search)."""
    rest = [i for i in range(len(points)) if i not in set(path)]

    def margin(path: list[int], rest: list[int], to_move: int) -> int:
        if not rest:
            odd, even = score_sides(face_sides(points, path, True))
            return odd - even if mover == 0 else even - odd
        values = [margin([*path, dot], rest[:k] + rest[k + 1:], 1 - to_move) for k, dot in enumerate(rest)]
        return max(values) if to_move == mover else min(values)

    return margin(list(path), rest, mover)
