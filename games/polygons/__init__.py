"""Polygons & Dots (Leroy Quet, 2008): dots on a lattice, one closed path, faces scored by the parity of their sides.

The game's modules, each importing only those before it: :mod:`~games.polygons.rules` (moves and notation, exact
lattice geometry and faces, state) <- :mod:`~games.polygons.computer` (play-outs, the exact endgame search, the
players, exact values and estimates) <- :mod:`~games.polygons.game` (the declaration, :data:`GAME`, that the
registry finds here).
"""

from games.polygons.game import GAME, PolygonsGame
from games.polygons.rules import (
    KEY,
    Connect,
    Dot,
    Face,
    Move,
    Place,
    PolygonsState,
    Segment,
    blocked_points,
    collinear,
    dot_name,
    face_sides,
    faces_of_path,
    max_dots_per_seat,
    score_sides,
)

__all__ = ["GAME", "KEY", "Connect", "Dot", "Face", "Move", "Place", "PolygonsGame", "PolygonsState", "Segment",
           "blocked_points", "collinear", "dot_name", "face_sides", "faces_of_path", "max_dots_per_seat", "score_sides"]
