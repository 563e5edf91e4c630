"""Replays for the replay benchmarks and tests: long matches, and a GIF replay built with every frame held in memory
(:func:`held_replay`, the anchor the streamed replay of :mod:`renderers` is measured and compared against).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from PIL import Image

import renderers
from games import GAMES, Outcome, State


def held_replay(states: Sequence[State[Any]], names: Sequence[str], frame_ms: int = 700, *,
                outcome: Outcome | None = None) -> bytes:
    """The GIF replay with every frame held, the anchor of the streamed one: every board rendered to PNG, decoded to
    RGB and kept, all of them reduced to one 128-colour palette taken from the last board, then saved at once (Pillow
    holds every frame until the end). Its memory grows with the number of states; its frames differ from the
    boards wherever a colour is missing from the last board's palette."""
    last = len(states) - 1
    frames = [Image.open(io.BytesIO(renderers.render(state, names, outcome=outcome if i == last else None)))
              .convert("RGB") for i, state in enumerate(states)]
    size = frames[0].size
    frames = [frame if frame.size == size else frame.resize(size) for frame in frames]
    palette = frames[-1].quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    palette_frames = [frame.quantize(palette=palette, dither=Image.Dither.NONE) for frame in frames]
    durations = [frame_ms] * (len(frames) - 1) + [frame_ms * 3]
    buffer = io.BytesIO()
    palette_frames[0].save(buffer, format="GIF", save_all=True, append_images=palette_frames[1:], duration=durations,
                           loop=0, optimize=False, disposal=1)
    return buffer.getvalue()


def long_chopsticks(seed: int = 0) -> list[State[Any]]:
    """The 201 states of a Chopsticks match played to its 200-ply limit (the longest match of the largest board,
    720 x 560 px)."""
    from bench.bench_scale import long_line

    state = GAMES["chopsticks"].new_state({})
    states = [state]
    for notation in long_line(seed):
        state = state.play(notation)
        states.append(state)
    return states
