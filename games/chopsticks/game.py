"""The declaration of Chopsticks: what the registry finds (:data:`GAME`), over its rules and its computer.

Key, title, command group, variant options, the ``/chopsticks move`` command with its autocomplete, the demo
matches and the start position; the computer player and exact values are :mod:`games.chopsticks.computer`'s, the
rules :mod:`games.chopsticks.rules`'. The players' rules text is ``game.rules.md`` beside this module.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games.chopsticks import computer
from games.chopsticks.rules import NATURAL_END, OPTIONS, ChopsticksState, Move, Variant, format_move
from games.declaration import DemoMatch, Game, MoveCommand, MoveParam
from games.options import Option
from games.search import Level
from games.state import State
from games.values import GameValue
from i18n import N_


def _legal_notations(state: ChopsticksState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/chopsticks move notation``: every legal move's notation (none once the game is over)."""
    return [format_move(move) for move in state.legal_moves()]


class Chopsticks(Game[ChopsticksState, Move]):
    """The Chopsticks game: variants, start position and the computer player (rules: ``seeds/chopsticks.md``)."""

    key: ClassVar[str] = "chopsticks"
    title: ClassVar[str] = N_("Chopsticks")
    command: ClassVar[str] = "chopsticks"
    source: ClassVar[str] = 'Wikipedia contributors, "Chopsticks (hand game)" (CC BY-SA)'
    natural_end: ClassVar[str] = NATURAL_END
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = ChopsticksState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("move", "Play a move by notation: LR, self LR, split 1 3", (
            MoveParam("notation", "LR = your left taps their right; self LR; split 1 3 = new left 1, right 3",
                      suggest=_legal_notations),
        ), assemble=lambda options: options["notation"]),
    )
    level_descriptions: ClassVar[Mapping[Level, str]] = {
        "easy": "taps and splits at random",
        "medium": "plays the solved game's best move seven times in ten, a random move otherwise",
        "hard": "plays the solved game's best move every time",
        "perfect": "plays perfectly, as hard does: Chopsticks is solved, so from a position that can be won or drawn "
                   "it never lets the win or the draw go, and it loses as slowly as it can",
    }
    demo: ClassVar[tuple[DemoMatch, ...]] = (
        DemoMatch("default rules", {}, ("hard", "medium")),
        DemoMatch("rollover, no self-taps", {"rollover": True, "self_taps": False}, ("medium", "hard")),
    )

    def new_state(self, variant: Mapping[str, Any] | None = None,
                  rng: random.Random | None = None) -> ChopsticksState:
        """Return the start position ``[1, 1], [1, 1]``, seat 0 to move (``rng`` is unused).

        Raises:
            InvalidVariant: an option is unknown or has a value outside its legal values.
        """
        return ChopsticksState.start(Variant.from_mapping(variant))

    def plays_perfectly(self, state: ChopsticksState) -> bool:
        """Always: every rule set is solved by retrograde analysis (the ``perfect`` level is offered)."""
        return True

    def choose_move(self, state: ChopsticksState, level: Level, rng: random.Random) -> Move:
        """Choose a move: ``easy`` uniformly at random, ``hard`` and ``perfect`` perfectly (a random one of the
        solver's best moves), ``medium`` the hard move with probability 0.7, else a random legal move
        (:func:`games.chopsticks.computer.choose_move`). (:meth:`Game.computer_move` checks the state, the level and
        that the game is running.)
        """
        return computer.choose_move(state, level, rng)

    def exact_value(self, state: ChopsticksState, seat: int) -> GameValue:
        """The value of ``state`` for ``seat`` (kind ``"outcome"``): a finished game's result, else the retrograde
        solution of the variant with the 200-ply rule applied (:func:`games.chopsticks.computer.exact_value`)."""
        return computer.exact_value(state, seat)


GAME = Chopsticks()
"""The registry entry for ``chopsticks``."""
