"""Gröbner Nim board images: PNG shape and size, seat colours, highlights for the last pair and the new stick."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from games.groebner_nim import GAME, GroebnerNimState
from renderers import render, render_replay
from renderers._common import HIGHLIGHT, SEAT_COLOURS
from renderers.groebner_nim import HALO
from renderers.groebner_nim import render as render_board


def image_of(state: GroebnerNimState, names: list[str]) -> Image.Image:
    data = render(state, names)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) <= 150_000
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert 600 <= image.width <= 800
    return image


def count(image: Image.Image, colour: tuple[int, int, int]) -> int:
    return {rgb: n for n, rgb in image.getcolors(maxcolors=1 << 24)}.get(colour, 0)


def played(moves: list[str], **options: object) -> GroebnerNimState:
    state = GAME.new_state({"start": "x+y^2, y^3+1", **options})
    for text in moves:
        state = state.play(text)
    return state


def test_start_board_has_seat_colours_and_no_highlight() -> None:
    image = image_of(played([]), ["alice", "bob"])
    assert count(image, SEAT_COLOURS[0]) > 20 and count(image, SEAT_COLOURS[1]) > 20  # the names
    assert count(image, HIGHLIGHT) == 0 and count(image, HALO) == 0


def test_new_stick_and_its_pair_are_highlighted() -> None:
    image = image_of(played(["1-2"]), ["alice", "bob"])
    assert count(image, HALO) > 200  # halo around the new stick
    assert count(image, HIGHLIGHT) > 100  # the tags of sticks 1 and 2
    start = image_of(played([]), ["alice", "bob"])
    # the new stick is drawn in the colour of the seat that added it
    assert count(image, SEAT_COLOURS[0]) > count(start, SEAT_COLOURS[0]) + 50


def test_pair_that_adds_nothing_is_marked_without_a_halo() -> None:
    image = image_of(played(["1-2", "2-3"]), ["alice", "bob"])
    assert count(image, HALO) == 0
    assert count(image, HIGHLIGHT) > 100


def test_finished_and_solitaire_boards() -> None:
    over = played(["1-2", "2-3", "1-3"])
    assert over.is_over
    image_of(over, ["alice", "bob"])
    solo = played(["1-2"], mode="solitaire")
    image = image_of(solo, ["carol"])
    assert count(image, SEAT_COLOURS[0]) > 20
    with pytest.raises(ValueError, match="expected 1 name"):
        render_board(solo, ["carol", "dave"])


def test_long_game_stays_small_and_replays() -> None:
    rng = random.Random(4)
    state = GAME.new_state({"sticks": 6, "order": "lex"}, rng)
    states = [state]
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    assert state.ply >= 10
    image_of(state, ["alice", "bob"])
    gif = render_replay(states[:6], ["alice", "bob"], frame_ms=100)
    assert gif[:6] == b"GIF89a"
