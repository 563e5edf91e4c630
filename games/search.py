"""What every game's computer player shares: its levels, and the switch that keeps Python's cyclic garbage collector
out of a search (:func:`collector_paused`, which :meth:`games.declaration.Game.computer_move` wraps every search in).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Literal

Level = Literal["easy", "medium", "hard", "perfect"]
"""A computer player's strength. ``perfect`` exists only where a game is solved
(:meth:`games.declaration.Game.levels_for`)."""
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard", "perfect")
"""Every level, weakest first."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (:func:`gc.disable`) for the block, and restore it after.

    A search allocates memo entries by the hundred thousand, and each time the heap grows by a quarter the collector
    would walk every object the process holds (the computer's caches included): CPU time that finds no move. Memory
    is freed by reference counting meanwhile; what the block (or another thread) leaves in reference cycles is
    collected after it ends. Nested blocks leave the collector paused until the outermost ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
