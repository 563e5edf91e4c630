"""The rules of Polygons & Dots: dots on a lattice, one closed path through them, faces scored by parity of their
sides.

The rules follow ``seeds/polygons.md`` (our summary of "Polygons & Dots", Leroy Quet, 2008) with the decisions
of the design document, section 1. Two seats play on the integer lattice ``0..size`` x ``0..size``.

* **Placement.** Seats alternate, seat 0 first, each placing ``dots`` dots (move :class:`Place`, notation
  ``3,9`` for x = 3, y = 9). Dots are named ``A``, ``B``, ``C``... in placement order. A dot may not go on an
  existing dot nor where it would make three dots collinear (exact integer test against every pair). If no
  lattice point is left where a dot may go, placement ends early with the dots placed so far.
* **Drawing.** Seat 0 draws a first segment between any two dots (move :class:`Connect`, notation ``A-C``,
  from-to); then seats alternate, each drawing from the dot last connected to (the path end) to a dot not yet
  connected (``C`` alone means "from the path end to C"). When every dot is connected the last dot is joined to
  the first automatically; that closing segment is not a move.
* **Scoring.** The bounded faces of the drawing (corners are dots and crossing points; any number of segments
  may cross at one point) are counted: seat 0 scores every face with an odd number of sides, seat 1 every even
  one; with the variant ``komi`` (ours) seat 1 starts with that many faces. Higher wins, equal draws. While the path
  is open the scores are provisional: they count the faces
  enclosed so far, which later segments may split.

Geometry is exact: dots are integer points and crossing points are rationals kept as normalised homogeneous
integer triples, so collinearity, concurrency and the face structure are decided without rounding (the tests
cross-check the faces against shapely's noding and polygonizing).

This module is the rules core of the game; it imports nothing of the game's computer
(:mod:`games.polygons.computer`, the play-outs and the exact endgame search) or its declaration
(:mod:`games.polygons.game`). Pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal, NamedTuple, TypeAlias

from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.options import Option, check_options
from games.outcome import Outcome, Termination
from games.state import State
from i18n import Text, _

KEY = "polygons"

SIZE_DEFAULT, SIZE_MIN, SIZE_MAX = 15, 5, 30
"""The lattice runs ``0..size`` in both axes."""
DOTS_DEFAULT, DOTS_MIN, DOTS_MAX = 5, 3, 10
"""Dots placed by each seat."""
KOMI_DEFAULT, KOMI_MAX = 0, 9
"""Faces given to seat 1 before the game (variant ``komi``; ours, not the source's: see ``seeds/polygons.md``)."""
OPTIONS: tuple[Option, ...] = (
    Option("size", "Lattice 0..size in both directions", SIZE_DEFAULT, "int", minimum=SIZE_MIN, maximum=SIZE_MAX),
    Option("dots", "Dots each player places", DOTS_DEFAULT, "int", minimum=DOTS_MIN, maximum=DOTS_MAX),
    Option("komi", "Faces the second player starts with, as odd faces favour the first", KOMI_DEFAULT, "int",
           minimum=0, maximum=KOMI_MAX),
)
"""The variant options: the lattice ``size``, the ``dots`` per seat (at most :func:`max_dots_per_seat`) and the
``komi`` given to seat 1."""

Phase = Literal["place", "draw", "over"]
Point: TypeAlias = tuple[int, int]
"""A lattice point ``(x, y)``."""
RationalPoint: TypeAlias = tuple[Fraction, Fraction]
"""An exact point ``(x, y)`` of the drawing (a dot or a crossing point)."""
_Vertex: TypeAlias = tuple[int, int, int]
"""A point as a normalised homogeneous triple ``(X, Y, D)``: ``(X / D, Y / D)``, ``D > 0``, ``gcd = 1``."""

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_POINT_RE = re.compile(r"\(?\s*([-+]?\d+)\s*(?:,\s*|\s+)([-+]?\d+)\s*\)?")
_DECIMAL_RE = re.compile(r"\(?\s*[-+]?[\d.]+\s*(?:,\s*|\s+)[-+]?[\d.]+\s*\)?")
_SEGMENT_RE = re.compile(r"([A-Za-z])\s*(?:-|–|—|->)\s*([A-Za-z])")
_NAME_RE = re.compile(r"([A-Za-z])")


def dot_name(index: int) -> str:
    """Return the name of the dot placed ``index``-th (0-based): ``A``, ``B``, ...

    Raises:
        ValueError: ``index`` is outside ``0..25``.
    """
    if not 0 <= index < len(_ALPHABET):
        raise ValueError(f"no dot name for index {index}")
    return _ALPHABET[index]


def _names(indices: Iterable[int]) -> str:
    """Return ``"A, C and F"`` for the given dot indices."""
    names = [dot_name(i) for i in indices]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


# ------------------------------------------------------------------------------------------------ moves


@dataclass(frozen=True, slots=True)
class Place:
    """Placement move: a dot on lattice point ``(x, y)``; notation ``3,9``."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Connect:
    """Drawing move: a segment from dot ``start`` to dot ``end`` (0-based dot indices); notation ``A-C``."""

    start: int
    end: int


Move: TypeAlias = Place | Connect


class Dot(NamedTuple):
    """A placed dot: its name, lattice coordinates and the seat that placed it."""

    name: str
    x: int
    y: int
    seat: int


class Segment(NamedTuple):
    """A drawn segment between dots ``start`` and ``end`` (0-based indices), in drawing direction."""

    start: int
    end: int


# ------------------------------------------------------------------------------------------- lattice


def collinear(a: Point, b: Point, c: Point) -> bool:
    """Return whether three lattice points lie on one straight line (exact integer cross product)."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) == 0


def line_points(a: Point, b: Point, size: int) -> Iterable[Point]:
    """Yield every lattice point of ``0..size`` squared on the line through distinct points ``a`` and ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    g = math.gcd(dx, dy)
    dx, dy = dx // g, dy // g
    x, y = a
    while 0 <= x - dx <= size and 0 <= y - dy <= size:
        x, y = x - dx, y - dy
    while 0 <= x <= size and 0 <= y <= size:
        yield x, y
        x, y = x + dx, y + dy


def blocked_points(points: Sequence[Point], size: int) -> frozenset[Point]:
    """Return the lattice points where no further dot may go: the dots and every point in line with two dots.

    Args:
        points: the dots placed so far (lattice points, no three collinear).
        size: the lattice runs ``0..size`` in both axes.
    """
    blocked = set(points)
    for a, b in itertools.combinations(points, 2):
        blocked.update(line_points(a, b, size))
    return frozenset(blocked)


# ---------------------------------------------------------------------------------------------- faces


@dataclass(frozen=True, slots=True)
class Face:
    """A bounded face of a drawing.

    Attributes:
        corners: the points where the boundary turns, in counter-clockwise boundary order (exact rationals). For
            the rare face whose boundary touches itself (a ring pinched at a crossing point, or while the path
            is open an island hanging inside it), every boundary cycle contributes its corners.
        outline: the full boundary walk (corners, points passed straight through, and both sides of any segment
            piece lying inside the face), suitable for filling the face as one polygon.
    """

    corners: tuple[RationalPoint, ...]
    outline: tuple[RationalPoint, ...]

    @property
    def sides(self) -> int:
        """The number of sides, which is the number of corners."""
        return len(self.corners)

    @property
    def odd(self) -> bool:
        """Whether the face has an odd number of sides (it scores for seat 0; even faces score for seat 1)."""
        return self.sides % 2 == 1

    @property
    def area(self) -> Fraction:
        """The exact area in square lattice units (holes excluded)."""
        total = Fraction(0)
        pts = self.outline
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True):
            total += x1 * y2 - x2 * y1
        return total / 2

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: ``sides``, ``corners`` as ``[x, y]`` with fractions as ``"p/q"`` strings."""
        return {"sides": self.sides, "corners": [[_fraction_text(x), _fraction_text(y)] for x, y in self.corners]}


def _fraction_text(value: Fraction) -> int | str:
    """Return an integer as ``int`` and any other fraction as ``"p/q"``."""
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _ccw_cmp(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """Order directions ``(half, dx, dy, vertex)`` counter-clockwise from the positive x axis."""
    if a[0] != b[0]:
        return a[0] - b[0]
    cross = a[1] * b[2] - a[2] * b[1]
    return -1 if cross > 0 else (1 if cross < 0 else 0)


_CCW_KEY = functools.cmp_to_key(_ccw_cmp)


def _crossings(
    xy: Sequence[Point], segs: Sequence[tuple[int, int]], coords: list[_Vertex], index: dict[_Vertex, int]
) -> list[list[tuple[Fraction, int]]]:
    """Find where the segments cross and register each crossing point as a vertex.

    Args:
        xy: the dots, by vertex number (vertex ``i`` is ``xy[i]``).
        segs: the segments as ``(a, b)`` vertex pairs, in path order; segments sharing a dot never cross.
        coords: the vertices as normalised homogeneous triples ``(X, Y, D)`` (the point ``(X / D, Y / D)``, with
            ``D > 0`` and ``gcd(X, Y, D) == 1``); a new crossing point is appended. Modified in place.
        index: ``coords`` inverted (triple -> vertex number), kept in step with it. Modified in place.

    Returns:
        One list per segment of ``(t, vertex)`` for every crossing on it, ``t`` being the exact parameter along
        the segment from ``a`` (0) to ``b`` (1), unsorted; a point where several segments cross is one vertex and
        appears once per other segment.

    Raises:
        ValueError: three dots of the drawing are collinear (a dot lies on the line of a segment it is not on).
    """
    splits: list[list[tuple[Fraction, int]]] = [[] for _ in segs]
    for i, (a, b) in enumerate(segs):
        ax, ay = xy[a]
        bx, by = xy[b]
        rx, ry = bx - ax, by - ay
        for j in range(i + 1, len(segs)):
            c, d = segs[j]
            if c in (a, b) or d in (a, b):
                continue
            cx, cy = xy[c]
            dx, dy = xy[d]
            o1 = rx * (cy - ay) - ry * (cx - ax)
            o2 = rx * (dy - ay) - ry * (dx - ax)
            if o1 == 0 or o2 == 0:
                raise ValueError("three dots of the drawing are collinear")
            if (o1 > 0) == (o2 > 0):
                continue
            sx, sy = dx - cx, dy - cy
            o3 = sx * (ay - cy) - sy * (ax - cx)
            o4 = sx * (by - cy) - sy * (bx - cx)
            if o3 == 0 or o4 == 0:
                raise ValueError("three dots of the drawing are collinear")
            if (o3 > 0) == (o4 > 0):
                continue
            # The crossing is a + t (b - a) with t = o3 / (o3 - o4), and c + u (d - c) with u = o1 / (o1 - o2).
            den = o3 - o4
            big_x, big_y = ax * den + o3 * rx, ay * den + o3 * ry
            if den < 0:
                big_x, big_y, den = -big_x, -big_y, -den
            g = math.gcd(big_x, big_y, den)
            key = (big_x // g, big_y // g, den // g)
            vertex = index.get(key)
            if vertex is None:
                vertex = index[key] = len(coords)
                coords.append(key)
            splits[i].append((Fraction(o3, o3 - o4), vertex))
            splits[j].append((Fraction(o1, o1 - o2), vertex))
    return splits


def _neighbours(
    segs: Sequence[tuple[int, int]], splits: list[list[tuple[Fraction, int]]], count: int
) -> list[list[int]]:
    """Cut every segment at its crossings into pieces and return each vertex's neighbours along the pieces.

    Args:
        segs: the segments as ``(a, b)`` vertex pairs.
        splits: per segment, its crossings as from :func:`_crossings`; each list is sorted in place.
        count: the number of vertices (dots and crossing points).

    Returns:
        ``count`` lists of neighbouring vertex numbers, unordered: a dot has one per segment at it, a crossing
        point two per segment through it.
    """
    nbrs: list[list[int]] = [[] for _ in range(count)]
    for (a, b), cuts in zip(segs, splits, strict=True):
        cuts.sort()  # a crossing point shared by several segments appears once per other segment
        chain = [a, *(v for k, (_, v) in enumerate(cuts) if k == 0 or cuts[k - 1][1] != v), b]
        for u, v in itertools.pairwise(chain):
            nbrs[u].append(v)
            nbrs[v].append(u)
    return nbrs


def _rotation(coords: Sequence[_Vertex], nbrs: list[list[int]]) -> list[list[int]]:
    """Return each vertex's neighbours in counter-clockwise order, starting from the positive x axis.

    Args:
        coords: the vertices as homogeneous triples ``(X, Y, D)`` with ``D > 0``.
        nbrs: each vertex's neighbours, as from :func:`_neighbours`; a list of two or fewer is returned as is
            (any order is a rotation), so the result may share those lists.

    Returns:
        One list of neighbouring vertex numbers per vertex.
    """
    order: list[list[int]] = []
    for v, around in enumerate(nbrs):
        if len(around) <= 2:
            order.append(around)
            continue
        x1, y1, d1 = coords[v]
        dirs = []
        for w in around:
            x2, y2, d2 = coords[w]
            dx, dy = x2 * d1 - x1 * d2, y2 * d1 - y1 * d2
            dirs.append((0 if dy > 0 or (dy == 0 and dx > 0) else 1, dx, dy, w))
        dirs.sort(key=_CCW_KEY)
        order.append([w for *_, w in dirs])
    return order


def _outer_half_edge(coords: Sequence[_Vertex], order: Sequence[list[int]], dots: int) -> tuple[int, int]:
    """Return a half-edge ``(u, v)`` with the unbounded face on its left.

    The lowest (then leftmost) vertex is a dot, so only the first ``dots`` vertices are searched; the outer face
    lies left of its steepest edge. ``order`` is the rotation from :func:`_rotation`, with at least one edge.
    """
    low = min(range(dots), key=lambda v: (coords[v][1], coords[v][0]))
    around = order[low]
    if len(around) == 2:
        (x0, y0, _), (x1, y1, d1), (x2, y2, d2) = coords[low], coords[around[0]], coords[around[1]]
        cross = (x1 - x0 * d1) * (y2 - y0 * d2) - (y1 - y0 * d1) * (x2 - x0 * d2)
        steep = around[1] if cross > 0 else around[0]
    else:
        steep = around[-1]
    return low, steep


class _Arrangement:
    """The planar graph of a path drawing: vertices are dots and crossing points, edges are segment pieces.

    Half-edges are ``(u, v)`` vertex pairs; every face is traced keeping the face on its left, so bounded faces
    run counter-clockwise. ``walks`` lists the half-edge cycle of every bounded face.
    """

    __slots__ = ("coords", "face_of", "order", "pos", "walks")

    def __init__(self, points: Sequence[Point], path: Sequence[int], closed: bool) -> None:
        n = len(path)
        ends = [(path[i], path[i + 1]) for i in range(n - 1)]
        if closed and n >= 3:
            ends.append((path[-1], path[0]))
        coords: list[_Vertex] = []
        index: dict[_Vertex, int] = {}
        for dot in path:
            x, y = points[dot]
            index[(x, y, 1)] = len(coords)
            coords.append((x, y, 1))
        local = {dot: i for i, dot in enumerate(path)}
        xy = [points[dot] for dot in path]
        segs = [(local[a], local[b]) for a, b in ends]
        splits = _crossings(xy, segs, coords, index)
        order = _rotation(coords, _neighbours(segs, splits, len(coords)))
        self.coords = coords
        self.order = order
        self.pos = [{w: i for i, w in enumerate(around)} for around in order]
        self.face_of: dict[tuple[int, int], int] = {}
        self.walks: list[list[tuple[int, int]]] = []
        if not segs:
            return
        walks = [self._walk(_outer_half_edge(coords, order, n), 0)]
        for u, around in enumerate(order):
            for v in around:
                if (u, v) not in self.face_of:
                    walks.append(self._walk((u, v), len(walks)))
        self.walks = walks[1:]

    def _walk(self, start: tuple[int, int], face: int) -> list[tuple[int, int]]:
        """Trace the face left of half-edge ``start``, label its half-edges ``face`` and return them in order."""
        order, pos, face_of = self.order, self.pos, self.face_of
        walk = []
        u, v = start
        while True:
            face_of[(u, v)] = face
            walk.append((u, v))
            around = order[v]
            u, v = v, around[pos[v][u] - 1]
            if (u, v) == start:
                return walk

    def sides(self, closed: bool) -> list[int]:
        """Return the side count of every bounded face (face order as in ``walks``)."""
        if closed:  # every vertex has even degree: no segment piece has one face on both sides
            return [len(walk) for walk in self.walks]
        return [len(self._corners(walk)) for walk in self.walks]

    def _corners(self, walk: list[tuple[int, int]]) -> list[int]:
        """Return the corner vertices of a face walk, skipping pieces with the face on both sides."""
        face_of, order, pos, coords = self.face_of, self.order, self.pos, self.coords
        corners = []
        for u, v in walk:
            if face_of[(v, u)] == face_of[(u, v)]:
                continue
            around = order[v]
            i = pos[v][u] - 1
            w = around[i]
            while face_of[(w, v)] == face_of[(v, w)]:
                i -= 1
                w = around[i]
            (xu, yu, du), (xv, yv, dv), (xw, yw, dw) = coords[u], coords[v], coords[w]
            ax, ay = xv * du - xu * dv, yv * du - yu * dv
            bx, by = xw * dv - xv * dw, yw * dv - yv * dw
            if ax * by - ay * bx != 0:
                corners.append(v)
        return corners

    def point(self, v: int) -> RationalPoint:
        """Return vertex ``v`` as exact rationals."""
        x, y, d = self.coords[v]
        return Fraction(x, d), Fraction(y, d)

    def faces(self) -> tuple[Face, ...]:
        """Return the bounded faces."""
        faces = []
        points = [self.point(v) for v in range(len(self.coords))]
        for walk in self.walks:
            corners = tuple(points[v] for v in self._corners(walk))
            outline = tuple(points[v] for _, v in walk)
            faces.append(Face(corners, outline))
        return tuple(faces)


def faces_of_path(points: Sequence[Point], path: Sequence[int], closed: bool = True) -> tuple[Face, ...]:
    """Return the bounded faces of the path drawn through ``points`` in ``path`` order.

    Args:
        points: lattice points (integers), no three collinear.
        path: indices into ``points``, each at most once; consecutive dots are joined by segments.
        closed: also join the last dot to the first (the finished drawing). With ``False`` the faces are those
            of the open path, ignoring segment pieces that have the same face on both sides.

    Returns:
        The faces, each with its corners (dots and crossing points) and side count.

    Raises:
        ValueError: three dots used by the path are collinear.
    """
    return _Arrangement(points, path, closed).faces()


def face_sides(points: Sequence[Point], path: Sequence[int], closed: bool = True) -> list[int]:
    """Return only the side count of every bounded face of the drawing (see :func:`faces_of_path`)."""
    return _Arrangement(points, path, closed).sides(closed)


def score_sides(sides: Iterable[int]) -> tuple[int, int]:
    """Return ``(odd faces, even faces)``: the scores of seat 0 and seat 1."""
    odd = even = 0
    for count in sides:
        if count % 2:
            odd += 1
        else:
            even += 1
    return odd, even


# ---------------------------------------------------------------------------------------------- state


@dataclass(frozen=True)
class PolygonsState(State[Move]):
    """A Polygons & Dots position (rules: ``seeds/polygons.md``).

    Attributes:
        size: the lattice runs ``0..size`` in both axes (variant ``size``).
        per_seat: dots each seat places (variant ``dots``).
        points: the dots' lattice points ``(x, y)`` in placement order; dot ``i`` is named ``dot_name(i)`` and
            was placed by seat ``i % 2``.
        path: the dot indices in drawing order (empty before the first segment, never a single dot).
        komi: faces added to seat 1's score (variant ``komi``, default 0).
    """

    game: ClassVar[str] = KEY

    size: int = SIZE_DEFAULT
    per_seat: int = DOTS_DEFAULT
    points: tuple[Point, ...] = ()
    path: tuple[int, ...] = ()
    komi: int = KOMI_DEFAULT

    # ---- derived facts (cached; the dataclass is frozen but not slotted so cached_property works)

    @functools.cached_property
    def blocked(self) -> frozenset[Point]:
        """The lattice points where no further dot may go (:func:`blocked_points` of the dots)."""
        return blocked_points(self.points, self.size)

    @functools.cached_property
    def _placing(self) -> bool:
        if len(self.points) >= 2 * self.per_seat:
            return False
        return len(self.blocked) < (self.size + 1) ** 2

    @functools.cached_property
    def _arrangement(self) -> _Arrangement:
        return _Arrangement(self.points, self.path, self.phase == "over")

    @functools.cached_property
    def _faces(self) -> tuple[Face, ...]:
        return () if self.phase == "place" else self._arrangement.faces()

    @functools.cached_property
    def _scores(self) -> tuple[int, int]:
        return score_sides(self._arrangement.sides(self.phase == "over"))

    # ---- the interface

    @property
    def variant(self) -> dict[str, int]:
        """The variant options: ``{"size": ..., "dots": ..., "komi": ...}``."""
        return {"size": self.size, "dots": self.per_seat, "komi": self.komi}

    @property
    def total_dots(self) -> int:
        """Dots the variant places in all (``2 * dots``); fewer are placed only if the lattice fills up."""
        return 2 * self.per_seat

    @property
    def phase(self) -> Phase:
        """``"place"`` while dots are placed, ``"draw"`` while the path is drawn, ``"over"`` once it is closed."""
        if self._placing:
            return "place"
        if len(self.path) < len(self.points):
            return "draw"
        return "over"

    @property
    def dots(self) -> tuple[Dot, ...]:
        """The placed dots in order, with name, lattice point and owner seat."""
        return tuple(Dot(dot_name(i), x, y, i % 2) for i, (x, y) in enumerate(self.points))

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The drawn segments in drawing order; once the game is over the closing segment comes last."""
        segs = [Segment(a, b) for a, b in itertools.pairwise(self.path)]
        if self.phase == "over":
            segs.append(Segment(self.path[-1], self.path[0]))
        return tuple(segs)

    @property
    def path_end(self) -> str | None:
        """The name of the dot the next segment starts from, or ``None`` (before the first segment, or over)."""
        if self.phase != "draw" or not self.path:
            return None
        return dot_name(self.path[-1])

    @property
    def current_seat(self) -> int | None:
        """Seat to move: placements alternate from seat 0, and so do segments (seat 0 draws the first)."""
        phase = self.phase
        if phase == "place":
            return len(self.points) % 2
        if phase == "draw":
            return max(0, len(self.path) - 1) % 2
        return None

    @property
    def ply(self) -> int:
        """Moves made: one per dot and one per segment drawn (the closing segment is not a move)."""
        return len(self.points) + max(0, len(self.path) - 1)

    @property
    def last_move(self) -> Move | None:
        """The move that produced this state, or ``None`` at the start."""
        if len(self.path) >= 2:
            return Connect(self.path[-2], self.path[-1])
        if self.points:
            return Place(*self.points[-1])
        return None

    @property
    def scores(self) -> tuple[int, int]:
        """``(odd faces, even faces + komi)`` of the drawing so far: provisional while drawing, final once over
        (``(0, komi)`` while placing)."""
        if self.phase == "place":
            return 0, self.komi
        odd, even = self._scores
        return odd, even + self.komi

    @property
    def outcome(self) -> Outcome | None:
        """Once the path is closed: the seat with more faces wins, equal counts draw."""
        if self.phase != "over":
            return None
        odd, even = self.scores
        if odd == even:
            return Outcome(None, True, (odd, even), Termination.NATURAL)
        return Outcome(0 if odd > even else 1, False, (odd, even), Termination.NATURAL)

    def faces(self) -> tuple[Face, ...]:
        """The bounded faces of the drawing: the finished drawing once over, the faces enclosed so far before."""
        return self._faces

    def legal_points(self) -> list[Point]:
        """Lattice points where the seat to move may place a dot (row by row from ``0,0``); empty unless placing."""
        if self.phase != "place":
            return []
        blocked = self.blocked
        return [(x, y) for y in range(self.size + 1) for x in range(self.size + 1) if (x, y) not in blocked]

    def legal_starts(self) -> list[str]:
        """Dot names the next segment may start from: any dot for the first segment, else the path end."""
        if self.phase != "draw":
            return []
        if not self.path:
            return [dot_name(i) for i in range(len(self.points))]
        return [dot_name(self.path[-1])]

    def legal_targets(self) -> list[str]:
        """Dot names the next segment may go to: any dot for the first segment, else the unconnected dots."""
        if self.phase != "draw":
            return []
        used = set(self.path)
        return [dot_name(i) for i in range(len(self.points)) if i not in used]

    def legal_moves(self) -> list[Move]:
        """Every legal move: placements row by row, or segments (all ordered pairs for the first segment)."""
        phase = self.phase
        if phase == "place":
            return [Place(x, y) for x, y in self.legal_points()]
        if phase == "over":
            return []
        if not self.path:
            n = len(self.points)
            return [Connect(a, b) for a in range(n) for b in range(n) if a != b]
        used = set(self.path)
        return [Connect(self.path[-1], i) for i in range(len(self.points)) if i not in used]

    def parse_move(self, text: str) -> Move:
        """Parse ``3,9`` (also ``(3, 9)`` or ``3 9``), ``A-C``, or ``C`` (from the path end to C) into a move.

        Raises:
            InvalidMove: the text is not a lattice point or a segment, a coordinate is off the lattice, or a
                single dot name is given when there is no path end to start from.
        """
        if not isinstance(text, str):
            raise InvalidMove("A move is text such as 3,9 (a dot) or A-C (a segment).")  # never a member's
        body = text.strip()
        if match := _POINT_RE.fullmatch(body):
            x, y = int(match.group(1)), int(match.group(2))
            if not (0 <= x <= self.size and 0 <= y <= self.size):
                raise InvalidMove(_off_lattice(x, y, self.size))
            return Place(x, y)
        if _DECIMAL_RE.fullmatch(body) and "." in body:
            raise InvalidMove(_("Dots go on whole lattice points such as 3,9, not {typed}.", typed=body))
        if match := _SEGMENT_RE.fullmatch(body):
            return Connect(_ALPHABET.index(match.group(1).upper()), _ALPHABET.index(match.group(2).upper()))
        if match := _NAME_RE.fullmatch(body):
            end = _ALPHABET.index(match.group(1).upper())
            phase = self.phase
            if phase == "place":
                raise InvalidMove(_("Dots are still being placed: give a lattice point such as 3,9."))
            if phase == "over":
                raise InvalidMove(_("The game is over."))
            if not self.path:
                raise InvalidMove(_("The first segment names both of its dots, for example A-C."))
            return Connect(self.path[-1], end)
        if not body:
            raise InvalidMove(_("Type a move: a dot such as 3,9 or a segment such as A-C."))
        raise InvalidMove(_("Cannot read {typed} as a move: place a dot with x,y such as 3,9, or draw a segment such "
                            "as A-C.", typed=repr(body)))

    def format_move(self, move: Move) -> str:
        """Return ``x,y`` for a placement and ``A-C`` for a segment."""
        if isinstance(move, Place):
            return f"{move.x},{move.y}"
        if isinstance(move, Connect):
            return f"{dot_name(move.start)}-{dot_name(move.end)}"
        raise TypeError(f"not a Polygons & Dots move: {move!r}")

    def apply(self, move: Move) -> PolygonsState:
        """Return the state after ``move``.

        Raises:
            IllegalMove: the game is over; the move belongs to the other phase; the dot is off the lattice, on a
                dot, or in line with two dots (named); the segment names a missing dot, does not start from the
                path end, or goes to a dot already connected.
        """
        phase = self.phase
        if phase == "over":
            raise IllegalMove(_("The game is over: the path is closed."))
        if isinstance(move, Place):
            return self._place(move)
        if isinstance(move, Connect):
            if phase == "place":
                raise IllegalMove(_("Dots are still being placed ({placed} of {total}); place a dot with x,y such as "
                                    "3,9.", placed=len(self.points), total=self.total_dots))
            return self._connect(move)
        raise IllegalMove(f"That is not a Polygons & Dots move: {move!r}.")  # never a member's: a caller's mistake

    def _place(self, move: Place) -> PolygonsState:
        if self.phase != "place":
            example = f"{self.path_end}-{self.legal_targets()[0]}" if self.path else "A-C"
            raise IllegalMove(_("All dots are placed; draw a segment such as {example}.", example=example))
        x, y = move.x, move.y
        if not (isinstance(x, int) and isinstance(y, int)) or isinstance(x, bool) or isinstance(y, bool):
            raise IllegalMove(  # never a member's: parse_move makes whole numbers
                "A dot goes on a lattice point given by two whole numbers, such as 3,9.")
        if not (0 <= x <= self.size and 0 <= y <= self.size):
            raise IllegalMove(_off_lattice(x, y, self.size))
        point = (x, y)
        if point in self.blocked:
            if point in self.points:
                raise IllegalMove(_("Dot {dot} is already at {point}.", dot=dot_name(self.points.index(point)),
                                    point=f"{x},{y}"))
            for i, j in itertools.combinations(range(len(self.points)), 2):
                if collinear(self.points[i], self.points[j], point):
                    raise IllegalMove(_("The point {point} is in line with dots {first} and {second}; no three dots "
                                        "may lie on one straight line.", point=f"{x},{y}", first=dot_name(i),
                                        second=dot_name(j)))
        return PolygonsState(self.size, self.per_seat, (*self.points, point), (), self.komi)

    def _connect(self, move: Connect) -> PolygonsState:
        n = len(self.points)
        for end in (move.start, move.end):
            if not (isinstance(end, int) and 0 <= end < n):
                name = dot_name(end) if isinstance(end, int) and 0 <= end < len(_ALPHABET) else repr(end)
                raise IllegalMove(_("There is no dot {name}; the dots are A to {last}.", name=name,
                                    last=dot_name(n - 1)))
        if move.start == move.end:
            raise IllegalMove(_("A segment joins two different dots."))
        if not self.path:
            return PolygonsState(self.size, self.per_seat, self.points, (move.start, move.end), self.komi)
        end = self.path[-1]
        targets = ", ".join(self.legal_targets())
        if move.start != end:
            raise IllegalMove(_("Segments start from {end}, the dot last connected to, not from {start}; connect "
                                "{end} to one of {targets}.", end=dot_name(end), start=dot_name(move.start),
                                targets=targets))
        if move.end in self.path:
            raise IllegalMove(_("Dot {dot} is already connected; connect {end} to one of {targets}.",
                                dot=dot_name(move.end), end=dot_name(end), targets=targets))
        return PolygonsState(self.size, self.per_seat, self.points, (*self.path, move.end), self.komi)

    # ---- serialisation

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: game, variant, dots ``[[x, y], ...]``, path (names), ply, last move, phase."""
        last = self.last_move
        return {
            "game": KEY,
            "variant": self.variant,
            "dots": [[x, y] for x, y in self.points],
            "path": [dot_name(i) for i in self.path],
            "ply": self.ply,
            "last_move": None if last is None else self.format_move(last),
            "phase": self.phase,
            "scores": list(self.scores),
        }

    required_keys: ClassVar[tuple[str, ...]] = ("game", "variant", "dots", "path", "ply", "last_move")

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> PolygonsState:
        """Rebuild a state from :meth:`to_dict` output (the frame is :meth:`State.from_dict`).

        Raises:
            InvalidState: a field is missing or malformed, the variant is out of range, a dot is off the lattice,
                repeated or in line with two others, the path repeats or names missing dots, a path exists while
                placement is unfinished, or ``ply``, ``last_move``, ``phase`` or ``scores`` disagree.
        """
        try:
            size, per_seat, komi = read_variant(data["variant"])
        except InvalidVariant as error:
            raise InvalidState(f"Bad variant: {error}") from error
        points = _dots_from_data(data["dots"], size, per_seat)
        path = _path_from_data(data["path"], len(points))
        state = cls(size, per_seat, points, (), komi)
        if path and state.phase == "place":
            raise InvalidState("Segments are drawn while dots can still be placed.")
        state = cls(size, per_seat, points, path, komi)
        if data["ply"] != state.ply or not _is_int(data["ply"]):
            raise InvalidState(f"'ply' is {data['ply']!r} but the dots and path make {state.ply}.")
        last = state.last_move
        expected = None if last is None else state.format_move(last)
        if data["last_move"] != expected:
            raise InvalidState(f"'last_move' is {data['last_move']!r} but the position's last move is {expected!r}.")
        if "phase" in data and data["phase"] != state.phase:
            raise InvalidState(f"'phase' is {data['phase']!r} but the position is in phase {state.phase!r}.")
        if "scores" in data and data["scores"] != list(state.scores):
            raise InvalidState(f"'scores' are {data['scores']!r} but the drawing scores {list(state.scores)}.")
        return state


def _dots_from_data(raw: Any, size: int, per_seat: int) -> tuple[Point, ...]:
    """Read the stored ``dots`` (a list of ``[x, y]``) as lattice points, in placement order.

    Raises:
        InvalidState: ``raw`` is not a list of at most ``2 * per_seat`` items, an item is not a pair of whole
            numbers, a dot is off the ``0..size`` lattice, two dots coincide, or three dots are collinear.
    """
    if not isinstance(raw, list) or len(raw) > 2 * per_seat:
        raise InvalidState(f"'dots' must be a list of at most {2 * per_seat} lattice points.")
    points: list[Point] = []
    for item in raw:
        if not (isinstance(item, list | tuple) and len(item) == 2 and all(_is_int(v) for v in item)):
            raise InvalidState(f"Dot {item!r} is not a lattice point [x, y].")
        x, y = item
        if not (0 <= x <= size and 0 <= y <= size):
            raise InvalidState(f"Dot {x},{y} is off the 0..{size} lattice.")
        points.append((x, y))
    if len(set(points)) != len(points):
        raise InvalidState("Two dots share a lattice point.")
    for i, j, k in itertools.combinations(range(len(points)), 3):
        if collinear(points[i], points[j], points[k]):
            raise InvalidState(f"Dots {_names((i, j, k))} are collinear.")
    return tuple(points)


def _path_from_data(raw: Any, dots: int) -> tuple[int, ...]:
    """Read the stored ``path`` (a list of dot names such as ``"C"``) as dot indices, in drawing order.

    Raises:
        InvalidState: ``raw`` is not a list of strings, holds something that is not a dot name, names a dot
            beyond the ``dots`` placed, repeats a dot, or lists exactly one dot.
    """
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise InvalidState("'path' must be a list of dot names.")
    if not all(len(name) == 1 and name in _ALPHABET for name in raw):
        raise InvalidState(f"'path' {raw!r} holds something that is not a dot name (a single letter).")
    path = tuple(_ALPHABET.index(name) for name in raw)
    if any(i >= dots for i in path) or len(set(path)) != len(path) or len(path) == 1:
        raise InvalidState(f"'path' {raw!r} must list two or more distinct placed dots, or none.")
    return path


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def max_dots_per_seat(size: int) -> int:
    """Return the most dots per seat allowed on a ``0..size`` lattice: ``2 * (size + 1) // 3``.

    No row may hold three dots, so no more than ``2 * (size + 1)`` dots can ever fit; random placement fills a
    small lattice long before that (on ``0..8`` it is stuck after 12 dots in 1 game of 100). Allowing
    ``4 / 3 * (size + 1)`` dots in all keeps running out of room rare (the early end of placement in
    ``seeds/polygons.md`` covers it); 10 dots per seat need ``size >= 14``.
    """
    return 2 * (size + 1) // 3


def read_variant(options: Mapping[str, Any] | None) -> tuple[int, int, int]:
    """Validate variant options (:data:`OPTIONS`, then room for the dots) and return ``(size, dots, komi)``.

    Raises:
        InvalidVariant: an option is unknown, not a whole number, out of range, or the dots do not fit.
    """
    full = check_options(OPTIONS, options)
    check_room(full)
    return full["size"], full["dots"], full["komi"]


def check_room(variant: Mapping[str, Any]) -> None:
    """Raise :class:`InvalidVariant` unless ``variant["dots"]`` fit on its lattice (:func:`max_dots_per_seat`)."""
    size, per_seat = variant["size"], variant["dots"]
    if per_seat > max_dots_per_seat(size):
        raise InvalidVariant(_("The variant option dots must be at most {most} on a 0..{size} lattice (there must be "
                               "room to place them all), not {dots}.", most=max_dots_per_seat(size), size=size,
                               dots=per_seat))


def _off_lattice(x: int, y: int, size: int) -> Text:
    """The refusal of a point ``x,y`` off the ``0..size`` lattice."""
    return _("The point {point} is off the lattice: x and y run from 0 to {size}.", point=f"{x},{y}", size=size)
