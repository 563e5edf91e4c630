"""The rules of the Grid Game of Differences (Leroy Quet, 2010): moves, scoring and the state.

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

This module is the rules core of the game; it imports nothing of the game's computer
(:mod:`games.differences.computer`, the exact solver and the players) or its declaration
(:mod:`games.differences.game`). Pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.options import Option, check_options
from games.outcome import Outcome, Termination
from games.state import State
from i18n import N_, Listed, Text, _

MIN_N, MAX_N, DEFAULT_N = 4, 15, 8
"""Grid sizes allowed by the variant option ``n``, and its default."""
OPTIONS: tuple[Option, ...] = (
    Option("n", "Grid size n×n", DEFAULT_N, "int", minimum=MIN_N, maximum=MAX_N),
    Option("unique", "Count only differences that occur exactly once", False, "bool"),
)
"""The variant options: the grid size ``n`` and the ``unique`` scoring."""
FILES = "abcdefghijklmno"
"""Column letters, left to right (``MAX_N`` of them)."""

_SQUARE_RE = re.compile(r"([a-z]+)([0-9]+)")
_NOTATION_HELP = N_("A square is a column letter then a row number, such as e5.")


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
            raise InvalidMove(  # never a member's: parse_square checks the range first
                f"Squares run from a1 to {FILES[-1]}{MAX_N}; column {self.col!r}, row {self.row!r} is not one of them.")

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
        raise InvalidMove(f"A move must be text. {_NOTATION_HELP}")  # never a member's: a caller's mistake
    cleaned = "".join(text.split()).lower()
    if not cleaned:
        raise InvalidMove(_("No square was given. {help}", help=_(_NOTATION_HELP)))
    match = _SQUARE_RE.fullmatch(cleaned)
    if match is None:
        raise InvalidMove(_("{typed} is not a square. {help}", typed=repr(cleaned), help=_(_NOTATION_HELP)))
    letters, digits = match.groups()
    if len(letters) != 1 or letters not in FILES:
        raise InvalidMove(_("{typed} is not a square: columns are single letters from a to {last}.",
                            typed=repr(cleaned), last=FILES[-1]))
    number = int(digits)
    if number < 1:
        raise InvalidMove(_("{typed} is not a square: rows are numbered from 1.", typed=repr(cleaned)))
    if number > MAX_N:
        raise InvalidMove(_("{typed} is not a square: rows are numbered 1 to {most} at most.", typed=repr(cleaned),
                            most=str(MAX_N)))
    return Square(FILES.index(letters), number - 1)


def game_over(n: int) -> Text:
    """The refusal of a move (or a computer's move) once all ``n`` marks are placed."""
    return _("The game is over: all {n} marks are placed.", n=n)


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
            raise IllegalMove(f"{move!r} is not a square. {_NOTATION_HELP}")  # never a member's: a caller's mistake
        seat = self.current_seat
        if seat is None:
            raise IllegalMove(game_over(self.n))
        if not (0 <= move.col < self.n and 0 <= move.row < self.n):
            raise IllegalMove(_("{square} is off the grid: this {n}x{n} grid has columns a to {last} and rows 1 to "
                                "{n}.", square=move.name, n=str(self.n), last=FILES[self.n - 1]))
        same_row = next((mark.square for mark in self.marks if mark.square.row == move.row), None)
        same_col = next((mark.square for mark in self.marks if mark.square.col == move.col), None)
        if same_row == move:
            raise IllegalMove(_("{square} already holds a mark. {hint}", square=move.name, hint=self._free_hint()))
        row, col = str(move.row + 1), FILES[move.col]
        if same_row is not None and same_col is not None:
            raise IllegalMove(_("{square} shares row {row} with {row_mark} and column {col} with {col_mark}. {hint}",
                                square=move.name, row=row, row_mark=same_row.name, col=col, col_mark=same_col.name,
                                hint=self._free_hint()))
        if same_row is not None:
            raise IllegalMove(_("{square} shares row {row} with {mark}. {hint}", square=move.name, row=row,
                                mark=same_row.name, hint=self._free_hint()))
        if same_col is not None:
            raise IllegalMove(_("{square} shares column {col} with {mark}. {hint}", square=move.name, col=col,
                                mark=same_col.name, hint=self._free_hint()))
        return DifferencesState(self.n, self.unique, (*self.marks, Mark(seat, move)))

    def _free_hint(self) -> Text:
        cols = Listed(tuple(FILES[col] for col in self.free_columns))
        rows = Listed(tuple(str(row + 1) for row in self.free_rows))
        return _("A mark must go in a free column ({columns}) and a free row ({rows}).", columns=cols, rows=rows)

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
        raise InvalidVariant("The variant must give both options, n and unique.")  # never a member's: stored only
    return full["n"], full["unique"]
