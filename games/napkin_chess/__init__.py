"""Napkin Chess (Karl Scherer, 2014): coins of radius 2, 3 and 4 dropped on a napkin until no coin fits.

The game's modules, each importing only those before it: :mod:`~games.napkin_chess.rules` (notation, variant and
presets, exact geometry, state, the samplers of legal placements) <- :mod:`~games.napkin_chess.computer` (the
players and their estimates) <- :mod:`~games.napkin_chess.game` (the declaration, :data:`GAME`, that the registry
finds here).
"""

from games.napkin_chess.game import GAME, NapkinChess
from games.napkin_chess.rules import (
    MAX_SIDE,
    MAX_SUPPLY,
    MIN_SIDE,
    PRESETS,
    SCALE,
    SIZES,
    Coin,
    Move,
    NapkinState,
    Variant,
    format_coord,
    format_move,
    make_variant,
    parse_move,
)

__all__ = ["GAME", "MAX_SIDE", "MAX_SUPPLY", "MIN_SIDE", "PRESETS", "SCALE", "SIZES", "Coin", "Move", "NapkinChess",
           "NapkinState", "Variant", "format_coord", "format_move", "make_variant", "parse_move"]
