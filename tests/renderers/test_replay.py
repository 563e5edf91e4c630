"""GIF replays written frame by frame: every frame is its board exactly, the old way's frames are these reduced to its
128-colour palette (the one intended difference), and the writer holds two frames, never all of them."""

from __future__ import annotations

import gc
import io
import random
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageSequence

import renderers
from bench.replays import held_replay
from games import GAMES, Outcome, State, Termination
from renderers._gif import write_gif

NAMES = ("Ann Lee", "Computer 2 (medium)")
GAME_KEYS = sorted(GAMES)


def _played(key: str, plies: int, seed: int = 1) -> list[State[Any]]:
    """A match of ``key``'s default variant played by the easy computer: at most ``plies`` moves."""
    game = GAMES[key]
    rng = random.Random(seed)
    states = [game.new_state(None, rng)]
    while not states[-1].is_over and len(states) <= plies:
        states.append(states[-1].apply(game.computer_move(states[-1], "easy", rng)))
    return states


def _frames(gif: bytes) -> tuple[list[Image.Image], list[int], Image.Image]:
    image = Image.open(io.BytesIO(gif))
    frames, durations = [], []
    for frame in ImageSequence.Iterator(image):
        frames.append(frame.convert("RGB"))
        durations.append(frame.info["duration"])
    return frames, durations, image


def _board(state: State[Any], names: tuple[str, ...], outcome: Outcome | None = None) -> Image.Image:
    return Image.open(io.BytesIO(renderers.render(state, names, outcome=outcome))).convert("RGB")


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_frame_is_its_board(key: str) -> None:
    states = _played(key, 24)
    names = NAMES[: states[0].seats]
    resigned = Outcome(0, False, None, Termination.RESIGNED, loser=1) if states[0].seats == 2 else None
    frames, durations, gif = _frames(renderers.render_replay(states, names, outcome=resigned))
    assert len(frames) == len(states) >= 3
    assert durations == [700] * (len(states) - 1) + [2100] and gif.info["loop"] == 0
    for index, (frame, state) in enumerate(zip(frames, states, strict=True)):
        shown = resigned if index == len(states) - 1 else None
        assert _same(frame, _board(state, names, shown)), f"frame {index} differs from its board"


@pytest.mark.parametrize("key", GAME_KEYS)
def test_the_old_way_is_these_frames_reduced_to_its_palette(key: str) -> None:
    """The intended difference: the old replay reduced every board to 128 colours taken from the last one (a
    colour the last board lacks, such as a tint only early positions show, came out as its nearest neighbour);
    the streamed replay keeps each board's exact colours. Reducing the streamed frames the old way gives the old
    frames, pixel for pixel, with the same count and durations."""
    states = _played(key, 18, seed=3)
    names = NAMES[: states[0].seats]
    new, new_durations, _ = _frames(renderers.render_replay(states, names))
    old, old_durations, _ = _frames(held_replay(states, names))
    assert len(new) == len(old) == len(states) and new_durations == old_durations
    palette = _board(states[-1], names).quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    for index, (streamed, held) in enumerate(zip(new, old, strict=True)):
        reduced = streamed.quantize(palette=palette, dither=Image.Dither.NONE).convert("RGB")
        assert _same(reduced, held), f"frame {index}"


def test_a_position_drawn_again_lengthens_the_frame_before() -> None:
    start = GAMES["chopsticks"].new_state()
    after = start.play("LL")
    frames, durations, _ = _frames(renderers.render_replay([start, start, after, after], ["Ann", "Bob"]))
    assert len(frames) == 2 and durations == [1400, 700 + 2100]
    assert _same(frames[0], _board(start, ("Ann", "Bob"))) and _same(frames[1], _board(after, ("Ann", "Bob")))


def test_one_state_is_one_frame_and_none_is_refused() -> None:
    start = GAMES["chopsticks"].new_state()
    frames, durations, _ = _frames(renderers.render_replay(iter([start]), ["Ann", "Bob"]))
    assert len(frames) == 1 and durations == [2100]
    buffer = io.BytesIO()
    with pytest.raises(ValueError, match="at least one state"):
        renderers.write_replay(buffer, iter([]), ["Ann", "Bob"])
    assert buffer.getvalue() == b""


@pytest.mark.slow  # a sweep: a replay of many frames written whole
def test_the_writer_holds_two_frames_whatever_their_number() -> None:
    """Frames come from a generator and are written as they come: when frame k is made, every frame older than
    the two the writer keeps (the one written last, to compare with, and the one waiting for its duration) is
    gone, whatever the number of frames."""
    made: list[weakref.ref[Image.Image]] = []
    alive_at: list[int] = []

    def frames() -> Iterator[tuple[Image.Image, int]]:
        for k in range(40):
            gc.collect()
            alive_at.append(sum(ref() is not None for ref in made))
            image = Image.new("P", (64, 48), 0)  # a board as draw_board gives it: indices into a fixed palette
            image.putpalette([250, 248, 242, 214, 69, 65])
            ImageDraw.Draw(image).rectangle((k, k, k + 8, k + 4), fill=1)
            made.append(weakref.ref(image))
            yield image, 100

    buffer = io.BytesIO()
    assert write_gif(frames(), buffer) == 40
    assert max(alive_at) <= 2, alive_at
    decoded, durations, _ = _frames(buffer.getvalue())
    assert len(decoded) == 40 and durations == [100] * 40


def test_boards_without_a_palette_get_their_own_colour_table() -> None:
    """A game whose renderer only has ``render`` (PNG bytes, any colours): each frame is decoded and written with
    a colour table of its own, exactly, since a board has far fewer than 256 colours."""
    images = []
    for k, colour in enumerate(((214, 69, 65), (52, 101, 164), (245, 180, 20))):
        image = Image.new("RGB", (80, 60), (255, 255, 255))
        ImageDraw.Draw(image).ellipse((10 + k * 10, 10, 40 + k * 10, 40), fill=colour, outline=(40, 40, 40))
        images.append(image)
    buffer = io.BytesIO()
    write_gif(((image, 50) for image in images), buffer)
    decoded, _, _ = _frames(buffer.getvalue())
    assert len(decoded) == 3 and all(_same(a, b) for a, b in zip(decoded, images, strict=True))


def test_states_are_read_one_ahead_of_the_board_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay takes its states from an iterator as it draws: the state after the one being drawn is the only one
    read ahead (to know which board is the last), so a caller making states lazily holds two at a time."""
    states = _played("chopsticks", 12)
    read: list[int] = []
    drawn_after: list[int] = []
    real = renderers.draw_board

    def spy(state: State[Any], names: Any, *, outcome: Outcome | None = None) -> Image.Image:
        drawn_after.append(len(read))
        return real(state, names, outcome=outcome)

    def lazily() -> Iterator[State[Any]]:
        for index, state in enumerate(states):
            read.append(index)
            yield state

    monkeypatch.setattr(renderers, "draw_board", spy)
    renderers.render_replay(lazily(), ["Ann", "Bob"])
    assert drawn_after == [min(index + 2, len(states)) for index in range(len(states))]
