"""The computer of the Grid Game of Differences: an exact solver, Monte-Carlo tree search and the players.

Rules follow ``seeds/differences.md``; this module only reads positions built with
:mod:`games.differences.rules` (which never imports it). :func:`solve` is the exact minimax value of the final score
difference (alpha-beta with a transposition table); the ``hard`` player searches exactly once few marks remain
(:func:`exact_limit`) and runs :func:`mcts_move` before that; :func:`exact_value` and :func:`exact_move_values` are
the values behind reviews.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from games.differences.rules import DifferencesState, Square, game_over
from games.errors import IllegalMove
from games.search import Level
from games.values import GameValue

EXACT_LIMIT_SMALL, EXACT_LIMIT_LARGE = 8, 7
"""``hard`` searches exactly once at most this many marks remain (on grids up to 10, on larger grids)."""
SWINDLE_LIMIT = 6
"""``hard`` chooses among its optimal moves the one that leaves the opponent most ways to go wrong once at most this
many marks remain (:func:`exact_move`)."""
SWINDLE_CANDIDATES = 12
"""Optimal moves ``hard`` compares for that choice (the first in its shuffled order)."""
MEDIUM_EXACT_LIMIT = 4
"""``medium`` searches exactly once at most this many marks remain."""
MCTS_ITERATIONS = 4000
"""Monte-Carlo tree search iterations per ``hard`` move before the exact search takes over."""
PLAYOUT_EXACT = 2
"""A play-out of the tree search marks at random until this many marks remain, then finishes exactly."""
_WIDENING = 3.0
_UCT_C = 0.8
_WIN_WEIGHT = 0.8

_INF = 1 << 20


def _final_scorer(n: int, unique: bool) -> Callable[[list[int]], int]:
    """Return ``score(p) -> seat 0's points - seat 1's points`` for a full placement ``p`` (row per column)."""
    pairs = range(n - 1)
    order = range(n)

    def score_distinct(p: list[int]) -> int:
        q = [0] * n
        for col in order:
            q[p[col]] = col
        return len({abs(p[i + 1] - p[i]) for i in pairs}) - len({abs(q[i + 1] - q[i]) for i in pairs})

    def score_unique(p: list[int]) -> int:
        q = [0] * n
        for col in order:
            q[p[col]] = col
        a = [abs(p[i + 1] - p[i]) for i in pairs]
        b = [abs(q[i + 1] - q[i]) for i in pairs]
        return sum(1 for d in set(a) if a.count(d) == 1) - sum(1 for d in set(b) if b.count(d) == 1)

    return score_unique if unique else score_distinct


class _Solver:
    """Fail-soft alpha-beta on the final score difference with a transposition table of bounds.

    A position is the placement ``p`` (row per column, -1 if empty); the player to move follows from the number
    of marks, so the table is keyed by the placement alone, encoded as ``sum((row + 1) * (n + 1) ** col)``.
    Full placements are scored once and cached; a position with two marks left is decided directly (the mover
    picks one of the two completions).
    """

    def __init__(self, n: int, unique: bool) -> None:
        self.score = _final_scorer(n, unique)
        self.powers = [(n + 1) ** col for col in range(n)]
        self.lower: dict[int, int] = {}
        self.upper: dict[int, int] = {}
        self.leaves: dict[int, int] = {}

    def key(self, p: Sequence[int]) -> int:
        """Table key of placement ``p``."""
        return sum((row + 1) * self.powers[col] for col, row in enumerate(p) if row >= 0)

    def search(self, p: list[int], key: int, maximise: bool, cols: list[int], rows: list[int],
               alpha: int, beta: int) -> int:
        """Fail-soft value of placement ``p`` (mutated, then restored) whose free lines are ``cols``/``rows``.

        The result ``v`` is exact if ``alpha < v < beta``, an upper bound if ``v <= alpha`` and a lower bound
        if ``v >= beta``.
        """
        lower = self.lower.get(key, -_INF)
        upper = self.upper.get(key, _INF)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        alpha = max(alpha, lower)
        beta = min(beta, upper)
        powers = self.powers
        if len(cols) <= 2:
            value = self._endgame(p, key, maximise, cols, rows)
            self.lower[key] = self.upper[key] = value
            return value
        window_low, window_high = alpha, beta
        search = self.search
        best = -_INF if maximise else _INF
        for i, col in enumerate(cols):
            rest_cols = cols[:i] + cols[i + 1:]
            power = powers[col]
            for j, row in enumerate(rows):
                p[col] = row
                value = search(p, key + (row + 1) * power, not maximise, rest_cols, rows[:j] + rows[j + 1:],
                               alpha, beta)
                if maximise:
                    if value > best:
                        best = value
                        alpha = max(alpha, value)
                elif value < best:
                    best = value
                    beta = min(beta, value)
                if alpha >= beta:
                    break
            p[col] = -1
            if alpha >= beta:
                break
        if best <= window_low:
            self.upper[key] = min(best, upper)
        elif best >= window_high:
            self.lower[key] = max(best, lower)
        else:
            self.lower[key] = self.upper[key] = best
        return best

    def _endgame(self, p: list[int], key: int, maximise: bool, cols: list[int], rows: list[int]) -> int:
        """Exact value with one or two marks left (the mover picks one of the two completions)."""
        powers = self.powers
        if len(cols) == 1:
            p[cols[0]] = rows[0]
            value = self.leaf(p, key + (rows[0] + 1) * powers[cols[0]])
            p[cols[0]] = -1
            return value
        c0, c1 = cols
        r0, r1 = rows
        p[c0], p[c1] = r0, r1
        first = self.leaf(p, key + (r0 + 1) * powers[c0] + (r1 + 1) * powers[c1])
        p[c0], p[c1] = r1, r0
        second = self.leaf(p, key + (r1 + 1) * powers[c0] + (r0 + 1) * powers[c1])
        p[c0] = p[c1] = -1
        return max(first, second) if maximise else min(first, second)

    def leaf(self, p: list[int], key: int) -> int:
        value = self.leaves.get(key)
        if value is None:
            value = self.leaves[key] = self.score(p)
        return value


def _placement(state: DifferencesState) -> tuple[list[int], list[int], list[int]]:
    """``(row per column with -1 for empty, free columns, free rows)`` of ``state``."""
    p = [-1 if row is None else row for row in state.rows_by_column]
    return p, list(state.free_columns), list(state.free_rows)


def solve(state: DifferencesState) -> int:
    """Exact minimax value of the final score difference (seat 0's points - seat 1's) under perfect play.

    Alpha-beta over the remaining marks: positions with 5 marks left take milliseconds, the empty 8 x 8 grid
    well under a second, the empty 9 x 9 grid several seconds. A finished game returns its final difference.

    Raises:
        TypeError: ``state`` is not a :class:`DifferencesState`.
    """
    if not isinstance(state, DifferencesState):
        raise TypeError("solve needs a DifferencesState.")
    solver = _Solver(state.n, state.unique)
    p, cols, rows = _placement(state)
    if not cols:
        return solver.score(p)
    return solver.search(p, solver.key(p), state.ply % 2 == 0, cols, rows, -_INF, _INF)


def exact_move(state: DifferencesState, rng: random.Random, swindle: bool = False) -> Square:
    """A move of exact minimax value, uniformly at random among all such moves.

    Alpha-beta at the root over the legal moves in a shuffled order; the first move reaching the final value is
    kept, which is a uniform choice among the optimal moves. With ``swindle`` and 3 to :data:`SWINDLE_LIMIT` marks
    left, among the first :data:`SWINDLE_CANDIDATES` optimal moves of that order the one leaving the opponent the
    largest share of replies that lose value is kept instead (null-window tests).

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(game_over(state.n))
    solver = _Solver(state.n, state.unique)
    p, cols, rows = _placement(state)
    key = solver.key(p)
    maximise = state.ply % 2 == 0
    order = [(i, j) for i in range(len(cols)) for j in range(len(rows))]
    rng.shuffle(order)
    alpha, beta = -_INF, _INF
    best_value = -_INF if maximise else _INF
    best_move = order[0]
    for i, j in order:
        col, row = cols[i], rows[j]
        p[col] = row
        child_key = key + (row + 1) * solver.powers[col]
        rest_cols, rest_rows = cols[:i] + cols[i + 1:], rows[:j] + rows[j + 1:]
        if rest_cols:
            value = solver.search(p, child_key, not maximise, rest_cols, rest_rows, alpha, beta)
        else:
            value = solver.leaf(p, child_key)
        p[col] = -1
        if maximise and value > best_value:
            best_value, best_move, alpha = value, (i, j), max(alpha, value)
        elif not maximise and value < best_value:
            best_value, best_move, beta = value, (i, j), min(beta, value)
    if swindle and 3 <= len(cols) <= SWINDLE_LIMIT:
        best_move = _trickiest(solver, p, key, maximise, cols, rows, order, best_move, best_value)
    return Square(cols[best_move[0]], rows[best_move[1]])


def _value_beyond(solver: _Solver, p: list[int], key: int, maximise: bool, cols: list[int], rows: list[int],
                  bound: int, above: bool) -> bool:
    """Whether the exact value of placement ``p`` (free lines ``cols``/``rows``, ``maximise`` to move) is above
    ``bound`` (``above``) or below it: one null-window search, whose answer is a fact of the position."""
    if not cols:
        value = solver.leaf(p, key)
        return value > bound if above else value < bound
    if above:
        return solver.search(p, key, maximise, cols, rows, bound, bound + 1) > bound
    return solver.search(p, key, maximise, cols, rows, bound - 1, bound) < bound


def _trickiest(solver: _Solver, p: list[int], key: int, maximise: bool, cols: list[int], rows: list[int],
               order: list[tuple[int, int]], best_move: tuple[int, int], best: int) -> tuple[int, int]:
    """Among the first :data:`SWINDLE_CANDIDATES` moves of value ``best`` in ``order``, the one that leaves the
    opponent the largest share of replies losing value (the first on a tie)."""
    powers = solver.powers
    optimal: list[tuple[int, int]] = []
    for i, j in order:
        if len(optimal) >= SWINDLE_CANDIDATES:
            break
        col, row = cols[i], rows[j]
        p[col] = row
        rest_cols, rest_rows = cols[:i] + cols[i + 1:], rows[:j] + rows[j + 1:]
        worse = _value_beyond(solver, p, key + (row + 1) * powers[col], not maximise, rest_cols, rest_rows, best,
                              above=not maximise)
        p[col] = -1
        if (i, j) == best_move or not worse:
            optimal.append((i, j))
    if len(optimal) <= 1:
        return best_move

    def erring(move: tuple[int, int]) -> float:
        i, j = move
        col, row = cols[i], rows[j]
        p[col] = row
        child_key = key + (row + 1) * powers[col]
        rest_cols, rest_rows = cols[:i] + cols[i + 1:], rows[:j] + rows[j + 1:]
        bad = replies = 0
        for a, reply_col in enumerate(rest_cols):
            for b, reply_row in enumerate(rest_rows):
                p[reply_col] = reply_row
                bad += _value_beyond(solver, p, child_key + (reply_row + 1) * powers[reply_col], maximise,
                                     rest_cols[:a] + rest_cols[a + 1:], rest_rows[:b] + rest_rows[b + 1:], best,
                                     above=maximise)
                replies += 1
                p[reply_col] = -1
        p[col] = -1
        return bad / replies

    return max(optimal, key=erring)


class _Node:
    """A Monte-Carlo tree node; ``total`` sums the rewards of the player who moved into it."""

    __slots__ = ("children", "move", "total", "untried", "visits")

    def __init__(self, move: tuple[int, int] | None, untried: list[tuple[int, int]]) -> None:
        self.move = move
        self.untried = untried
        self.children: list[_Node] = []
        self.visits = 0
        self.total = 0.0

    def widen(self) -> bool:
        """Whether a child should be added now (progressive widening: at most ``WIDENING * sqrt(visits)``)."""
        return bool(self.untried) and len(self.children) < max(2, int(_WIDENING * math.sqrt(self.visits + 1)))


def _root_order(state: DifferencesState, rng: random.Random) -> list[tuple[int, int]]:
    """The root's moves, the one with the best running score difference after it last (expanded first), ties in a
    shuffled order."""
    seat = state.ply % 2
    moves = [(move.col, move.row) for move in state.legal_moves()]
    rng.shuffle(moves)
    gains = []
    for col, row in moves:
        scores = state.apply(Square(col, row)).scores
        gains.append(scores[seat] - scores[1 - seat])
    order = sorted(range(len(moves)), key=lambda k: gains[k])
    return [moves[k] for k in order]


def mcts_move(state: DifferencesState, rng: random.Random, iterations: int = MCTS_ITERATIONS) -> Square:
    """UCT search with the game's knowledge (deterministic for a seeded ``rng``): the root's moves expanded in the
    order of their running score difference, children added by progressive widening, and play-outs that mark at
    random until :data:`PLAYOUT_EXACT` marks remain and then finish by the exact search (exact leaves, one
    transposition table for the whole search).

    The reward mixes win/draw/loss (weight 0.8) with the final score margin (0.2); the most visited move wins.

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(game_over(state.n))
    n = state.n
    solver = _Solver(n, state.unique)
    root_p, root_cols, root_rows = _placement(state)
    root_seat = state.ply % 2

    def moves(cols: list[int], rows: list[int]) -> list[tuple[int, int]]:
        found = [(col, row) for col in cols for row in rows]
        rng.shuffle(found)
        return found

    def reward(diff: int) -> float:
        """Seat 0's reward in [0, 1]."""
        result = 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
        return _WIN_WEIGHT * result + (1 - _WIN_WEIGHT) * (diff + n - 1) / (2 * n - 2)

    def finish(p: list[int], cols: list[int], rows: list[int]) -> int:
        """Seat 0's final difference: random marks until PLAYOUT_EXACT remain, then the exact search."""
        rng.shuffle(rows)
        cut = max(0, len(cols) - PLAYOUT_EXACT)
        for col, row in zip(cols[:cut], rows[:cut], strict=True):
            p[col] = row
        cols, rows = cols[cut:], rows[cut:]
        if not cols:
            return solver.score(p)
        return solver.search(p, solver.key(p), (n - len(cols)) % 2 == 0, cols, rows, -_INF, _INF)

    root = _Node(None, _root_order(state, rng))
    for _ in range(iterations):
        node = root
        p = root_p[:]
        cols = root_cols[:]
        rows = root_rows[:]
        path = [root]
        while not node.widen() and node.children:
            log_visits = math.log(node.visits)
            node = max(node.children, key=lambda child: child.total / child.visits
                       + _UCT_C * math.sqrt(log_visits / child.visits))
            assert node.move is not None  # only the root has no move
            col, row = node.move
            p[col] = row
            cols.remove(col)
            rows.remove(row)
            path.append(node)
        if node.untried:
            col, row = node.untried.pop()
            p[col] = row
            cols.remove(col)
            rows.remove(row)
            child = _Node((col, row), moves(cols, rows))
            node.children.append(child)
            path.append(child)
        seat0 = reward(finish(p, cols, rows))
        for depth, visited in enumerate(path):
            visited.visits += 1
            mover = (root_seat + depth - 1) % 2
            visited.total += seat0 if mover == 0 else 1.0 - seat0
    chosen = max(root.children, key=lambda child: (child.visits, child.total))
    assert chosen.move is not None  # a child of the root
    return Square(*chosen.move)


def exact_limit(n: int) -> int:
    """Marks left at or below which ``hard`` plays exactly on an n x n grid."""
    return EXACT_LIMIT_SMALL if n <= 10 else EXACT_LIMIT_LARGE


def greedy_move(state: DifferencesState, rng: random.Random) -> Square:
    """The move maximising the mover's running score minus the opponent's after it; ties at random.

    Raises:
        IllegalMove: the game is over.
    """
    seat = state.current_seat
    if seat is None:
        raise IllegalMove(game_over(state.n))
    best: list[Square] = []
    best_value = -_INF
    for move in state.legal_moves():
        scores = state.apply(move).scores
        value = scores[seat] - scores[1 - seat]
        if value > best_value:
            best, best_value = [move], value
        elif value == best_value:
            best.append(move)
    return rng.choice(best)


def choose_move(state: DifferencesState, level: Level, rng: random.Random) -> Square:
    """The computer's square for the seat to move of a running ``state`` at ``level`` (deterministic for ``rng``):
    ``easy`` a random legal square; ``medium`` the square with the best running score difference after it
    (:func:`greedy_move`), and an exact search once at most :data:`MEDIUM_EXACT_LIMIT` marks remain; ``hard`` and
    ``perfect`` (offered where hard is exact from the first mark, :func:`plays_perfectly`) an exact search
    (:func:`exact_move`, random among the best) once at most :func:`exact_limit` marks remain, and
    :func:`mcts_move` before that."""
    if level == "easy":
        return rng.choice(state.legal_moves())
    if level == "medium":
        if state.n - state.ply <= MEDIUM_EXACT_LIMIT:
            return exact_move(state, rng)
        return greedy_move(state, rng)
    if state.n - state.ply <= exact_limit(state.n):
        return exact_move(state, rng, swindle=True)
    return mcts_move(state, rng)


def plays_perfectly(n: int) -> bool:
    """Whether ``hard`` searches the whole game exactly on an n x n grid (the empty grid is within its exact limit)."""
    return n <= exact_limit(n)


def exact_value(state: DifferencesState, seat: int) -> GameValue | None:
    """The value of ``state`` for ``seat`` (kind ``"margin"``: the seat's final points minus the opponent's under
    perfect play, by :func:`solve`) once at most :func:`exact_limit` marks remain, as the ``hard`` player searches;
    ``None`` before."""
    if state.n - state.ply > exact_limit(state.n):
        return None
    margin = solve(state)
    return GameValue("margin", margin if seat == 0 else -margin, state.n - state.ply)


def exact_move_values(state: DifferencesState) -> dict[Square, GameValue] | None:
    """The exact value of every legal move for the mover (as :func:`exact_value` of the position it leads to), one
    alpha-beta search with one transposition table for them all; ``None`` while more than :func:`exact_limit`
    marks remain."""
    seat = state.current_seat
    if seat is None or state.n - state.ply > exact_limit(state.n):
        return None
    solver = _Solver(state.n, state.unique)
    values = {}
    for move in state.legal_moves():
        child = state.apply(move)
        p, cols, rows = _placement(child)
        margin = solver.search(p, solver.key(p), child.ply % 2 == 0, cols, rows, -_INF, _INF) if cols \
            else solver.score(p)
        values[move] = GameValue("margin", margin if seat == 0 else -margin, child.n - child.ply)
    return values
