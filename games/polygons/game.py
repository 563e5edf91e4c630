"""The declaration of Polygons & Dots: what the registry finds (:data:`GAME`), over its rules and its computer.

Key, title, command group, the variant options ``size`` and ``dots``, the ``/polygons dot`` and ``/polygons
connect`` commands with their autocomplete, the demo match and the start position; the computer player, exact values
and estimates are :mod:`games.polygons.computer`'s, the rules :mod:`games.polygons.rules`'. The players' rules text
is ``game.rules.md`` beside this module.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games.declaration import DemoMatch, Game, MoveCommand, MoveParam
from games.errors import InvalidMove
from games.options import Option
from games.polygons import computer
from games.polygons.rules import KEY, OPTIONS, Move, PolygonsState, check_room, dot_name, read_variant
from games.search import Level
from games.state import State
from games.values import Estimate, GameValue
from i18n import N_, _


def _dot_to_suggestions(state: PolygonsState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/polygons connect to``: the dots the next segment may go to (from ``from`` if given)."""
    if state.phase != "draw":
        return []
    start = (filled.get("from") or "").strip().upper() or state.path_end
    return [name for name in state.legal_targets() if name != start]


def _dot_from_suggestions(state: PolygonsState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/polygons connect from``: every dot, while the first segment is still to be drawn."""
    if state.phase != "draw" or state.path_end is not None:
        return []
    return [dot_name(index) for index in range(len(state.dots))]


def _assemble_dot(options: Mapping[str, str]) -> str:
    """``/polygons dot x y`` → ``"x,y"`` (each coordinate as typed, at most 20 characters).

    Raises:
        InvalidMove: a coordinate is not a whole number (the message quotes what was typed).
    """
    for axis in ("x", "y"):
        typed = options[axis].strip()
        if not typed.lstrip("-").isdecimal():
            raise InvalidMove(_("`{typed}` is not a whole number for {axis}; dots go on lattice points such as x:3 "
                                "y:9.", typed=typed[:20], axis=axis))
    return f"{options['x'].strip()[:20]},{options['y'].strip()[:20]}"


def _assemble_connect(options: Mapping[str, str]) -> str:
    """``/polygons connect to [from]`` → ``"from-to"``, or just ``"to"`` after the first segment."""
    start = options.get("from")
    to = options["to"].strip()[:10]
    return f"{start.strip()[:10]}-{to}" if start else to


class PolygonsGame(Game[PolygonsState, Move]):
    """Polygons & Dots (Leroy Quet, 2008), rules as summarised in ``seeds/polygons.md``."""

    key: ClassVar[str] = KEY
    title: ClassVar[str] = N_("Polygons & Dots")
    command: ClassVar[str] = "polygons"
    source: ClassVar[str] = "Leroy Quet, *Polygons & Dots* (2008)"
    natural_end: ClassVar[str] = N_("the path is closed")
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = PolygonsState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("dot", "Place a dot on a lattice point (no three dots in a line)", (
            MoveParam("x", "Column, a whole number from 0"),
            MoveParam("y", "Row, a whole number from 0"),
        ), assemble=_assemble_dot),
        MoveCommand("connect", "Draw the next segment of the path to an unconnected dot", (
            MoveParam("to", "The dot to draw to", suggest=_dot_to_suggestions),
            MoveParam("from", "First segment only: the dot to start from", required=False,
                      suggest=_dot_from_suggestions),
        ), assemble=_assemble_connect),
    )
    level_descriptions: ClassVar[Mapping[Level, str]] = {
        "easy": "places dots and draws segments at random",
        "medium": "places dots at random, draws the segment that scores best at once, and looks to the end "
                  "once four dots are left to connect",
        "hard": "places each dot where four thousand sampled finishes score best for its side, searches the first "
                "segment exactly as far as a budget of under a second reaches, then plays the drawing perfectly "
                "(from 8 dots left to connect), choosing among its best segments the one you are most likely to "
                "answer badly",
    }
    demo: ClassVar[tuple[DemoMatch, ...]] = (DemoMatch("5 dots each", {}, ("hard", "medium")),)

    def command_for(self, state: PolygonsState, notation: str) -> tuple[str, dict[str, str]]:
        """``"3,4"`` → ``dot x:3 y:4``; ``"A-C"`` → ``connect from:A to:C`` for the first segment, else
        ``connect to:C``.

        Raises:
            ValueError: the notation is neither a point nor a segment.
        """
        if "," in notation:
            x, y = notation.split(",")
            return "dot", {"x": x.strip(), "y": y.strip()}
        start, end = notation.split("-")
        if state.path_end is None:
            return "connect", {"from": start, "to": end}
        return "connect", {"to": end}

    def check_variant(self, variant: Mapping[str, Any]) -> None:
        """The dots must fit: at most :func:`max_dots_per_seat` per seat (raises :class:`InvalidVariant`)."""
        check_room(variant)

    def new_state(self, variant: Mapping[str, Any] | None = None, rng: random.Random | None = None) -> PolygonsState:
        """Return the empty lattice for ``variant`` (``rng`` is unused: the start is not random).

        Raises:
            InvalidVariant: an option other than ``size`` (5-30), ``dots`` (3-10, at most ``2 * (size + 1) // 3``) or
                ``komi`` (0-9) is given, or a value is out of range.
        """
        size, per_seat, komi = read_variant(variant)
        return PolygonsState(size, per_seat, komi=komi)

    def choose_move(self, state: PolygonsState, level: Level, rng: random.Random) -> Move:
        """Choose a move for the seat to move (:func:`games.polygons.computer.choose_move`).

        ``easy`` plays a random legal move. ``medium`` places at random and draws the segment that leaves the
        best score margin on the faces so far, exactly over the last four dots. ``hard`` places by a search over
        sampled futures and draws the first segment by an exact search within a budget of closed paths (a tree
        search with more than 10 dots), all over fixed counts, so it is deterministic for a seeded ``rng``, and
        searches the drawing exactly once the path is started and at most
        :data:`games.polygons.computer.EXACT_LEFT` dots are left to connect.
        (:meth:`Game.computer_move` checks the state, the level and that the game is running.)
        """
        return computer.choose_move(state, level, rng)

    def exact_value(self, state: PolygonsState, seat: int) -> GameValue | None:
        """The value of ``state`` for ``seat`` (kind ``"margin"``: the seat's final faces minus the opponent's under
        perfect play) once the path is started and at most 8 dots are left to connect (the ``hard`` player's exact
        search); ``None`` before (:func:`games.polygons.computer.exact_value`)."""
        return computer.exact_value(state, seat)

    def estimate(self, state: PolygonsState, seat: int, rng: random.Random) -> Estimate:
        """The ``hard`` player's evaluation of ``state`` for ``seat``: the mean final face margin of random
        play-outs (kind ``"margin"``; a finished game: its margin; :func:`games.polygons.computer.estimate`)."""
        return computer.estimate(state, seat, rng)


GAME = PolygonsGame()
"""The registry entry for ``polygons``."""
