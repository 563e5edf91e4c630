"""The rules of Napkin Chess: two players drop coins on a napkin until the player to move cannot place one.

Rules follow ``seeds/napkin_chess.md`` (our summary of K. Scherer's "Napkin Chess", 2014, and design.md §1).
Coins have radius 2, 3 or 4 napkin units and are worth that many points. A coin lies entirely on the napkin and
may touch, but not overlap, earlier coins and the optional hole. One shared supply serves both seats.

Coordinates are decimals with at most two places, so every legal centre is a point of the 0.01 lattice. This
module works in *hundredths* of a napkin unit throughout (``12.5`` is ``1250``) and decides legality with exact
integer arithmetic: a coin of radius ``r`` at ``(x, y)`` is legal when ``r <= x <= width - r``, likewise for ``y``,
and ``(x - xi)**2 + (y - yi)**2 >= (r + ri)**2`` for every earlier coin and the hole.

The end of the match is decided exactly. For a coin radius ``R`` the forbidden centres are open disks of radius
``R + ri``. Shapely builds two polygon approximations: an *outer* free region (napkin minus circumscribed
polygons, with a margin), every point of which rounds to a legal lattice point, and an *inner* region (napkin
minus inscribed polygons, with a margin), which contains every legal lattice point. If the outer region is empty,
each part of the inner region is scanned exactly, lattice row by lattice row, with ``math.isqrt``. Legal points
found are kept as *witnesses* and handed on to the next state while they stay legal, so most moves cost one
distance test per witness; the regions are handed on too, minus the new coin's polygon.

This module is the rules core of the game (notation, variant, exact geometry, state and the samplers of legal
placements); it imports nothing of the game's computer (:mod:`games.napkin_chess.computer`, the players) or its
declaration (:mod:`games.napkin_chess.game`).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.options import Option
from games.outcome import Outcome, Termination, stored_outcome_agrees
from games.state import State
from i18n import Text, Textual, _

SIZES: tuple[int, ...] = (2, 3, 4)
"""Coin sizes: the radius in napkin units, which is also the coin's value in points."""

SCALE = 100
"""Lattice points per napkin unit: coordinates have at most two decimal places."""

HOLE_RADIUS = 1
"""Radius of the hole in napkin units."""

HOLE_OFFSET = (150, 50)
"""Offset of the hole's centre from the napkin's centre, in hundredths: (16.5, 15.5) on the 30 × 30 napkin."""

MIN_SIDE, MAX_SIDE = 8, 60
"""Legal napkin width and height, napkin units (inclusive)."""

MAX_SUPPLY = 99
"""Largest number of coins of one size in the supply."""

SCORINGS: tuple[str, ...] = ("points", "last_mover")

PRESETS: dict[str, dict[str, Any]] = {
    # The source demo's first challenge (and design.md's defaults).
    "classic": {"width": 30.0, "height": 30.0, "supply": [20, 15, 7], "hole": False, "first_coin_two": True,
                "scoring": "points"},
    # Ours: the classic setup with the hole that breaks the first player's symmetry strategy.
    "holed": {"width": 30.0, "height": 30.0, "supply": [20, 15, 7], "hole": True, "first_coin_two": True,
              "scoring": "points"},
    # Ours: a short match on a small napkin.
    "quick": {"width": 20.0, "height": 20.0, "supply": [10, 6, 3], "hole": False, "first_coin_two": True,
              "scoring": "points"},
    # Ours: the widely published original (last player able to place wins, supply practically unlimited).
    "original": {"width": 30.0, "height": 30.0, "supply": [99, 99, 99], "hole": False, "first_coin_two": False,
                 "scoring": "last_mover"},
}
"""Named variant presets. Only ``classic`` comes from the source; the others are ours (see the seed document)."""

_BY_PRESET = "as the preset says"
"""The default of every option but ``preset``, in the rules' words."""

OPTIONS: tuple[Option, ...] = (
    Option("preset", "Napkin and supply preset", "classic", "choice", choices=tuple(PRESETS)),
    Option("width", "Napkin width in napkin units", None, "int", minimum=MIN_SIDE, maximum=MAX_SIDE, unset=_BY_PRESET),
    Option("height", "Napkin height in napkin units", None, "int", minimum=MIN_SIDE, maximum=MAX_SIDE,
           unset=_BY_PRESET),
    Option("coins_2", "Coins of size 2 in the shared supply", None, "int", minimum=0, maximum=MAX_SUPPLY,
           unset=_BY_PRESET),
    Option("coins_3", "Coins of size 3", None, "int", minimum=0, maximum=MAX_SUPPLY, unset=_BY_PRESET),
    Option("coins_4", "Coins of size 4", None, "int", minimum=0, maximum=MAX_SUPPLY, unset=_BY_PRESET),
    Option("hole", "A hole of radius 1 near the centre", None, "bool", unset=_BY_PRESET),
    Option("first_coin_two", "The first coin must be a 2", None, "bool", unset=_BY_PRESET),
    Option("scoring", "points (sum of coin values) or last_mover (last to place wins)", None, "choice",
           choices=SCORINGS, unset=_BY_PRESET),
)
"""The variant options players set; every one but ``preset`` defaults to ``None``: "as the preset says"."""
_OPTION = {option.name: option for option in OPTIONS}
STORED_KEYS: tuple[str, ...] = ("preset", "width", "height", "supply", "hole", "first_coin_two", "scoring")
"""The keys of a stored variant (:meth:`Variant.to_dict`)."""

_MAX_TEXT = 64
_COORD_RE = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_NUMBERISH_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

# Polygon approximation of circles: 4 * _QUAD_SEGS vertices, all on the circle.
_QUAD_SEGS = 8
_COS_HALF_STEP = math.cos(math.pi / (4 * _QUAD_SEGS))
_MARGIN = 1.5  # hundredths kept between the approximations and the true circles
_BOX_PAD = 3  # hundredths added around every inner-region part before the exact scan
_WITNESS_KEEP = 12


# --------------------------------------------------------------------------------------------------- notation


def format_coord(value: int) -> str:
    """Return a lattice coordinate (hundredths, ``>= 0``) as a short decimal: ``1250 -> "12.5"``, ``700 -> "7"``."""
    whole, frac = divmod(value, SCALE)
    if frac == 0:
        return str(whole)
    return f"{whole}.{frac:02d}".rstrip("0")


def _parse_coord(text: str, axis: str) -> int:
    """Parse one coordinate into hundredths (raises :class:`InvalidMove`)."""
    if not text:
        raise InvalidMove(_("The {axis} coordinate is missing; write a move as size@x,y, for example 3@12.5,7.",
                            axis=axis))
    if not _COORD_RE.fullmatch(text):
        if _NUMBERISH_RE.fullmatch(text) and text.startswith("-"):
            raise InvalidMove(_("The {axis} coordinate {text} is negative; coordinates start at 0 on the napkin.",
                                axis=axis, text=text))
        raise InvalidMove(_("The {axis} coordinate {text} is not a decimal number like 12.5.", axis=axis,
                            text=repr(text)))
    whole, _dot, frac = text.partition(".")
    if len(frac) > 2 and frac[2:].strip("0"):
        raise InvalidMove(_("The {axis} coordinate {text} has more than 2 decimal places; use at most 2, like 12.35.",
                            axis=axis, text=text))
    frac = (frac[:2]).ljust(2, "0")
    return int(whole or "0") * SCALE + int(frac)


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """Drop a coin of ``size`` (radius 2, 3 or 4 napkin units) with its centre at lattice point ``(x, y)``.

    ``x`` and ``y`` are integers in **hundredths of a napkin unit** (``12.5`` is ``1250``), measured from the
    napkin's lower-left corner. Notation: ``3@12.5,7``.

    Raises:
        InvalidMove: the size is not 2, 3 or 4, or a coordinate is negative or not an integer.
    """

    size: int
    x: int
    y: int

    def __post_init__(self) -> None:
        if type(self.size) is not int or self.size not in SIZES:
            raise InvalidMove(_("Coin size must be 2, 3 or 4, not {size}.", size=repr(self.size)))
        for axis, value in (("x", self.x), ("y", self.y)):
            if type(value) is not int:
                raise InvalidMove(  # never a member's: parse_move always gives whole hundredths
                    f"The {axis} coordinate must be a whole number of hundredths, not {value!r}.")
            if value < 0:
                raise InvalidMove(_("The {axis} coordinate is negative; coordinates start at 0 on the napkin.",
                                    axis=axis))

    @property
    def radius(self) -> int:
        """Radius in hundredths of a napkin unit."""
        return self.size * SCALE

    @property
    def centre(self) -> tuple[float, float]:
        """Centre in napkin units, as floats (for drawing only; legality uses the integer lattice)."""
        return self.x / SCALE, self.y / SCALE

    def __str__(self) -> str:
        return format_move(self)


def format_move(move: Move) -> str:
    """Return the notation of ``move``: ``size@x,y`` with at most two decimals, e.g. ``3@12.5,7``."""
    return f"{move.size}@{format_coord(move.x)},{format_coord(move.y)}"


def parse_move(text: str) -> Move:
    """Parse ``size@x,y`` (spaces allowed: ``3 @ 12.5, 7``) into a :class:`Move`.

    Raises:
        InvalidMove: malformed text, a size other than 2, 3 or 4, a negative coordinate, more than two decimal
            places, or anything that is not a plain decimal number (``nan``, ``inf``, ``1e309``).
    """
    if not isinstance(text, str):
        raise InvalidMove("A move must be text like 3@12.5,7.")  # never a member's: a caller's mistake
    text = text.strip()
    if len(text) > _MAX_TEXT:
        raise InvalidMove(_("That move is too long; write it as size@x,y, for example 3@12.5,7."))
    if text.count("@") != 1:
        raise InvalidMove(_("{move} is not a move; write size@x,y, for example 3@12.5,7.", move=repr(text)))
    size_text, _at, where = text.partition("@")
    size_text = size_text.strip()
    if size_text not in ("2", "3", "4"):
        raise InvalidMove(_("Coin size must be 2, 3 or 4, not {size}.", size=repr(size_text)))
    parts = where.split(",")
    if len(parts) != 2:
        raise InvalidMove(_("{move} needs exactly two coordinates after @, like 3@12.5,7.", move=repr(text)))
    x = _parse_coord(parts[0].strip(), "x")
    y = _parse_coord(parts[1].strip(), "y")
    return Move(int(size_text), x, y)


@dataclass(frozen=True, slots=True)
class Coin:
    """A placed coin: the ``seat`` that placed it, its ``size`` and its centre ``(x, y)`` in hundredths."""

    seat: int
    size: int
    x: int
    y: int

    @property
    def move(self) -> Move:
        """The move that placed this coin."""
        return Move(self.size, self.x, self.y)

    @property
    def radius(self) -> int:
        """Radius in hundredths of a napkin unit."""
        return self.size * SCALE


# ---------------------------------------------------------------------------------------------------- variant


@dataclass(frozen=True, slots=True)
class Variant:
    """A validated variant. ``width``/``height`` are in hundredths; ``supply`` counts sizes 2, 3 and 4."""

    preset: str
    width: int
    height: int
    supply: tuple[int, int, int]
    hole: bool
    first_coin_two: bool
    scoring: str

    @property
    def hole_centre(self) -> tuple[int, int] | None:
        """Centre of the hole in hundredths, or ``None`` without a hole.

        It sits 1.5 right of and 0.5 above the napkin's centre, rounded down to the lattice: (16.5, 15.5) on
        the 30 × 30 napkin.
        """
        if not self.hole:
            return None
        return self.width // 2 + HOLE_OFFSET[0], self.height // 2 + HOLE_OFFSET[1]

    @property
    def centre(self) -> tuple[int, int] | None:
        """The napkin's centre in hundredths when it is a lattice point, else ``None``."""
        if self.width % 2 or self.height % 2:
            return None
        return self.width // 2, self.height // 2

    def to_dict(self) -> dict[str, Any]:
        """Return every option as a JSON-safe dict (``width``/``height`` in napkin units)."""
        return {
            "preset": self.preset,
            "width": self.width / SCALE,
            "height": self.height / SCALE,
            "supply": list(self.supply),
            "hole": self.hole,
            "first_coin_two": self.first_coin_two,
            "scoring": self.scoring,
        }


def _to_hundredths(value: Any) -> int | None:
    """Return a number with at most two decimals in hundredths, or ``None`` when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    scaled = value * SCALE
    if abs(scaled) > 1e12:
        return None
    rounded = round(scaled)
    if abs(scaled - rounded) > 1e-6:
        return None
    return int(rounded)


def make_variant(options: Mapping[str, Any] | None = None) -> Variant:
    """Validate ``options`` over the preset they name (default ``classic``) and return a :class:`Variant`.

    ``options`` are what a player sets (:data:`OPTIONS`: ``preset``, ``width``, ``height``, ``coins_2``,
    ``coins_3``, ``coins_4``, ``hole``, ``first_coin_two``, ``scoring``; every one but ``preset`` left out or
    ``None`` takes the preset's value) or a stored variant (``supply`` as ``[coins_2, coins_3, coins_4]``, which
    the ``coins_*`` options override). ``width`` and ``height`` may have two decimals.

    Raises:
        InvalidVariant: an unknown option or an illegal value; the message names the option and legal values.
    """
    if options is not None and not isinstance(options, Mapping):
        raise InvalidVariant("A variant must be a set of named options.")  # never a member's: a caller's mistake
    given = {key: value for key, value in (options or {}).items() if value is not None}
    names = [option.name for option in OPTIONS]
    unknown = sorted(str(key) for key in given if key not in (*names, "supply"))
    if unknown:
        raise InvalidVariant(_("There is no option `{name}`; the options are {options}.", name=unknown[0],
                               options=", ".join(names)))
    preset = _OPTION["preset"].check(given.get("preset", "classic"))
    merged = dict(PRESETS[preset])

    sides = {}
    for key in ("width", "height"):
        value = given.get(key, merged[key])
        hundredths = _to_hundredths(value)
        if hundredths is None or not MIN_SIDE * SCALE <= hundredths <= MAX_SIDE * SCALE:
            raise InvalidVariant(_("Option `{name}` must be a number from {low} to {high} with at most 2 decimals, "
                                   "not `{value}`.", name=key, low=MIN_SIDE, high=MAX_SIDE, value=str(value)))
        sides[key] = hundredths

    supply = given.get("supply", merged["supply"])
    if (
        not isinstance(supply, list | tuple)
        or len(supply) != 3
        or any(type(n) is not int or not 0 <= n <= MAX_SUPPLY for n in supply)
    ):
        raise InvalidVariant(_("The supply must be three whole numbers from 0 to {most} (coins of size 2, 3 and 4), "
                               "not `{supply}`.", most=MAX_SUPPLY, supply=str(supply)))
    counts = [_OPTION[f"coins_{size}"].check(given.get(f"coins_{size}", count))
              for size, count in zip(SIZES, supply, strict=True)]
    if sum(counts) == 0:
        raise InvalidVariant(_("The supply needs at least one coin: coins_2, coins_3 and coins_4 are all 0."))
    hole, first_coin_two, scoring = (_OPTION[key].check(given.get(key, merged[key]))
                                     for key in ("hole", "first_coin_two", "scoring"))
    if first_coin_two and counts[0] == 0:
        raise InvalidVariant(_("Option `first_coin_two` needs at least one size-2 coin: set coins_2 to 1 or more."))
    return Variant(
        preset=preset,
        width=sides["width"],
        height=sides["height"],
        supply=(counts[0], counts[1], counts[2]),
        hole=hole,
        first_coin_two=first_coin_two,
        scoring=scoring,
    )


# --------------------------------------------------------------------------------------------------- geometry

Obstacle = tuple[int, int, int, int]
"""``(cx, cy, d, d2)`` in hundredths: a centre must keep ``squared distance >= d2 = d*d`` from ``(cx, cy)``."""


def _is_free(obstacles: Sequence[Obstacle], x: int, y: int) -> bool:
    """Exact test: ``(x, y)`` is outside every open forbidden disk (bounds are checked by the caller)."""
    for cx, cy, _radius, d2 in obstacles:
        dx = x - cx
        dy = y - cy
        if dx * dx + dy * dy < d2:
            return False
    return True


def _scan_box(obstacles: Sequence[Obstacle], x0: int, x1: int, y0: int, y1: int) -> Iterator[tuple[int, int]]:
    """Yield lattice points of the box ``[x0, x1] × [y0, y1]`` outside every open forbidden disk, row by row.

    Points come lazily, left to right in each row, so a caller that needs one point stops early. The test is
    exact: a point ``x`` of row ``y`` is forbidden by an obstacle when ``(x - cx)**2 < s = d2 - (y - cy)**2``,
    i.e. when ``|x - cx| <= isqrt(s - 1)``.
    """
    if x0 > x1 or y0 > y1:
        return
    near = []
    for cx, cy, _radius, d2 in obstacles:
        nx = min(max(cx, x0), x1) - cx
        ny = min(max(cy, y0), y1) - cy
        if nx * nx + ny * ny < d2:
            near.append((cx, cy, d2))
    isqrt = math.isqrt
    for y in range(y0, y1 + 1):
        spans = []
        for cx, cy, d2 in near:
            dy = y - cy
            s = d2 - dy * dy
            if s > 0:
                t = isqrt(s - 1)
                if cx + t >= x0 and cx - t <= x1:
                    spans.append((cx - t, cx + t))
        spans.sort()
        x = x0
        for a, b in spans:
            if a > x:
                for free in range(x, min(a, x1 + 1)):
                    yield free, y
            if b >= x:
                x = b + 1
            if x > x1:
                break
        else:
            for free in range(x, x1 + 1):
                yield free, y


def _disks(obstacles: Sequence[Obstacle], radii: np.ndarray) -> BaseGeometry:
    """Union of polygons with 4 * _QUAD_SEGS vertices at distance ``radii`` around the obstacle centres."""
    if not obstacles:
        return shapely.Polygon()
    xs = np.fromiter((o[0] for o in obstacles), float, len(obstacles))
    ys = np.fromiter((o[1] for o in obstacles), float, len(obstacles))
    polygons = shapely.buffer(shapely.points(xs, ys), radii, quad_segs=_QUAD_SEGS)
    return shapely.union_all(polygons)


def _box(x0: float, y0: float, x1: float, y1: float) -> BaseGeometry:
    if x0 >= x1 or y0 >= y1:
        return shapely.Polygon()
    return shapely.box(x0, y0, x1, y1)


# ------------------------------------------------------------------------------------------------------ state


@dataclass(frozen=True)
class NapkinState(State[Move]):
    """A Napkin Chess position: the variant and the coins placed so far, in order.

    Seat 0 moves first; seats alternate, so coin ``i`` was placed by seat ``i % 2``. The match is over when the
    seat to move cannot legally place any coin still in supply (decided exactly on first query).
    """

    game: ClassVar[str] = "napkin_chess"

    variant: Variant
    coins: tuple[Coin, ...] = ()
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    # -- interface ------------------------------------------------------------------------------------------

    @property
    def ply(self) -> int:
        """Number of coins placed."""
        return len(self.coins)

    @property
    def last_move(self) -> Move | None:
        """The move that placed the newest coin, or ``None`` at the start."""
        return self.coins[-1].move if self.coins else None

    @property
    def supply(self) -> tuple[int, int, int]:
        """Coins of sizes 2, 3 and 4 still in the shared supply."""
        used = [0, 0, 0]
        for coin in self.coins:
            used[coin.size - 2] += 1
        s = self.variant.supply
        return s[0] - used[0], s[1] - used[1], s[2] - used[2]

    @property
    def scores(self) -> tuple[int, int]:
        """Points per seat: the sum of the sizes of the coins each seat placed."""
        totals = [0, 0]
        for coin in self.coins:
            totals[coin.seat] += coin.size
        return totals[0], totals[1]

    @property
    def current_seat(self) -> int | None:
        """The seat to move, or ``None`` once no coin still in supply fits."""
        return None if self._over() else self.ply % 2

    @property
    def outcome(self) -> Outcome | None:
        """``None`` while a legal placement exists; else the outcome.

        ``points``: more points wins, equal points draw. ``last_mover``: the seat that placed the last coin wins.
        ``scores`` are the points in both cases; the termination is natural (no coin still in supply fits, which
        includes an exhausted supply: :attr:`supply_exhausted`).
        """
        if not self._over():
            return None
        scores = self.scores
        natural = Termination.NATURAL
        if self.variant.scoring == "last_mover":
            return Outcome(winner=(self.ply - 1) % 2, draw=False, scores=scores, termination=natural)
        if scores[0] == scores[1]:
            return Outcome(winner=None, draw=True, scores=scores, termination=natural)
        return Outcome(winner=0 if scores[0] > scores[1] else 1, draw=False, scores=scores, termination=natural)

    @property
    def supply_exhausted(self) -> bool:
        """``True`` once every coin of the supply is on the napkin (the match is then over)."""
        return not any(self.supply)

    def allowed_sizes(self) -> tuple[int, ...]:
        """Sizes the seat to move may take now: in supply, and only 2 for the first coin with first_coin_two."""
        supply = self.supply
        sizes = tuple(size for size in SIZES if supply[size - 2] > 0)
        if self.variant.first_coin_two and not self.coins:
            sizes = tuple(size for size in sizes if size == 2)
        return sizes

    def legal_moves(self) -> list[Move]:
        """A finite, deterministic *sample* of legal moves (the true set is a large lattice region).

        At most 8 placements per size the seat to move may take, exact-verified; empty when the match is over.
        """
        if self._over():
            return []
        last = self.last_move
        rng = random.Random(f"napkin_chess:{self.ply}:{format_move(last) if last else ''}")
        moves: list[Move] = []
        for size in self.allowed_sizes():
            moves.extend(self.sample_placements(size, 8, rng))
        return moves

    def parse_move(self, text: str) -> Move:
        """Parse ``size@x,y``; see :func:`parse_move` (raises :class:`InvalidMove`)."""
        return parse_move(text)

    def format_move(self, move: Move) -> str:
        """Return ``size@x,y``; see :func:`format_move`."""
        return format_move(move)

    def apply(self, move: Move) -> NapkinState:
        """Place ``move``'s coin for the seat to move and return the new state.

        Raises:
            IllegalMove: the match is over, the size is not in supply (or the first coin must be size 2), or the
                coin overhangs an edge or overlaps the hole or a coin; the message names what it overlaps and by
                how much.
        """
        if not isinstance(move, Move):
            raise IllegalMove("A move must be a coin placement such as 3@12.5,7.")  # never a member's: code's mistake
        problem = self.why_illegal(move)
        if problem is not None:
            raise IllegalMove(problem)
        coin = Coin(self.ply % 2, move.size, move.x, move.y)
        child = NapkinState(self.variant, (*self.coins, coin))
        for key, value in self._cache.items():
            if key[0] == "w" and value:
                # Witnesses stay valid for the child when the new coin leaves them free.
                r = key[1]
                limit = (r + move.radius) ** 2
                kept = [(x, y) for x, y in value if (x - move.x) ** 2 + (y - move.y) ** 2 >= limit]
                if kept:
                    child._cache[key] = kept
            elif key[0] in ("outer", "inner"):
                # The child's region is this one minus the new coin's polygon (computed when first needed).
                child._cache["base", key[0], key[1]] = (value, (coin,))
            elif key[0] == "base" and (key[1], key[2]) not in self._cache and len(value[1]) < 8:
                child._cache[key] = (value[0], (*value[1], coin))
        return child

    # -- legality -------------------------------------------------------------------------------------------

    def is_legal(self, move: Move) -> bool:
        """``True`` when ``move`` may be played now (exact)."""
        return self.why_illegal(move) is None

    def why_illegal(self, move: Move) -> Text | None:
        """Return a sentence saying why ``move`` is illegal now, or ``None`` when it is legal (exact)."""
        if self._over():
            return _("The match is over: no coin still in supply fits on the napkin.")
        supply = self.supply
        if self.variant.first_coin_two and not self.coins and move.size != 2:
            return _("The first coin of the match must be size 2 (variant first_coin_two).")
        if supply[move.size - 2] <= 0:
            left = [(n, s) for s, n in zip(SIZES, supply, strict=True) if n]
            if len(left) == 1:
                return _("No size-{size} coins are left in the supply; left: {count} of size {other}.",
                         size=move.size, count=left[0][0], other=left[0][1])
            if len(left) == 2:
                return _("No size-{size} coins are left in the supply; left: {count} of size {other}, "
                         "{count2} of size {other2}.", size=move.size, count=left[0][0], other=left[0][1],
                         count2=left[1][0], other2=left[1][1])
            return _("No size-{size} coins are left in the supply.", size=move.size)  # the match is over first
        return self._geometry_problem(move.size, move.x, move.y)

    def _geometry_problem(self, size: int, x: int, y: int) -> Text | None:
        r = size * SCALE
        w, h = self.variant.width, self.variant.height
        at = {"size": size, "x": format_coord(x), "y": format_coord(y)}
        overhangs = [
            (r - x, "left"),
            (x + r - w, "right"),
            (r - y, "bottom"),
            (y + r - h, "top"),
        ]
        amount, side = max(overhangs)
        if amount > 0:
            bounds = {**at, "by": _distance_text(amount), "x_max": format_coord(w - r), "y_max": format_coord(h - r)}
            if side == "left":
                return _("A size-{size} coin at ({x}, {y}) overhangs the left edge by {by}; a size-{size} coin needs "
                         "{size} ≤ x ≤ {x_max} and {size} ≤ y ≤ {y_max}.", **bounds)
            if side == "right":
                return _("A size-{size} coin at ({x}, {y}) overhangs the right edge by {by}; a size-{size} coin needs "
                         "{size} ≤ x ≤ {x_max} and {size} ≤ y ≤ {y_max}.", **bounds)
            if side == "bottom":
                return _("A size-{size} coin at ({x}, {y}) overhangs the bottom edge by {by}; a size-{size} coin "
                         "needs {size} ≤ x ≤ {x_max} and {size} ≤ y ≤ {y_max}.", **bounds)
            return _("A size-{size} coin at ({x}, {y}) overhangs the top edge by {by}; a size-{size} coin needs "
                     "{size} ≤ x ≤ {x_max} and {size} ≤ y ≤ {y_max}.", **bounds)
        hole = self.variant.hole_centre
        if hole is not None:
            reach = r + HOLE_RADIUS * SCALE
            d2 = (x - hole[0]) ** 2 + (y - hole[1]) ** 2
            if d2 < reach * reach:
                return _("A size-{size} coin at ({x}, {y}) overlaps the hole at ({hole_x}, {hole_y}) by {by}; coins "
                         "may touch the hole but not cover it.", **at, hole_x=format_coord(hole[0]),
                         hole_y=format_coord(hole[1]), by=_overlap_text(reach, d2))
        for index, coin in enumerate(self.coins, start=1):
            reach = r + coin.radius
            d2 = (x - coin.x) ** 2 + (y - coin.y) ** 2
            if d2 < reach * reach:
                return _("A size-{size} coin at ({x}, {y}) overlaps the size-{other} coin at ({other_x}, {other_y}) "
                         "(move {move}) by {by}; coins may touch but not overlap.", **at, other=coin.size,
                         other_x=format_coord(coin.x), other_y=format_coord(coin.y), move=index,
                         by=_overlap_text(reach, d2))
        return None

    # -- exact free-space queries ---------------------------------------------------------------------------

    def fits(self, size: int) -> bool:
        """``True`` when a coin of ``size`` fits somewhere on the napkin now, ignoring supply and turn (exact)."""
        return bool(self._witnesses(_check_size(size) * SCALE))

    def can_place(self, size: int) -> bool:
        """``True`` when the seat to move may legally place a coin of ``size`` now (supply, first-coin rule,
        geometry; exact). ``False`` once the match is over.

        Raises:
            ValueError: ``size`` is not 2, 3 or 4.
        """
        _check_size(size)
        return not self._over() and size in self.allowed_sizes() and self.fits(size)

    def sample_placements(self, size: int, k: int, rng: random.Random) -> list[Move]:
        """Return up to ``k`` distinct legal moves of ``size``, each verified exactly (for hints and autocomplete).

        Points are drawn with ``rng`` from the free region; tiny pockets are found by the exact scan. Fewer than
        ``k`` only when fewer were found; empty when ``can_place(size)`` is ``False``.
        """
        if k <= 0 or not self.can_place(size):
            return []
        r = size * SCALE
        obstacles = self._obstacles(r)
        found: dict[tuple[int, int], None] = {}
        outer = self._outer(r)
        if not outer.is_empty:
            minx, miny, maxx, maxy = outer.bounds
            x0, x1, y0, y1 = math.ceil(minx), math.floor(maxx), math.ceil(miny), math.floor(maxy)
            for _ in range(6 if x0 <= x1 and y0 <= y1 else 0):
                n = max(4 * k, 32)
                xs = np.array([rng.randint(x0, x1) for _ in range(n)], dtype=float)
                ys = np.array([rng.randint(y0, y1) for _ in range(n)], dtype=float)
                inside = shapely.contains_xy(outer, xs, ys)
                for px, py, ok in zip(xs.tolist(), ys.tolist(), inside.tolist(), strict=True):
                    point = (int(px), int(py))
                    if ok and point not in found and self._point_free(r, obstacles, *point):
                        found[point] = None
                        if len(found) >= k:
                            break
                if len(found) >= k:
                    break
        if len(found) < k:
            for point in self._pocket_points(r, k - len(found), exclude=found):
                found[point] = None
        return [Move(size, x, y) for x, y in list(found)[:k]]

    def contact_placements(self, size: int, limit: int | None = None, rng: random.Random | None = None) -> list[Move]:
        """Legal moves of ``size`` that (nearly) touch a coin, the hole or an edge, exact-verified.

        They are the corners of the guaranteed-free region, so each lies within about 0.05 of touching; pockets
        too small for that region contribute their exact lattice points. With ``limit`` and ``rng``, at most
        ``limit`` of them, drawn at random. Empty when ``can_place(size)`` is false.
        """
        if not self.can_place(size):
            return []
        r = size * SCALE
        obstacles = self._obstacles(r)
        corners = [(round(c[0]), round(c[1])) for c in shapely.get_coordinates(self._outer(r)).tolist()]
        if rng is not None:
            rng.shuffle(corners)
        found: dict[tuple[int, int], None] = {}
        for point in corners:
            if point not in found and self._point_free(r, obstacles, *point):
                found[point] = None
                if limit is not None and len(found) >= limit:
                    break
        if not found:
            for point in self._pocket_points(r, limit or 8, exclude=found):
                found[point] = None
        return [Move(size, x, y) for x, y in found]

    def free_region(self, size: int) -> BaseGeometry:
        """Shapely geometry (hundredths) of centres where a coin of ``size`` surely fits (within ~0.05 of exact).

        Pockets thinner than about 0.05 are missing; :meth:`pocket_points` finds those exactly.
        """
        return self._outer(_check_size(size) * SCALE)

    def pocket_points(self, size: int, limit: int = 8) -> list[tuple[int, int]]:
        """Exact legal centres (hundredths) for ``size`` in pockets apart from :meth:`free_region`, one per pocket,
        at most ``limit`` (those pockets are too thin for the polygon approximation to show)."""
        r = _check_size(size) * SCALE
        return self._pocket_points(r, limit, exclude={}, isolated=True)

    # -- internals ------------------------------------------------------------------------------------------

    def _over(self) -> bool:
        over = self._cache.get("over")
        if over is None:
            sizes = self.allowed_sizes()
            # A coin that fits also fits when smaller, so the smallest allowed size decides.
            over = not sizes or not self.fits(sizes[0])
            self._cache["over"] = over
        return over

    def _obstacles(self, r: int) -> list[Obstacle]:
        key = ("obstacles", r)
        cached = self._cache.get(key)
        if cached is None:
            cached = []
            hole = self.variant.hole_centre
            if hole is not None:
                d = r + HOLE_RADIUS * SCALE
                cached.append((hole[0], hole[1], d, d * d))
            for coin in self.coins:
                d = r + coin.radius
                cached.append((coin.x, coin.y, d, d * d))
            self._cache[key] = cached
        return cached

    def _in_bounds(self, r: int, x: int, y: int) -> bool:
        return r <= x <= self.variant.width - r and r <= y <= self.variant.height - r

    def _point_free(self, r: int, obstacles: Sequence[Obstacle], x: int, y: int) -> bool:
        return self._in_bounds(r, x, y) and _is_free(obstacles, x, y)

    def _outer(self, r: int) -> BaseGeometry:
        """Centres (hundredths) at distance >= d + margin from every obstacle and inside the napkin by margin."""
        return self._region("outer", r)

    def _inner(self, r: int) -> BaseGeometry:
        """A superset of the legal centres: the napkin (padded) minus polygons inscribed in the forbidden disks."""
        return self._region("inner", r)

    def _region(self, kind: str, r: int) -> BaseGeometry:
        """The outer or inner region for radius ``r``, from an earlier position's region when one was handed on
        (minus the polygons of the coins placed since), else from scratch."""
        key = (kind, r)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        base = self._cache.get(("base", kind, r))
        if base is not None:
            geometry, coins = base
            obstacles = [(c.x, c.y, r + c.radius, 0) for c in coins]
        else:
            w, h = self.variant.width, self.variant.height
            if kind == "outer":
                geometry = _box(r + _MARGIN, r + _MARGIN, w - r - _MARGIN, h - r - _MARGIN)
            else:
                geometry = shapely.box(r - _BOX_PAD, r - _BOX_PAD, w - r + _BOX_PAD, h - r + _BOX_PAD)
            obstacles = self._obstacles(r)
        if obstacles and not geometry.is_empty:
            if kind == "outer":
                radii = np.array([(o[2] + _MARGIN) / _COS_HALF_STEP + 0.01 for o in obstacles], dtype=float)
            else:
                radii = np.array([o[2] - _MARGIN for o in obstacles], dtype=float)
            geometry = geometry.difference(_disks(obstacles, radii))
        self._cache[key] = geometry
        return geometry

    def _pocket_points(self, r: int, limit: int, exclude: Mapping[tuple[int, int], None],
                       isolated: bool = False) -> list[tuple[int, int]]:
        """Exact scan of every part of the inner region; up to ``limit`` legal points not in ``exclude``.

        With ``isolated``, only parts that do not meet the outer region are scanned, one point per part.
        """
        obstacles = self._obstacles(r)
        w, h = self.variant.width, self.variant.height
        found: list[tuple[int, int]] = []
        parts = sorted(shapely.get_parts(self._inner(r)), key=lambda g: -g.area)
        outer = self._outer(r) if isolated else None
        for part in parts:
            if part.is_empty or (outer is not None and part.intersects(outer)):
                continue
            minx, miny, maxx, maxy = part.bounds
            x0 = max(r, math.floor(minx) - _BOX_PAD)
            x1 = min(w - r, math.ceil(maxx) + _BOX_PAD)
            y0 = max(r, math.floor(miny) - _BOX_PAD)
            y1 = min(h - r, math.ceil(maxy) + _BOX_PAD)
            for point in _scan_box(obstacles, x0, x1, y0, y1):
                if point not in exclude and point not in found:
                    found.append(point)
                    if len(found) >= limit:
                        return found
                    if isolated:
                        break
        return found

    def _witnesses(self, r: int) -> list[tuple[int, int]]:
        """Verified legal centres for radius ``r`` (hundredths); an empty list proves that none exists."""
        key = ("w", r)
        cached: list[tuple[int, int]] | None = self._cache.get(key)
        if cached is not None:
            return cached
        obstacles = self._obstacles(r)
        points: list[tuple[int, int]] = []
        outer = self._outer(r)
        if not outer.is_empty:
            candidates = [(round(c[0]), round(c[1])) for c in shapely.get_coordinates(outer).tolist()]
            step = max(1, len(candidates) // _WITNESS_KEEP)
            for point in candidates[::step]:
                if self._point_free(r, obstacles, *point) and point not in points:
                    points.append(point)
        if not points:
            points = self._pocket_points(r, 1, exclude={})
        self._cache[key] = points
        return points

    # -- serialisation --------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: game, full variant, coins (seat, size, x, y in napkin units), ply, last move,
        supply, scores, seat to move and outcome."""
        outcome = self.outcome
        last = self.last_move
        return {
            "game": self.game,
            "variant": self.variant.to_dict(),
            "ply": self.ply,
            "coins": [
                {"seat": c.seat, "size": c.size, "x": _coord_number(c.x), "y": _coord_number(c.y)} for c in self.coins
            ],
            "last_move": format_move(last) if last else None,
            "supply": list(self.supply),
            "scores": list(self.scores),
            "current_seat": self.current_seat,
            "outcome": outcome.to_dict() if outcome else None,
        }

    required_keys: ClassVar[tuple[str, ...]] = ("game", "variant", "coins")

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> NapkinState:
        """Rebuild a state from :meth:`to_dict` output, replaying every coin exactly (the frame is
        :meth:`State.from_dict`).

        ``game``, ``variant`` and ``coins`` are required; ``ply``, ``last_move``, ``supply``, ``scores``,
        ``current_seat`` and ``outcome`` are checked when present (an outcome stored before outcomes had a
        termination, with a ``reason``, on winner, draw and scores only).

        Raises:
            InvalidState: wrong game, a bad variant, a malformed coin, a coin placed out of turn, off the napkin,
                overlapping, beyond the supply, or after the match ended, or an inconsistent summary field.
        """
        try:
            variant = make_variant(data["variant"])
        except InvalidVariant as error:
            raise InvalidState(f"Bad variant: {error}") from error
        coins = data.get("coins")
        if not isinstance(coins, list):
            raise InvalidState("coins must be a list.")
        state = cls(variant)
        for index, item in enumerate(coins, start=1):
            if not isinstance(item, Mapping) or set(item) != {"seat", "size", "x", "y"}:
                raise InvalidState(f"Coin {index} must have exactly seat, size, x and y.")
            if item["seat"] != (index - 1) % 2 or type(item["seat"]) is not int:
                raise InvalidState(f"Coin {index} must be placed by seat {(index - 1) % 2}; seats alternate.")
            x, y = _to_hundredths(item["x"]), _to_hundredths(item["y"])
            if x is None or y is None:
                raise InvalidState(f"Coin {index} has coordinates that are not decimals with at most 2 places.")
            try:
                move = Move(item["size"], x, y)
            except InvalidMove as error:
                raise InvalidState(f"Coin {index}: {error}") from error
            # A legal placement proves that the match was not over before it, so only legality is replayed.
            problem = state._replay_problem(move)
            if problem is not None:
                raise InvalidState(f"Coin {index} is impossible: {problem}")
            state = cls(variant, (*state.coins, Coin((index - 1) % 2, move.size, move.x, move.y)))
        expected = state.to_dict()
        if "outcome" in data and not stored_outcome_agrees(data["outcome"], state.outcome):
            raise InvalidState(f"outcome is {data['outcome']!r} but the coins give {expected['outcome']!r}.")
        for key in ("ply", "last_move", "supply", "scores", "current_seat"):
            if key in data and data[key] != expected[key]:
                raise InvalidState(f"{key} is {data[key]!r} but the coins give {expected[key]!r}.")
        return state

    def _replay_problem(self, move: Move) -> Textual | None:
        supply = self.supply
        if self.variant.first_coin_two and not self.coins and move.size != 2:
            return "the first coin of the match must be size 2."
        if supply[move.size - 2] <= 0:
            return f"no size-{move.size} coins were left in the supply."
        return self._geometry_problem(move.size, move.x, move.y)


def _check_size(size: int) -> int:
    if type(size) is not int or size not in SIZES:
        raise ValueError(f"Coin size must be 2, 3 or 4, not {size!r}.")
    return size


def _coord_number(value: int) -> int | float:
    return value // SCALE if value % SCALE == 0 else value / SCALE


def _distance_text(hundredths: float) -> Textual:
    if hundredths < 0.5:
        return _("less than 0.01")
    return format_coord(round(hundredths))


def _overlap_text(reach: int, d2: int) -> Textual:
    return _distance_text(reach - math.sqrt(d2))
