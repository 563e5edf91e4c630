"""The computer of Gröbner Nim: one search over the positions of a start, and the players, values and starts on it.

Rules follow ``seeds/groebner_nim.md``; this module searches positions built with :mod:`games.groebner_nim.rules`
(which never imports it). Everything the computer does runs on one move generator, :class:`Positions` (the stick
lists of one start as a tree, with the pairs that add a stick in each and the normal forms of the points reduced
there, memoised): the solitaire par
(:func:`exact_par`, whose plan the ``hard`` solitaire player follows), the exact duel value (:class:`DuelSolver`,
the ``hard`` duel player), the depth-limited duel search when the exact one runs out of budget
(:func:`duel_search`), the fair random starts (:func:`fair_start`) and the exact values behind reviews
(:func:`exact_value`, :func:`move_values`, :func:`move_review`).

Facts the searches rely on (all follow from the deterministic reduction, see the seed page): a pair that reduces
to zero keeps reducing to zero after sticks are appended, and a picked pair that added a stick reduces to zero
from then on; so the pairs that would add a stick are exactly the *unpicked* pairs that would, and they are a
function of the stick list alone. The sticks form a Gröbner basis exactly when every head of the reduced
Gröbner basis of the ideal (the minimal generators of the initial ideal) is the head of some stick; a move adds
at most one head, so the number of those heads still missing is a lower bound on the turns left.

A duel position is therefore the stick list plus the number of unpicked pairs that reduce to zero (*passes*:
each only gives the turn away and is used up). Only the parity of that number matters: whoever could win
without the two extra passes still can with them, by answering a pass with a pass. So the memo key of a duel
position is ``(sticks, passes % 2)`` and a pass is searched only from odd parity.

Every search counts the positions it expands against a node budget (deterministic on every machine); when
the budget is spent it stops and says so instead of returning a guess. A ``hard`` move is also capped in CPU time
(:data:`HARD_CPU_SECONDS`, checked every :data:`_CLOCK_EVERY` positions), a backstop that stops only the second
exact search of a move (:func:`hard_move`; the pair the depth-limited search found before it is then played): it
keeps a move within a second of CPU on any machine, where the move may then differ from a faster machine's.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from games.groebner_nim.rules import (
    POINTS_PER_STICK,
    GroebnerNimState,
    Pair,
    Point,
    Stick,
    buchberger,
    minimal_reduced_basis,
    order_key,
    random_start,
)
from games.search import Level
from games.values import GameValue, MoveValues

PairIndex = tuple[int, int]
"""A pair of 0-based stick indices ``(i, j)``, ``i < j``."""

PAR_NODES = 20_000
"""Node budget of the exact par search: the positions it may expand (``make bench`` times it against 1 s)."""
DUEL_NODES = 3_000
"""Node budget of the first exact duel search of one ``hard`` move: the positions it may expand."""
DEEP_DUEL_NODES = 20_000
"""Node budget of the second exact duel search of a ``hard`` move whose first ran out, after the depth-limited
search has a pair in hand: the positions it may expand (it goes on from the bounds the first proved, the fallback's
pair first; :data:`HARD_CPU_SECONDS` may stop it sooner)."""
SWINDLE_NODES = 1_000
"""Node budget of the ``hard`` duel player's choice among the pairs of best value (:meth:`DuelSolver.trickiest`)."""
FALLBACK_DUEL_NODES = 1_000
"""Node budget of the depth-limited :func:`duel_search` of a ``hard`` move whose exact search ran out of budget."""
HARD_CPU_SECONDS = 0.85
"""CPU time (``time.process_time``, seconds) a ``hard`` duel move takes at most: it stops searching and plays the
best pair found; the second exact search stops early enough that freeing what it holds
(:data:`FREE_SECONDS_PER_POSITION` a position) fits within this cap too."""
FREE_SECONDS_PER_POSITION = 4e-6
"""CPU time (seconds) reserved for freeing each position a dropped search holds, within :data:`HARD_CPU_SECONDS`:
an upper bound on what freeing one position costs, with another process busy on the other core."""
_CLOCK_EVERY = 64
"""Positions expanded between two looks at the clock."""
START_DUEL_NODES = 500
"""Node budget of the fairness check of one candidate random start."""
START_TOTAL_NODES = 1_500
"""Positions the fairness checks of one random start may expand in all (see :func:`fair_start`)."""
MIN_START_TURNS = 3
"""A random start needs at least this many turns to complete the basis, whatever the players pick."""


class BudgetSpent(Exception):
    """A search spent its node budget before it finished.

    Attributes:
        proven: from :meth:`DuelSolver.solve`, the best move it had searched completely at the root (its exact
            value, a lower bound of the position's), or ``None`` when not one was; ``None`` from other searches.
    """

    def __init__(self, proven: DuelValue | None = None) -> None:
        super().__init__()
        self.proven = proven


class Positions:
    """The positions of one start as a tree of stick lists, with the pairs that add a stick in each (memoised).

    A position is a small integer id; position ``child`` is position ``parent`` with one stick appended. Ids keep
    the memo keys of the searches cheap to hash. A pair is reduced by the normal forms of its two points
    (:meth:`normal_form`), each continued from the parent's: the rules' step-by-step reduction gives the same sticks
    (the tests compare them pair by pair). A position's pairs are kept grouped by the stick they add
    (:meth:`grouped`), and its child reduces each of those sticks once rather than each pair (``make bench``: CPU
    per position of the exact duel search).

    Args:
        order: ``"grevlex"`` or ``"lex"``.
        target: the heads of the reduced Gröbner basis of the ideal (see :func:`target_heads`).
    """

    def __init__(self, order: str, target: frozenset[Point]) -> None:
        self.order = order
        order_key(order)  # ValueError for an unknown order
        self.grevlex = order == "grevlex"  # else lex, whose key is the point itself
        self.target = target
        self._roots: dict[tuple[Stick, ...], int] = {}
        self._ids: dict[tuple[int, Point, Point], int] = {}
        self._sticks: list[tuple[Stick, ...]] = []
        self._parent: list[int] = []
        self._last: list[Stick] = []  # each position's last stick
        self._missing: list[int] = []
        self._adding: list[dict[PairIndex, Stick] | None] = []
        self._groups: list[list[tuple[Stick, tuple[PairIndex, ...]]] | None] = []
        self._counts: list[int] = []
        self._moves: list[list[tuple[PairIndex, int]] | None] = []
        self._normal: list[dict[Point, Point]] = []
        self._children: list[list[Stick] | None] = []
        self._made: dict[tuple[Point, Point], Stick] = {}

    def __len__(self) -> int:
        return len(self._sticks)

    def _new(self, sticks: tuple[Stick, ...], parent: int) -> int:
        self._sticks.append(sticks)
        self._parent.append(parent)
        self._last.append(sticks[-1])
        if parent < 0:
            self._missing.append(len(self.target.difference(stick.head for stick in sticks)))
        else:  # a new stick's head is divisible by no head before it, so it is a head no stick had
            self._missing.append(self._missing[parent] - (sticks[-1].head in self.target))
        self._adding.append(None)
        self._groups.append(None)
        self._counts.append(0)
        self._moves.append(None)
        self._normal.append({})
        self._children.append(None)
        return len(self._sticks) - 1

    def root(self, sticks: Sequence[Stick]) -> int:
        """The id of the stick list ``sticks``, as a position of its own."""
        key = tuple(sticks)
        found = self._roots.get(key)
        if found is not None:
            return found
        # descend from the longest prefix already known, so that the searches share their memo
        for cut in range(len(key) - 1, 1, -1):
            base = self._roots.get(key[:cut])
            if base is not None:
                for new in key[cut:]:
                    child_key = (base, new.head, new.tail)
                    child = self._ids.get(child_key)
                    if child is None:
                        child = self._ids[child_key] = self._new((*self._sticks[base], new), base)
                    base = child
                self._roots[key] = base
                return base
        found = self._roots[key] = self._new(key, -1)
        return found

    def sticks(self, position: int) -> tuple[Stick, ...]:
        """The stick list of ``position``."""
        return self._sticks[position]

    def missing(self, position: int) -> int:
        """How many heads of the reduced basis are not yet the head of a stick (0: the game is over)."""
        return self._missing[position]

    def normal_form(self, position: int, point: Point) -> Point:
        """The point that :func:`~games.groebner_nim.rules.reduce_by_heads` reduces ``point`` to by the sticks of
        ``position`` (the first stick whose head divides it, again and again, until none does), memoised.

        The reduction of a binomial ``p + q`` by the rules' procedure is zero exactly when ``p`` and ``q`` have the
        same normal form, and is otherwise the stick through the two normal forms: it always reduces the larger
        point, so it walks the two chains of reduction in decreasing order and stops where they meet. A stick is
        appended after all others, so a point's chain under ``position`` is its chain under the parent, continued
        from the parent's normal form: that is how it is computed, sharing the parent's memo with its siblings.
        """
        memo = self._normal[position]
        found = memo.get(point)
        if found is not None:
            return found
        parent = self._parent[position]
        if parent < 0:
            reduced = point
            sticks = self._sticks[position]
            while True:
                for stick in sticks:
                    (hx, hy), (sx, sy) = stick.head, stick.tail
                    if hx <= reduced[0] and hy <= reduced[1]:
                        reduced = (sx + reduced[0] - hx, sy + reduced[1] - hy)
                        break
                else:
                    break
        else:
            reduced = self._normal[parent].get(point) or self.normal_form(parent, point)
            new = self._last[position]
            (hx, hy), (sx, sy) = new.head, new.tail
            rx, ry = reduced
            if hx <= rx and hy <= ry:
                shifted = (sx + rx - hx, sy + ry - hy)
                reduced = memo.get(shifted) or self.normal_form(position, shifted)
        memo[point] = reduced
        return reduced

    def _reduce(self, position: int, p: Point, q: Point) -> Stick | None:
        """:func:`~games.groebner_nim.rules.reduce_by_heads` of ``p + q`` by the sticks of ``position`` (see
        :meth:`normal_form`); one :class:`Stick` object for each stick of this search (so telling sticks apart
        needs no hashing of their points)."""
        memo = self._normal[position]
        p = memo.get(p) or self.normal_form(position, p)
        q = memo.get(q) or self.normal_form(position, q)
        return None if p == q else self._through(p, q)

    def _through(self, p: Point, q: Point) -> Stick:
        """The stick through the different points ``p`` and ``q``, its head the larger in the order (one object for
        each stick of this search)."""
        if self.grevlex:
            if p[0] + p[1] < q[0] + q[1] or (p[0] + p[1] == q[0] + q[1] and p[0] < q[0]):
                p, q = q, p
        elif p < q:
            p, q = q, p
        found = self._made.get((p, q))
        if found is None:
            found = self._made[(p, q)] = Stick(p, q)
        return found

    def adding(self, position: int) -> dict[PairIndex, Stick]:
        """Map every pair that would add a stick in ``position`` onto the stick it adds, in the order ``(0, 1),
        (0, 2), (1, 2), (0, 3), ...``."""
        found = self._adding[position]
        if found is None:
            flat = [(pair, stick) for stick, pairs in self.grouped(position) for pair in pairs]
            flat.sort(key=lambda item: (item[0][1], item[0][0]))
            found = self._adding[position] = dict(flat)
        return found

    def adding_count(self, position: int) -> int:
        """How many pairs would add a stick in ``position`` (``len(adding(position))``, without building it)."""
        self.grouped(position)
        return self._counts[position]

    def grouped(self, position: int) -> list[tuple[Stick, tuple[PairIndex, ...]]]:
        """The distinct sticks the pairs of ``position`` would add, each with those pairs, in the order in which each
        stick's first pair comes in :meth:`adding`.

        Incremental from the parent position, a stick at a time (several pairs often add the same stick, and
        :meth:`_reduce` makes one object of each): a pair that reduced to zero still does, and an older stick
        changes only when the new head divides one of its points; then the pairs with the new stick.
        """
        found = self._groups[position]
        if found is not None:
            return found
        sticks = self._sticks[position]
        parent = self._parent[position]
        found = []
        merged = False  # was an older stick reduced further (so that two may now be one)?
        if parent >= 0:
            hx, hy = sticks[-1].head
            for item in self.grouped(parent):
                stick = item[0]
                (ax, ay), (bx, by) = stick.head, stick.tail
                if (hx <= ax and hy <= ay) or (hx <= bx and hy <= by):  # the new head divides a point
                    reduced = self._reduce(position, stick.head, stick.tail)
                    if reduced is None:
                        continue
                    item = (reduced, item[1])
                    merged = True  # it may now be a stick already in found, or one still to come
                found.append(item)
            if merged:
                found = self._merged(found)
            first_new = len(sticks) - 1
        else:
            first_new = 1
        place = {id(item[0]): k for k, item in enumerate(found)}  # id of a stick -> its index in found
        memo = self._normal[position]
        normal_form, through = self.normal_form, self._through
        for j in range(first_new, len(sticks)):
            (jhx, jhy), (jtx, jty) = sticks[j].head, sticks[j].tail
            for i in range(j):
                (ihx, ihy), (itx, ity) = sticks[i].head, sticks[i].tail
                lx = ihx if ihx > jhx else jhx
                ly = ihy if ihy > jhy else jhy
                # the S-stick's two points (s_stick_points), reduced as _reduce does: inlined, this is the
                # hottest loop of the duel search
                p = (itx + lx - ihx, ity + ly - ihy)
                p = memo.get(p) or normal_form(position, p)
                q = (jtx + lx - jhx, jty + ly - jhy)
                q = memo.get(q) or normal_form(position, q)
                if p == q:
                    continue
                new = through(p, q)
                at = place.get(id(new))
                if at is None:
                    place[id(new)] = len(found)
                    found.append((new, ((i, j),)))
                else:
                    found[at] = (new, (*found[at][1], (i, j)))
        self._groups[position] = found
        self._counts[position] = sum(len(pairs) for _, pairs in found)
        return found

    @staticmethod
    def _merged(items: list[tuple[Stick, tuple[PairIndex, ...]]]) -> list[tuple[Stick, tuple[PairIndex, ...]]]:
        """``items`` with the pairs of each stick gathered at its first place."""
        found: list[tuple[Stick, tuple[PairIndex, ...]]] = []
        place: dict[int, int] = {}
        for item in items:
            at = place.get(id(item[0]))
            if at is None:
                place[id(item[0])] = len(found)
                found.append(item)
            else:
                found[at] = (item[0], found[at][1] + item[1])
        return found

    def moves(self, position: int) -> list[tuple[PairIndex, int]]:
        """The pairs that add a stick in ``position`` with the positions they lead to, those adding a missing
        basis head first."""
        found = self._moves[position]
        if found is not None:
            return found
        found = [(pair, self.child(position, new)) for pair, new in self.adding(position).items()]
        found.sort(key=lambda item: self._missing[item[1]])
        self._moves[position] = found
        return found

    def children(self, position: int) -> list[Stick]:
        """The distinct sticks the pairs of ``position`` add, those completing a missing basis head first, and
        otherwise in the order of :meth:`moves` (several pairs often add the same stick, and a duel search need look
        at the position it leads to once; :meth:`child` makes that position when the search gets to it).

        A new stick's head is divisible by no head before it (it is reduced), so it completes a missing basis head
        exactly when it is a basis head.
        """
        found = self._children[position]
        if found is None:
            target = self.target
            found = sorted((new for new, _ in self.grouped(position)), key=lambda new: new.head not in target)
            self._children[position] = found
        return found

    def child(self, position: int, new: Stick) -> int:
        """The id of ``position`` with the stick ``new`` appended (a position of its own from the first call)."""
        child_key = (position, new.head, new.tail)
        child = self._ids.get(child_key)
        if child is None:
            child = self._ids[child_key] = self._new((*self._sticks[position], new), position)
        return child


def target_heads(sticks: Sequence[Stick], order: str) -> frozenset[Point]:
    """The heads of the reduced Gröbner basis of the ideal ``sticks`` generate under ``order``."""
    return frozenset(stick.head for stick in minimal_reduced_basis(buchberger(sticks, order).sticks, order))


# --------------------------------------------------------------------------------------------------------------
# Solitaire: the fewest turns


@dataclass(frozen=True, slots=True)
class Par:
    """The fewest turns that complete the basis from a position (see :func:`exact_par`).

    Attributes:
        turns: the fewest turns when ``exact``, else an upper bound (the shortest plan found).
        exact: ``True`` when the search proved that no shorter plan exists.
        lower: a proven lower bound (``== turns`` when ``exact``).
        plan: 0-based pairs that complete the basis in ``turns`` turns, in order.
        nodes: positions expanded.
    """

    turns: int
    exact: bool
    lower: int
    plan: tuple[PairIndex, ...]
    nodes: int


def exact_par(sticks: Sequence[Stick], order: str, nodes: int = PAR_NODES,
              positions: Positions | None = None) -> Par:
    """Return the fewest turns that make ``sticks`` a Gröbner basis under ``order``, by exact search.

    Iterative-deepening A* over pairs that add a stick (a pair adding nothing never helps), with the number of
    missing basis heads as the admissible bound (with no turn to spare, only pairs adding a missing head are
    tried), and a memo of positions proven unable to finish within a number of turns. The upper bound to beat is
    Buchberger's algorithm (:func:`buchberger`, its pairs that add a stick). When ``nodes`` positions have been
    expanded the search stops and the result is the best plan known, with ``exact`` false. Deterministic. A
    position that is already a basis has par 0.
    """
    start = tuple(sticks)
    if positions is None:
        positions = Positions(order, target_heads(start, order))
    root = positions.root(start)
    plan: tuple[PairIndex, ...] = buchberger(start, order).productive
    lower = positions.missing(root)
    budget = [nodes]
    failed: dict[int, int] = {}

    def dfs(position: int, left: int) -> list[PairIndex] | None:
        missing = positions.missing(position)
        if missing == 0:
            return []
        if missing > left or failed.get(position, -1) >= left:
            return None
        budget[0] -= 1
        if budget[0] < 0:
            raise BudgetSpent
        for pair, child in positions.moves(position):  # those adding a missing head come first
            if missing == left and positions.missing(child) == missing:
                break
            rest = dfs(child, left - 1)
            if rest is not None:
                return [pair, *rest]
        failed[position] = left
        return None

    try:
        while lower < len(plan):
            found = dfs(root, lower)
            if found is not None:
                plan = tuple(found)
                break
            lower += 1
    except BudgetSpent:
        return Par(len(plan), False, lower, plan, nodes)
    return Par(len(plan), True, len(plan), plan, nodes - budget[0])


def finishes_within(sticks: Sequence[Stick], order: str, turns: int, positions: Positions | None = None) -> bool:
    """``True`` when some sequence of at most ``turns`` pairs makes ``sticks`` a Gröbner basis (exhaustive)."""
    if positions is None:
        positions = Positions(order, target_heads(sticks, order))

    def reach(position: int, left: int) -> bool:
        missing = positions.missing(position)
        if missing == 0:
            return True
        if missing > left:
            return False
        return any(reach(child, left - 1) for _, child in positions.moves(position))

    return reach(positions.root(sticks), turns)


def solitaire_plan(sticks: Sequence[Stick], order: str, nodes: int = PAR_NODES) -> tuple[PairIndex, ...]:
    """The ``hard`` solitaire player's plan from ``sticks``: 0-based pairs that, picked in order, each add a stick and
    complete the basis; the plan of :func:`exact_par` (par turns when the search finishes within ``nodes``
    positions, else the shortest plan it found, never longer than Buchberger's). Deterministic."""
    return exact_par(sticks, order, nodes).plan


@functools.lru_cache(maxsize=256)
def start_par(start: tuple[Stick, ...], order: str) -> tuple[int, bool]:
    """Solitaire par of a start as ``(turns, exact)`` (see :func:`exact_par`); remembered, since a match asks for it
    when it starts and its ``hard`` player plans from the same start."""
    found = exact_par(start, order)
    return found.turns, found.exact


@functools.lru_cache(maxsize=64)
def start_plan(start: tuple[Stick, ...], order: str) -> tuple[PairIndex, ...]:
    """The :func:`solitaire_plan` from a start, remembered so that following it costs nothing after the first move."""
    return solitaire_plan(start, order)


# --------------------------------------------------------------------------------------------------------------
# Duel: the exact game value

_INFINITY = 10**6


@dataclass(frozen=True, slots=True)
class DuelValue:
    """The exact value of a duel position for the seat to move (see :class:`DuelSolver`).

    Attributes:
        value: points the mover scores from here minus points the opponent scores, under perfect play.
        best: a 0-based pair that achieves it, or ``None`` for any unpicked pair that reduces to zero.
        nodes: positions expanded by this call.
    """

    value: int
    best: PairIndex | None
    nodes: int


class DuelSolver:
    """Exact alpha-beta negamax with a memo of value bounds over the duel positions of one start.

    A position is its stick list and the parity of the unpicked pairs that reduce to zero (see the module
    docstring). The memo is kept between calls, so solving the start once makes every later position of the same
    game cheap, and a call that ran out of budget leaves what it proved for the next.

    Args:
        start: the start sticks.
        order: ``"grevlex"`` or ``"lex"``.
        bonus_turn: the variant where adding a stick keeps the turn.
    """

    def __init__(self, start: Sequence[Stick], order: str, bonus_turn: bool,
                 positions: Positions | None = None) -> None:
        self.start = tuple(start)
        self.order = order
        self.bonus_turn = bonus_turn
        self.positions = positions or Positions(order, target_heads(self.start, order))
        self.positions.root(self.start)
        self._lower: dict[int, int] = {}
        self._upper: dict[int, int] = {}
        self._budget = 0
        self._deadline = math.inf
        self._reserve = 0.0

    def _passes_odd(self, position: int, ply_odd: int) -> int:
        """1 when the unpicked pairs of ``position`` that reduce to zero are odd in number.

        They are all pairs minus the picked ones minus the adding ones; ``ply_odd`` is the parity of the picked
        pairs (the key uses it rather than the passes, so that a child's key needs no pair table).
        """
        n = len(self.positions.sticks(position))
        return (n * (n - 1) // 2 - ply_odd - self.positions.adding_count(position)) % 2

    def _search(self, position: int, ply_odd: int, alpha: int, beta: int) -> int:
        """Value of the position for the mover if inside (alpha, beta); else a bound on the side it fell."""
        if self.positions.missing(position) == 0:
            return 0
        key = 2 * position + ply_odd
        lower = self._lower.get(key, -_INFINITY)
        upper = self._upper.get(key, _INFINITY)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        self._budget -= 1
        if self._budget < 0 or (self._budget % _CLOCK_EVERY == 0
                                and time.process_time() + self._reserve * len(self.positions) > self._deadline):
            raise BudgetSpent
        low, high = max(alpha, lower), min(beta, upper)
        best = -_INFINITY
        window = low
        child_odd = 1 - ply_odd
        positions = self.positions
        for new in positions.children(position):
            child = positions.child(position, new)
            if self.bonus_turn:
                value = POINTS_PER_STICK + self._search(child, child_odd, window - POINTS_PER_STICK,
                                                        high - POINTS_PER_STICK)
            else:
                value = POINTS_PER_STICK - self._search(child, child_odd, POINTS_PER_STICK - high,
                                                        POINTS_PER_STICK - window)
            if value > best:
                best = value
                window = max(window, value)
                if window >= high:
                    break
        if window < high and self._passes_odd(position, ply_odd):
            # one pass stands for all; an even number of passes is worth no pass at all
            best = max(best, -self._search(position, child_odd, -high, -window))
        if best <= low:
            self._upper[key] = best
        elif best >= high:
            self._lower[key] = best
        else:
            self._lower[key] = self._upper[key] = best
        return best

    def solve(self, sticks: Sequence[Stick], passes: int, nodes: int = DUEL_NODES,
              deadline: float = math.inf, first: PairIndex | None = None, reserve: float = 0.0) -> DuelValue:
        """Return the exact value and a best pair of the position ``sticks`` with ``passes`` unpicked pairs that
        reduce to zero, for the seat to move.

        The root's moves are searched in :meth:`Positions.moves` order, a pass last, except that ``first`` (a pair
        of the position, or any pair that reduces to zero) is searched before them. Each is searched against the
        best before it, so a move searched completely is either exactly valued and better than every move before,
        or proved no better than the best.

        ``reserve`` (seconds per position the solver holds) stops the search that much before ``deadline``, to
        leave time for freeing the positions when the solver is dropped.

        Raises:
            BudgetSpent: the search would expand more than ``nodes`` positions, or go on past ``deadline`` less the
                reserve (``time.process_time`` seconds); its ``proven`` is the best move searched completely by then
                (a pair proved better than ``first`` only if ``first`` itself was searched completely before it).
        """
        self._budget = nodes
        self._deadline = deadline
        self._reserve = reserve
        position = self.positions.root(sticks)
        if self.positions.missing(position) == 0:
            return DuelValue(0, None, 0)
        n = len(self.positions.sticks(position))
        child_odd = 1 - (n * (n - 1) // 2 - len(self.positions.adding(position)) - passes) % 2
        options: list[tuple[PairIndex | None, int]] = list(self.positions.moves(position))
        if passes:
            options.append((None, position))
        if first is not None:
            wanted = first if first in self.positions.adding(position) else None  # reducing to zero: the pass
            lead = next((k for k, (pair, _) in enumerate(options) if pair == wanted), None)
            if lead is not None:
                options.insert(0, options.pop(lead))
        best_value, best_pair = -_INFINITY, None
        try:
            for pair, child in options:
                if pair is None:
                    value = -self._search(position, child_odd, -_INFINITY, -best_value)
                elif self.bonus_turn:
                    value = POINTS_PER_STICK + self._search(child, child_odd, best_value - POINTS_PER_STICK,
                                                            _INFINITY)
                else:
                    value = POINTS_PER_STICK - self._search(child, child_odd, -_INFINITY,
                                                            POINTS_PER_STICK - best_value)
                if value > best_value:
                    best_value, best_pair = value, pair
        except BudgetSpent:
            proven = None if best_value == -_INFINITY else DuelValue(best_value, best_pair, nodes - self._budget)
            raise BudgetSpent(proven) from None
        return DuelValue(best_value, best_pair, nodes - self._budget)

    def trickiest(self, sticks: Sequence[Stick], passes: int, best: int, nodes: int = 1_000,
                  deadline: float = math.inf) -> PairIndex | None:
        """Among the moves of the position that keep its value ``best`` (from :meth:`solve`), the one that leaves the
        opponent the largest share of replies losing value, the first in move order on a tie (``None``: a pair that
        reduces to zero). Every test is a null-window search, whose answer is a fact of the position. For duels
        without ``bonus_turn`` only (where the opponent answers every move).

        Raises:
            BudgetSpent: the tests would expand more than ``nodes`` positions, or go on past ``deadline``
                (``time.process_time`` seconds).
        """
        self._budget = nodes
        self._deadline = deadline
        self._reserve = 0.0
        points = POINTS_PER_STICK
        position = self.positions.root(sticks)
        n = len(self.positions.sticks(position))
        odd = 1 - (n * (n - 1) // 2 - len(self.positions.adding(position)) - passes) % 2
        keeping: list[tuple[PairIndex | None, int, int]] = []  # (move, position after it, the opponent's value there)
        for pair, child in self.positions.moves(position):
            if self._search(child, odd, points - best, points - best + 1) <= points - best:
                keeping.append((pair, child, points - best))
        if passes and self._search(position, odd, -best, -best + 1) <= -best:
            keeping.append((None, position, -best))
        if len(keeping) <= 1:
            return keeping[0][0] if keeping else None

        def erring(child: int, theirs: int) -> float:
            replies = bad = 0
            bound = points - theirs  # a reply adding a stick errs when our value after it is above this
            for _, after in self.positions.moves(child):
                replies += 1
                bad += self._search(after, 1 - odd, bound, bound + 1) > bound
            if self._passes_odd(child, odd):
                replies += 1
                bad += self._search(child, 1 - odd, -theirs, -theirs + 1) > -theirs
            return bad / replies if replies else 0.0

        return max(keeping, key=lambda item: erring(item[1], item[2]))[0]


_SOLVERS: OrderedDict[tuple[tuple[Stick, ...], str, bool], DuelSolver] = OrderedDict()
SOLVER_POSITIONS = 100_000
"""Positions the shared solvers may hold in all (a position with its memo takes about 3 KB); beyond it the least
recently used solvers are dropped, never the one in use."""


def duel_solver(start: Sequence[Stick], order: str, bonus_turn: bool) -> DuelSolver:
    """The :class:`DuelSolver` of a start, shared (at most the 16 most recently used are kept, and fewer when they
    hold more than :data:`SOLVER_POSITIONS` positions)."""
    key = (tuple(start), order, bonus_turn)
    solver = _SOLVERS.get(key)
    if solver is None:
        return _remember(DuelSolver(start, order, bonus_turn))
    _SOLVERS.move_to_end(key)
    _evict()
    return solver


def forget(solver: DuelSolver) -> None:
    """Drop a shared solver (after it ran out of budget, so that its partial bounds do not make later moves
    depend on how the search was interrupted)."""
    _SOLVERS.pop((solver.start, solver.order, solver.bonus_turn), None)


def _remember(solver: DuelSolver) -> DuelSolver:
    _SOLVERS[(solver.start, solver.order, solver.bonus_turn)] = solver
    _evict()
    return solver


def _evict() -> None:
    """Drop the least recently used shared solvers while there are more than 16 or they hold more than
    :data:`SOLVER_POSITIONS` positions in all (the most recent one always stays)."""
    held = sum(len(solver.positions) for solver in _SOLVERS.values())
    while len(_SOLVERS) > 1 and (len(_SOLVERS) > 16 or held > SOLVER_POSITIONS):
        held -= len(_SOLVERS.popitem(last=False)[1].positions)


def _duel_moves(positions: Positions, position: int, picked: frozenset[PairIndex]
                ) -> list[tuple[PairIndex, Stick | None]]:
    """The unpicked pairs of ``position`` worth searching in a duel, with the stick each adds: those adding a stick
    (a missing basis head first, then by stick numbers) and the first pair in the order ``(0, 1), (0, 2), (1, 2),
    (0, 3), ...`` that reduces to zero (``None``: the position stays), if any is left."""
    adding = positions.adding(position)
    found: list[tuple[PairIndex, Stick | None]] = [(pair, new) for pair, new in adding.items() if pair not in picked]
    found.sort(key=lambda item: (adding[item[0]].head not in positions.target, item[0][1], item[0][0]))
    count = len(positions.sticks(position))
    zero = next(((i, j) for j in range(1, count) for i in range(j) if (i, j) not in adding and (i, j) not in picked),
                None)
    return found + ([(zero, None)] if zero is not None else [])


class _DepthLimited:
    """The alpha-beta search of one :func:`duel_search` call, to a given depth (a class rather than nested functions,
    which would hold each other in a reference cycle that only the collector frees, with all the positions)."""

    def __init__(self, state: GroebnerNimState, nodes: int, deadline: float) -> None:
        self.bonus = state.variant.bonus_turn
        self.positions = Positions(state.variant.order, target_heads(state.sticks, state.variant.order))
        self.budget = nodes
        self.deadline = deadline
        self.horizon = False  # did the last iteration stop anywhere short of the end of the game?
        self.depth_done = False  # has one depth been searched completely (only then may the clock stop the search)?

    def value_of(self, position: int, picked: frozenset[PairIndex], pair: PairIndex, new: Stick | None, depth: int,
                 alpha: int, beta: int) -> int:
        """Value of ``pair`` (adding ``new``) for the mover, searching ``depth`` plies in total, within the window
        (alpha, beta)."""
        after = picked | {pair}
        if new is None:
            return -self.negamax(position, after, depth - 1, -beta, -alpha)
        child = self.positions.child(position, new)
        if self.bonus:
            return POINTS_PER_STICK + self.negamax(child, after, depth - 1, alpha - POINTS_PER_STICK,
                                                   beta - POINTS_PER_STICK)
        return POINTS_PER_STICK - self.negamax(child, after, depth - 1, POINTS_PER_STICK - beta,
                                               POINTS_PER_STICK - alpha)

    def negamax(self, position: int, picked: frozenset[PairIndex], depth: int, alpha: int, beta: int) -> int:
        """Value of ``position`` for the mover, searching ``depth`` plies, within the window (alpha, beta).

        Raises:
            BudgetSpent: the budget of positions is spent, or ``deadline`` passed once a depth was complete.
        """
        if self.positions.missing(position) == 0:
            return 0
        if depth == 0:
            self.horizon = True
            return 0
        self.budget -= 1
        if self.budget < 0 or (self.depth_done and self.budget % _CLOCK_EVERY == 0
                               and time.process_time() > self.deadline):
            raise BudgetSpent
        best = -_INFINITY
        for pair, new in _duel_moves(self.positions, position, picked):
            value = self.value_of(position, picked, pair, new, depth, alpha, beta)
            best = max(best, value)
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return best


def duel_search(state: GroebnerNimState, nodes: int = FALLBACK_DUEL_NODES, deadline: float = math.inf) -> Pair:
    """Return the pair maximising the mover's point margin, by iterative-deepening alpha-beta search over the
    :class:`Positions` of ``state``'s sticks (the ``hard`` duel player's move when :class:`DuelSolver` runs out of
    budget).

    Values count points still to be scored (3 per stick: the mover's minus the opponent's); positions beyond the
    depth reached count as 0. Pairs that reduce to zero are interchangeable (each only passes the turn), so one
    stands for all. Each depth is searched completely or not at all within ``nodes`` positions; the best pair of
    the deepest complete search is returned (at least depth 1, whatever ``deadline``, the ``time.process_time``
    seconds after which no deeper search is begun or finished). Deterministic without a deadline: a fresh
    :class:`Positions` rooted at ``state.sticks`` each call, so the answer does not depend on what was searched
    before.
    """
    search = _DepthLimited(state, nodes, deadline)
    positions = search.positions
    root = positions.root(state.sticks)
    root_picked = frozenset(pair.indices for pair in state.picked)
    root_moves = _duel_moves(positions, root, root_picked)
    choice = root_moves[0][0]
    try:
        for depth in range(1, 65):
            search.horizon = False
            best_value, best_pair = -_INFINITY, choice
            for pair, new in sorted(root_moves, key=lambda item: item[0] != choice):
                value = search.value_of(root, root_picked, pair, new, depth, best_value, _INFINITY)
                if value > best_value:
                    best_value, best_pair = value, pair
            choice = best_pair
            search.depth_done = True
            if not search.horizon:
                break  # the whole game was searched: the choice is exact
    except BudgetSpent:
        pass
    return Pair.from_indices(*choice)


# --------------------------------------------------------------------------------------------------------------
# Fair random starts


def fair_start(count: int, order: str, duel: bool, bonus_turn: bool, rng: random.Random) -> tuple[Stick, ...]:
    """Draw a random start that takes a real game (the rule of ``seeds/groebner_nim.md``, "Random starts").

    Candidates are drawn with :func:`games.groebner_nim.rules.random_start`. A candidate is kept only when no sequence
    of ``MIN_START_TURNS - 1`` pairs completes the basis. In a duel without ``bonus_turn`` it must moreover be a draw
    under perfect play: exact value 0 by :class:`DuelSolver`, within ``START_DUEL_NODES`` positions per candidate.
    Once ``START_TOTAL_NODES`` positions have been spent on candidates, the first non-trivial candidate whose
    value the search could not settle is taken (or the next non-trivial one, if there was none). The solver of
    the start kept is shared with the ``hard`` computer (:func:`duel_solver`). Deterministic for a given ``rng``.
    """
    fallback: tuple[Stick, ...] | None = None
    spent = 0
    while True:
        sticks = random_start(count, order, rng)
        if finishes_within(sticks, order, MIN_START_TURNS - 1):
            continue
        if not duel or bonus_turn:
            return sticks
        if spent >= START_TOTAL_NODES:
            return fallback or sticks
        solver = DuelSolver(sticks, order, bonus_turn)
        budget = min(START_DUEL_NODES, START_TOTAL_NODES - spent)
        try:
            found = solver.solve(sticks, start_passes(solver.positions, sticks), budget)
        except BudgetSpent:
            spent += budget
            fallback = fallback or sticks
            continue
        spent += found.nodes
        if found.value == 0:
            _remember(solver)
            return sticks


START_NOTE_NODES = 20_000
"""Positions the exact search may visit to tell players that a typed start is a forced win."""


def start_value(sticks: Sequence[Stick], order: str, bonus_turn: bool,
                nodes: int = START_NOTE_NODES) -> int | None:
    """The exact value of a duel start for the first player (their points minus the second player's under perfect
    play), or ``None`` when the search does not settle it within ``nodes`` positions."""
    solver = DuelSolver(sticks, order, bonus_turn)
    try:
        found = solver.solve(sticks, start_passes(solver.positions, sticks), nodes)
    except BudgetSpent:
        return None
    return found.value


def start_passes(positions: Positions, sticks: Sequence[Stick]) -> int:
    """The pairs of a start with no pair picked yet that reduce to zero."""
    n = len(sticks)
    return n * (n - 1) // 2 - len(positions.adding(positions.root(sticks)))


# --------------------------------------------------------------------------------------------------------------
# The players


def choose_move(state: GroebnerNimState, level: Level, rng: random.Random) -> Pair:
    """The computer's pair for the seat to move of a running ``state`` at ``level`` (deterministic for ``rng``).

    ``easy``: a random unpicked pair. ``medium``: a random pair that adds a stick. With ``bonus_turn``, both hand the
    turn back after adding a stick: on a bonus turn they pick a random pair that adds nothing when one is left.
    ``hard``: :func:`hard_move`.
    """
    if level != "hard" and state.variant.mode == "duel" and state.variant.bonus_turn and state.added \
            and state.added[-1] is not None:
        adding = set(state.adding_pairs())
        passes = [pair for pair in state.unpicked_pairs() if pair not in adding]
        if passes:
            return rng.choice(passes)
    if level == "easy":
        return rng.choice(state.unpicked_pairs())
    if level == "medium":
        return rng.choice(state.adding_pairs())
    return hard_move(state)


def hard_move(state: GroebnerNimState) -> Pair:
    """The ``hard`` computer's pair for a running ``state``.

    Duel: the exact game value by :class:`DuelSolver` within :data:`DUEL_NODES` (the solver of the start is shared
    by every move of the game and by the start generator, :func:`duel_solver`), and among the pairs that keep it,
    without ``bonus_turn``, the one leaving the opponent most ways to go wrong (:meth:`DuelSolver.trickiest`,
    within :data:`SWINDLE_NODES`; the first best pair when that runs out). When the budget runs out,
    :func:`duel_search` within :data:`FALLBACK_DUEL_NODES` finds a pair, and then the exact search goes on for
    :data:`DEEP_DUEL_NODES` more, searching the fallback's pair first; if that runs out too, the fallback's pair is
    played unless the search had valued it exactly and then proved another pair better (that one is played), and the
    solver is dropped. The whole duel move takes at most :data:`HARD_CPU_SECONDS` of CPU time, freeing the dropped
    solver included (the second exact search stops :data:`FREE_SECONDS_PER_POSITION` a position it holds before the
    cap; the fallback plays the best pair of its deepest finished depth).
    Solitaire: the plan of the exact par search from the
    start (par turns when par is exact, and never more than the stated bound, :func:`start_plan`), searched again
    from the position if the game left the plan.
    """
    order = state.variant.order
    if state.variant.mode == "duel":
        deadline = time.process_time() + HARD_CPU_SECONDS
        solver = duel_solver(state.sticks[: state.start_count], order, state.variant.bonus_turn)
        adding = set(state.adding_pairs())
        passes = [pair for pair in state.unpicked_pairs() if pair not in adding]
        try:
            found = solver.solve(state.sticks, len(passes), DUEL_NODES, deadline)
        except BudgetSpent:
            fallback = duel_search(state, nodes=FALLBACK_DUEL_NODES, deadline=deadline)
            try:
                found = solver.solve(state.sticks, len(passes), DEEP_DUEL_NODES, deadline, first=fallback.indices,
                                     reserve=FREE_SECONDS_PER_POSITION)
            except BudgetSpent as spent:
                forget(solver)
                proven = spent.proven
                if proven is None or proven.best == fallback.indices or (proven.best is None and fallback in passes):
                    return fallback
                # the fallback's pair was searched first, and this one was proved better than it
                return passes[0] if proven.best is None else Pair.from_indices(*proven.best)
        best = found.best
        if not state.variant.bonus_turn:
            try:
                best = solver.trickiest(state.sticks, len(passes), found.value, SWINDLE_NODES, deadline)
            except BudgetSpent:
                best = found.best
        return passes[0] if best is None else Pair.from_indices(*best)
    played = tuple(pair.indices for pair, new in zip(state.picked, state.added, strict=True) if new is not None)
    plan = start_plan(state.sticks[: state.start_count], order)
    if plan[: len(played)] == played and len(plan) > len(played):
        return Pair.from_indices(*plan[len(played)])
    return Pair.from_indices(*solitaire_plan(state.sticks, order)[0])


# --------------------------------------------------------------------------------------------------------------
# Exact values for reviews

REVIEW_NODES = 20_000
"""Node budget of the exact searches behind one position of a review (all its pairs together)."""


def _margin(state: GroebnerNimState, seat: int) -> int:
    scores = state.scores
    return scores[seat] - scores[1 - seat]


def _duel(state: GroebnerNimState, seat: int, solver: DuelSolver, nodes: int) -> tuple[GameValue, int]:
    """The value of a duel position for ``seat`` and the positions the search expanded (raises
    :class:`BudgetSpent` beyond ``nodes``)."""
    now = _margin(state, seat)
    mover = state.current_seat
    if mover is None:
        return GameValue("margin", now, 0), 0
    positions = solver.positions
    n = len(state.sticks)
    passes = n * (n - 1) // 2 - state.ply - len(positions.adding(positions.root(state.sticks)))
    found = solver.solve(state.sticks, passes, nodes)
    return GameValue("margin", now + (found.value if mover == seat else -found.value)), found.nodes


def _solitaire(state: GroebnerNimState, positions: Positions, nodes: int) -> tuple[GameValue, int]:
    """The value of a solitaire position and the positions the search expanded (raises :class:`BudgetSpent` when
    the fewest turns are not proven within ``nodes``)."""
    if state.basis:
        return GameValue("turns", state.ply, 0), 0
    par = exact_par(state.sticks, state.variant.order, nodes, positions)
    if not par.exact:
        raise BudgetSpent
    return GameValue("turns", state.ply + par.turns, par.turns), par.nodes


def _review_search(state: GroebnerNimState) -> DuelSolver | Positions:
    """A fresh search for the positions of ``state``'s game (so that a review does not depend on what was searched
    before it): a :class:`DuelSolver` in a duel, the :class:`Positions` of the par search in solitaire."""
    start, order = state.sticks[: state.start_count], state.variant.order
    if state.variant.mode == "solitaire":
        return Positions(order, target_heads(start, order))
    return DuelSolver(start, order, state.variant.bonus_turn)


def exact_value(state: GroebnerNimState, seat: int, nodes: int = REVIEW_NODES) -> GameValue | None:
    """The exact value of ``state`` for ``seat``: in a duel the seat's final points minus the opponent's under
    perfect play (kind ``"margin"``: the points so far plus :class:`DuelSolver`'s value of the rest), in solitaire
    the turns taken plus the fewest that complete the basis (kind ``"turns"``, :func:`exact_par`); ``None`` when the
    search does not settle it within ``nodes`` positions."""
    search = _review_search(state)
    try:
        if isinstance(search, Positions):
            return _solitaire(state, search, nodes)[0]
        return _duel(state, seat, search, nodes)[0]
    except BudgetSpent:
        return None


def move_values(state: GroebnerNimState, nodes: int = REVIEW_NODES) -> dict[Pair, GameValue] | None:
    """The exact value, for the seat to move, of every unpicked pair (:func:`exact_value` of the position it leads
    to; the pairs that reduce to zero all lead to the same position and are solved once), with one search and
    ``nodes`` positions for them all; ``None`` when they are not all settled within that budget."""
    seat = state.current_seat
    if seat is None:
        return None
    adding = set(state.adding_pairs())
    search = _review_search(state)
    values: dict[Pair, GameValue] = {}
    zero: GameValue | None = None
    left = nodes
    try:
        for pair in state.unpicked_pairs():
            if pair not in adding and zero is not None:
                values[pair] = zero
                continue
            child = state.apply(pair)
            if isinstance(search, Positions):
                value, spent = _solitaire(child, search, left)
            else:
                value, spent = _duel(child, seat, search, left)
            left -= spent
            values[pair] = value
            if pair not in adding:
                zero = value
    except BudgetSpent:
        return None
    return values


def move_review(state: GroebnerNimState, move: Pair, nodes: int = REVIEW_NODES) -> MoveValues[Pair] | None:
    """The exact values of ``move`` for the seat to move: the position's value and a best pair (from one exact
    search of the position), and the value after ``move``; ``None`` when the searches do not settle them within
    ``nodes`` positions in all."""
    seat = state.current_seat
    if seat is None:
        return None
    search = _review_search(state)
    try:
        if isinstance(search, Positions):
            par = exact_par(state.sticks, state.variant.order, nodes, search)
            if not par.exact:
                return None
            before = GameValue("turns", state.ply + par.turns, par.turns)
            after = _solitaire(state.apply(move), search, nodes - par.nodes)[0]
            return MoveValues(before, after, (Pair.from_indices(*par.plan[0]),))
        positions = search.positions
        n = len(state.sticks)
        passes = n * (n - 1) // 2 - state.ply - len(positions.adding(positions.root(state.sticks)))
        found = search.solve(state.sticks, passes, nodes)
        before = GameValue("margin", _margin(state, seat) + found.value)
        after = _duel(state.apply(move), seat, search, nodes - found.nodes)[0]
    except BudgetSpent:
        return None
    if found.best is not None:
        best = Pair.from_indices(*found.best)
    else:
        adding = set(state.adding_pairs())
        best = next(pair for pair in state.unpicked_pairs() if pair not in adding)
    return MoveValues(before, after, (best,))
