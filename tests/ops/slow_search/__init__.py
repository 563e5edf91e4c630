"""A game package with no game: registered with ``games.add_game_package``, it is imported with the registry in the
bot and in every computer worker (which registers the bot's packages), and on import makes Chopsticks' ``hard``
player think :data:`SLOW_SECONDS` longer, so that a test can act while a hard search is under way.

Found by the registry's key rather than its module, so that it does not depend on where Chopsticks is declared."""

from __future__ import annotations

import sys
import time
from typing import Any

SLOW_SECONDS = 3.0
"""How much longer a ``hard`` Chopsticks move takes."""


def _slow_down() -> None:
    game: Any = next(module.GAME for module in list(sys.modules.values())
                     if getattr(getattr(module, "GAME", None), "key", None) == "chopsticks")
    if getattr(game, "slowed", False):
        return
    think = game.choose_move

    def slow(state: Any, level: Any, rng: Any) -> Any:
        if level == "hard":
            time.sleep(SLOW_SECONDS)
        return think(state, level, rng)

    object.__setattr__(game, "choose_move", slow)
    object.__setattr__(game, "slowed", True)


_slow_down()
