"""Gröbner Nim, after John Perry: pairing sticks, binomials over GF(2), until they form a Gröbner basis.

The game's modules, each importing only those before it: :mod:`~games.groebner_nim.rules` (notation, algebra,
variant, state) <- :mod:`~games.groebner_nim.computer` (the search, the players, exact values, fair starts) <-
:mod:`~games.groebner_nim.game` (the declaration, :data:`GAME`, that the registry finds here).
"""

from games.groebner_nim.game import GAME, GroebnerNim
from games.groebner_nim.rules import GroebnerNimState, Pair, Point, Stick, Variant, format_stick, format_sticks

__all__ = ["GAME", "GroebnerNim", "GroebnerNimState", "Pair", "Point", "Stick", "Variant", "format_stick",
           "format_sticks"]
