"""The Grid Game of Differences (Leroy Quet, 2010): marks on an n x n grid, scored by distinct differences.

The game's modules, each importing only those before it: :mod:`~games.differences.rules` (moves and notation,
scoring, state) <- :mod:`~games.differences.computer` (the exact solver, Monte-Carlo tree search, the players,
exact values) <- :mod:`~games.differences.game` (the declaration, :data:`GAME`, that the registry finds here).
"""

from games.differences.game import GAME, DifferencesGame
from games.differences.rules import FILES, MAX_N, MIN_N, DifferencesState, Mark, Square, parse_square

__all__ = ["FILES", "GAME", "MAX_N", "MIN_N", "DifferencesGame", "DifferencesState", "Mark", "Square", "parse_square"]
