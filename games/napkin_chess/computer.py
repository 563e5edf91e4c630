"""The computer of Napkin Chess: a random player, a greedy one, and a search over placements.

Rules follow ``seeds/napkin_chess.md``; this module only reads positions built with :mod:`games.napkin_chess.rules`
(which never imports it), through the state's free regions, its samplers of legal placements and its exact
legality test. :func:`choose_move` plays per level; :func:`estimate` is the evaluation behind reviews.

``hard`` works on a *placement graph* of the position (:class:`_Graph`): a finite set of candidate placements (every
vertex of each size's free region, a square grid inside it, and the exact points of pockets too thin for the
region), each exact-verified, with an edge between two placements whose coins would overlap. Placing a coin removes
its placement and its neighbours, so the rest of the game is a game on that graph. On it:

* parts of the graph that hold only size-2 placements are independent games in which every coin scores 2, so each
  counts only by its Grundy value (Sprague–Grundy over node Kayles: a move there is worth 2 and lowers the sum of
  those values), computed exactly over bit masks with a memo;
* the rest (the parts where a 3 or a 4 still fits) is searched exactly by alpha-beta with a table of proven bounds,
  counting the points margin (or, with ``last_mover``, who places last) and the 3s and 4s left in the supply. Moves
  are made one at a time as the search reaches them (a cut-off spares the rest their work), the largest coins first
  and, within a size, the one leaving the fewest placements first.

Where the graph is small enough that this exact search ends within its work budget, hard plays a move of best
value (among those, the one that leaves the opponent's best coins the fewest ways to keep their value), after
checking it on a graph built afresh from the position it leads to (the graph samples a continuous napkin, so it is
exact on the graph, not on the napkin: a new coin's edge brings new placements). Where the graph is larger, hard
runs a bandit
(UCB1) over up to 24 candidate placements of each size, each judged by play-outs on the graph (largest coin that
fits, at random), and plays the most tried one. On the nearly empty napkin, where even a coarse graph is too large,
it takes the largest coin that fits where it leaves the least room for a size-2 coin (packing tightly).

The symmetry strategy (open in the centre, answer each coin with its mirror image through the centre) comes first
only where it is proven to win: no hole, a centre on the lattice, seat 0, and a supply that leaves an even count
of every size after the opening coin, so that every coin the opponent takes has a twin in the supply. Elsewhere
without a hole (the classic supply leaves odd counts), seat 0 still opens in the centre and mirrors while the
mirror holds (the napkin is symmetric and the opponent's size is still in supply), but the exact search comes
first wherever it fits, so the mirror never stands in for a value the search can compute; once the opponent takes
the last coin of a size, the symmetry is over and the search plays on.

Budgets are counts of work, not clock time, so a move depends only on the position and the seed:
:data:`EXACT_STEPS` search steps and :data:`PLAYOUTS` play-outs a move. A cap of :data:`HARD_CPU_SECONDS` of CPU on
the bandit is a backstop the play-outs normally end before: it keeps a slow machine within a second, where its move
may then differ. ``make bench`` holds a ``hard`` move to a median of at most 1 s of CPU.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Iterator

import numpy as np
import shapely

from games.napkin_chess.rules import SCALE, SIZES, Move, NapkinState, Variant
from games.search import Level
from games.values import Estimate

# -------------------------------------------------------------------------------------------- symmetry


def mirror_opening(variant: Variant) -> int | None:
    """The size of the opening coin with which the symmetry strategy is proven to win ``variant``, or ``None``.

    It applies on a napkin without a hole whose centre is a lattice point, when exactly one size has an odd count
    in the supply (that size opens; it must be 2 with ``first_coin_two``): after the opening every count is even,
    so the opponent never takes the last coin of a size and the mirror is always in supply. The mirror is then
    always legal (the position is point-symmetric before the opponent's coin, and that coin cannot cover the
    centre coin, so it cannot overlap its own image), seat 0 places the last coin and leads by the opening coin.
    """
    if variant.hole or variant.centre is None:
        return None
    odd = [size for size, count in zip(SIZES, variant.supply, strict=True) if count % 2 == 1]
    if len(odd) != 1 or (variant.first_coin_two and odd[0] != 2):
        return None
    return odd[0]


def _mirror(state: NapkinState, proven: bool = True) -> Move | None:
    """The symmetry strategy's move for seat 0 where :func:`mirror_opening` proves it wins, else ``None``.

    With ``proven`` false, also where it only holds for now: on any napkin without a hole whose centre is a lattice
    point, the opening coin (the smallest size allowed with ``first_coin_two``, else the largest) in the centre, and
    later the mirror of the opponent's coin while the napkin is point-symmetric but for that coin and the mirror's
    size is still in supply (legal then, by the argument of :func:`mirror_opening`; seat 0 leads by the centre coin
    after it)."""
    variant = state.variant
    opening = mirror_opening(variant)
    if variant.hole or variant.centre is None or state.ply % 2 != 0 or (proven and opening is None):
        return None
    coins = state.coins
    if not coins:
        allowed = state.allowed_sizes()
        return Move(opening or (allowed[0] if variant.first_coin_two else allowed[-1]), *variant.centre)
    if (coins[0].x, coins[0].y) != variant.centre or (opening is not None and coins[0].size != opening):
        return None
    w, h = variant.width, variant.height
    for i in range(1, len(coins) - 1, 2):
        a, b = coins[i], coins[i + 1]
        if (a.size, w - a.x, h - a.y) != (b.size, b.x, b.y):
            return None
    last = coins[-1]
    move = Move(last.size, w - last.x, h - last.y)
    return move if state.is_legal(move) else None


# --------------------------------------------------------------------------------------------- the graph

EXACT_STEPS = 50_000
"""Work budget of the exact search of one move: moves tried in the Grundy and alpha-beta searches together."""
PLAYOUTS = 4_000
"""Play-outs of the bandit of one move where the exact search was not tried (half as many after it was tried and
ran out of work)."""
_EXACT_NODES = 300  # the exact search is tried on graphs of about this many placements at most
_EXACT_BIG = 40  # ... and with at most this many placements of a 3 or a 4 (beyond, it never ends in budget)
_EXACT_SPACINGS = (50, 75, 100, 150)  # grid spacing (hundredths), finest first, for the exact search's graph
_BANDIT_NODES = 900
_BANDIT_SPACINGS = (75, 100, 150, 200)
_BANDIT_PER_SIZE = 24  # root candidates per size (distinct results on the graph, drawn at random)
_BANDIT_EXPLORATION = 0.5
_TRAPS = 12  # best moves compared by the opponent's ways to keep the value
_CHECKED = 40  # placements checked at most on the graph of the position they lead to
_SIMPLIFY = 5  # hundredths: tolerance of the region outlines whose vertices are candidates
_POCKETS = 50  # exact pocket points per size
_INFINITY = 10**6
HARD_CPU_SECONDS = 0.8
"""CPU time (``time.process_time``, seconds) of a ``hard`` move after which its bandit stops its play-outs and plays
the most tried placement so far: a backstop for slow machines, which :data:`PLAYOUTS` normally ends before."""
_CLOCK_EVERY = 32
"""Play-outs between two looks at the clock."""


class _OutOfWork(Exception):
    """The search used up its work budget."""


def _fitting(state: NapkinState) -> list[int]:
    return [size for size in state.allowed_sizes() if state.fits(size)]


def _estimated_nodes(state: NapkinState, spacing: int) -> float:
    """About how many placements :func:`_placements` finds at ``spacing`` (region area over the grid cell, plus
    the outline's vertices)."""
    total = 0.0
    for size in _fitting(state):
        region = state.free_region(size)
        total += region.area / (spacing * spacing) + len(shapely.get_coordinates(region.simplify(_SIMPLIFY)))
    return total


def _placements(state: NapkinState, spacing: int) -> list[Move]:
    """The graph's candidate placements, every one legal now: for each size that fits, the vertices of its free
    region's outline, the points of a ``spacing`` grid inside it, and the exact points of thin pockets."""
    found: list[Move] = []
    seen: set[tuple[int, int, int]] = set()
    for size in _fitting(state):
        region = state.free_region(size)
        points: list[tuple[int, int]] = []
        if not region.is_empty:
            points += [(round(x), round(y)) for x, y in shapely.get_coordinates(region.simplify(_SIMPLIFY)).tolist()]
            minx, miny, maxx, maxy = region.bounds
            xs = np.arange(math.ceil(minx / spacing) * spacing, maxx + 1, spacing)
            ys = np.arange(math.ceil(miny / spacing) * spacing, maxy + 1, spacing)
            if len(xs) and len(ys):
                grid_x, grid_y = (a.ravel() for a in np.meshgrid(xs, ys))
                inside = shapely.contains_xy(region, grid_x, grid_y)
                points += [(int(x), int(y)) for x, y in zip(grid_x[inside], grid_y[inside], strict=True)]
        points += state.pocket_points(size, _POCKETS)
        for x, y in points:
            if (size, x, y) not in seen:
                seen.add((size, x, y))
                move = Move(size, x, y)
                if state.is_legal(move):
                    found.append(move)
    return found


Key = tuple[int, int, int, int]
"""A position of the graph: (mask of the placements left where a 3 or 4 fits, Grundy value of the size-2-only
parts, 3s left, 4s left)."""


class _Graph:
    """The placement graph of a position (see the module docstring) and the searches on it.

    Placements are numbered; a set of them is a bit mask. ``conflicts[i]`` holds ``i`` and every placement whose
    coin would overlap placement ``i``'s. Values are for the player to move: the points margin still to come
    (``points`` scoring) or +1 / -1 for placing the last coin (``last_mover``). The supply of 2s is taken as
    sufficient; the 3s and 4s left are counted.
    """

    def __init__(self, moves: list[Move], points: bool, threes: int, fours: int, limit: int) -> None:
        """The graph of the placements ``moves``, with ``points`` scoring (else ``last_mover``), ``threes`` and
        ``fours`` left in the supply, and a budget of ``limit`` steps."""
        self.moves = moves
        self.points = points
        self.threes, self.fours = threes, fours
        self.limit = limit
        self.work = 0
        self.grundy_memo: dict[int, int] = {}
        self.bounds: dict[Key, tuple[int, int]] = {}
        count = len(self.moves)
        self.conflicts: list[int] = []
        if count:
            xs = np.array([m.x for m in self.moves], dtype=np.int64)
            ys = np.array([m.y for m in self.moves], dtype=np.int64)
            rs = np.array([m.radius for m in self.moves], dtype=np.int64)
            dx, dy, reach = xs[:, None] - xs[None, :], ys[:, None] - ys[None, :], rs[:, None] + rs[None, :]
            overlap = dx * dx + dy * dy < reach * reach
            for row in overlap:
                mask = 0
                for j in np.flatnonzero(row).tolist():
                    mask |= 1 << j
                self.conflicts.append(mask)
        self.size_mask = dict.fromkeys(SIZES, 0)
        self.by_size: dict[int, list[int]] = {size: [] for size in SIZES}
        for i, move in enumerate(self.moves):
            self.size_mask[move.size] |= 1 << i
            self.by_size[move.size].append(i)
        self.big_mask = self.size_mask[3] | self.size_mask[4]

    @classmethod
    def of(cls, state: NapkinState, spacing: int, limit: int) -> _Graph:
        """The graph of ``state`` with its placements on a ``spacing`` grid (:func:`_placements`)."""
        supply = state.supply
        return cls(_placements(state, spacing), state.variant.scoring == "points", supply[1], supply[2], limit)

    @property
    def full(self) -> int:
        return (1 << len(self.moves)) - 1

    def tick(self) -> None:
        self.work += 1
        if self.work > self.limit:
            raise _OutOfWork

    def playable(self, size: int) -> bool:
        """Whether a coin of ``size`` is left in the supply (2s always are)."""
        return not ((size == 3 and not self.threes) or (size == 4 and not self.fours))

    def gain(self, size: int) -> int:
        return size if self.points else 0

    def components(self, mask: int) -> list[int]:
        """The connected parts of ``mask`` (bit masks)."""
        parts = []
        conflicts = self.conflicts
        while mask:
            part = frontier = mask & -mask
            while frontier:
                low = frontier & -frontier
                frontier ^= low
                new = conflicts[low.bit_length() - 1] & mask & ~part
                part |= new
                frontier |= new
            parts.append(part)
            mask &= ~part
        return parts

    def grundy(self, mask: int) -> int:
        """The Grundy value of node Kayles on ``mask`` (each move removes a placement and its neighbours)."""
        found = self.grundy_memo.get(mask)
        if found is not None:
            return found
        options: set[int] = set()
        seen: set[int] = set()
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            self.tick()
            after = mask & ~self.conflicts[low.bit_length() - 1]
            if after in seen:
                continue
            seen.add(after)
            value = 0
            for part in self.components(after):
                value ^= self.grundy(part)
            options.add(value)
        value = 0
        while value in options:
            value += 1
        self.grundy_memo[mask] = value
        return value

    def split(self, mask: int) -> tuple[int, int]:
        """``mask`` as (the parts where a 3 or 4 fits, the Grundy value of the size-2-only parts)."""
        big = grundy = 0
        for part in self.components(mask):
            if part & self.big_mask:
                big |= part
            else:
                grundy ^= self.grundy(part)
        return big, grundy

    def children(self, key: Key) -> Iterator[tuple[int, Key]]:
        """The moves of position ``key`` as (points gained, position reached), the largest coins first, made one at a
        time as the search asks for them, so that a cut-off spares the work of the rest: one per distinct result
        among the placements of the big parts (within a size, the one that leaves the big parts the fewest placements
        first, ties in placement order), then one per smaller Grundy value of the size-2-only parts."""
        big, grundy, threes, fours = key
        conflicts = self.conflicts
        for size in (4, 3, 2):
            if (size == 3 and not threes) or (size == 4 and not fours):
                continue
            gain = self.gain(size)
            results: dict[int, None] = {}  # the distinct results, in placement order
            rest = big & self.size_mask[size]
            while rest:
                low = rest & -rest
                rest ^= low
                results[big & ~conflicts[low.bit_length() - 1]] = None
            for after in sorted(results, key=int.bit_count):
                self.tick()
                child_big, child_grundy = self.split(after)
                yield gain, (child_big, child_grundy ^ grundy, threes - (size == 3), fours - (size == 4))
        gain = self.gain(2)
        for lower in range(grundy):
            yield gain, (big, lower, threes, fours)

    def value(self, key: Key, alpha: int = -_INFINITY, beta: int = _INFINITY) -> int:
        """The value of ``key`` for the player to move, by alpha-beta (fail-soft) with a table of proven bounds:
        exact when it lies inside ``(alpha, beta)``, else a bound on the side it falls.

        Raises:
            _OutOfWork: the budget ran out.
        """
        low, high = self.bounds.get(key, (-_INFINITY, _INFINITY))
        if low >= beta:
            return low
        if high <= alpha:
            return high
        if low == high:
            return low
        alpha, beta = max(alpha, low), min(beta, high)
        start_alpha, start_beta = alpha, beta
        best = -_INFINITY
        for gain, child in self.children(key):
            found = gain - self.value(child, gain - beta, gain - alpha)
            if found > best:
                best = found
                alpha = max(alpha, found)
                if alpha >= beta:
                    break
        if best == -_INFINITY:  # no move: the game ends here
            final = 0 if self.points else -1
            self.bounds[key] = (final, final)
            return final
        if best <= start_alpha:
            self.bounds[key] = (low, best)
        elif best >= start_beta:
            self.bounds[key] = (best, high)
        else:
            self.bounds[key] = (best, best)
        return best

    def root_moves(self) -> list[tuple[int, Key, int]]:
        """Every placement the seat to move may take as (points gained, position reached, placement index)."""
        big, grundy = self.split(self.full)
        small_parts = [part for part in self.components(self.full) if not part & self.big_mask]
        found = []
        for i, move in enumerate(self.moves):
            size = move.size
            if (size == 3 and not self.threes) or (size == 4 and not self.fours):
                continue
            if (1 << i) & big:
                child_big, child_grundy = self.split(big & ~self.conflicts[i])
                key = (child_big, child_grundy ^ grundy, self.threes - (size == 3), self.fours - (size == 4))
            else:
                part = next(p for p in small_parts if p & (1 << i))
                _, part_grundy = self.split(part & ~self.conflicts[i])
                key = (big, grundy ^ self.grundy(part) ^ part_grundy, self.threes, self.fours)
            found.append((self.gain(size), key, i))
        return found

    def best(self) -> tuple[int, list[int]]:
        """(the value of the position for the seat to move, the placements that keep it)."""
        moves = sorted(self.root_moves(), key=lambda item: -item[0])
        best = -_INFINITY
        for gain, key, _ in moves:
            best = max(best, gain - self.value(key, gain - _INFINITY, gain - best))
        keeping = [i for gain, key, i in moves if gain - self.value(key, gain - best, gain - best + 1) >= best]
        return best, keeping

    def keeping_replies(self, key: Key) -> float:
        """The share of the opponent's highest-scoring replies in ``key`` that keep its value (0 when none)."""
        children = list(self.children(key))
        if not children:
            return 0.0
        top = children[0][0]
        best = self.value(key)
        replies = [child for gain, child in children if gain == top][:60]
        kept = sum(1 for child in replies if top - self.value(child, top - best, top - best + 1) >= best)
        return kept / len(replies)

    def playout_lists(self, mask: int) -> tuple[list[int], list[int], list[int]]:
        """The placements of ``mask`` of size 4, 3 and 2 (index lists), as :meth:`playout` draws from them."""
        fours, threes, twos = ([i for i in self.by_size[size] if mask >> i & 1] for size in (4, 3, 2))
        return fours, threes, twos

    def playout(self, mask: int, threes: int, fours: int, rng: random.Random,
                lists: tuple[list[int], list[int], list[int]] | None = None) -> int:
        """Play on from ``mask`` with both sides taking the largest size left at a placement drawn uniformly among
        those left; return the value reached for the player to move at ``mask``.

        ``lists`` are :meth:`playout_lists` of ``mask`` when the caller has them (they are not changed). Each draw
        picks an entry of its size's list at random and drops it, so a play-out touches only the placements it
        draws, not every placement of the graph.
        """
        fours_left, threes_left, twos_left = (list(pool) for pool in (lists or self.playout_lists(mask)))
        size_mask, conflicts, moves = self.size_mask, self.conflicts, self.moves
        draw = rng.random
        margin, sign, plies = 0, 1, 0
        while True:
            chosen = -1
            for size, pool in ((4, fours_left), (3, threes_left), (2, twos_left)):
                if (size == 3 and not threes) or (size == 4 and not fours) or not mask & size_mask[size]:
                    continue
                while chosen < 0:  # some placement of this size is left, so its pool holds it
                    j = int(draw() * len(pool))
                    i = pool[j]
                    pool[j] = pool[-1]
                    pool.pop()
                    if mask >> i & 1:
                        chosen = i
                break
            if chosen < 0:
                break
            size = moves[chosen].size
            mask &= ~conflicts[chosen]
            threes -= size == 3
            fours -= size == 4
            margin += sign * self.gain(size)
            sign, plies = -sign, plies + 1
        if not self.points:
            return 1 if plies % 2 == 1 else -1
        return margin


def _graph(state: NapkinState, spacings: Iterable[int], nodes: int, limit: int) -> _Graph | None:
    """The placement graph at the finest of ``spacings`` expected to hold at most ``nodes`` placements, or ``None``."""
    for spacing in spacings:
        if _estimated_nodes(state, spacing) <= nodes:
            return _Graph.of(state, spacing, limit)
    return None


def _exact_graph(state: NapkinState, limit: int) -> _Graph | None:
    """The graph the exact search is tried on, with a budget of ``limit`` steps, or ``None`` when it would not end
    within it (too many placements, or too many of a 3 or a 4)."""
    graph = _graph(state, _EXACT_SPACINGS, _EXACT_NODES, limit)
    if graph is None or not graph.moves or graph.big_mask.bit_count() > _EXACT_BIG:
        return None
    return graph


def _solve_graph(graph: _Graph) -> tuple[int, list[int]] | None:
    """(the value, the placements keeping it) by the exact search, or ``None`` when it runs out of work."""
    try:
        return graph.best()
    except _OutOfWork:
        return None


# ------------------------------------------------------------------------------------------------- hard


def _exact_move(state: NapkinState) -> tuple[Move | None, bool]:
    """A placement of best value by the exact search on the graph, or ``None`` where it does not fit the budget;
    and whether the search was tried (and so spent its budget when it gives ``None``).

    Among the placements that keep the value (the largest coins first), the one after which the opponent's
    highest-scoring replies least often keep theirs comes first; then each is checked on the graph of the position
    it leads to (:func:`_checked`).
    """
    graph = _exact_graph(state, EXACT_STEPS)
    if graph is None:
        return None, False
    solved = _solve_graph(graph)
    if solved is None:
        return None, True
    value, keeping = solved
    keeping.sort(key=lambda i: (-graph.moves[i].size, i))
    if len(keeping) > 1:
        keys = {i: key for _, key, i in graph.root_moves()}
        scored: list[tuple[float, int, int]] = []
        try:
            for i in keeping[:_TRAPS]:
                scored.append((graph.keeping_replies(keys[i]), -graph.moves[i].size, i))
        except _OutOfWork:
            pass
        if scored:
            first = min(scored)[2]
            keeping.remove(first)
            keeping.insert(0, first)
    return _checked(state, graph, value, keeping), True


def _checked(state: NapkinState, graph: _Graph, value: int, keeping: list[int]) -> Move:
    """The first placement, in the order of ``keeping`` and then the others (largest coins first), whose value a
    fresh graph of the position it leads to confirms as ``value`` at least; a placement of ``keeping`` whose fresh
    graph is not solved is taken on trust. At most :data:`_CHECKED` are checked, on what is left of the budget
    that ``graph``'s search began with; past it, the best of those checked, else the first of ``keeping``.

    (The graph is a sample of a continuous napkin: after a coin the free region has new edges, and the new
    graph can see a difference that the old one missed.)
    """
    kept = set(keeping)
    others = sorted((i for i, move in enumerate(graph.moves) if i not in kept and graph.playable(move.size)),
                    key=lambda i: (-graph.moves[i].size, i))
    left = graph.limit - graph.work
    best_value, best = -_INFINITY, keeping[0]
    for i in (keeping + others)[:_CHECKED]:
        move = graph.moves[i]
        child = state.apply(move)
        if child.is_over:
            found: int | None = graph.gain(move.size) - (0 if graph.points else -1)
        else:
            fresh = _exact_graph(child, min(left, EXACT_STEPS // 4))
            checked = None if fresh is None else _solve_graph(fresh)
            if fresh is not None:
                left -= fresh.work
            found = None if checked is None else graph.gain(move.size) - checked[0]
        if found is None:
            if i in kept:
                return move
        elif found >= value:
            return move
        elif found > best_value:
            best_value, best = found, i
        if left <= 0:
            break
    return graph.moves[best]


def _bandit_move(state: NapkinState, rng: random.Random, playouts: int, deadline: float = math.inf) -> Move | None:
    """The most tried of a few placements per size under UCB1 with ``playouts`` play-outs on the graph (rewards 1,
    ½, 0 for the final result; fewer when ``time.process_time`` passes ``deadline``, every placement tried once
    whatever the clock), or ``None`` when even a coarse graph is too large."""
    graph = _graph(state, _BANDIT_SPACINGS, _BANDIT_NODES, _INFINITY)
    if graph is None or not graph.moves:
        return None
    me = state.ply % 2
    scores = state.scores
    margin = scores[me] - scores[1 - me]
    full = graph.full
    by_size: dict[int, list[tuple[int, int, int]]] = {}
    seen: set[tuple[int, int]] = set()
    for i, move in enumerate(graph.moves):
        size = move.size
        if (size == 3 and not graph.threes) or (size == 4 and not graph.fours):
            continue
        rest = full & ~graph.conflicts[i]
        if (size, rest) not in seen:
            seen.add((size, rest))
            by_size.setdefault(size, []).append((i, rest, size))
    arms: list[tuple[int, int, int]] = []
    for size in sorted(by_size, reverse=True):
        group = by_size[size]
        rng.shuffle(group)
        arms += group[:_BANDIT_PER_SIZE]
    if not arms:
        return None
    lists = [graph.playout_lists(rest) for _, rest, _ in arms]
    tries = [0] * len(arms)
    wins = [0.0] * len(arms)
    for t in range(playouts):
        if t < len(arms):
            k = t
        else:
            if t % _CLOCK_EVERY == 0 and time.process_time() > deadline:
                break
            log_t = math.log(t)
            k = max(range(len(arms)),
                    key=lambda j: wins[j] / tries[j] + _BANDIT_EXPLORATION * math.sqrt(log_t / tries[j]))
        i, rest, size = arms[k]
        after = graph.playout(rest, graph.threes - (size == 3), graph.fours - (size == 4), rng, lists[k])
        final = margin + graph.gain(size) - after if graph.points else -after
        tries[k] += 1
        wins[k] += 1.0 if final > 0 else 0.5 if final == 0 else 0.0
    best = max(range(len(arms)), key=lambda j: tries[j])
    return graph.moves[arms[best][0]]


def _packing(state: NapkinState, rng: random.Random) -> Move:
    """Largest coin that fits, at the contact placement that takes the least room from a size-2 coin."""
    size = _fitting(state)[-1]
    moves = state.contact_placements(size, 40, rng)
    region = state.free_region(2)
    reach = (size + 2) * SCALE

    def removed(move: Move) -> float:
        return float(region.intersection(shapely.Point(move.x, move.y).buffer(reach, quad_segs=4)).area)

    return min(moves, key=removed)


def _hard(state: NapkinState, rng: random.Random) -> Move:
    """The symmetry strategy where it is proven to win; else the exact search where it fits; else the symmetry
    strategy while it holds; else the bandit (stopped at :data:`HARD_CPU_SECONDS` of the move); else packing (see
    the module docstring)."""
    deadline = time.process_time() + HARD_CPU_SECONDS
    mirror = _mirror(state)
    if mirror is not None:
        return mirror
    exact, tried = _exact_move(state)
    if exact is not None:
        return exact
    mirror = _mirror(state, proven=False)
    if mirror is not None:
        return mirror
    return _bandit_move(state, rng, PLAYOUTS // 2 if tried else PLAYOUTS, deadline) or _packing(state, rng)


# ------------------------------------------------------------------------------------------ medium, easy


def _greedy(state: NapkinState, rng: random.Random) -> Move:
    """Largest coin that fits; among its contact placements the one leaving the opponent least room."""
    sizes = [s for s in state.allowed_sizes() if state.fits(s)]
    size = sizes[-1]
    moves = state.contact_placements(size, 40, rng) + state.sample_placements(size, 4, rng)
    after = list(state.supply)
    after[size - 2] -= 1
    opp_sizes = [s for s in SIZES if after[s - 2] > 0]
    if not opp_sizes:
        return moves[0]
    opp = opp_sizes[0]
    region = state.free_region(opp)
    reach = (size + opp) * SCALE

    def removed(move: Move) -> float:
        return float(region.intersection(shapely.Point(move.x, move.y).buffer(reach, quad_segs=4)).area)

    return max(moves, key=removed)


def choose_move(state: NapkinState, level: Level, rng: random.Random) -> Move:
    """The computer's coin for the seat to move of a running ``state`` at ``level`` (deterministic for ``rng``):
    ``easy`` a random placement of a random size that fits, ``medium`` greedy (:func:`_greedy`), ``hard`` the
    search over placements (:func:`_hard`, see the module docstring)."""
    if level == "easy":
        sizes = [s for s in state.allowed_sizes() if state.fits(s)]
        return state.sample_placements(rng.choice(sizes), 1, rng)[0]
    if level == "medium":
        return _greedy(state, rng)
    return _hard(state, rng)


# ------------------------------------------------------------------------------------------------ review

_ROLLOUT_PLIES = 40  # plies per play-out on napkins up to 30 × 30 (bounds the time on large napkins)
REVIEW_PLAYOUTS = 8
"""Play-outs behind each estimate of a review (:func:`estimate`)."""


def _play_on(state: NapkinState, rng: random.Random) -> NapkinState:
    """Play on for up to _ROLLOUT_PLIES (fewer on napkins larger than 30 × 30) with both seats taking the largest
    coin that fits at a random contact placement; return the position reached."""
    area = state.variant.width * state.variant.height / (SCALE * SCALE)
    for _ in range(int(min(_ROLLOUT_PLIES, max(12, _ROLLOUT_PLIES * 900 / area)))):
        if state.is_over:
            break
        size = [s for s in state.allowed_sizes() if state.fits(s)][-1]
        state = state.apply(state.contact_placements(size, 1, rng)[0])
    return state


def estimate(state: NapkinState, seat: int, rng: random.Random) -> Estimate:
    """The evaluation of ``state`` for ``seat`` behind reviews: the mean of :data:`REVIEW_PLAYOUTS` play-outs
    (largest coin that fits, at a random contact placement). With ``points`` scoring the expected points margin at
    the end of the play-outs (kind ``"margin"``); with ``last_mover`` the expected result, 1 for a win and -1 for a
    loss, 0 for a play-out that did not reach the end (kind ``"outcome"``)."""
    margin = result = 0.0
    for _ in range(REVIEW_PLAYOUTS):
        reached = _play_on(state, rng)
        scores = reached.scores
        margin += scores[seat] - scores[1 - seat]
        outcome = reached.outcome
        if outcome is not None and outcome.winner is not None:
            result += 1 if outcome.winner == seat else -1
    if state.variant.scoring == "last_mover":
        return Estimate("outcome", result / REVIEW_PLAYOUTS)
    return Estimate("margin", margin / REVIEW_PLAYOUTS)
