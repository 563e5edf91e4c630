"""The declaration of Napkin Chess: what the registry finds (:data:`GAME`), over its rules and its computer.

Key, title, command group, the variant options and presets, the ``/napkin place`` command with its autocomplete,
the demo match and the start position; the computer player and its estimates are
:mod:`games.napkin_chess.computer`'s, the rules :mod:`games.napkin_chess.rules`'. The players' rules text is
``game.rules.md`` beside this module.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from games.declaration import DemoMatch, Game, MoveCommand, MoveParam
from games.errors import InvalidMove
from games.napkin_chess import computer
from games.napkin_chess.rules import OPTIONS, SIZES, Move, NapkinState, make_variant
from games.options import Option
from games.search import Level
from games.state import State
from games.values import Estimate
from i18n import N_, _

_PLACEMENT = re.compile(r"\s*([234])\s*@\s*([^,]+),(.+)")
"""A placement as written, ``size@x,y``: groups size, x and y as typed."""


def _size_suggestions(state: NapkinState, filled: Mapping[str, str]) -> list[tuple[str, str]]:
    """Autocomplete of ``/napkin place size``: the sizes still in the supply, labelled ``"3 (6 left)"``."""
    return [(f"{size} ({count} left)", str(size)) for size, count in zip(SIZES, state.supply, strict=True)
            if count > 0]


def _assemble_place(options: Mapping[str, str]) -> str:
    """``/napkin place size x y`` → ``"size@x,y"`` (coordinates as typed, at most 20 characters each).

    Raises:
        InvalidMove: ``size`` is not 2, 3 or 4, or a coordinate is empty or holds a comma (the message quotes
            what was typed).
    """
    size = options["size"].strip()
    if size not in ("2", "3", "4"):
        raise InvalidMove(_("`{size}` is not a coin size; sizes are 2, 3 and 4.", size=size[:20]))
    for axis in ("x", "y"):
        typed = options[axis].strip()
        if not typed:
            raise InvalidMove(_("The {axis} coordinate is missing; for example `x:12.5 y:7`.", axis=axis))
        if "," in typed or "@" in typed:
            raise InvalidMove(_("`{typed}` is not a number for {axis}: write decimals with a point, like 12.5.",
                                typed=typed[:20], axis=axis))
    return f"{size}@{options['x'].strip()[:20]},{options['y'].strip()[:20]}"


class NapkinChess(Game[NapkinState, Move]):
    """Napkin Chess (K. Scherer 2014): coins of radius 2, 3, 4 dropped on a napkin; see seeds/napkin_chess.md."""

    key: ClassVar[str] = "napkin_chess"
    title: ClassVar[str] = N_("Napkin Chess")
    command: ClassVar[str] = "napkin"
    source: ClassVar[str] = "Karl Scherer, *Napkin Chess*, Wolfram Demonstrations Project (2014)"
    natural_end: ClassVar[str] = N_("no coin fits")
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = NapkinState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("place", "Place a coin: size 2, 3 or 4 at centre x, y (≤ 2 decimals)", (
            MoveParam("size", "Coin size (radius), still in supply", suggest=_size_suggestions),
            MoveParam("x", "Centre x, e.g. 12.5"),
            MoveParam("y", "Centre y, e.g. 7"),
        ), assemble=_assemble_place),
    )
    level_descriptions: ClassVar[Mapping[Level, str]] = {
        "easy": "places a random coin that fits, anywhere",
        "medium": "places the largest coin that fits where it leaves the least room",
        "hard": "searches the ending to the last coin once few places are left, tries its candidate coins by many "
                "play-outs before, and when it opens on a napkin without a hole, mirrors your coins while it can",
    }
    demo: ClassVar[tuple[DemoMatch, ...]] = (DemoMatch("classic 30×30, 20/15/7", {}, ("hard", "medium")),)

    def command_for(self, state: NapkinState, notation: str) -> tuple[str, dict[str, str]]:
        """``"3@12.5,7"`` → ``place size:3 x:12.5 y:7``.

        Raises:
            ValueError: the notation is not ``size@x,y``.
        """
        found = _PLACEMENT.fullmatch(notation)
        if not found:
            raise ValueError(f"{notation!r} is not a placement")
        return "place", {"size": found[1], "x": found[2].strip(), "y": found[3].strip()}

    def variant(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The stored variant for ``options`` (see :func:`make_variant`): the preset's napkin, supply, hole, first
        coin rule and scoring, each overridden by an option given (not ``None``). Its keys are ``preset, width,
        height, supply, hole, first_coin_two, scoring``; a stored variant is accepted as options too.

        Raises:
            InvalidVariant: an unknown option or an illegal value or combination (the message names it).
        """
        return make_variant(options).to_dict()


    def new_state(self, variant: Mapping[str, Any] | None = None, rng: random.Random | None = None) -> NapkinState:
        """Return the empty napkin for ``variant`` (``rng`` is unused: the start is fixed).

        Raises:
            InvalidVariant: an unknown option or illegal value.
        """
        return NapkinState(make_variant(variant))

    def choose_move(self, state: NapkinState, level: Level, rng: random.Random) -> Move:
        """Choose a move: ``easy`` random, ``medium`` greedy, ``hard`` a search over placements (exact in the
        ending, play-outs before, the symmetry strategy where proven) (:func:`games.napkin_chess.computer.choose_move`).
        (:meth:`Game.computer_move` checks the state, the level and that the match is running.)
        """
        return computer.choose_move(state, level, rng)

    def estimate(self, state: NapkinState, seat: int, rng: random.Random) -> Estimate:
        """The evaluation of ``state`` for ``seat`` behind reviews: the mean of play-outs, the expected points
        margin (``points`` scoring, kind ``"margin"``) or the expected result (``last_mover``, kind ``"outcome"``)
        (:func:`games.napkin_chess.computer.estimate`)."""
        return computer.estimate(state, seat, rng)


GAME = NapkinChess()
"""The registry entry for ``napkin_chess``."""
