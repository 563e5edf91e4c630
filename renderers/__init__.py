"""Pillow renderers: a game state to PNG bytes and its alt text, and states to an animated GIF replay written frame
by frame.

Renderers import :mod:`games` only, and the games know nothing of them: the module that draws a game is found by
the game's key (:func:`renderer_for`): ``renderers.<key>`` in this package, or one added with :func:`add_renderer`
for a game kept outside it (beside that game, as the tests' tic-tac-toe). It has
``render(state, names, *, outcome=None) -> bytes`` and, optionally, ``draw_board`` with the same arguments returning
the board as a ``P`` image on the game's fixed palette (the five games have it; replays then take their frames
without a PNG round trip) and ``alt_text`` with the same arguments and ``limit`` returning the board in words (the
five games have it; :func:`alt_text` says the turn, the score and the last move of any other game).
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Iterable, Iterator, Sequence
from types import ModuleType
from typing import IO, Any, Protocol, TypeVar, cast

from PIL import Image

from games import GAMES, Outcome, State
from renderers._alt import ALT_TEXT_LIMIT, _, compose, names_for_alt, sentence
from renderers._common import ended, outcome_text
from renderers._gif import write_gif

__all__ = ["ALT_TEXT_LIMIT", "add_renderer", "alt_text", "draw_board", "render", "render_replay", "renderer_for",
           "replay_alt_text", "write_replay"]

T = TypeVar("T")


class _Renderer(Protocol):
    def render(self, state: Any, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes: ...


_ADDED: dict[str, str] = {}
"""Renderers kept outside this package, by game key (:func:`add_renderer`)."""


def add_renderer(key: str, module: str) -> None:
    """Draw the boards of the game ``key`` with ``module`` (the dotted name of an importable module with ``render``
    and, optionally, ``draw_board`` and ``alt_text``, as this package's own), for a game kept outside :mod:`games`
    whose renderer is kept beside it. Registering the same again changes nothing.

    Raises:
        ValueError: ``key`` already has another renderer added.
    """
    if _ADDED.setdefault(key, module) != module:
        raise ValueError(f"the game {key!r} already has the renderer {_ADDED[key]!r}")


def renderer_for(key: str) -> ModuleType:
    """The module that draws the boards of the game ``key``: the one added with :func:`add_renderer`, else
    ``renderers.<key>`` (imported on first use).

    Raises:
        KeyError: ``key`` is not a registered game (:data:`games.GAMES`).
        ModuleNotFoundError: the game has no renderer.
    """
    GAMES[key]  # a game the registry does not know has no board
    return importlib.import_module(_ADDED.get(key, f"{__name__}.{key}"))


def _renderer(state: State[Any]) -> _Renderer:
    return cast(_Renderer, renderer_for(state.game))


def render(state: State[Any], names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes.

    Args:
        state: any game's state; the renderer is the game's (:func:`renderer_for`).
        names: display name per seat (``len(names) == state.seats``); any text, drawn on one line and shortened
            to fit.
        outcome: how the match ended when a player's action ended it (resigned, out of time, draw agreed,
            aborted): the board then shows that result instead of whose move it is. ``None``: the state's own
            outcome, if any.

    Raises:
        KeyError: ``state.game`` is not a registered game.
    """
    return _renderer(state).render(state, names, outcome=outcome)


def alt_text(state: State[Any], names: Sequence[str], *, outcome: Outcome | None = None,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The board of ``state`` in words for a screen reader: the text Discord reads for the image (an attachment's
    ``description``), at most ``limit`` characters (Discord's 1,024 by default). Arguments as :func:`render`.

    The game's renderer says it (its ``alt_text``: the position in the game's notation too); a renderer without one
    gets the game, the move number, whose move it is or the result, the score and the last move.

    Raises:
        KeyError: ``state.game`` is not a registered game.
    """
    own = getattr(_renderer(state), "alt_text", None)
    if own is not None:
        return cast(str, own(state, names, outcome=outcome, limit=limit))
    names = names_for_alt(names)
    game = GAMES[state.game]
    parts = [sentence(_("{game} board, move {ply}."), game=game.title, ply=state.ply),
             sentence(_("Players: {names}."), names=", ".join(names))]
    shown = ended(state.outcome, outcome)
    seat = state.current_seat
    if shown is not None:
        parts.append(sentence(_("{result}."), result=outcome_text(state.game, names, shown)))
    elif seat is not None and seat < len(names):
        parts.append(sentence(_("{name} to move."), name=names[seat]))
    scores = state.scores
    if scores is not None:
        listed = ", ".join(f"{name} {score}" for name, score in zip(names, scores, strict=False))
        parts.append(sentence(_("Score: {scores}."), scores=listed))
    last = state.last_move
    if last is not None:
        parts.append(sentence(_("Last move: {move}."), move=state.format_move(last)))
    return compose(parts, limit=limit)


def replay_alt_text(final: State[Any], names: Sequence[str], frames: int, *, outcome: Outcome | None = None,
                    limit: int = ALT_TEXT_LIMIT) -> str:
    """The alt text of a replay GIF whose last frame is ``final``: how many positions it shows, then the final board
    as :func:`alt_text` says it, at most ``limit`` characters in all.

    Args:
        final: the last position shown.
        names: display name per seat.
        frames: how many positions the replay shows (the start first).
        outcome: the result shown on the last frame (see :func:`render`).
        limit: the most characters (Discord's 1,024 by default).
    """
    lead = sentence(_("Animated replay of {game}: {frames} positions from the start to move {ply}, the last held "
                      "longer. The last position follows."), game=GAMES[final.game].title, frames=frames,
                    ply=final.ply)
    return f"{lead} {alt_text(final, names, outcome=outcome, limit=limit - len(lead) - 1)}"


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
