"""Tests of the Chopsticks board renderer: size, seat colours, fingers, dead hands, last move, turn and outcome."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

import renderers
from games.chopsticks import GAME, ChopsticksState
from renderers._common import BACKGROUND, DEAD, HIGHLIGHT, INK, SEAT_COLOURS, SEAT_LIGHT
from renderers.chopsticks import HAND_X, NAME_MAX_WIDTH, NAME_X, ROW_TOP, hand_top, render

NAMES = ("alice", "bob")


def image_of(state: ChopsticksState, names: tuple[str, str] = NAMES) -> Image.Image:
    png = render(state, names)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) <= 100_000
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert 600 <= image.width <= 800
    return image


def colours_in(image: Image.Image, box: tuple[int, int, int, int]) -> set[tuple[int, int, int]]:
    return {colour for _, colour in image.crop(box).getcolors(1 << 20)}


def finger_runs(image: Image.Image, seat: int, hand: int) -> int:
    """Count the extended fingers: runs of seat-coloured pixels across the row just below the fingertips."""
    y = hand_top(seat) + 20
    runs, inside = 0, False
    for x in range(HAND_X[hand] - 48, HAND_X[hand] + 48):
        on = image.getpixel((x, y)) == SEAT_COLOURS[seat]
        runs += on and not inside
        inside = on
    return runs


def hand_region(seat: int, hand: int) -> tuple[int, int, int, int]:
    return HAND_X[hand] - 50, hand_top(seat), HAND_X[hand] + 50, hand_top(seat) + 130


def test_dispatch_through_the_package() -> None:
    state = GAME.new_state()
    assert renderers.render(state, NAMES) == render(state, NAMES)


def test_names_in_seat_colours_and_turn_panel() -> None:
    image = image_of(GAME.new_state())
    for seat in (0, 1):
        name_box = (NAME_X, ROW_TOP[seat] + 20, NAME_X + 120, ROW_TOP[seat] + 60)
        assert SEAT_COLOURS[seat] in colours_in(image, name_box)
    # Seat 0 is to move: its row is filled with its light colour, seat 1's row is not.
    assert image.getpixel((300, ROW_TOP[0] + 170)) == SEAT_LIGHT[0]
    assert image.getpixel((300, ROW_TOP[1] + 170)) == BACKGROUND
    after = image_of(GAME.new_state().play("LL"))
    assert after.getpixel((300, ROW_TOP[1] + 170)) == SEAT_LIGHT[1]
    assert after.getpixel((300, ROW_TOP[0] + 170)) == BACKGROUND


@pytest.mark.parametrize("hands", [((1, 4), (2, 3)), ((3, 2), (4, 1)), ((0, 2), (1, 0))])
def test_extended_fingers_match_the_counts(hands: tuple[tuple[int, int], tuple[int, int]]) -> None:
    image = image_of(ChopsticksState.start(None, hands, 0))
    for seat in (0, 1):
        for hand in (0, 1):
            assert finger_runs(image, seat, hand) == hands[seat][hand]
            dead = DEAD in colours_in(image, hand_region(seat, hand))
            assert dead == (hands[seat][hand] == 0)


def test_no_highlight_before_the_first_move() -> None:
    image = image_of(GAME.new_state())
    assert HIGHLIGHT not in colours_in(image, (0, 0, image.width, image.height))


@pytest.mark.parametrize(
    ("hands", "seat", "move", "marked"),
    [
        (((1, 1), (1, 1)), 0, "LR", [(0, 0), (1, 1)]),
        (((1, 2), (3, 1)), 1, "LL", [(1, 0), (0, 0)]),
        (((3, 2), (1, 1)), 0, "self RL", [(0, 0), (0, 1)]),
        (((1, 1), (0, 4)), 1, "split 2 2", [(1, 0), (1, 1)]),
    ],
)
def test_last_move_is_highlighted(hands: tuple[tuple[int, int], tuple[int, int]], seat: int, move: str,
                                  marked: list[tuple[int, int]]) -> None:
    image = image_of(ChopsticksState.start(None, hands, seat).play(move))
    for marked_seat, hand in marked:
        x0, y0, x1, y1 = hand_region(marked_seat, hand)
        assert HIGHLIGHT in colours_in(image, (x0 - 20, y0 - 12, x1 + 20, y1 + 40))
    unmarked = [(s, h) for s in (0, 1) for h in (0, 1) if (s, h) not in marked]
    if move.startswith("split"):
        # A split marks only the mover's row; the other row stays plain.
        for other_seat, hand in unmarked:
            x0, y0, x1, y1 = hand_region(other_seat, hand)
            assert HIGHLIGHT not in colours_in(image, (x0 - 20, y0, x1 + 20, y1 + 40))


def test_outcome_shown_in_the_winner_colour() -> None:
    state = ChopsticksState.start(None, ((3, 0), (0, 2)), 0).play("LR")
    image = image_of(state)
    status = colours_in(image, (NAME_X, image.height - 66, image.width, image.height - 40))
    assert SEAT_COLOURS[0] in status
    assert SEAT_COLOURS[1] not in status
    # Nobody is to move: neither row is filled with its light colour.
    for seat in (0, 1):
        assert image.getpixel((300, ROW_TOP[seat] + 170)) == BACKGROUND
    for hand in (0, 1):
        assert finger_runs(image, 1, hand) == 0


def test_draw_status_in_ink() -> None:
    state = ChopsticksState.start(None, ((1, 3), (1, 3)), 0)
    for text in ["split 2 2", "split 2 2", "split 1 3", "split 1 3"] * 2:
        state = state.play(text)
    assert state.outcome is not None
    assert state.outcome.draw
    image = image_of(state)
    status = colours_in(image, (NAME_X, image.height - 66, image.width, image.height - 40))
    assert INK in status
    assert not status & set(SEAT_COLOURS)


def test_long_names_stay_in_their_column() -> None:
    image = image_of(GAME.new_state(), ("W" * 40, "M" * 40))
    for seat in (0, 1):
        beyond = (NAME_X + NAME_MAX_WIDTH + 2, ROW_TOP[seat] + 20, HAND_X[0] - 70, ROW_TOP[seat] + 60)
        assert SEAT_COLOURS[seat] not in colours_in(image, beyond)


def test_random_games_render_small() -> None:
    rng = random.Random(3)
    for variant in ({}, {"rollover": True, "swaps": True, "suicide": True}, {"splits": "even"}):
        state = GAME.new_state(variant)
        while not state.is_over and state.ply < 30:
            state = state.apply(GAME.computer_move(state, "easy", rng))
            image_of(state)


def test_wrong_number_of_names() -> None:
    with pytest.raises(ValueError, match="two names"):
        render(GAME.new_state(), ["solo"])
