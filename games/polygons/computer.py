"""The computer of Polygons & Dots: an exact search of the drawing, a search over sampled futures for the dots, the
players.

Rules follow ``seeds/polygons.md``; this module only reads positions built with :mod:`games.polygons.rules`
(which never imports it).

* **The exact search** (:class:`_Endgame`): alpha-beta on the final face margin over every order of the dots left to
  connect (the odd side's longest segments tried first, the even side's shortest), with a table of proven bounds,
  scoring each closed path with a scorer that precomputes every crossing of the position's segments once
  (:class:`_Drawing`, the same faces as the rules, about five times faster). One search object is kept per set of dots
  in a small per-process table (:func:`endgame`, the 32 most recently used), so the moves of one match and its review
  share what each proved. Only proven bounds are kept, so the table changes how fast a value is found and never which
  move is chosen: a move is the same for a seed whichever process computes it, with a warm table or a cold one. The
  ``hard`` player searches exactly once the path is started and at most :data:`EXACT_LEFT` dots are left to connect (8
  of the default 10 dots: the whole drawing but the first segment), a fixed threshold, so it too is the same in every
  process. Where that covers the drawing after the first segment, the first segment too is searched exactly, within a
  budget of closed paths (:func:`_first_segment`, on a fresh search so that the budget, and the move, never depend on
  the table). Among segments of equal value ``hard`` keeps the one a fallible opponent most likely answers badly: from 8
  dots left, the one worth most against a random drawer by an expectimax over its best segments (:func:`_swindle`).
* **The placement search** (:func:`_placement`): sequential halving over the legal points, each judged by the
  mover's mean face margin over sampled futures (the dots left placed at random, then a random closed path), every
  point on the same futures (common random numbers), so that two points are compared pair by pair. The mean margin
  of random paths follows the exact value of the drawing closely (both fall as dots leave the convex hull); a
  single play-out does not, which is why the tree search below no longer places dots.
* **Monte-Carlo tree search** (:func:`_mcts`) for the first segment of larger drawings (more than 10 dots, where the
  exact search starts later): UCT over the moves, children added by
  progressive widening, play-outs that draw at random and finish the last :data:`PLAYOUT_EXACT_LEFT` dots by the
  exact search (exact leaves), a play-out worth 1 for a win, ½ for a draw, nudged by the margin.

Budgets are counts (futures, closed paths, play-outs) fixed per level, so a seeded move is reproducible on every
machine; ``make bench`` times them. A cap of :data:`HARD_CPU_SECONDS` of CPU on the first segment and on the swindle
is a backstop their budgets normally end before: it keeps a slow machine within a second.
"""

from __future__ import annotations

import math
import random
import time
from collections import OrderedDict
from collections.abc import Sequence

from games.polygons.rules import (
    Connect,
    Move,
    Place,
    Point,
    PolygonsState,
    collinear,
    face_sides,
    line_points,
    score_sides,
)
from games.search import Level
from games.values import Estimate, GameValue

HARD_PLAYOUTS = 400
"""Play-outs of the ``hard`` player's tree search of the first segment with 10 dots in all (with more dots,
proportionally fewer: :func:`hard_playouts`)."""
PLACEMENT_SAMPLES = 4000
"""Futures (the dots left placed at random and a random closed path) the ``hard`` player's placement search scores
per dot placed with 10 dots in all, over all its candidates (:func:`placement_samples` beyond)."""
PLAYOUT_EXACT_LEFT = 3
"""A play-out draws at random until this many dots are left to connect, then finishes by the exact search."""
WIDENING = 2.0
"""Progressive widening: a node with ``n`` visits has at most ``WIDENING * sqrt(n)`` children (at least 2)."""
UCT_C = 0.7
"""The exploration constant of the tree search (rewards in [0, 1])."""
FIRST_SEGMENT_LEAVES = 45_000
"""Closed paths the ``hard`` player's exact search of the first segment may score, over all its candidate segments
(:func:`_first_segment`); once they are spent the best fully searched segment is played."""
FIRST_SEGMENT_PATHS = 32
"""Random closed paths per candidate first segment whose mean margin orders the candidates for that search (the
better the order, the sooner within :data:`FIRST_SEGMENT_LEAVES` the best segment is searched)."""
HARD_CPU_SECONDS = 0.9
"""CPU time (``time.process_time``, seconds) the ``hard`` player's search of the first segment, and a move's
swindle, take at most: a backstop for slow machines, which their budgets (:data:`FIRST_SEGMENT_LEAVES`,
:data:`SWINDLE_LEAVES`) normally end before."""
SWINDLE_EXPECTED_LEFT = 8
"""With at most this many dots left to connect, ``hard`` chooses among its segments of best exact value the one
worth most against an opponent drawing at random (:func:`_against_random`), as many as :data:`SWINDLE_LEAVES`
allows; with more, the one that leaves the opponent the largest share of replies that lose value."""
SWINDLE_LEAVES = 2500
"""Closed paths the expectimax of :data:`SWINDLE_EXPECTED_LEFT` may score for one move, over all its candidates."""
MEDIUM_EXACT_LEFT = 4
"""With at most this many dots left to connect, the ``medium`` player searches the rest of the drawing exactly."""
REVIEW_PLAYOUTS = 200
"""Random play-outs behind each estimate of a review (:func:`estimate`)."""
ENDGAMES_KEPT = 32
"""Exact searches (one per set of dots) a process keeps between moves (:func:`endgame`)."""
_INFINITY = 1 << 20
_UNKNOWN = (-1, 0.0, 0.0, False)


EXACT_LEFT = 8
"""Dots left to connect at or below which the ``hard`` player and reviews search exactly, whatever the number of dots
(a count, not a time, so that the choice is the same in every process); the table shared between moves makes the
later moves cheap."""


class _Drawing:
    """The segments between the dots of one position, with their crossings remembered, for scoring closed paths fast.

    A closed path is scored as :func:`~games.polygons.rules.face_sides` scores it (the tests compare the two): the
    planar graph of the path (dots and crossing points as vertices, crossing points identified exactly by their
    normalised homogeneous coordinates) and every face traced; in a closed drawing a face's sides are its boundary
    edges. What the rules compute for each drawing is computed here once per pair of segments and remembered:
    whether they cross, where (the exact vertex), at which parameter along each (a float, used only to order the
    crossings along a segment: distinct crossing points of lattice segments lie much further apart than a float's
    error) and to which side the second turns from the first.

    A drawing made for a search (``search=True``, as :class:`_Endgame` makes it) also remembers, for each segment
    it meets, every segment that crosses it (a bit mask over the segments, filled the first time the segment is
    met), so a closed path finds its crossings by masks rather than by asking every pair of its segments; a drawing
    that scores a few paths only asks the pairs of those paths.

    Where every crossing point is the crossing of just two segments (nearly always), the faces are traced along the
    path itself (:meth:`_walked`): a dot has two edges, so a face passes straight through it, and at a crossing the
    face turns onto the other segment, to the side the two segments' directions decide. Where three segments or more
    pass through one point, the half-edges around each vertex are ordered by their direction instead
    (:meth:`_traced`).
    """

    __slots__ = ("angle", "cross", "low", "masks", "points", "size", "vertices", "where")

    def __init__(self, points: Sequence[Point], search: bool = False) -> None:
        self.points = points
        self.size = len(points)
        self.low = min(range(len(points)), key=lambda v: (points[v][1], points[v][0]))
        self.angle: dict[tuple[int, int], float] = {}
        self.cross: dict[int, tuple[int, float, float, bool] | None] = {}
        self.vertices: dict[tuple[int, int, int], int] = {}
        self.masks: list[int] | None = [-1] * (self.size * self.size) if search else None
        self.where = [0] * (self.size * self.size) if search else []

    def _direction(self, a: int, b: int) -> float:
        found = self.angle.get((a, b))
        if found is None:
            (ax, ay), (bx, by) = self.points[a], self.points[b]
            found = self.angle[(a, b)] = math.atan2(by - ay, bx - ax)
        return found

    def _crossing(self, first: int, second: int) -> tuple[int, float, float, bool] | None:
        """Where segments ``first`` and ``second`` (ids ``low * size + high`` of segments between four distinct
        dots) cross: ``(vertex, t along first, t along second, left)``, each ``t`` from its lower dot to its higher,
        ``left`` whether the second, from its lower dot to its higher, crosses the first from its right to its left
        (the cross product of their directions is positive)."""
        points, size = self.points, self.size
        a, b = divmod(first, size)
        c, d = divmod(second, size)
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = points[a], points[b], points[c], points[d]
        rx, ry = bx - ax, by - ay
        found: tuple[int, float, float, bool] | None = None
        o1, o2 = rx * (cy - ay) - ry * (cx - ax), rx * (dy - ay) - ry * (dx - ax)
        if (o1 > 0) != (o2 > 0):
            sx, sy = dx - cx, dy - cy
            o3, o4 = sx * (ay - cy) - sy * (ax - cx), sx * (by - cy) - sy * (bx - cx)
            if (o3 > 0) != (o4 > 0):
                den = o3 - o4
                big_x, big_y = ax * den + o3 * rx, ay * den + o3 * ry
                if den < 0:
                    big_x, big_y, den = -big_x, -big_y, -den
                g = math.gcd(big_x, big_y, den)
                vertex = self.vertices.setdefault((big_x // g, big_y // g, den // g), len(points) + len(self.vertices))
                found = (vertex, o3 / (o3 - o4), o1 / (o1 - o2), rx * sy - ry * sx > 0)
        pairs = size * size
        self.cross[first * pairs + second] = found
        self.cross[second * pairs + first] = None if found is None else (found[0], found[2], found[1], not found[3])
        return found

    def _mask(self, segment: int) -> int:
        """The segments (a bit per id) that cross ``segment``, each crossing computed and remembered once."""
        size = self.size
        low, high = divmod(segment, size)
        pairs = size * size
        cross = self.cross
        mask = 0
        for other_low in range(size):
            if other_low in (low, high):
                continue
            for other_high in range(other_low + 1, size):
                if other_high in (low, high):
                    continue
                other = other_low * size + other_high
                hit = cross.get(segment * pairs + other, _UNKNOWN)
                if hit is _UNKNOWN:
                    hit = self._crossing(segment, other)
                if hit is not None:
                    mask |= 1 << other
        assert self.masks is not None
        self.masks[segment] = mask
        return mask

    def margin(self, path: Sequence[int]) -> int:
        """Seat 0's faces minus seat 1's (odd minus even) of the closed path through every dot in ``path`` order."""
        ends = (*path[1:], path[0])
        cuts, vertices = self.cuts(path, ends)
        if not vertices:
            return 1 if len(path) % 2 else -1  # one face, of n sides
        if len(set(vertices)) != len(vertices):  # a crossing point on three segments or more
            return self._traced(path, ends, [[(t, vertices[c]) for t, c, _ in on] for on in cuts])
        return self._walked(path, ends, cuts, len(vertices))

    def cuts(self, path: Sequence[int], ends: Sequence[int]) -> tuple[list[list[tuple[float, int, bool]]], list[int]]:
        """The crossings of a closed path: on each segment ``path[i]``–``ends[i]``, ``(t from the segment's lower dot,
        crossing, left)`` (unsorted; ``left``: the other segment, from its lower dot to its higher, crosses this one,
        from its lower dot to its higher, from right to left), and each crossing's vertex (crossings numbered from
        0, one per pair of segments that cross)."""
        n, size = len(path), self.size
        pairs = size * size
        ids = [a * size + b if a < b else b * size + a for a, b in zip(path, ends, strict=True)]
        cuts: list[list[tuple[float, int, bool]]] = [[] for _ in range(n)]
        vertices: list[int] = []
        cross = self.cross
        masks = self.masks
        if masks is not None:
            where = self.where  # segment -> its index along this path, set before any later segment asks
            later = 0
            for i in range(n - 1, -1, -1):
                segment = ids[i]
                where[segment] = i
                mask = masks[segment]
                if mask < 0:
                    mask = self._mask(segment)
                found = mask & later
                later |= 1 << segment
                row = segment * pairs
                while found:
                    bit = found & -found
                    found ^= bit
                    other = bit.bit_length() - 1
                    vertex, t_here, t_there, left = cross[row + other]  # type: ignore[misc]
                    c = len(vertices)
                    vertices.append(vertex)
                    cuts[i].append((t_here, c, left))
                    cuts[where[other]].append((t_there, c, not left))
            return cuts, vertices
        for i in range(n - 2):
            row = ids[i] * pairs
            for j in range(i + 2, n if i else n - 1):
                hit = cross.get(row + ids[j], _UNKNOWN)
                if hit is _UNKNOWN:
                    hit = self._crossing(ids[i], ids[j])
                if hit is not None:
                    c = len(vertices)
                    vertices.append(hit[0])
                    cuts[i].append((hit[1], c, hit[3]))
                    cuts[j].append((hit[2], c, not hit[3]))
        return cuts, vertices

    def _walked(self, path: Sequence[int], ends: Sequence[int], cuts: list[list[tuple[float, int, bool]]],
                crossings: int) -> int:
        """The margin by walking the faces along the path's pieces (``cuts`` as :meth:`cuts` gives them, every
        crossing point on just two segments, ``crossings`` of them).

        The path's pieces are numbered along it: piece ``e`` starts at the ``e``-th point the path passes (a dot or
        a crossing) and runs to the next. Half-edge ``e`` walks piece ``e`` forward (along the path), half-edge
        ``e + m`` backward (``m`` pieces). A face goes on along the path through a dot; at a crossing of segment
        ``s`` (arriving) and ``t`` it turns onto ``t``: forward along ``t`` when ``t``'s direction points to the
        left of ``s``'s (the arrival forward), else back along ``t``'s piece before the crossing.
        """
        n = len(path)
        m = n + 2 * crossings
        # The half-edge after arriving forward at the start of piece e (from piece e - 1), and after arriving
        # backward there (along piece e): at a dot, on along the path; crossings are set below.
        forward = list(range(m))
        backward = list(range(m - 1, 2 * m - 1))
        backward[0] = 2 * m - 1
        seen = [0] * crossings  # crossing -> its first piece, negative when that segment runs high to low
        first = [0] * n  # segment -> its first piece
        e = 0
        for i, on in enumerate(cuts):
            first[i] = e
            e += 1
            if on:
                flip = path[i] > ends[i]
                if len(on) > 1:
                    on.sort(reverse=flip)
                for _, c, left in on:
                    q = seen[c]
                    if not q:  # piece 0 starts at a dot, so a crossing's piece is never 0
                        seen[c] = -e if flip else e
                        e += 1
                        continue
                    if q < 0:  # the other segment runs high to low: its direction as travelled turns round
                        q, left = -q, not left
                    if left == flip:  # the other segment, as travelled, points to the right of this one as travelled
                        forward[e], backward[e], forward[q], backward[q] = q - 1 + m, q, e, e - 1 + m
                    else:
                        forward[e], backward[e], forward[q], backward[q] = q, q - 1 + m, e - 1 + m, e
                    e += 1
        after = forward[1:] + forward[:1] + backward
        # The unbounded face: from the lowest dot along the more counter-clockwise of its two edges.
        points = self.points
        k = path.index(self.low)
        (px, py), (lx, ly), (nx, ny) = points[path[k - 1]], points[path[k]], points[ends[k]]
        clockwise = (lx - px) * (ny - ly) - (ly - py) * (nx - lx) < 0  # -d(before) x d(k) > 0: on forward
        half = first[k] if clockwise else (first[k] if first[k] else m) - 1 + m
        while half >= 0:
            following = after[half]
            after[half] = -1
            half = following
        margin = 0
        for start in range(2 * m):
            half = after[start]
            if half >= 0:
                after[start] = -1
                sides = 1
                while half != start:
                    following = after[half]
                    after[half] = -1
                    half = following
                    sides += 1
                margin += 1 if sides % 2 else -1
        return margin

    def _traced(self, path: Sequence[int], ends: Sequence[int], cuts: list[list[tuple[float, int]]]) -> int:
        """The margin by ordering the half-edges around every vertex by direction and tracing each face (any number
        of segments through a crossing point)."""
        segments = [(a, b) if a < b else (b, a) for a, b in zip(path, ends, strict=True)]
        around: dict[int, list[tuple[float, int]]] = {}
        direction = self._direction
        for (a, b), on in zip(segments, cuts, strict=True):
            forward, back = direction(a, b), direction(b, a)
            on.sort()
            previous = a
            for _, vertex in on:
                if vertex != previous:  # a crossing point shared by several segments appears once per other segment
                    around.setdefault(previous, []).append((forward, vertex))
                    around.setdefault(vertex, []).append((back, previous))
                    previous = vertex
            around.setdefault(previous, []).append((forward, b))
            around.setdefault(b, []).append((back, previous))
        order: dict[int, list[int]] = {}
        position: dict[int, dict[int, int]] = {}
        for vertex, rays in around.items():
            rays.sort()
            order[vertex] = [w for _, w in rays]
            position[vertex] = {w: k for k, w in enumerate(order[vertex])}
        seen: set[tuple[int, int]] = set()

        def walk(u: int, v: int) -> int:
            start, sides = (u, v), 0
            while True:
                seen.add((u, v))
                sides += 1
                u, v = v, order[v][position[v][u] - 1]
                if (u, v) == start:
                    return sides

        low = self.low
        walk(low, order[low][-1])  # the unbounded face: left of the steepest edge at the lowest dot
        margin = 0
        for u, ws in order.items():
            for w in ws:
                if (u, w) not in seen:
                    margin += 1 if walk(u, w) % 2 else -1
        return margin


class _Endgame:
    """Exact alpha-beta over the drawing of one set of dots, with a table of value bounds kept between searches.

    A position is the path so far (a tuple of dot indices, at least two); its value is the final margin (the mover's
    faces minus the opponent's, seat 1's komi counted) for the seat to draw next under perfect play. The table is
    keyed by the path alone, so every search over these dots (the moves of one match, a review) shares what the
    others proved; a table entry is a proven bound, so sharing it changes how fast a value is found, never the
    value.
    """

    __slots__ = ("budget", "deadline", "drawing", "komi", "leaves", "lengths", "lower", "memo", "upper")

    def __init__(self, points: Sequence[Point], komi: int = 0) -> None:
        self.drawing = _Drawing(points, search=True)
        self.komi = komi
        self.lengths = [[(ax - bx) ** 2 + (ay - by) ** 2 for bx, by in points] for ax, ay in points]
        self.lower: dict[tuple[int, ...], int] = {}
        self.upper: dict[tuple[int, ...], int] = {}
        self.leaves = 0
        self.budget = math.inf
        self.deadline = math.inf
        self.memo: dict[tuple[int, ...], int] | None = None

    def margin(self, path: tuple[int, ...]) -> int:
        """Seat 0's final margin (komi counted) of the closed ``path``, remembered in :attr:`memo` while that is a
        dict (a search that revisits the same closed paths sets it for its own span: the table keeps no leaves)."""
        memo = self.memo
        if memo is None:
            return self.drawing.margin(path) - self.komi
        found = memo.get(path)
        if found is None:
            found = memo[path] = self.drawing.margin(path) - self.komi
        return found

    def _leaf(self, path: tuple[int, ...]) -> int:
        """The final margin of the closed ``path`` for seat ``(len(path) - 1) % 2`` (the seat that would draw next
        were the path open).

        Raises:
            LeavesSpent: more than :attr:`budget` closed paths scored, or :attr:`deadline` (``time.process_time``
                seconds) passed (looked at every 256 paths).
        """
        self.leaves += 1
        if self.leaves > self.budget or (self.leaves & 255 == 0 and time.process_time() > self.deadline):
            raise LeavesSpent
        margin = self.margin(path)
        return margin if (len(path) - 1) % 2 == 0 else -margin

    def value(self, path: tuple[int, ...], rest: tuple[int, ...], alpha: int, beta: int) -> int:
        """Fail-soft value of ``path`` with the dots ``rest`` unconnected, for the seat to draw next: exact when
        ``alpha < value < beta``, an upper bound when ``<= alpha``, a lower bound when ``>= beta``."""
        if len(rest) == 1:
            return -self._leaf((*path, rest[0]))
        if len(rest) == 2:
            x, y = rest
            first = self._leaf((*path, x, y))
            return first if first >= beta else max(first, self._leaf((*path, y, x)))
        lower = self.lower.get(path, -_INFINITY)
        upper = self.upper.get(path, _INFINITY)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        low, high = max(alpha, lower), min(beta, upper)
        best = -_INFINITY
        window = low
        # The odd side (seat 0) tries its longest segments first, the even side its shortest: long segments cross
        # more, and crossings make the small triangles the odd side scores. Only the work depends on the order.
        order = sorted(rest, key=self.lengths[path[-1]].__getitem__, reverse=len(path) % 2 == 1)
        for k, dot in enumerate(order):
            value = -self.value((*path, dot), (*order[:k], *order[k + 1:]), -high, -window)
            if value > best:
                best = value
                if value > window:
                    window = value
                    if window >= high:
                        break
        if best <= low:
            self.upper[path] = best
        elif best >= high:
            self.lower[path] = best
        else:
            self.lower[path] = self.upper[path] = best
        return best


_ENDGAMES: OrderedDict[tuple[tuple[Point, ...], int], _Endgame] = OrderedDict()


def endgame(points: Sequence[Point], komi: int = 0, adopt: _Endgame | None = None) -> _Endgame:
    """The exact search over the drawing of ``points`` (seat 1 given ``komi`` faces), shared by every search of this
    process over the same dots (the :data:`ENDGAMES_KEPT` most recently used are kept). Where there is none yet,
    ``adopt`` (a search of the same dots that has proved things already) becomes it, else a new one."""
    key = (tuple(points), komi)
    found = _ENDGAMES.get(key)
    if found is None:
        found = _ENDGAMES[key] = adopt or _Endgame(key[0], komi)
        if len(_ENDGAMES) > ENDGAMES_KEPT:
            _ENDGAMES.popitem(last=False)
    else:
        _ENDGAMES.move_to_end(key)
    return found


def _unconnected(state: PolygonsState) -> tuple[int, ...]:
    used = set(state.path)
    return tuple(i for i in range(len(state.points)) if i not in used)


class LeavesSpent(Exception):
    """An exact search scored its budget of closed paths, or passed its deadline."""


def _better(search: _Endgame, path: tuple[int, ...], rest: tuple[int, ...], best: int) -> int:
    """The mover's value of the segment that makes ``path`` (the opponent to draw next), exact if it beats ``best``,
    else at most ``best``: a null-window test first, searched in full only when the segment beats ``best``."""
    if best == -_INFINITY:
        return -search.value(path, rest, -_INFINITY, _INFINITY)
    value = -search.value(path, rest, -best - 1, -best)
    return value if value <= best else -search.value(path, rest, -_INFINITY, -best)


def _first_segment(state: PolygonsState, rng: random.Random) -> Connect | None:
    """The ``hard`` player's first segment by the exact search, within :data:`FIRST_SEGMENT_LEAVES` closed paths.

    Every (from, to) pair is ordered by its mean margin over :data:`FIRST_SEGMENT_PATHS` random closed paths that
    start with it (the same paths for every pair, ties in a shuffled order), then searched exactly in that order,
    each with a null-window test against the best so far (:func:`_better`); when the budget is spent the best
    fully searched segment is played (``None`` if not even the first was). The search is a fresh one, so its work,
    and with it the move, depends only on the position and ``rng``, never on what the shared table holds; what it
    proved then becomes the shared table of these dots (:func:`endgame`) if there is none. A cap of
    :data:`HARD_CPU_SECONDS` of CPU from the move's start, ordering included, a backstop the budget normally ends
    before, keeps a slow machine within a second (its move may then differ).
    """
    started = time.process_time()
    mover = state.current_seat
    n = len(state.points)
    segments = [(a, b) for a in range(n) for b in range(n) if a != b]
    rng.shuffle(segments)
    search = _Endgame(state.points, state.komi)
    drawing = search.drawing
    paths = [rng.sample(range(n), n) for _ in range(FIRST_SEGMENT_PATHS)]
    sign = 1 if mover == 0 else -1
    worth = {(a, b): sign * sum(drawing.margin([a, b, *(x for x in path if x != a and x != b)]) for path in paths)
             for a, b in segments}
    segments.sort(key=lambda segment: -worth[segment])
    search.budget = FIRST_SEGMENT_LEAVES
    search.deadline = started + HARD_CPU_SECONDS
    best, choice = -_INFINITY, None
    try:
        for a, b in segments:
            value = _better(search, (a, b), tuple(x for x in range(n) if x != a and x != b), best)
            if value > best:
                best, choice = value, (a, b)
    except LeavesSpent:
        pass
    search.budget = search.deadline = math.inf
    endgame(state.points, state.komi, adopt=search)
    return None if choice is None else Connect(*choice)


def _exact_segment(state: PolygonsState, rng: random.Random, swindle: bool = False) -> Connect:
    """A segment of best exact value for the mover. The unconnected dots are searched in a shuffled order and the
    first reaching the best value is kept (each searched with the window above the best so far, so what the shared
    table holds changes the work, never the choice): uniformly at random among the best.

    With ``swindle``, among the segments of best value the one worth most against an opponent drawing at random is
    kept once at most :data:`SWINDLE_EXPECTED_LEFT` dots are left (:func:`_swindle`, within its budget), and before
    that the one that leaves the opponent the most replies that lose value (as a share of its replies), the first in
    the shuffled order on a tie: still a best segment, but the one where a fallible opponent most likely goes wrong.
    Each test is a null-window search, whose answer (better than a bound or not) is a fact of the position, so the
    choice does not depend on the table either (the swindle's budget counts the paths of its expectimax, which
    depend on the position alone; only its CPU cap, a backstop the budget normally ends before, could make a slow
    machine choose otherwise).
    """
    started = time.process_time()
    search = endgame(state.points, state.komi)
    path, rest = state.path, _unconnected(state)
    order = list(rest)
    rng.shuffle(order)
    if len(order) == 1:
        return Connect(path[-1], order[0])
    best, choice = -_INFINITY, order[0]
    for dot in order:
        value = _better(search, (*path, dot), tuple(r for r in rest if r != dot), best)
        if value > best:
            best, choice = value, dot
    if not swindle or len(rest) <= 2:
        return Connect(path[-1], choice)
    optimal = [dot for dot in order if dot == choice or -search.value(
        (*path, dot), tuple(r for r in rest if r != dot), -best, -best + 1) >= best]
    if len(optimal) == 1:
        return Connect(path[-1], choice)
    if len(rest) <= SWINDLE_EXPECTED_LEFT:
        return Connect(path[-1], _swindle(search, path, optimal, rest, -best, started))

    def erring(dot: int) -> float:
        """The share of the opponent's replies after ``dot`` that give it less than ``-best``."""
        after = (*path, dot)
        left = tuple(r for r in rest if r != dot)
        bad = 0
        for reply in left:
            # the reply's value for the opponent is -(our value after it); it errs when that is below -best
            ours = search.value((*after, reply), tuple(r for r in left if r != reply), best, best + 1)
            bad += ours > best
        return bad / len(left)

    return Connect(path[-1], max(optimal, key=erring))  # max keeps the first of equals: the shuffled order


def _swindle(search: _Endgame, path: tuple[int, ...], optimal: list[int], rest: tuple[int, ...], after: int,
             started: float) -> int:
    """The dot of ``optimal`` (segments from ``path`` of best exact value, each leaving the opponent the value
    ``after``) worth most against a random drawer (:func:`_against_random`), tried in the given order until
    :data:`SWINDLE_LEAVES` closed paths are scored (a count that depends on the position alone, not on the table)
    or :data:`HARD_CPU_SECONDS` after ``started`` (``time.process_time``); the first of equals, the first of
    ``optimal`` if not one was valued."""
    seat = (len(path) - 1) % 2
    spent = [0]
    deadline = started + HARD_CPU_SECONDS
    best, choice = -1.0, optimal[0]
    search.memo = {}  # the exact tests score the closed paths the expectimax then scores again
    try:
        for dot in optimal:
            worth = _against_random(search, (*path, dot), tuple(r for r in rest if r != dot), seat, after, spent,
                                    deadline)
            if worth > best:
                best, choice = worth, dot
    except LeavesSpent:
        pass
    finally:
        search.memo = None
    return choice


def _against_random(search: _Endgame, path: tuple[int, ...], rest: tuple[int, ...], seat: int, value: int,
                    spent: list[int], deadline: float) -> float:
    """The worth for ``seat`` (:func:`_reward` of its final margin) of the drawing ``path`` with ``rest`` left to
    connect and exact value ``value`` for the seat to draw next, when ``seat`` draws as ``hard`` does (a segment of
    best exact value, the one worth most by this measure) and the opponent draws at random: an expectimax over the
    opponent's every reply and ``seat``'s best segments, whose exact values the shared table ``search`` proves.
    ``spent[0]`` counts the closed paths scored.

    Raises:
        LeavesSpent: more than :data:`SWINDLE_LEAVES` closed paths scored, or ``deadline`` passed.
    """
    if len(rest) <= 1:
        spent[0] += 1
        if spent[0] > SWINDLE_LEAVES or (spent[0] & 63 == 0 and time.process_time() > deadline):
            raise LeavesSpent
        margin = search.margin((*path, *rest))
        return _reward(margin if seat == 0 else -margin)
    children = []
    mover = (len(path) - 1) % 2
    for k, dot in enumerate(rest):
        child, left = (*path, dot), rest[:k] + rest[k + 1:]
        if mover == seat:
            if -search.value(child, left, -value, -value + 1) < value:
                continue
            children.append(_against_random(search, child, left, seat, -value, spent, deadline))
        else:
            # with one dot left the child is a leaf, which needs no value
            exact = search.value(child, left, -_INFINITY, _INFINITY) if len(left) > 1 else 0
            children.append(_against_random(search, child, left, seat, exact, spent, deadline))
    return max(children) if mover == seat else sum(children) / len(children)


def exact_margin(state: PolygonsState) -> int:
    """The final margin (the mover's faces minus the opponent's) of a drawing with its path started, under perfect
    play, by the exact search (any number of dots left: the cost grows as their factorial)."""
    return endgame(state.points, state.komi).value(state.path, _unconnected(state), -_INFINITY, _INFINITY)


# ------------------------------------------------------------------------------------------------ play-outs


class _Playout:
    """A mutable copy of a position for fast random play-outs (placement, drawing, final score)."""

    __slots__ = ("blocked", "komi", "path", "points", "size", "total")

    def __init__(self, state: PolygonsState) -> None:
        self.komi = state.komi
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

    def place_all(self, rng: random.Random) -> None:
        while len(self.points) < self.total:
            point = self.random_point(rng)
            if point is None:
                break
            self.place(point)

    def finish(self, rng: random.Random) -> tuple[int, int]:
        """Play randomly to the end and return the final ``(odd, even + komi)`` scores."""
        self.place_all(rng)
        if not self.path:
            self.path = rng.sample(range(len(self.points)), 2)
        used = set(self.path)
        rest = [i for i in range(len(self.points)) if i not in used]
        rng.shuffle(rest)
        self.path.extend(rest)
        odd, even = score_sides(face_sides(self.points, self.path, True))
        return odd, even + self.komi

    def finish_margin(self, rng: random.Random, exact: int) -> int:
        """Seat 0's final margin (komi counted) of a play-out: random placements, random segments until ``exact``
        dots are left, then perfect play to the end (every order of the last dots, minimax)."""
        self.place_all(rng)
        points = self.points
        if not self.path:
            self.path = rng.sample(range(len(points)), 2)
        used = set(self.path)
        rest = [i for i in range(len(points)) if i not in used]
        rng.shuffle(rest)
        cut = max(0, len(rest) - exact)
        path = self.path + rest[:cut]
        rest = rest[cut:]
        drawing = _Drawing(points)
        if len(rest) <= 1:
            return drawing.margin(path + rest) - self.komi
        mover = (len(path) - 1) % 2
        value = _small_minimax(drawing, path, rest, -_INFINITY, _INFINITY)  # komi shifts every leaf alike
        return (value if mover == 0 else -value) - self.komi


def _small_minimax(drawing: _Drawing, path: list[int], rest: list[int], alpha: int, beta: int) -> int:
    """Negamax value (the mover's final margin) of a drawing with a few dots ``rest`` left, without a table (a
    play-out meets each set of dots once)."""
    if len(rest) == 1:
        margin = drawing.margin([*path, rest[0]])
        return margin if len(path) % 2 == 1 else -margin  # the mover is (len(path) - 1) % 2
    best = -_INFINITY
    for k, dot in enumerate(rest):
        value = -_small_minimax(drawing, [*path, dot], rest[:k] + rest[k + 1:], -beta, -max(alpha, best))
        if value > best:
            best = value
            if best >= beta:
                break
    return best


def _reward(margin: int) -> float:
    """A play-out's worth in ``[0, 1]`` for the seat whose final ``margin`` it is: win 1, draw ½, loss 0, nudged by
    the margin."""
    base = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
    return 0.9 * base + 0.1 * (0.5 + max(-10, min(10, margin)) / 20)


# ------------------------------------------------------------------------------------------------ tree search


class _Node:
    """A node of the tree search: a position, its candidate moves in the order they are added, its children."""

    __slots__ = ("candidates", "children", "move", "seat", "state", "total", "visits")

    def __init__(self, state: PolygonsState, move: Move | None, seat: int | None, rng: random.Random) -> None:
        self.state = state
        self.move = move
        self.seat = seat  # the seat that made ``move``
        self.candidates: list[Move] = [] if state.phase == "over" else list(state.legal_moves())
        rng.shuffle(self.candidates)
        self.children: list[_Node] = []
        self.visits = 0
        self.total = 0.0

    def widen(self) -> bool:
        """Whether a child should be added now (progressive widening)."""
        allowed = max(2, int(WIDENING * math.sqrt(self.visits + 1)))
        return bool(self.candidates) and len(self.children) < allowed


def _mcts(state: PolygonsState, rng: random.Random, playouts: int) -> Move:
    """UCT with progressive widening and exact-ending play-outs; the most visited move at the root."""
    root = _Node(state, None, None, rng)
    exact = PLAYOUT_EXACT_LEFT
    for _ in range(playouts):
        node = root
        path = [root]
        while node.state.phase != "over":
            if node.widen():
                move = node.candidates.pop()
                child = _Node(node.state.apply(move), move, node.state.current_seat, rng)
                node.children.append(child)
                path.append(child)
                node = child
                break
            log_visits = math.log(node.visits)
            node = max(node.children, key=lambda c: c.total / c.visits + UCT_C * math.sqrt(log_visits / c.visits))
            path.append(node)
        margin = _Playout(node.state).finish_margin(rng, exact)
        seat0 = _reward(margin)
        seat1 = _reward(-margin)
        for visited in path:
            visited.visits += 1
            if visited.seat is not None:
                visited.total += seat0 if visited.seat == 0 else seat1
    chosen = max(root.children, key=lambda child: (child.visits, child.total))
    assert chosen.move is not None
    return chosen.move


# ------------------------------------------------------------------------------------------------ placements


def _completion(points: Sequence[Point], total: int, side: int, rng: random.Random) -> list[Point]:
    """Random dots after ``points``, on no dot and in no line with two dots as the rules place them, enough for
    ``total`` dots with a few to spare (fewer if a few dozen draws find no room). Unlike :class:`_Playout`, which
    keeps the set of blocked lattice points, each draw here is tested against the pairs of dots: cheaper for the
    few dots a future adds, and :func:`_with_dot` can then test only the lines through one more dot."""
    placed = list(points)
    extra: list[Point] = []
    want = total - len(placed) + 3
    tries = 0
    while len(extra) < want and tries < 64:
        tries += 1
        new = (rng.randrange(side), rng.randrange(side))
        if new in placed or any(collinear(a, b, new) for k, a in enumerate(placed) for b in placed[k + 1:]):
            continue
        placed.append(new)
        extra.append(new)
    return extra


def _with_dot(points: Sequence[Point], dot: Point, completion: Sequence[Point], total: int) -> list[Point]:
    """``points``, then ``dot``, then the dots of ``completion`` (valid after ``points``) that stay valid after
    ``dot`` too, up to ``total`` dots: only the lines through ``dot`` need testing."""
    placed = [*points, dot]
    others = list(points)
    for new in completion:
        if len(placed) >= total:
            break
        if new != dot and not any(collinear(dot, other, new) for other in others):
            placed.append(new)
            others.append(new)
    return placed


def _placement(state: PolygonsState, rng: random.Random, samples: int) -> Place:
    """A dot for the seat to place, by sequential halving over the legal points with common random numbers.

    A point's worth is the mover's mean final margin (komi counted) over sampled futures: the dots left placed at
    random (:func:`_completion`), then a random closed path. Future ``j`` draws the same dots and the same path
    order whichever point it follows, so two points are compared on the same futures and the noise of their
    difference is small. The candidates (every legal point, in a shuffled order) are halved after each round,
    keeping the better means, over ``ceil(log2(candidates))`` rounds that share ``samples`` futures evenly (at
    least one future a point a round); the best mean of the last round is played, the first in the shuffled order
    on a tie. Deterministic for ``rng``.
    """
    mover = state.current_seat
    assert mover is not None
    legal = state.legal_points()
    rng.shuffle(legal)
    if len(legal) == 1:
        return Place(*legal[0])
    base = rng.getrandbits(48)
    side, total, komi = state.size + 1, state.total_dots, state.komi
    sign = 1 if mover == 0 else -1
    sums = dict.fromkeys(legal, 0)
    alive = legal
    rounds = math.ceil(math.log2(len(legal)))
    done = 0
    for round_ in range(rounds):
        futures = max(1, samples // (rounds * len(alive)))
        for j in range(done, done + futures):
            order = list(range(total))
            random.Random(base + j).shuffle(order)
            completion = _completion(state.points, total, side, random.Random(base - j - 1))
            for point in alive:
                dots = _with_dot(state.points, point, completion, total)
                path = [k for k in order if k < len(dots)]
                sums[point] += sign * (_Drawing(dots).margin(path) - komi)
        done += futures
        if round_ < rounds - 1:
            alive = sorted(alive, key=lambda point: -sums[point])[: (len(alive) + 1) // 2]
    return Place(*max(alive, key=lambda point: sums[point]))


# ------------------------------------------------------------------------------------------------ players


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


def _left(state: PolygonsState) -> int:
    return len(state.points) - len(state.path)


def hard_playouts(total_dots: int) -> int:
    """The ``hard`` player's play-outs per tree search with ``total_dots`` dots: :data:`HARD_PLAYOUTS` up to 10 dots,
    proportionally fewer beyond (a play-out's cost grows with the dots; 200 with 20)."""
    return HARD_PLAYOUTS * 10 // max(10, total_dots)


def placement_samples(total_dots: int) -> int:
    """The futures of the ``hard`` player's placement search with ``total_dots`` dots: :data:`PLACEMENT_SAMPLES` up to
    10 dots, fewer beyond in proportion to the cube of the dots (what a future costs grows about so: 20 dots cost
    about nine times 10)."""
    return PLACEMENT_SAMPLES * 1000 // max(1000, total_dots ** 3)


def choose_move(state: PolygonsState, level: Level, rng: random.Random) -> Move:
    """The computer's move for the seat to move of a running ``state`` at ``level`` (deterministic for ``rng``).

    ``easy`` plays a random legal move. ``medium`` places at random and draws the segment that leaves the best
    score margin on the faces enclosed so far, searching exactly once at most :data:`MEDIUM_EXACT_LEFT` dots are left
    to connect. ``hard`` places by the placement search (:func:`placement_samples` futures), draws the first segment
    by the exact search within :data:`FIRST_SEGMENT_LEAVES` closed paths where the drawing after it is within the
    exact search (else, or if not one segment was searched in budget, by the tree search, :func:`hard_playouts`
    play-outs), and searches the drawing exactly once the path is started and at most :data:`EXACT_LEFT` dots are
    left to connect (among the best segments, the one a fallible opponent most likely answers badly).
    """
    if level == "easy":
        return rng.choice(state.legal_moves())
    if level == "medium":
        if state.phase == "place":
            return Place(*rng.choice(state.legal_points()))
        if state.path and _left(state) <= MEDIUM_EXACT_LEFT:
            return _exact_segment(state, rng)
        return _greedy_draw(state, rng)
    if state.phase == "draw" and state.path and _left(state) <= EXACT_LEFT:
        return _exact_segment(state, rng, swindle=True)
    if state.phase == "place":
        return _placement(state, rng, placement_samples(state.total_dots))
    if len(state.points) - 2 <= EXACT_LEFT:
        found = _first_segment(state, rng)
        if found is not None:
            return found
    return _mcts(state, rng, hard_playouts(state.total_dots))


def exact_value(state: PolygonsState, seat: int) -> GameValue | None:
    """The value of ``state`` for ``seat`` (kind ``"margin"``: the seat's final faces minus the opponent's under
    perfect play) once the path is started and at most :data:`EXACT_LEFT` dots are left to connect (as the ``hard``
    player searches); ``None`` before."""
    if state.phase == "over":
        odd, even = state.scores
        return GameValue("margin", odd - even if seat == 0 else even - odd, 0)
    mover = state.current_seat
    left = _left(state)
    if state.phase != "draw" or not state.path or mover is None or left > EXACT_LEFT:
        return None
    best = exact_margin(state)
    return GameValue("margin", best if seat == mover else -best, left)


def estimate(state: PolygonsState, seat: int, rng: random.Random) -> Estimate:
    """The evaluation of ``state`` for ``seat`` behind reviews: the mean final face margin of
    :data:`REVIEW_PLAYOUTS` random play-outs (kind ``"margin"``; a finished game: its margin)."""
    if state.phase == "over":
        odd, even = state.scores
        return Estimate("margin", float(odd - even if seat == 0 else even - odd))
    total = 0
    for _ in range(REVIEW_PLAYOUTS):
        odd, even = _Playout(state).finish(rng)
        total += odd - even if seat == 0 else even - odd
    return Estimate("margin", total / REVIEW_PLAYOUTS)
