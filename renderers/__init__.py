"""Pillow renderers: a game state to PNG bytes, and a list of states to an animated GIF replay.

Renderers import :mod:`games` only. Each game names the module that draws it
(:meth:`games.Game.renderer_module`, by default ``renderers.<key>``), which has
``render(state, names, *, outcome=None) -> bytes``.
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Sequence
from typing import Any, Protocol, cast

from PIL import Image

from games import GAMES, Outcome
from games.base import State


class _Renderer(Protocol):
    def render(self, state: Any, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes: ...


def render(state: State[Any], names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes.

    Args:
        state: any game's state; the renderer is the game's (``GAMES[state.game].renderer_module()``).
        names: display name per seat (``len(names) == state.seats``); any text, drawn on one line and shortened
            to fit.
        outcome: how the match ended when a player's action ended it (resigned, out of time, draw agreed,
            aborted): the board then shows that result instead of whose move it is. ``None``: the state's own
            outcome, if any.

    Raises:
        KeyError: ``state.game`` is not a registered game.
    """
    module = cast(_Renderer, importlib.import_module(GAMES[state.game].renderer_module()))
    return module.render(state, names, outcome=outcome)


def render_replay(states: Sequence[State[Any]], names: Sequence[str], frame_ms: int = 700, *,
                  outcome: Outcome | None = None) -> bytes:
    """Render ``states`` (start position first) as an animated GIF, one frame per state; the last frame shows
    ``outcome`` when given (see :func:`render`).

    The last frame is held three times as long. Frames are palette-quantised, so a 60-ply replay stays
    well under Discord's 10 MiB upload limit.

    Raises:
        ValueError: ``states`` is empty.
    """
    if not states:
        raise ValueError("a replay needs at least one state")
    last = len(states) - 1
    frames = [Image.open(io.BytesIO(render(state, names, outcome=outcome if i == last else None))).convert("RGB")
              for i, state in enumerate(states)]
    size = frames[0].size
    frames = [frame if frame.size == size else frame.resize(size) for frame in frames]
    # One palette for the whole replay, taken from the final position (it holds the most colours), applied to
    # every frame without dithering: fast, and identical pixels stay identical from frame to frame.
    palette = frames[-1].quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    palette_frames = [frame.quantize(palette=palette, dither=Image.Dither.NONE) for frame in frames]
    durations = [frame_ms] * (len(frames) - 1) + [frame_ms * 3]
    buffer = io.BytesIO()
    palette_frames[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=palette_frames[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return buffer.getvalue()
