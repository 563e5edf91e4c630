"""Pillow renderers: a game state to PNG bytes, and states to an animated GIF replay written frame by frame.

Renderers import :mod:`games` only. Each game names the module that draws it
(:meth:`games.Game.renderer_module`, by default ``renderers.<key>``), which has
``render(state, names, *, outcome=None) -> bytes`` and, optionally, ``draw_board`` with the same arguments returning
the board as a ``P`` image on the game's fixed palette (the five games have it; replays then take their frames
without a PNG round trip).
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, Protocol, TypeVar, cast

from PIL import Image

from games import GAMES, Outcome
from games.base import State
from renderers._gif import write_gif

T = TypeVar("T")


class _Renderer(Protocol):
    def render(self, state: Any, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes: ...


def _renderer(state: State[Any]) -> _Renderer:
    return cast(_Renderer, importlib.import_module(GAMES[state.game].renderer_module()))


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
    return _renderer(state).render(state, names, outcome=outcome)


def draw_board(state: State[Any], names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """The board of ``state`` as an image (arguments and errors as :func:`render`): the renderer's ``draw_board``
    where it has one (a ``P`` image on the game's fixed palette, the pixels :func:`render` encodes), else its PNG
    decoded."""
    module = _renderer(state)
    draw = getattr(module, "draw_board", None)
    if draw is not None:
        return cast(Image.Image, draw(state, names, outcome=outcome))
    image = Image.open(io.BytesIO(module.render(state, names, outcome=outcome)))
    image.load()
    return image


def _with_last(items: Iterable[T]) -> Iterator[tuple[T, bool]]:
    """``items`` each with whether it is the last, reading one item ahead."""
    iterator = iter(items)
    try:
        current = next(iterator)
    except StopIteration:
        return
    for following in iterator:
        yield current, False
        current = following
    yield current, True


def write_replay(fp: IO[bytes], states: Iterable[State[Any]], names: Sequence[str], frame_ms: int = 700, *,
                 outcome: Outcome | None = None) -> int:
    """Write ``states`` (start position first; any iterable, read one state ahead) to ``fp`` as an animated GIF
    that loops, one frame per state; the last frame shows ``outcome`` when given (see :func:`render`) and is held
    three times as long.

    Each board is drawn, written and dropped before the next is drawn (:func:`renderers._gif.write_gif`), so the
    memory a replay takes does not grow with its length. Frames keep the boards' exact colours (each game's fixed
    palette) and each is stored as the box where it differs from the frame before, so a 60-ply replay stays well
    under Discord's 10 MiB upload limit.

    Returns:
        The number of frames written (a state drawn exactly like the one before lengthens that frame instead).

    Raises:
        ValueError: ``states`` is empty (nothing is written).
    """
    frames = ((draw_board(state, names, outcome=outcome if last else None), frame_ms * 3 if last else frame_ms)
              for state, last in _with_last(states))
    written = write_gif(frames, fp)
    if not written:
        raise ValueError("a replay needs at least one state")
    return written


def render_replay(states: Iterable[State[Any]], names: Sequence[str], frame_ms: int = 700, *,
                  outcome: Outcome | None = None) -> bytes:
    """The GIF of :func:`write_replay` as bytes.

    Raises:
        ValueError: ``states`` is empty.
    """
    buffer = io.BytesIO()
    write_replay(buffer, states, names, frame_ms, outcome=outcome)
    return buffer.getvalue()
