"""The declaration of the Grid Game of Differences: what the registry finds (:data:`GAME`), over its rules and its
computer.

Key, title, command group, the variant options ``n`` and ``unique``, the ``/differences mark`` command with its
autocomplete, the demo match and the start position; the computer player and exact values are
:mod:`games.differences.computer`'s, the rules :mod:`games.differences.rules`'. The players' rules text is
``game.rules.md`` beside this module.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games.declaration import DemoMatch, Game, MoveCommand, MoveParam
from games.differences import computer
from games.differences.rules import OPTIONS, DifferencesState, Square, check_variant
from games.options import Option
from games.search import Level
from games.state import State
from games.values import GameValue
from i18n import N_


def _legal_squares(state: DifferencesState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/differences mark square``: every free square a mark may go on."""
    return [state.format_move(move) for move in state.legal_moves()]


class DifferencesGame(Game[DifferencesState, Square]):
    """The Grid Game of Differences: variant options ``n`` (4-15, default 8) and ``unique`` (default off)."""

    key: ClassVar[str] = "differences"
    title: ClassVar[str] = N_("Grid Game of Differences")
    command: ClassVar[str] = "differences"
    source: ClassVar[str] = "Leroy Quet, *Grid Game Of Differences* (2010)"
    natural_end: ClassVar[str] = N_("the grid is full")
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = DifferencesState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("mark", "Mark a square, e.g. e5", (
            MoveParam("square", "A free square: column letter then row number from the bottom, e.g. e5",
                      suggest=_legal_squares),
        ), assemble=lambda options: options["square"]),
    )
    level_descriptions: ClassVar[Mapping[Level, str]] = {
        "easy": "marks a random free square",
        "medium": "marks the square that scores best at once, and plays the last four marks perfectly",
        "hard": "plays perfectly once at most 8 marks are left (7 above 10×10), so on grids up to 8×8 from the first "
                "mark, and near the end picks among its best squares the one that gives you the most ways to go "
                "wrong; before that it weighs its moves by thousands of simulated games",
        "perfect": "plays perfectly from the first mark, as hard does on grids up to 8×8 (offered there only)",
    }
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

    def plays_perfectly(self, state: DifferencesState) -> bool:
        """On grids up to 8 x 8, where ``hard`` searches exactly from the first mark
        (:func:`games.differences.computer.plays_perfectly`)."""
        return computer.plays_perfectly(state.n)

    def choose_move(self, state: DifferencesState, level: Level, rng: random.Random) -> Square:
        """Choose a move for the seat to move (:func:`games.differences.computer.choose_move`).

        ``easy`` plays a random legal square; ``medium`` the square with the best running score difference
        after it, exactly once at most four marks remain; ``hard`` (and ``perfect``) searches exactly (random among
        the best) once at most :func:`games.differences.computer.exact_limit` marks remain, and runs a Monte-Carlo
        tree search before that.
        (:meth:`Game.computer_move` checks the state, the level and that the game is running.)
        """
        return computer.choose_move(state, level, rng)

    def exact_value(self, state: DifferencesState, seat: int) -> GameValue | None:
        """The value of ``state`` for ``seat`` (kind ``"margin"``: the seat's final points minus the opponent's
        under perfect play) once few marks remain, as the ``hard`` player searches; ``None`` before
        (:func:`games.differences.computer.exact_value`)."""
        return computer.exact_value(state, seat)

    def exact_move_values(self, state: DifferencesState) -> dict[Square, GameValue] | None:
        """The exact value of every legal move for the mover, one alpha-beta search for them all; ``None`` while
        the hard player does not search exactly (:func:`games.differences.computer.exact_move_values`)."""
        return computer.exact_move_values(state)


GAME = DifferencesGame()
"""The registry entry."""
