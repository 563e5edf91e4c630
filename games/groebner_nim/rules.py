"""The rules of Gröbner Nim: pairing sticks (binomials over GF(2)) until they form a Gröbner basis.

Rules follow ``seeds/groebner_nim.md``, our summary of J. Perry's Gröbner Nim (source document
``groebner-nim.txt``; web app ``johnperry-math/Groebner_Nim``), with the decisions of the design document.

A *point* is a pair ``(a, b)`` of non-negative integers, the monomial ``x^a*y^b`` drawn at column ``a``, row
``b`` of the quarter-plane lattice. A :class:`Stick` is the binomial ``x^a*y^b + x^c*y^d``: two distinct
points, the *head* being the larger one under the match's monomial order (``grevlex``: larger total degree,
ties broken by the larger x exponent; ``lex``: larger x exponent, then larger y exponent).

A move (:class:`Pair`) picks two sticks not picked together before. Their S-stick joins the two tails after
shifting each stick north-east until the heads meet at the componentwise maximum (the lcm) of the heads; it
is then reduced by the sticks on the board and, if non-zero, appended as a new stick. The game ends as soon
as the sticks form a Gröbner basis of the ideal they generate (then no pair can add a stick).

This module is the rules core of the game: notation, the algebra (S-sticks, reduction, Buchberger's algorithm and
the Gröbner-basis test), the variant and the state. It imports nothing of the game's computer
(:mod:`games.groebner_nim.computer`) or its declaration (:mod:`games.groebner_nim.game`); those import it.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.options import Option, check_options
from games.outcome import Outcome, Termination, stored_outcome_agrees
from games.state import State
from i18n import Text, _, n_

Point = tuple[int, int]
"""A lattice point ``(a, b)``: the monomial ``x^a*y^b``."""

MODES: tuple[str, ...] = ("duel", "solitaire")
ORDERS: tuple[str, ...] = ("grevlex", "lex")
MIN_STICKS = 2
MAX_STICKS = 6
RANDOM_MAX_COORD = 9
"""Random starts draw both coordinates of every point from ``0..RANDOM_MAX_COORD``."""
MAX_EXPONENT = 20
"""Largest exponent allowed in a custom start."""
POINTS_PER_STICK = 3
"""Duel points earned for adding a stick."""

OPTIONS: tuple[Option, ...] = (
    Option("mode", "duel (2 players) or solitaire (fewest turns)", "duel", "choice", choices=MODES),
    Option("sticks", "Random start: number of sticks", MIN_STICKS, "int", minimum=MIN_STICKS, maximum=MAX_STICKS),
    Option("order", "Monomial order choosing heads", "grevlex", "choice", choices=ORDERS),
    Option("bonus_turn", "Duel: you keep the turn while your pair adds a stick", False, "bool"),
    Option("start", "Custom start as polynomials, e.g. x^3+1, x*y^2+y^3", None, "text", max_length=400,
           unset="a random start"),
)
"""The variant options (see :class:`Variant`)."""
_OPTIONS = tuple(option.name for option in OPTIONS)


# --------------------------------------------------------------------------------------------------------------
# Monomial orders, sticks and their notation


def order_key(order: str) -> Callable[[Point], tuple[int, int]]:
    """Return a sort key on points for ``order`` (``"grevlex"`` or ``"lex"``); larger key = further along.

    Raises:
        ValueError: unknown order.
    """
    if order == "grevlex":
        return _grevlex_key
    if order == "lex":
        return _lex_key
    raise ValueError(f"unknown monomial order {order!r}")


def _grevlex_key(point: Point) -> tuple[int, int]:
    return (point[0] + point[1], point[0])


def _lex_key(point: Point) -> tuple[int, int]:
    return point


def divides(a: Point, b: Point) -> bool:
    """``True`` when the monomial ``a`` divides ``b``, i.e. ``a`` lies south-west of ``b`` (or on it)."""
    return a[0] <= b[0] and a[1] <= b[1]


@dataclass(frozen=True, slots=True)
class Stick:
    """A binomial ``head + tail`` over GF(2), drawn as a segment between two lattice points.

    Attributes:
        head: the larger point under the match's monomial order (drawn with the larger dot).
        tail: the other point; never equal to ``head``.
    """

    head: Point
    tail: Point

    @classmethod
    def from_points(cls, p: Point, q: Point, order: str) -> Stick:
        """Return the stick through ``p`` and ``q`` with its head chosen by ``order``.

        Raises:
            ValueError: ``p == q`` (that binomial is zero over GF(2)) or a coordinate is negative.
        """
        if p == q:
            raise ValueError("the two points of a stick must differ")
        if min(p[0], p[1], q[0], q[1]) < 0:
            raise ValueError("lattice points have non-negative coordinates")
        key = order_key(order)
        return cls(p, q) if key(p) > key(q) else cls(q, p)

    def to_list(self) -> list[list[int]]:
        """Return ``[[head_x, head_y], [tail_x, tail_y]]`` (JSON-safe)."""
        return [list(self.head), list(self.tail)]


def format_point(point: Point) -> str:
    """Return the monomial of ``point`` in plain notation: ``(0, 0)`` → ``1``, ``(3, 1)`` → ``x^3*y``."""
    a, b = point
    factors = []
    if a:
        factors.append("x" if a == 1 else f"x^{a}")
    if b:
        factors.append("y" if b == 1 else f"y^{b}")
    return "*".join(factors) if factors else "1"


def format_stick(stick: Stick) -> str:
    """Return ``stick`` as a polynomial, head first, e.g. ``x^3*y + y^2``."""
    return f"{format_point(stick.head)} + {format_point(stick.tail)}"


def format_sticks(sticks: Iterable[Stick]) -> str:
    """Return sticks as comma-separated polynomials (the custom-start notation), e.g. ``x^3 + 1, x*y^2 + y^3``."""
    return ", ".join(format_stick(stick) for stick in sticks)


# --------------------------------------------------------------------------------------------------------------
# Parsing custom starts

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPERSCRIPT_POWER = re.compile("⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z])|(\*\*|\^)|([*+\-,;])|(\S))")


class StartError(ValueError):
    """A custom start could not be read; ``str(error)`` explains why in a sentence (its first argument is the
    :class:`i18n.Text` of it)."""


def _snippet(text: str, limit: int = 40) -> str:
    """``text`` stripped and cut to ``limit`` characters, for quoting player input in messages."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_Token = tuple[str, str]
"""A polynomial token ``(kind, text)``: kind ``"num"``, ``"var"``, ``"pow"`` (``^`` or ``**``), or the sign or
separator itself (``+``, ``-``, ``*``, ``,``, ``;``)."""


def _polynomial_tokens(text: str, number: int) -> list[_Token]:
    """Split polynomial ``number`` (counted from 1, for messages) into tokens, e.g. ``x^2`` into
    ``[("var", "x"), ("pow", "^"), ("num", "2")]``.

    Raises:
        StartError: ``text`` holds a character that is not part of a polynomial, or no token at all.
    """
    tokens: list[_Token] = []
    for match in _TOKEN.finditer(text):
        digits, letter, power, sign, other = match.groups()
        if digits is not None:
            tokens.append(("num", digits))
        elif letter is not None:
            tokens.append(("var", letter))
        elif power is not None:
            tokens.append(("pow", power))
        elif sign is not None:
            tokens.append((sign, sign))
        else:
            raise StartError(_(
                "Polynomial {number} (`{polynomial}`) contains `{found}`, which is not part of a polynomial; write "
                "terms like x^3*y joined by +.", number=number, polynomial=_snippet(text), found=other))
    if not tokens:
        raise StartError(_("Polynomial {number} is empty; each stick needs exactly two different terms.",
                           number=number))
    return tokens


def _parse_polynomial(text: str, number: int) -> list[Point]:
    """Parse one polynomial into its terms (points), in the order written.

    ``number`` counts the polynomials of the start from 1 and is quoted in messages.

    Raises:
        StartError: a character, variable, coefficient or sign is out of place, or an exponent is negative, missing
            or above :data:`MAX_EXPONENT`; the message quotes ``text``.
    """
    tokens = _polynomial_tokens(text, number)

    def fail(reason: Text) -> StartError:
        """``reason``, a whole sentence that begins ``Polynomial {number} (`{polynomial}`):``, filled in."""
        where = {"number": number, "polynomial": _snippet(text)}
        return StartError(dataclasses.replace(reason, params={**where, **reason.params}))

    terms: list[Point] = []
    pos = 0
    while True:
        term, pos = _parse_term(tokens, pos, fail)
        terms.append(term)
        if pos == len(tokens):
            break
        if tokens[pos][0] not in ("+", "-"):
            raise fail(_("Polynomial {number} (`{polynomial}`): expected + between terms but found `{found}`.",
                         found=tokens[pos][1]))
        pos += 1
        if pos == len(tokens):
            raise fail(_("Polynomial {number} (`{polynomial}`): ends with a sign; a term must follow it."))
    return terms


def _parse_term(tokens: list[_Token], pos: int, fail: Callable[[Text], StartError]) -> tuple[Point, int]:
    """Read one term, ``1`` or a product of powers of x and y, starting at ``tokens[pos]``.

    Returns:
        The term as a point ``(a, b)`` (``x^a*y^b``) and the position of the token after it.

    Raises:
        StartError: made by ``fail`` when a coefficient other than 1 is written, no term starts at ``pos``, a
            variable or exponent is wrong (:func:`_parse_exponent`), or an exponent sums above
            :data:`MAX_EXPONENT`.
    """
    exps = [0, 0]
    if pos < len(tokens) and tokens[pos][0] == "num":
        value = tokens[pos][1]
        if value.lstrip("0") != "1" or (pos + 1 < len(tokens) and tokens[pos + 1][0] in ("var", "*")):
            raise fail(_("Polynomial {number} (`{polynomial}`): `{value}` is not allowed here; over GF(2) every "
                         "coefficient is 1, so write a term like x^2*y or the constant 1.", value=value))
        pos += 1
    else:
        seen_factor = False
        while pos < len(tokens) and tokens[pos][0] == "var":
            name = tokens[pos][1]
            if name not in ("x", "y"):
                raise fail(_("Polynomial {number} (`{polynomial}`): uses the variable `{name}`; only x and y are "
                             "allowed.", name=name))
            exponent, pos = _parse_exponent(tokens, pos + 1, name, fail)
            exps[0 if name == "x" else 1] += exponent
            seen_factor = True
            if tokens[pos : pos + 1] == [("*", "*")] and pos + 1 < len(tokens) and tokens[pos + 1][0] == "var":
                pos += 1
        if not seen_factor:
            if pos < len(tokens):
                raise fail(_("Polynomial {number} (`{polynomial}`): expected a term (like x^2*y or 1) but found "
                             "`{found}`.", found=tokens[pos][1]))
            raise fail(_("Polynomial {number} (`{polynomial}`): expected a term (like x^2*y or 1) but found `the "
                         "end`."))
    for name, exponent in zip("xy", exps, strict=True):
        if exponent > MAX_EXPONENT:
            raise fail(_("Polynomial {number} (`{polynomial}`): the exponent of {name} is {exponent}; exponents may "
                         "be at most {most}.", name=name, exponent=exponent, most=MAX_EXPONENT))
    return (exps[0], exps[1]), pos


def _parse_exponent(tokens: list[_Token], pos: int, name: str, fail: Callable[[Text], StartError]) -> tuple[int, int]:
    """Read the optional ``^n`` (or ``**n``) after variable ``name``, starting at ``tokens[pos]``.

    Returns:
        The exponent (1 when none is written) and the position of the token after it.

    Raises:
        StartError: made by ``fail`` when the exponent is negative, missing after ``^`` or longer than three
            digits.
    """
    if pos >= len(tokens) or tokens[pos][0] != "pow":
        return 1, pos
    pos += 1
    if pos < len(tokens) and tokens[pos][0] == "-":
        raise fail(_("Polynomial {number} (`{polynomial}`): {name} has a negative exponent; exponents are whole "
                     "numbers from 0 to {most}.", name=name, most=MAX_EXPONENT))
    if pos >= len(tokens) or tokens[pos][0] != "num":
        raise fail(_("Polynomial {number} (`{polynomial}`): `{name}^` must be followed by a whole-number exponent.",
                     name=name))
    digits = tokens[pos][1].lstrip("0") or "0"
    if len(digits) > 3:
        raise fail(_("Polynomial {number} (`{polynomial}`): the exponent {exponent} of {name} is too large; "
                     "exponents may be at most {most}.", exponent=digits[:6] + ("..." if len(digits) > 6 else ""),
                     name=name, most=MAX_EXPONENT))
    return int(digits), pos + 1


def parse_start(text: str, order: str) -> tuple[Stick, ...]:
    """Parse a custom start such as ``x^3+1, x*y^2+y^3`` into sticks (heads chosen by ``order``).

    Polynomials are separated by commas or semicolons; terms by ``+`` (``-`` is accepted too: over GF(2) it is
    the same). A term is ``1`` or a product of ``x``/``y`` powers (``x^2*y``, ``x**2 y``, ``x²y``).

    Raises:
        StartError: the text is not 2–6 binomials with exponents 0–20, each with exactly two different terms,
            no two alike; the message says which polynomial is wrong and why.
    """
    # superscript digits are a power: x³ -> x^3
    cleaned = _SUPERSCRIPT_POWER.sub(lambda match: "^" + match.group().translate(_SUPERSCRIPTS), text)
    parts = re.split(r"[,;\n]", cleaned)
    if all(not part.strip() for part in parts):
        raise StartError(_("The start is empty; type {least} to {most} binomials separated by commas, e.g. "
                           "`x^3+1, x*y^2+y^3`.", least=MIN_STICKS, most=MAX_STICKS))
    sticks: list[Stick] = []
    for number, part in enumerate(parts, start=1):
        if not part.strip():
            raise StartError(_("Polynomial {number} is empty; remove the extra comma.", number=number))
        terms = _parse_polynomial(part, number)
        if len(terms) != 2:
            raise StartError(n_(
                "Polynomial {number} (`{polynomial}`) has {count} term; each stick is a binomial with exactly two "
                "different terms.",
                "Polynomial {number} (`{polynomial}`) has {count} terms; each stick is a binomial with exactly two "
                "different terms.", len(terms), number=number, polynomial=_snippet(part)))
        if terms[0] == terms[1]:
            raise StartError(_(
                "Polynomial {number} (`{polynomial}`) has the same term twice, which is zero over GF(2); each stick "
                "needs two different terms.", number=number, polynomial=_snippet(part)))
        stick = Stick.from_points(terms[0], terms[1], order)
        if stick in sticks:
            raise StartError(_("Polynomials {first} and {second} are the same stick.", first=sticks.index(stick) + 1,
                               second=number))
        sticks.append(stick)
    if len(sticks) < MIN_STICKS:
        raise StartError(n_("The start has {count} stick; type at least {least} binomials.",
                            "The start has {count} sticks; type at least {least} binomials.", len(sticks),
                            least=MIN_STICKS))
    if len(sticks) > MAX_STICKS:
        raise StartError(n_("The start has {count} stick; at most {most} are allowed.",
                            "The start has {count} sticks; at most {most} are allowed.", len(sticks),
                            most=MAX_STICKS))
    return tuple(sticks)


# --------------------------------------------------------------------------------------------------------------
# S-sticks, reduction and the Gröbner-basis test


def s_stick_points(f: Stick, g: Stick) -> tuple[Point, Point]:
    """Return the two points of the (unreduced) S-stick of ``f`` and ``g``.

    Both sticks are shifted north-east until their heads meet at the lcm of the heads; the heads annihilate and
    the shifted tails remain. The two points may coincide (then the S-stick is zero).
    """
    lx, ly = max(f.head[0], g.head[0]), max(f.head[1], g.head[1])
    return (
        (f.tail[0] + lx - f.head[0], f.tail[1] + ly - f.head[1]),
        (g.tail[0] + lx - g.head[0], g.tail[1] + ly - g.head[1]),
    )


def reduce_points(p: Point, q: Point, sticks: Sequence[Stick], order: str) -> Stick | None:
    """Reduce the binomial ``p + q`` by ``sticks``; return the remainder stick, or ``None`` if it vanishes.

    Deterministic, after J. Perry's app: while the two points differ, the point further along ``order`` is
    reduced first, by the first stick in list order whose head divides it (lies south-west of it); that stick is
    shifted so its head meets the point, the two annihilate and the shifted tail replaces the point. When the
    larger point cannot be reduced the other one is tried. It stops when neither point is divisible by any head
    (the remainder) or the two points coincide (zero). It always terminates: each step replaces a point by a
    smaller one in a well-order.
    """
    return reduce_by_heads(p, q, [stick.head for stick in sticks], [stick.tail for stick in sticks], order_key(order))


def reduce_by_heads(p: Point, q: Point, heads: Sequence[Point], tails: Sequence[Point],
                    key: Callable[[Point], tuple[int, int]]) -> Stick | None:
    """:func:`reduce_points` on parallel lists of heads and tails (the inner loop of every move and search)."""
    while p != q:
        if key(p) < key(q):
            p, q = q, p
        for index, (hx, hy) in enumerate(heads):
            if hx <= p[0] and hy <= p[1]:
                sx, sy = tails[index]
                p = (sx + p[0] - hx, sy + p[1] - hy)
                break
        else:
            for index, (hx, hy) in enumerate(heads):
                if hx <= q[0] and hy <= q[1]:
                    sx, sy = tails[index]
                    q = (sx + q[0] - hx, sy + q[1] - hy)
                    break
            else:
                return Stick(p, q)
    return None


def pair_result(sticks: Sequence[Stick], first: int, second: int, order: str) -> Stick | None:
    """Return the stick that pairing ``sticks[first]`` with ``sticks[second]`` (0-based) adds, or ``None``.

    The S-stick is reduced by all of ``sticks`` with :func:`reduce_points`.
    """
    p, q = s_stick_points(sticks[first], sticks[second])
    return reduce_by_heads(p, q, [stick.head for stick in sticks], [stick.tail for stick in sticks], order_key(order))


def coprime_heads(f: Stick, g: Stick) -> bool:
    """``True`` when the heads of ``f`` and ``g`` have no common variable (Buchberger's first criterion).

    In two variables that means one head is a pure power of x and the other a pure power of y (or one is 1).
    """
    return min(f.head[0], g.head[0]) == 0 and min(f.head[1], g.head[1]) == 0


def is_groebner_basis(sticks: Sequence[Stick], order: str, skip: Iterable[tuple[int, int]] = ()) -> bool:
    """Return ``True`` when ``sticks`` form a Gröbner basis of the ideal they generate under ``order``.

    Buchberger's criterion: every S-stick has a standard representation, here a reduction to zero. Pairs with
    coprime heads are skipped (Buchberger's first criterion: they always have one), and so are the 0-based pairs
    ``(i, j)``, ``i < j``, in ``skip`` — in a game, the pairs already picked, whose S-sticks are known to reduce
    to zero by the current sticks.
    """
    skipped = set(skip)
    heads = [stick.head for stick in sticks]
    tails = [stick.tail for stick in sticks]
    key = order_key(order)
    for j in range(1, len(sticks)):
        g = sticks[j]
        for i in range(j):
            if (i, j) in skipped or coprime_heads(sticks[i], g):
                continue
            p, q = s_stick_points(sticks[i], g)
            if reduce_by_heads(p, q, heads, tails, key) is not None:
                return False
    return True


def minimal_reduced_basis(sticks: Sequence[Stick], order: str) -> tuple[Stick, ...]:
    """Return the reduced Gröbner basis of a Gröbner basis ``sticks``, sorted by head (smallest first).

    Sticks whose head is divisible by another stick's head are dropped (of equal heads the first is kept), then
    every remaining tail is reduced by the other heads until no head divides it.
    """
    key = order_key(order)
    kept: list[Stick] = []
    for index, stick in enumerate(sticks):
        redundant = any(
            divides(other.head, stick.head) and (other.head != stick.head or other_index < index)
            for other_index, other in enumerate(sticks)
            if other_index != index
        )
        if not redundant:
            kept.append(stick)
    reduced = []
    for stick in kept:
        tail = stick.tail
        changed = True
        while changed:
            changed = False
            for other in kept:
                if other is not stick and divides(other.head, tail):
                    tail = (other.tail[0] + tail[0] - other.head[0], other.tail[1] + tail[1] - other.head[1])
                    changed = True
                    break
        reduced.append(Stick(stick.head, tail))
    return tuple(sorted(reduced, key=lambda stick: key(stick.head)))


@dataclass(frozen=True, slots=True)
class BuchbergerRun:
    """What Buchberger's algorithm did on a start (see :func:`buchberger`).

    Attributes:
        sticks: the start sticks followed by every stick the algorithm added, in order (a Gröbner basis).
        considered: the 0-based pairs whose S-sticks were reduced, in order (pairs removed by a criterion are not).
        added: per considered pair, the 0-based index of the stick it added, or ``None`` when it reduced to zero.
        par: the number of considered pairs up to and including the last one that added a stick.
    """

    sticks: tuple[Stick, ...]
    considered: tuple[tuple[int, int], ...]
    added: tuple[int | None, ...]
    par: int

    @property
    def productive(self) -> tuple[tuple[int, int], ...]:
        """The considered pairs that added a stick, in order."""
        return tuple(pair for pair, new in zip(self.considered, self.added, strict=True) if new is not None)


def buchberger(sticks: Sequence[Stick], order: str, done: Iterable[tuple[int, int]] = ()) -> BuchbergerRun:
    """Run Buchberger's algorithm with Buchberger's two criteria on ``sticks`` under ``order``.

    The pair set ``B`` starts as every 0-based pair ``(i, j)``, ``i < j``, except those in ``done``. While ``B``
    is not empty, the pair with the smallest lcm of heads (normal strategy; ties: smaller ``j``, then smaller
    ``i``) is selected. It is *considered* (its S-stick is reduced with :func:`reduce_points` by the current
    sticks, and a non-zero remainder is appended, adding the pairs ``(k, new)`` to ``B``) unless

    * its heads are coprime (Buchberger's first criterion), or
    * some third stick ``k`` has a head dividing the lcm of the pair's heads while neither ``(i, k)`` nor
      ``(j, k)`` is still in ``B`` (the chain criterion, Buchberger's second criterion);

    either way it leaves ``B``. ``par`` counts the considered pairs up to and including the last one that added
    a stick: the sticks are a Gröbner basis from that moment, so a player who picks exactly the considered pairs
    in order finishes in ``par`` turns.
    """
    key = order_key(order)
    current = list(sticks)
    done_set = set(done)
    pending: set[tuple[int, int]] = set()
    queue: list[tuple[tuple[int, int], int, int]] = []

    def push(i: int, j: int) -> None:
        a, b = current[i].head, current[j].head
        pending.add((i, j))
        heapq.heappush(queue, (key((max(a[0], b[0]), max(a[1], b[1]))), j, i))

    for j in range(len(current)):
        for i in range(j):
            if (i, j) not in done_set:
                push(i, j)
    considered: list[tuple[int, int]] = []
    added: list[int | None] = []
    while queue:
        _, j, i = heapq.heappop(queue)
        skip = coprime_heads(current[i], current[j])
        if not skip:
            a, b = current[i].head, current[j].head
            meet = (max(a[0], b[0]), max(a[1], b[1]))
            for k in range(len(current)):
                if k in (i, j) or not divides(current[k].head, meet):
                    continue
                if (min(i, k), max(i, k)) not in pending and (min(j, k), max(j, k)) not in pending:
                    skip = True
                    break
        pending.discard((i, j))
        if skip:
            continue
        new = pair_result(current, i, j, order)
        considered.append((i, j))
        if new is None:
            added.append(None)
        else:
            added.append(len(current))
            current.append(new)
            for k in range(len(current) - 1):
                push(k, len(current) - 1)
    last = max((index for index, new in enumerate(added) if new is not None), default=-1)
    return BuchbergerRun(tuple(current), tuple(considered), tuple(added), last + 1)


# --------------------------------------------------------------------------------------------------------------
# Moves, variant, state


@dataclass(frozen=True, slots=True, order=True)
class Pair:
    """A move: the pair of sticks ``first`` and ``second`` (1-based stick numbers, ``first < second``).

    Notation ``1-3``. Raises :class:`InvalidMove` when the numbers are not ``1 <= first < second``.
    """

    first: int
    second: int

    def __post_init__(self) -> None:
        for number in (self.first, self.second):
            if isinstance(number, bool) or not isinstance(number, int):
                raise InvalidMove("Stick numbers are whole numbers such as 1 or 3.")  # never a member's: code's
        if self.first < 1:
            raise InvalidMove(_("Sticks are numbered from 1."))
        if self.first == self.second:
            raise InvalidMove(_("A pair needs two different sticks; {pair} pairs stick {stick} with itself.",
                                pair=f"{self.first}-{self.second}", stick=self.first))
        if self.first > self.second:  # parse_pair orders them: only a caller's mistake
            raise InvalidMove(f"Write the smaller stick number first: {self.second}-{self.first}.")  # never a member's

    @property
    def indices(self) -> tuple[int, int]:
        """The 0-based stick indices ``(first - 1, second - 1)``."""
        return (self.first - 1, self.second - 1)

    @classmethod
    def from_indices(cls, i: int, j: int) -> Pair:
        """Return the pair of 0-based sticks ``i`` and ``j`` (either order)."""
        return cls(min(i, j) + 1, max(i, j) + 1)

    def __str__(self) -> str:
        return f"{self.first}-{self.second}"


@functools.lru_cache(maxsize=1 << 16)
def _pair(first: int, second: int) -> Pair:
    """Return the (shared, immutable) :class:`Pair` ``first-second``; listing legal moves creates many."""
    return Pair(first, second)


_MOVE = re.compile(r"^\s*\(?\s*(\d{1,6})\s*(?:[-–,]\s*|\s+)(\d{1,6})\s*\)?\s*$")


def parse_pair(text: str) -> Pair:
    """Parse ``1-3`` (also ``1 3``, ``1,3``, ``3-1``) into a :class:`Pair`.

    Raises:
        InvalidMove: not two stick numbers, a number below 1, or the same stick twice.
    """
    if not isinstance(text, str):
        raise InvalidMove("Type a pair of stick numbers such as 1-3.")  # never a member's: a caller's mistake
    match = _MOVE.match(text)
    if not match:
        raise InvalidMove(_("`{text}` is not a pair; type two stick numbers such as 1-3.", text=_snippet(text)))
    a, b = int(match.group(1)), int(match.group(2))
    if a == b:
        raise InvalidMove(_("A pair needs two different sticks; {pair} pairs stick {stick} with itself.",
                            pair=f"{a}-{b}", stick=a))
    return Pair(min(a, b), max(a, b))


@dataclass(frozen=True, slots=True)
class Variant:
    """The options of a Gröbner Nim match (see :meth:`GroebnerNim.variant_defaults`).

    Attributes:
        mode: ``"duel"`` (2 seats) or ``"solitaire"`` (1 seat).
        sticks: number of start sticks, 2–6 (for a custom start, the number it has).
        order: ``"grevlex"`` or ``"lex"``.
        bonus_turn: duel only: adding a stick earns another turn.
        start: the custom start in canonical notation, or ``None`` for a random start.
    """

    mode: str = "duel"
    sticks: int = 2
    order: str = "grevlex"
    bonus_turn: bool = False
    start: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return every option as a JSON-safe dict."""
        return {"mode": self.mode, "sticks": self.sticks, "order": self.order, "bonus_turn": self.bonus_turn,
                "start": self.start}

    @property
    def seats(self) -> int:
        """1 for solitaire, else 2."""
        return 1 if self.mode == "solitaire" else 2


def read_variant(variant: Mapping[str, Any] | None) -> tuple[Variant, tuple[Stick, ...] | None]:
    """Validate variant options (:data:`OPTIONS`, then the custom start); return the variant and the parsed custom
    start (or ``None``).

    Raises:
        InvalidVariant: an unknown option, an illegal value, or a custom start that cannot be read or is already a
            Gröbner basis.
    """
    raw = check_options(OPTIONS, variant)
    mode, order, count, bonus, start = raw["mode"], raw["order"], raw["sticks"], raw["bonus_turn"], raw["start"]
    parsed = None
    if start is not None and start.strip():
        try:
            parsed = parse_start(start, order)
        except StartError as error:
            raise InvalidVariant(_("Option `start`: {problem}", problem=error.args[0])) from None
        if is_groebner_basis(parsed, order):
            raise InvalidVariant(_("Option `start`: {sticks} already form a Gröbner basis under {order}, so there is "
                                   "no move to play; change a stick.", sticks=format_sticks(parsed), order=order))
        return Variant(mode, len(parsed), order, bonus, format_sticks(parsed)), parsed
    return Variant(mode, count, order, bonus, None), None


def random_start(count: int, order: str, rng: random.Random) -> tuple[Stick, ...]:
    """Draw ``count`` different sticks with coordinates 0–9, re-drawn until they are not a Gröbner basis."""
    while True:
        sticks: list[Stick] = []
        while len(sticks) < count:
            p = (rng.randint(0, RANDOM_MAX_COORD), rng.randint(0, RANDOM_MAX_COORD))
            q = (rng.randint(0, RANDOM_MAX_COORD), rng.randint(0, RANDOM_MAX_COORD))
            if p == q:
                continue
            stick = Stick.from_points(p, q, order)
            if stick not in sticks:
                sticks.append(stick)
        if not is_groebner_basis(sticks, order):
            return tuple(sticks)


@dataclass(frozen=True, slots=True)
class GroebnerNimState(State[Pair]):
    """A Gröbner Nim position. Build it with :meth:`GroebnerNim.new_state`, :meth:`apply` or :meth:`from_dict`.

    Attributes:
        variant: the match options.
        start_count: how many of ``sticks`` are start sticks (the rest were added by moves, in order).
        sticks: every stick in list order; stick number ``n`` (1-based) is ``sticks[n - 1]``.
        picked: the pairs picked so far, in the order played (``len(picked) == ply``).
        added: per picked pair, the 1-based number of the stick it added, or ``None`` if it reduced to zero.
        movers: per picked pair, the seat that picked it.
        par: solitaire par, the fewest turns that complete the basis from the start (an upper bound when
            ``par_exact`` is false: the exact search ran out of budget); ``None`` in a duel.
        par_exact: ``True`` when ``par`` is proven to be the fewest turns.
        basis: ``True`` once the sticks form a Gröbner basis (the game is over).
    """

    game: ClassVar[str] = "groebner_nim"

    variant: Variant
    start_count: int
    sticks: tuple[Stick, ...]
    picked: tuple[Pair, ...] = ()
    added: tuple[int | None, ...] = ()
    movers: tuple[int, ...] = ()
    par: int | None = None
    basis: bool = False
    par_exact: bool = False
    _picked_set: frozenset[Pair] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_picked_set", frozenset(self.picked))

    # -- State interface -----------------------------------------------------------------------------------------

    @property
    def seats(self) -> int:
        """2 in a duel, 1 in solitaire."""
        return self.variant.seats

    @property
    def ply(self) -> int:
        """Number of pairs picked so far."""
        return len(self.picked)

    @property
    def last_move(self) -> Pair | None:
        """The pair picked last, or ``None`` at the start."""
        return self.picked[-1] if self.picked else None

    @property
    def current_seat(self) -> int | None:
        """The seat to move (0-based), ``None`` once the sticks form a Gröbner basis."""
        if self.basis:
            return None
        if self.variant.mode == "solitaire" or not self.picked:
            return 0
        last = self.movers[-1]
        if self.variant.bonus_turn and self.added[-1] is not None:
            return last
        return 1 - last

    @property
    def scores(self) -> tuple[int, ...]:
        """Duel: points per seat (3 per added stick). Solitaire: ``(turns taken,)``."""
        if self.variant.mode == "solitaire":
            return (len(self.picked),)
        points = [0, 0]
        for seat, new in zip(self.movers, self.added, strict=True):
            if new is not None:
                points[seat] += POINTS_PER_STICK
        return tuple(points)

    @property
    def outcome(self) -> Outcome | None:
        """Once the sticks form a Gröbner basis: duel, most points wins (equal: draw); solitaire, turns vs par."""
        if not self.basis:
            return None
        if self.variant.mode == "solitaire":
            return Outcome(None, False, (len(self.picked),), Termination.NATURAL)
        scores = self.scores
        if scores[0] == scores[1]:
            return Outcome(None, True, scores, Termination.NATURAL)
        return Outcome(0 if scores[0] > scores[1] else 1, False, scores, Termination.NATURAL)

    def legal_moves(self) -> list[Pair]:
        """Every unpicked pair in order ``1-2, 1-3, 2-3, 1-4, ...``; empty once the game is over."""
        return [] if self.basis else self.unpicked_pairs()

    def parse_move(self, text: str) -> Pair:
        """Parse ``1-3`` (also ``1 3``, ``1,3``, ``3-1``); raises :class:`InvalidMove` when malformed."""
        return parse_pair(text)

    def format_move(self, move: Pair) -> str:
        """Return the canonical notation ``first-second`` (smaller number first)."""
        return str(move)

    def apply(self, move: Pair) -> GroebnerNimState:
        """Pick the pair ``move``: reduce its S-stick and append it if non-zero.

        Raises:
            IllegalMove: the game is over, a stick number does not exist, or the pair was picked before.
        """
        if not isinstance(move, Pair):
            raise IllegalMove("A move is a pair of stick numbers such as 1-3.")  # never a member's: a caller's mistake
        if self.basis:
            raise IllegalMove(_("The game is over: the sticks already form a Gröbner basis."))
        count = len(self.sticks)
        if move.second > count:
            raise IllegalMove(_("There is no stick {stick}; the sticks are numbered 1 to {count}.", stick=move.second,
                                count=count))
        if move in self._picked_set:
            turn = self.picked.index(move) + 1
            options = self.unpicked_pairs()
            shown = ", ".join(str(pair) for pair in options[:6]) + (", ..." if len(options) > 6 else "")
            raise IllegalMove(_("The pair {pair} was already picked on turn {turn}; pick another pair, e.g. "
                                "{pairs}.", pair=str(move), turn=turn, pairs=shown))
        order = self.variant.order
        i, j = move.indices
        new = pair_result(self.sticks, i, j, order)
        sticks = self.sticks if new is None else (*self.sticks, new)
        picked = (*self.picked, move)
        seat = self.current_seat
        assert seat is not None
        # Being a Gröbner basis depends on the sticks alone: a pair that reduces to zero changes nothing.
        basis = new is not None and is_groebner_basis(sticks, order, [pair.indices for pair in picked])
        return GroebnerNimState(
            variant=self.variant,
            start_count=self.start_count,
            sticks=sticks,
            picked=picked,
            added=(*self.added, None if new is None else len(sticks)),
            movers=(*self.movers, seat),
            par=self.par,
            basis=basis,
            par_exact=self.par_exact,
        )

    # -- Gröbner Nim specifics -------------------------------------------------------------------------------------

    def unpicked_pairs(self) -> list[Pair]:
        """Every pair not picked yet, ordered by second then first stick (``1-2, 1-3, 2-3, 1-4, ...``)."""
        picked = self._picked_set
        return [
            _pair(i, j) for j in range(2, len(self.sticks) + 1) for i in range(1, j) if _pair(i, j) not in picked
        ]

    def is_basis(self) -> bool:
        """``True`` when the sticks form a Gröbner basis (no unpicked pair would add a stick): the game is over."""
        return self.basis

    def preview(self, move: Pair) -> Stick | None:
        """Return the stick ``move`` would add, or ``None`` if it reduces to zero (does not check legality)."""
        if move.second > len(self.sticks):
            raise IllegalMove(_("There is no stick {stick}; the sticks are numbered 1 to {count}.", stick=move.second,
                                count=len(self.sticks)))
        return pair_result(self.sticks, *move.indices, self.variant.order)

    def adding_pairs(self) -> list[Pair]:
        """The unpicked pairs that would add a stick (empty once the game is over)."""
        if self.basis:
            return []
        return [pair for pair in self.unpicked_pairs() if self.preview(pair) is not None]

    def par_text(self) -> str:
        """Solitaire par in words: ``par 3``, or ``par ≤ 5`` when the exact search did not finish."""
        return f"par {self.par}" if self.par_exact else f"par ≤ {self.par}"

    def final_basis(self) -> tuple[Stick, ...]:
        """The reduced Gröbner basis of the sticks (meaningful once :meth:`is_basis`), smallest head first."""
        return minimal_reduced_basis(self.sticks, self.variant.order)

    # -- serialisation -----------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: game, variant, start sticks, all sticks, picked pairs and derived fields.

        Sticks are ``[[head_x, head_y], [tail_x, tail_y]]``; pairs are in notation (``"1-3"``).
        """
        outcome = self.outcome
        return {
            "game": self.game,
            "variant": self.variant.to_dict(),
            "start_sticks": [stick.to_list() for stick in self.sticks[: self.start_count]],
            "sticks": [stick.to_list() for stick in self.sticks],
            "picked": [str(pair) for pair in self.picked],
            "added": list(self.added),
            "movers": list(self.movers),
            "ply": self.ply,
            "last_move": None if self.last_move is None else str(self.last_move),
            "current_seat": self.current_seat,
            "scores": list(self.scores),
            "par": self.par,
            "par_exact": self.par_exact,
            "is_basis": self.basis,
            "outcome": None if outcome is None else outcome.to_dict(),
        }

    required_keys: ClassVar[tuple[str, ...]] = (
        "game", "variant", "start_sticks", "sticks", "picked", "added", "movers", "ply", "last_move",
        "current_seat", "scores", "par", "is_basis", "outcome")

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> GroebnerNimState:
        """Rebuild a state by replaying ``picked`` from ``start_sticks``; every stored field must agree (an
        outcome stored before outcomes had a termination, with a ``reason``, on winner, draw and scores only).

        Raises:
            InvalidState: a key is missing or malformed, the variant or start is invalid (a random start must use
                coordinates 0–9 and must not already be a Gröbner basis), a pair is illegal, or a stored field
                (sticks, added, movers, ply, last move, seat, scores, par, outcome) differs from the replay.
        """
        variant, custom = _variant_from_data(data["variant"])
        start = _sticks_from_data(data["start_sticks"], variant.order)
        _check_start(start, variant, custom)
        state = _replay(initial_state(variant, start, _stored_par(data, variant)), data["picked"])
        expected = state.to_dict()
        for key in cls.required_keys:
            if key == "outcome":
                if not stored_outcome_agrees(data[key], state.outcome):
                    raise InvalidState("The stored `outcome` does not match the replayed game.")
            elif data[key] != expected[key]:
                raise InvalidState(f"The stored `{key}` does not match the replayed game.")
        return state


def _stored_par(data: Mapping[str, Any], variant: Variant) -> tuple[int | None, bool]:
    """The par a stored state was started with, taken as stored: par is fixed when a match starts (a state stored
    before par was an exact search keeps its par, which was then an upper bound, without ``par_exact``).

    Raises:
        InvalidState: a duel with a par, or a solitaire whose par is not a positive whole number.
    """
    par, exact = data["par"], data.get("par_exact", False)
    if variant.mode != "solitaire":
        if par is not None or exact:
            raise InvalidState("A duel has no par.")
        return None, False
    if type(par) is not int or par < 1 or type(exact) is not bool:
        raise InvalidState("A solitaire's `par` must be a positive whole number and `par_exact` true or false.")
    return par, exact


def _variant_from_data(raw: Any) -> tuple[Variant, tuple[Stick, ...] | None]:
    """Read a stored variant (a mapping of every option) and return it with its custom start, or ``None``.

    Raises:
        InvalidState: ``raw`` is not a mapping of exactly the options, an option is invalid
            (:func:`read_variant`), or ``raw`` is not the variant's canonical form (:meth:`Variant.to_dict`).
    """
    if not isinstance(raw, Mapping) or set(raw) != set(_OPTIONS):
        raise InvalidState(f"The variant must give exactly the options {', '.join(_OPTIONS)}.")
    try:
        variant, custom = read_variant(raw)
    except InvalidVariant as error:
        raise InvalidState(f"Invalid variant: {error}") from None
    if variant.to_dict() != dict(raw):
        raise InvalidState("The variant is not in canonical form.")
    return variant, custom


def _check_start(start: tuple[Stick, ...], variant: Variant, custom: tuple[Stick, ...] | None) -> None:
    """Check stored start sticks against the variant: equal to the ``custom`` start if there is one, otherwise a
    possible random start.

    Raises:
        InvalidState: the sticks differ from the custom start; or, for a random start, their number is not
            ``variant.sticks``, a coordinate exceeds :data:`RANDOM_MAX_COORD`, two sticks are the same, or they
            already form a Gröbner basis under ``variant.order``.
    """
    if custom is not None:
        if start != custom:
            raise InvalidState("The start sticks differ from the custom start of the variant.")
        return
    if len(start) != variant.sticks:
        raise InvalidState(f"The variant has {variant.sticks} start sticks but the state has {len(start)}.")
    if any(max(*stick.head, *stick.tail) > RANDOM_MAX_COORD for stick in start):
        raise InvalidState(f"A random start has coordinates 0 to {RANDOM_MAX_COORD}.")
    if len(set(start)) != len(start):
        raise InvalidState("Two start sticks are the same.")
    if is_groebner_basis(start, variant.order):
        raise InvalidState("The start sticks already form a Gröbner basis; no game starts there.")


def _replay(state: GroebnerNimState, picked: Any) -> GroebnerNimState:
    """Apply the stored ``picked`` pairs (a list of notation strings such as ``"1-3"``) to ``state`` in order.

    Raises:
        InvalidState: ``picked`` is not a list, or a pair cannot be read or is illegal where it is played.
    """
    if not isinstance(picked, list):
        raise InvalidState("`picked` must be a list of pairs such as \"1-3\".")
    for text in picked:
        try:
            state = state.apply(parse_pair(text))
        except (InvalidMove, IllegalMove) as error:
            raise InvalidState(f"Picked pair {text!r} cannot be replayed: {error}") from None
    return state


def _sticks_from_data(raw: Any, order: str) -> tuple[Stick, ...]:
    """Read ``[[hx, hy], [tx, ty]]`` sticks, checking the head is the larger point under ``order``."""
    if not isinstance(raw, list):
        raise InvalidState("Sticks must be a list of [[head_x, head_y], [tail_x, tail_y]].")
    sticks = []
    for item in raw:
        try:
            (hx, hy), (tx, ty) = item
        except (TypeError, ValueError):
            raise InvalidState(f"{item!r} is not a stick [[head_x, head_y], [tail_x, tail_y]].") from None
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (hx, hy, tx, ty)):
            raise InvalidState(f"{item!r} has a coordinate that is not a non-negative whole number.")
        try:
            stick = Stick.from_points((hx, hy), (tx, ty), order)
        except ValueError:
            raise InvalidState(f"{item!r} has two equal points.") from None
        if stick.head != (hx, hy):
            raise InvalidState(f"{item!r} lists its head second under {order}.")
        sticks.append(stick)
    return tuple(sticks)


def initial_state(variant: Variant, start: tuple[Stick, ...], par: tuple[int | None, bool] = (None, False)
                  ) -> GroebnerNimState:
    """The start position of ``variant`` on the sticks ``start``, with the solitaire ``par`` as ``(turns, exact)``
    (``(None, False)`` in a duel). Par is the fewest turns that complete the basis, found by the computer's exact
    search when a match starts (:func:`games.groebner_nim.computer.start_par`) and stored with the state after."""
    turns, exact = par
    return GroebnerNimState(
        variant=variant,
        start_count=len(start),
        sticks=start,
        par=turns,
        par_exact=exact,
        basis=is_groebner_basis(start, variant.order),
    )
