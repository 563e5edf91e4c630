"""Rules core: one package per game behind the interface of this package's shared modules, and the registry that
finds them.

The shared modules, one concept each (OpenSpiel keeps the game type apart from the state): :mod:`games.errors` (what
the rules raise), :mod:`games.outcome` (:class:`Termination`, :class:`Outcome`), :mod:`games.state` (the
:class:`State` every position implements), :mod:`games.options` (a variant's :class:`Option` spec),
:mod:`games.values` (exact values and estimates), :mod:`games.search` (the computer's levels and the collector switch
its searches run under) and :mod:`games.declaration` (:class:`Game`: everything a game says about itself). The core
names none of its consumers: renderers and the bot find a game's board and Discord pieces by its key.

Each game of this package is a package of three modules whose imports point one way: ``rules`` (state, moves,
notation, variant) <- ``computer`` (players per level, solvers, exact values, estimates) <- ``game`` (the
declaration, a :class:`games.declaration.Game` with the players' rules text beside it as ``game.rules.md``); the
package's ``__init__`` hands on ``GAME`` and the rules' main names.

``GAMES`` maps each game key to its :class:`games.declaration.Game`. A game is a module or a package with a
top-level ``GAME`` in one of the registry's packages (this package, plus any added with :func:`add_game_package`; a
game kept outside may be a single module); names that start with ``_`` are helpers, not games. Nothing else keeps a
list of the games.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from typing import Any

from games.declaration import DemoMatch, Game, MoveCommand, MoveParam
from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant, RulesError
from games.options import Option, parse_options
from games.outcome import Outcome, Termination
from games.search import LEVELS, Level
from games.state import State

_PACKAGES: list[str] = [__name__]
_SHARED = frozenset({"declaration", "errors", "options", "outcome", "review", "search", "state", "values"})
"""The modules of this package that are not games (the registry does not look in them)."""


class _Registry(Mapping[str, "Game[Any, Any]"]):
    """Mapping from game key to game, filled on first use by importing every module and package of the packages."""

    def __init__(self) -> None:
        self._games: dict[str, Game[Any, Any]] | None = None

    def _load(self) -> dict[str, Game[Any, Any]]:
        if self._games is None:
            found: dict[str, Game[Any, Any]] = {}
            for package_name in _PACKAGES:
                package = importlib.import_module(package_name)
                for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
                    if module.name.startswith("_") or module.name in _SHARED:
                        continue
                    game = getattr(importlib.import_module(f"{package_name}.{module.name}"), "GAME", None)
                    if isinstance(game, Game):
                        if game.key in found:
                            raise RuntimeError(f"two games have the key {game.key!r}")
                        found[game.key] = game
            self._games = found
        return self._games

    def __getitem__(self, key: str) -> Game[Any, Any]:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def reset(self) -> None:
        """Forget what was found (the next use searches the packages again)."""
        self._games = None


GAMES: _Registry = _Registry()
"""Every game, by key, in the order of their packages and module names."""


def add_game_package(package: str) -> None:
    """Also find games in ``package`` (a dotted name of an importable package), e.g. a game kept outside
    this package. Idempotent."""
    if package not in _PACKAGES:
        _PACKAGES.append(package)
        GAMES.reset()


def game_packages() -> tuple[str, ...]:
    """The dotted names of the packages the registry searches, in order (this package first): what another
    process needs to find the same games (:func:`add_game_package` each of the others there)."""
    return tuple(_PACKAGES)


def get_game(key: str) -> Game[Any, Any]:
    """Return the game registered under ``key``.

    Raises:
        KeyError: no such game.
    """
    return GAMES[key]


__all__ = [
    "GAMES",
    "LEVELS",
    "DemoMatch",
    "Game",
    "IllegalMove",
    "InvalidMove",
    "InvalidState",
    "InvalidVariant",
    "Level",
    "MoveCommand",
    "MoveParam",
    "Option",
    "Outcome",
    "RulesError",
    "State",
    "Termination",
    "add_game_package",
    "game_packages",
    "get_game",
    "parse_options",
]
