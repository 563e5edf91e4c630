"""Chopsticks, the hand game: rule variants, solved by retrograde analysis.

The game's modules, each importing only those before it: :mod:`~games.chopsticks.rules` (variant, moves and
notation, state) <- :mod:`~games.chopsticks.computer` (the retrograde solver, the players, exact values) <-
:mod:`~games.chopsticks.game` (the declaration, :data:`GAME`, that the registry finds here).
"""

from games.chopsticks.game import GAME, Chopsticks
from games.chopsticks.rules import (
    FINGERS,
    MAX_PLIES,
    ChopsticksState,
    Hands,
    Move,
    SelfTap,
    Split,
    Tap,
    Variant,
    format_move,
    parse_move,
)

__all__ = ["FINGERS", "GAME", "MAX_PLIES", "Chopsticks", "ChopsticksState", "Hands", "Move", "SelfTap", "Split", "Tap",
           "Variant", "format_move", "parse_move"]
