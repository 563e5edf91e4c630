"""Grid Game of Differences (Leroy Quet, 2010): rules, scoring, an exact solver and the computer player.

The rules follow ``seeds/differences.md`` (our summary of Leroy Quet's "Grid Game Of Differences", 11 October
2010) with the decisions of the design document, section 1. Two players take turns placing identical marks
(the source's x's) on an n x n grid, seat 0 first; no two marks may share a row or a column, so the game ends
after exactly n marks, one in every row and column. Columns are lettered ``a``... from the left and rows
numbered ``1``... from the bottom; a move is a square in that notation (``e5``).

Scoring (:func:`count_points`): reading the columns left to right, seat 0 lists the n - 1 absolute differences
between the rows of consecutive marks and scores one point per distinct value; reading the rows bottom to top,
seat 1 lists the absolute differences between the columns of consecutive marks and scores the same way. With
the ``unique`` variant only values occurring exactly once in a list count. The higher score wins; equal
scores draw.

While the game runs the same rule is applied to the marks placed so far, taking consecutive *filled*
columns (rows) and skipping empty ones: these are the running scores (:attr:`DifferencesState.scores`), exact
once the grid is full. A difference across an empty column can still be split by a later mark.

This module is pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from games.base import (
    DemoMatch,
    Game,
    GameValue,
    IllegalMove,
    InvalidMove,
    InvalidState,
    InvalidVariant,
    Level,
    MoveCommand,
    MoveParam,
    Option,
    Outcome,
    State,
    Termination,
    check_options,
)

MIN_N, MAX_N, DEFAULT_N = 4, 15, 8
"""Grid sizes allowed by the variant option ``n``, and its default."""
OPTIONS: tuple[Option, ...] = (
    Option("n", f"Grid size n×n ({MIN_N}–{MAX_N}, default {DEFAULT_N})", DEFAULT_N, "int",
           minimum=MIN_N, maximum=MAX_N),
    Option("unique", "Count only differences that occur exactly once", False, "bool"),
)
"""The variant options: the grid size ``n`` and the ``unique`` scoring."""
FILES = "abcdefghijklmno"
"""Column letters, left to right (``MAX_N`` of them)."""
EXACT_LIMIT_SMALL, EXACT_LIMIT_LARGE = 8, 7
"""``hard`` searches exactly once at most this many marks remain (on grids up to 10, on larger grids)."""
MCTS_ITERATIONS = 4000
"""Monte-Carlo tree search iterations per ``hard`` move before the exact search takes over."""
_UCT_C = 0.8
_WIN_WEIGHT = 0.8

_SQUARE_RE = re.compile(r"([a-z]+)([0-9]+)")
_NOTATION_HELP = "A square is a column letter then a row number, such as e5."


def _join(items: Sequence[str]) -> str:
    """``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


# ------------------------------------------------------------------------------------------------ moves


@dataclass(frozen=True, slots=True, order=True)
class Square:
    """A square of the grid: ``col`` 0-based from the left (file ``a``), ``row`` 0-based from the bottom.

    Notation is the file letter then the 1-based row number: ``Square(4, 4)`` is ``e5``. Any square of the
    largest grid (15 x 15, ``a1`` to ``o15``) can be written; whether it lies on a smaller grid is checked by
    :meth:`DifferencesState.apply`.

    Raises:
        InvalidMove: ``col`` or ``row`` is not an integer from 0 to 14.
    """

    col: int
    row: int

    def __post_init__(self) -> None:
        if not (type(self.col) is int and type(self.row) is int and 0 <= self.col < MAX_N and 0 <= self.row < MAX_N):
            raise InvalidMove(f"Squares run from a1 to {FILES[-1]}{MAX_N}; column {self.col!r}, row {self.row!r} "
                              "is not one of them.")

    @property
    def name(self) -> str:
        """The square in notation, e.g. ``"e5"``."""
        return f"{FILES[self.col]}{self.row + 1}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Mark:
    """A placed mark: the ``seat`` (0 or 1) that placed it and its ``square``."""

    seat: int
    square: Square


def parse_square(text: str) -> Square:
    """Parse a square such as ``e5`` (case-insensitive; spaces anywhere are ignored).

    Raises:
        InvalidMove: the text is empty or not a letter followed by a number, the letter is beyond ``o``, or the
            number is 0 or beyond 15.
    """
    if not isinstance(text, str):
        raise InvalidMove(f"A move must be text. {_NOTATION_HELP}")
    cleaned = "".join(text.split()).lower()
    if not cleaned:
        raise InvalidMove(f"No square was given. {_NOTATION_HELP}")
    match = _SQUARE_RE.fullmatch(cleaned)
    if match is None:
        raise InvalidMove(f"{cleaned!r} is not a square. {_NOTATION_HELP}")
    letters, digits = match.groups()
    if len(letters) != 1 or letters not in FILES:
        raise InvalidMove(f"{cleaned!r} is not a square: columns are single letters from a to {FILES[-1]}.")
    number = int(digits)
    if number < 1:
        raise InvalidMove(f"{cleaned!r} is not a square: rows are numbered from 1.")
    if number > MAX_N:
        raise InvalidMove(f"{cleaned!r} is not a square: rows are numbered 1 to {MAX_N} at most.")
    return Square(FILES.index(letters), number - 1)


# --------------------------------------------------------------------------------------------- scoring


def differences(sequence: Sequence[int | None]) -> tuple[int, ...]:
    """Absolute differences between consecutive filled entries of ``sequence``, in order.

    ``sequence`` holds one coordinate per line (a row per column, or a column per row), ``None`` for a line
    without a mark; empty lines are skipped: ``differences([4, 8, None, 3]) == (4, 5)``.
    """
    filled = [value for value in sequence if value is not None]
    return tuple(abs(b - a) for a, b in itertools.pairwise(filled))


def count_points(diffs: Sequence[int], unique: bool = False) -> int:
    """Points for a list of differences: the number of distinct values or, if ``unique``, of values occurring
    exactly once (the source's two scoring rules)."""
    if unique:
        return sum(1 for count in Counter(diffs).values() if count == 1)
    return len(set(diffs))


# ----------------------------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class DifferencesState(State[Square]):
    """A position: the grid size ``n`` (4-15), the ``unique`` scoring variant and the ``marks`` in order.

    Seat 0 places the 1st, 3rd, ... mark and seat 1 the 2nd, 4th, ...; each :class:`Mark` records its seat so
    the Discord layer can list them. Build start positions with :meth:`DifferencesGame.new_state` and load
    stored ones with :meth:`from_dict`, which checks everything.
    """

    game: ClassVar[str] = "differences"

    n: int = DEFAULT_N
    unique: bool = False
    marks: tuple[Mark, ...] = ()

    # -- interface -------------------------------------------------------------------------------------

    @property
    def ply(self) -> int:
        """Marks placed so far."""
        return len(self.marks)

    @property
    def current_seat(self) -> int | None:
        """Seat to move (``ply % 2``), or ``None`` once all n marks are placed."""
        return None if len(self.marks) >= self.n else len(self.marks) % 2

    @property
    def last_move(self) -> Square | None:
        """The square of the latest mark, or ``None`` at the start."""
        return self.marks[-1].square if self.marks else None

    @property
    def variant(self) -> dict[str, Any]:
        """The full variant as a JSON-safe dict: ``{"n": 8, "unique": False}``."""
        return {"n": self.n, "unique": self.unique}

    @property
    def rows_by_column(self) -> tuple[int | None, ...]:
        """For each column left to right, the 0-based row of its mark or ``None`` (length n)."""
        rows: list[int | None] = [None] * self.n
        for mark in self.marks:
            rows[mark.square.col] = mark.square.row
        return tuple(rows)

    @property
    def columns_by_row(self) -> tuple[int | None, ...]:
        """For each row bottom to top, the 0-based column of its mark or ``None`` (length n)."""
        cols: list[int | None] = [None] * self.n
        for mark in self.marks:
            cols[mark.square.row] = mark.square.col
        return tuple(cols)

    @property
    def difference_lists(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(seat 0's row differences left to right, seat 1's column differences bottom to top)``.

        Taken between consecutive filled columns (rows); each has n - 1 entries once the grid is full.
        """
        return differences(self.rows_by_column), differences(self.columns_by_row)

    @property
    def scores(self) -> tuple[int, int]:
        """Running points per seat (:func:`count_points` of :attr:`difference_lists`); final once over."""
        first, second = self.difference_lists
        return count_points(first, self.unique), count_points(second, self.unique)

    @property
    def outcome(self) -> Outcome | None:
        """Once all n marks are placed: the higher score wins, equal scores draw; else ``None``."""
        if len(self.marks) < self.n:
            return None
        first, second = self.scores
        if first == second:
            return Outcome(None, True, (first, second), Termination.NATURAL)
        return Outcome(0 if first > second else 1, False, (first, second), Termination.NATURAL)

    @property
    def free_columns(self) -> tuple[int, ...]:
        """0-based columns without a mark, left to right."""
        used = {mark.square.col for mark in self.marks}
        return tuple(col for col in range(self.n) if col not in used)

    @property
    def free_rows(self) -> tuple[int, ...]:
        """0-based rows without a mark, bottom to top."""
        used = {mark.square.row for mark in self.marks}
        return tuple(row for row in range(self.n) if row not in used)

    def legal_moves(self) -> list[Square]:
        """Every square in a free column and a free row, by column then row; empty once the game is over."""
        if self.current_seat is None:
            return []
        rows = self.free_rows
        return [Square(col, row) for col in self.free_columns for row in rows]

    def parse_move(self, text: str) -> Square:
        """Parse a square such as ``e5`` (see :func:`parse_square`).

        Raises:
            InvalidMove: the text is not a square at all.
        """
        return parse_square(text)

    def format_move(self, move: Square) -> str:
        """Return the square's notation (``"e5"``)."""
        return move.name

    def apply(self, move: Square) -> DifferencesState:
        """Return the position after the seat to move marks ``move``.

        Raises:
            IllegalMove: the game is over, the square is off this grid, already marked, or shares a row or a
                column with a mark; the message names the conflict and the free columns and rows.
        """
        if not isinstance(move, Square):
            raise IllegalMove(f"{move!r} is not a square. {_NOTATION_HELP}")
        seat = self.current_seat
        if seat is None:
            raise IllegalMove(f"The game is over: all {self.n} marks are placed.")
        if not (0 <= move.col < self.n and 0 <= move.row < self.n):
            raise IllegalMove(
                f"{move.name} is off the grid: this {self.n}x{self.n} grid has columns a to {FILES[self.n - 1]} "
                f"and rows 1 to {self.n}."
            )
        conflicts = []
        for mark in self.marks:
            if mark.square == move:
                raise IllegalMove(f"{move.name} already holds a mark. {self._free_hint()}")
            if mark.square.row == move.row:
                conflicts.append(f"row {move.row + 1} with {mark.square.name}")
            if mark.square.col == move.col:
                conflicts.append(f"column {FILES[move.col]} with {mark.square.name}")
        if conflicts:
            raise IllegalMove(f"{move.name} shares {' and '.join(conflicts)}. {self._free_hint()}")
        return DifferencesState(self.n, self.unique, (*self.marks, Mark(seat, move)))

    def _free_hint(self) -> str:
        cols = [FILES[col] for col in self.free_columns]
        rows = [str(row + 1) for row in self.free_rows]
        return f"A mark must go in a free column ({_join(cols)}) and a free row ({_join(rows)})."

    # -- serialisation ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"game", "variant": {"n", "unique"}, "ply", "marks": [{"seat", "square"}...], "last_move"}``.

        Squares are in notation (``"e5"``); ``last_move`` is ``None`` at the start.
        """
        return {
            "game": self.game,
            "variant": self.variant,
            "ply": self.ply,
            "marks": [{"seat": mark.seat, "square": mark.square.name} for mark in self.marks],
            "last_move": self.last_move.name if self.last_move else None,
        }

    required_keys: ClassVar[tuple[str, ...]] = ("game", "variant", "ply", "marks", "last_move")

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> DifferencesState:
        """Rebuild a state from :meth:`to_dict` output (the frame is :meth:`State.from_dict`).

        Raises:
            InvalidState: the data is not such a dict, names another game, has a bad or incomplete variant,
                more marks than n, marks off the grid or sharing a row or column, seats that do not alternate
                from seat 0, or a ``ply``/``last_move`` that disagrees with the marks.
        """
        expected = set(cls.required_keys)
        if set(data) != expected:
            raise InvalidState(
                f"A Grid Game of Differences state has exactly the keys {', '.join(sorted(expected))}; "
                f"got {', '.join(sorted(map(str, data)))}."
            )
        try:
            n, unique = check_variant(data["variant"], complete=True)
        except InvalidVariant as error:
            raise InvalidState(str(error)) from None
        marks_data = data["marks"]
        if not isinstance(marks_data, list):
            raise InvalidState("marks must be a list.")
        if len(marks_data) > n:
            raise InvalidState(f"A {n}x{n} grid holds at most {n} marks, not {len(marks_data)}.")
        state = cls(n, unique, ())
        for index, entry in enumerate(marks_data):
            if not isinstance(entry, Mapping) or set(entry) != {"seat", "square"}:
                raise InvalidState(f"Mark {index + 1} must be a dict with the keys seat and square.")
            seat = entry["seat"]
            if type(seat) is not int or seat != index % 2:
                raise InvalidState(f"Mark {index + 1} must be placed by seat {index % 2}, not {seat!r}.")
            try:
                state = state.apply(parse_square(entry["square"]))
            except (InvalidMove, IllegalMove) as error:
                raise InvalidState(f"Mark {index + 1} is impossible: {error}") from None
        ply = data["ply"]
        if type(ply) is not int or ply != len(marks_data):
            raise InvalidState(f"ply must equal the number of marks ({len(marks_data)}), not {ply!r}.")
        last = state.last_move.name if state.last_move else None
        if data["last_move"] != last:
            raise InvalidState(f"last_move must be {last!r} (the latest mark), not {data['last_move']!r}.")
        return state


def check_variant(variant: Mapping[str, Any] | None, complete: bool = False) -> tuple[int, bool]:
    """Validate variant options and return ``(n, unique)``; missing options take their defaults.

    Raises:
        InvalidVariant: not a dict, an unknown option, ``n`` not a whole number from 4 to 15, ``unique`` not
            true or false, or (with ``complete``) an option missing.
    """
    full = check_options(OPTIONS, variant)
    if complete and (not isinstance(variant, Mapping) or set(variant) != {"n", "unique"}):
        raise InvalidVariant("The variant must give both options, n and unique.")
    return full["n"], full["unique"]


# ------------------------------------------------------------------------------------------------ search

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


def best_moves(state: DifferencesState) -> tuple[int, list[Square]]:
    """``(solve(state), every legal move that keeps that value)``, the moves by column then row.

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(f"The game is over: all {state.n} marks are placed.")
    value = solve(state)
    return value, [move for move in state.legal_moves() if solve(state.apply(move)) == value]


def exact_move(state: DifferencesState, rng: random.Random) -> Square:
    """A move of exact minimax value, uniformly at random among all such moves.

    Alpha-beta at the root over the legal moves in a shuffled order; the first move reaching the final value is
    kept, which is a uniform choice among the optimal moves.

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(f"The game is over: all {state.n} marks are placed.")
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
    return Square(cols[best_move[0]], rows[best_move[1]])


class _Node:
    """A Monte-Carlo tree node; ``total`` sums the rewards of the player who moved into it."""

    __slots__ = ("children", "move", "total", "untried", "visits")

    def __init__(self, move: tuple[int, int] | None, untried: list[tuple[int, int]]) -> None:
        self.move = move
        self.untried = untried
        self.children: list[_Node] = []
        self.visits = 0
        self.total = 0.0


def mcts_move(state: DifferencesState, rng: random.Random, iterations: int = MCTS_ITERATIONS) -> Square:
    """UCT search with uniformly random play-outs (deterministic for a seeded ``rng``).

    The reward mixes win/draw/loss (weight 0.8) with the final score margin (0.2); the most visited move wins.

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(f"The game is over: all {state.n} marks are placed.")
    n = state.n
    score = _final_scorer(n, state.unique)
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

    root = _Node(None, moves(root_cols, root_rows))
    for _ in range(iterations):
        node = root
        p = root_p[:]
        cols = root_cols[:]
        rows = root_rows[:]
        path = [root]
        while not node.untried and node.children:
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
        rng.shuffle(rows)
        for col, row in zip(cols, rows, strict=True):
            p[col] = row
        seat0 = reward(score(p))
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
        raise IllegalMove(f"The game is over: all {state.n} marks are placed.")
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


# ------------------------------------------------------------------------------------------------- game


def _legal_squares(state: DifferencesState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/differences mark square``: every free square a mark may go on."""
    return [state.format_move(move) for move in state.legal_moves()]


class DifferencesGame(Game[DifferencesState, Square]):
    """The Grid Game of Differences: variant options ``n`` (4-15, default 8) and ``unique`` (default off)."""

    key: ClassVar[str] = "differences"
    title: ClassVar[str] = "Grid Game of Differences"
    command: ClassVar[str] = "differences"
    source: ClassVar[str] = "Leroy Quet, *Grid Game Of Differences* (2010)"
    natural_end: ClassVar[str] = "the grid is full"
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = DifferencesState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("mark", "Mark a square, e.g. e5", (
            MoveParam("square", "A free square: column letter then row number from the bottom, e.g. e5",
                      suggest=_legal_squares),
        ), assemble=lambda options: options["square"]),
    )
    demo: ClassVar[tuple[DemoMatch, ...]] = (DemoMatch("8×8", {}, ("hard", "medium")),)

    def new_state(self, variant: Mapping[str, Any] | None = None,
                  rng: random.Random | None = None) -> DifferencesState:
        """The empty grid (``rng`` is unused: the start is not random).

        Raises:
            InvalidVariant: an unknown option, ``n`` not a whole number from 4 to 15, or ``unique`` not true or
                false.
        """
        n, unique = check_variant(variant)
        return DifferencesState(n, unique, ())

    def choose_move(self, state: DifferencesState, level: Level, rng: random.Random) -> Square:
        """Choose a move for the seat to move.

        ``easy`` plays a random legal square; ``medium`` the square with the best running score difference
        after it (:func:`greedy_move`); ``hard`` searches exactly (:func:`exact_move`, random among the best)
        once at most :func:`exact_limit` marks remain, and runs :func:`mcts_move` before that.
        (:meth:`Game.computer_move` checks the state, the level and that the game is running.)
        """
        if level == "easy":
            return rng.choice(state.legal_moves())
        if level == "medium":
            return greedy_move(state, rng)
        if state.n - state.ply <= exact_limit(state.n):
            return exact_move(state, rng)
        return mcts_move(state, rng)

    def exact_value(self, state: DifferencesState, seat: int) -> GameValue | None:
        """The value of ``state`` for ``seat`` (kind ``"margin"``: the seat's final points minus the opponent's
        under perfect play, by :func:`solve`) once at most :func:`exact_limit` marks remain, as the ``hard`` player
        searches; ``None`` before."""
        if state.n - state.ply > exact_limit(state.n):
            return None
        margin = solve(state)
        return GameValue("margin", margin if seat == 0 else -margin, state.n - state.ply)

    def exact_move_values(self, state: DifferencesState) -> dict[Square, GameValue] | None:
        """The exact value of every legal move for the mover (as :meth:`exact_value` of the position it leads to),
        one alpha-beta search with one transposition table for them all; ``None`` while more than
        :func:`exact_limit` marks remain."""
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


GAME = DifferencesGame()
"""The registry entry."""
