"""Rules core: one module per game behind the interface in :mod:`games.base`, and the registry.

``GAMES`` maps each game key to its :class:`games.base.Game`; modules are imported on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from games.base import (
    LEVELS,
    Game,
    IllegalMove,
    InvalidMove,
    InvalidState,
    InvalidVariant,
    Level,
    Outcome,
    RulesError,
    State,
)

GAME_KEYS: tuple[str, ...] = ("chopsticks", "differences", "napkin_chess", "polygons", "groebner_nim")
GAME_TITLES: dict[str, str] = {
    "chopsticks": "Chopsticks",
    "differences": "Grid Game of Differences",
    "napkin_chess": "Napkin Chess",
    "polygons": "Polygons & Dots",
    "groebner_nim": "Gröbner Nim",
}
"""Display names, known without importing the game modules (each module's ``Game.title`` matches)."""


class _Registry(Mapping[str, Game]):
    """Lazy mapping from game key to the module-level ``GAME`` of ``games.<key>``."""

    def __init__(self) -> None:
        self._loaded: dict[str, Game] = {}

    def __getitem__(self, key: str) -> Game:
        if key not in GAME_KEYS:
            raise KeyError(key)
        if key not in self._loaded:
            self._loaded[key] = importlib.import_module(f"games.{key}").GAME
        return self._loaded[key]

    def __iter__(self) -> Iterator[str]:
        return iter(GAME_KEYS)

    def __len__(self) -> int:
        return len(GAME_KEYS)


GAMES: Mapping[str, Game] = _Registry()


def get_game(key: str) -> Game:
    """Return the game registered under ``key``.

    Raises:
        KeyError: no such game.
    """
    return GAMES[key]


__all__ = [
    "GAMES",
    "GAME_KEYS",
    "GAME_TITLES",
    "LEVELS",
    "Game",
    "IllegalMove",
    "InvalidMove",
    "InvalidState",
    "InvalidVariant",
    "Level",
    "Outcome",
    "RulesError",
    "State",
    "get_game",
]
