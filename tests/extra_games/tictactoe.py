"""Tic-tac-toe, the test suites' sixth game: the rules and the game's declaration.

Rules (the common children's game): two players take turns marking a free square of a 3×3 grid, seat 0 first;
three of one's own marks in a row, column or diagonal wins; a full grid without a line is a draw. Squares are
written like the Grid Game of Differences: column letter ``a``–``c`` from the left, row ``1``–``3`` from the
bottom (``b2`` is the centre).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from games import (
    DemoMatch,
    Game,
    IllegalMove,
    InvalidMove,
    InvalidState,
    Level,
    MoveCommand,
    MoveParam,
    Option,
    Outcome,
    State,
    Termination,
)
from games.values import GameValue

Square = int
"""A square as an index 0–8: ``3 * row + column``, row 0 at the bottom."""
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def square_name(square: Square) -> str:
    """``0`` → ``"a1"``, ``4`` → ``"b2"``."""
    return "abc"[square % 3] + str(square // 3 + 1)


@dataclass(frozen=True, slots=True)
class TicTacToeState(State[Square]):
    """A position: the squares each move marked, in order (seat 0 made the even plies)."""

    game: ClassVar[str] = "tictactoe"
    required_keys: ClassVar[tuple[str, ...]] = ("game", "variant", "moves")
    marks: tuple[Square, ...] = ()
    misere: bool = False

    def owner(self, square: Square) -> int | None:
        """The seat whose mark is on ``square``, or ``None``."""
        return self.marks.index(square) % 2 if square in self.marks else None

    @property
    def outcome(self) -> Outcome | None:
        """Three in a line wins (misère: loses); a full grid is a draw."""
        for line in LINES:
            owners = {self.owner(square) for square in line}
            if len(owners) == 1 and None not in owners:
                (seat,) = owners
                assert seat is not None
                return Outcome(1 - seat if self.misere else seat, False, None, Termination.NATURAL)
        if len(self.marks) == 9:
            return Outcome(None, True, None, Termination.NATURAL)
        return None

    @property
    def current_seat(self) -> int | None:
        """Seat 0 on even plies, until the game is over."""
        return None if self.is_over else len(self.marks) % 2

    @property
    def ply(self) -> int:
        """Marks placed."""
        return len(self.marks)

    @property
    def last_move(self) -> Square | None:
        """The newest mark."""
        return self.marks[-1] if self.marks else None

    @property
    def scores(self) -> None:
        """Tic-tac-toe keeps no score."""
        return None

    def legal_moves(self) -> list[Square]:
        """The free squares, a1 first."""
        return [] if self.is_over else [square for square in range(9) if square not in self.marks]

    def parse_move(self, text: str) -> Square:
        """``"b2"`` → ``4`` (raises :class:`InvalidMove` quoting the text)."""
        cleaned = text.strip().lower()
        if len(cleaned) != 2 or cleaned[0] not in "abc" or cleaned[1] not in "123":
            raise InvalidMove(f"`{text[:20]}` is not a square; write a column a–c and a row 1–3, such as b2.")
        return "abc".index(cleaned[0]) + 3 * (int(cleaned[1]) - 1)

    def format_move(self, move: Square) -> str:
        """``4`` → ``"b2"``."""
        return square_name(move)

    def apply(self, move: Square) -> TicTacToeState:
        """Mark ``move`` (raises :class:`IllegalMove` when taken or the game is over)."""
        if self.is_over:
            raise IllegalMove("The game is over.")
        if move in self.marks:
            raise IllegalMove(f"{square_name(move)} is taken.")
        return TicTacToeState((*self.marks, move), self.misere)

    def to_dict(self) -> dict[str, Any]:
        """``{"game", "variant", "moves"}``."""
        return {"game": self.game, "variant": {"misere": self.misere}, "moves": [square_name(m) for m in self.marks]}

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> TicTacToeState:
        variant = GAME.variant(data["variant"])
        state = cls((), variant["misere"])
        for text in data["moves"]:
            state = state.apply(state.parse_move(text))
        return state


def _free_squares(state: TicTacToeState, filled: Mapping[str, str]) -> Sequence[str]:
    return [square_name(square) for square in state.legal_moves()]


class TicTacToe(Game[TicTacToeState, Square]):
    """Tic-tac-toe (test game)."""

    key: ClassVar[str] = "tictactoe"
    title: ClassVar[str] = "Tic-tac-toe"
    command: ClassVar[str] = "tictactoe"
    source: ClassVar[str] = "the children's game"
    natural_end: ClassVar[str] = "three in a row, or a full grid"
    state_class: ClassVar[type[State[Any]]] = TicTacToeState
    options: ClassVar[tuple[Option, ...]] = (
        Option("misere", "Three in a row loses instead of wins", False, "bool"),)
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("mark", "Mark a free square, e.g. b2",
                    (MoveParam("square", "A free square: column a–c, row 1–3, e.g. b2", suggest=_free_squares),),
                    lambda typed: typed["square"]),)
    demo: ClassVar[tuple[DemoMatch, ...]] = (DemoMatch("standard"), DemoMatch("misère", {"misere": True}))

    def new_state(self, variant: Mapping[str, Any] | None = None,
                  rng: random.Random | None = None) -> TicTacToeState:
        """The empty grid (raises :class:`InvalidVariant` for a bad option)."""
        return TicTacToeState((), self.variant(variant)["misere"])

    def choose_move(self, state: TicTacToeState, level: Level, rng: random.Random) -> Square:
        """``easy`` random; ``medium`` and ``hard`` win at once if they can, else block, else random."""
        legal = state.legal_moves()
        if level != "easy":
            seat = state.current_seat
            for wanted in (seat, 1 - (seat or 0)):
                for square in legal:
                    after = TicTacToeState((*state.marks, square), False)
                    outcome = after.outcome
                    if outcome is not None and outcome.winner == wanted and not state.misere:
                        return square
        return rng.choice(legal)


    def exact_value(self, state: TicTacToeState, seat: int) -> GameValue:
        """The value for ``seat`` by a full minimax search (the whole game tree is small); kind ``"outcome"``."""
        outcome = state.outcome
        if outcome is not None:
            return GameValue("outcome", 0 if outcome.winner is None else 1 if outcome.winner == seat else -1, 0)
        value = _solve(frozenset(state.marks[0::2]), frozenset(state.marks[1::2]), state.misere)
        return GameValue("outcome", value if seat == state.current_seat else -value)


@functools.cache
def _solve(first: frozenset[Square], second: frozenset[Square], misere: bool) -> int:
    """1, 0 or -1: the result for the seat to move when seat 0 holds ``first`` and seat 1 ``second``."""
    marks = tuple(square for pair in itertools.zip_longest(sorted(first), sorted(second)) for square in pair
                  if square is not None)
    state = TicTacToeState(marks, misere)
    mover = state.current_seat
    best = -1
    for move in state.legal_moves():
        child = state.apply(move)
        outcome = child.outcome
        if outcome is not None:
            value = 0 if outcome.winner is None else 1 if outcome.winner == mover else -1
        else:
            value = -_solve(frozenset(child.marks[0::2]), frozenset(child.marks[1::2]), misere)
        best = max(best, value)
    return best


GAME = TicTacToe()
"""The registry entry."""

__all__ = ["GAME", "InvalidState", "TicTacToe", "TicTacToeState"]
