"""Grid Game of Differences renderer: PNG size and bounds, marks in seat colours, the last mark highlighted,
legal squares tinted, both names in seat colours and the final position's scores."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from games.differences import FILES, GAME, DifferencesState
from renderers import render as render_any
from renderers import render_replay
from renderers._common import HIGHLIGHT, SEAT_COLOURS
from renderers.differences import BOARD_TOP, STATUS_TOP, WIDTH, image_height, render, square_box

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "seeds" / "differences.json").read_text())
NAMES = ("alice", "bob")


def seed_final() -> DifferencesState:
    rows = VECTORS["seed_example"]["grid_top_row_first"]
    state = GAME.new_state({"n": 9})
    for index, line in enumerate(rows):
        for col, cell in enumerate(line.split()):
            if cell == "x":
                state = state.play(f"{FILES[col]}{9 - index}")
    return state


def open_png(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data)).convert("RGB")


def colours_in(image: Image.Image, box: tuple[int, int, int, int]) -> set[tuple[int, int, int]]:
    return {colour for _, colour in image.crop(box).getcolors(maxcolors=1 << 16) or []}


def near(colour: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target, strict=True))


def has_colour(image: Image.Image, box: tuple[int, int, int, int], target: tuple[int, int, int]) -> bool:
    return any(near(colour, target) for colour in colours_in(image, box))


@pytest.mark.parametrize("n", [4, 8, 15])
def test_png_size_and_bounds(n: int) -> None:
    state = GAME.new_state({"n": n, "unique": n == 15})
    for move in ("a1", "c2", "b4"):
        state = state.play(move)
    data = render(state, NAMES)
    image = open_png(data)
    assert image.size == (WIDTH, image_height(n, NAMES, unique=n == 15))
    assert 600 <= WIDTH <= 800
    assert len(data) <= 100_000
    assert render_any(state, NAMES) == data


def test_marks_coloured_by_seat_and_last_mark_highlighted() -> None:
    state = GAME.new_state({"n": 8}).play("b2").play("f6").play("d7")
    image = open_png(render(state, NAMES))
    first, second, last = (square_box(8, col, row) for col, row in ((1, 1), (5, 5), (3, 6)))
    assert has_colour(image, first, SEAT_COLOURS[0])
    assert not has_colour(image, first, SEAT_COLOURS[1])
    assert has_colour(image, second, SEAT_COLOURS[1])
    assert not has_colour(image, second, SEAT_COLOURS[0])
    assert has_colour(image, last, SEAT_COLOURS[0])
    assert has_colour(image, last, HIGHLIGHT)
    assert not has_colour(image, first, HIGHLIGHT)
    assert not has_colour(image, second, HIGHLIGHT)


def test_legal_squares_are_tinted() -> None:
    state = GAME.new_state({"n": 6}).play("a1")
    image = open_png(render(state, NAMES))

    def centre(col: int, row: int) -> tuple[int, int, int]:
        x0, y0, x1, y1 = square_box(6, col, row)
        return image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2 - (y1 - y0) // 3))  # type: ignore[return-value]

    legal, taken_row, taken_col = centre(3, 3), centre(3, 0), centre(0, 3)
    assert legal != taken_row
    assert taken_row == taken_col
    assert legal[2] > legal[0]  # seat 1 (blue) is to move


def test_names_in_seat_colours_in_the_header() -> None:
    image = open_png(render(GAME.new_state(), NAMES))
    header = (0, STATUS_TOP + 25, WIDTH, BOARD_TOP - 10)
    left_half = (0, STATUS_TOP + 25, WIDTH // 2, BOARD_TOP - 10)
    right_half = (WIDTH // 2, STATUS_TOP + 25, WIDTH, BOARD_TOP - 10)
    assert has_colour(image, header, SEAT_COLOURS[0])
    assert has_colour(image, left_half, SEAT_COLOURS[0])
    assert has_colour(image, right_half, SEAT_COLOURS[1])


def test_final_position_shows_the_winner() -> None:
    final = seed_final()
    assert final.outcome is not None and final.outcome.winner == 1
    before = GAME.load({**final.to_dict(), "marks": final.to_dict()["marks"][:-1], "ply": 8,
                        "last_move": final.marks[-2].square.name})
    final_image = open_png(render(final, NAMES))
    before_image = open_png(render(before, NAMES))
    # The status line names the winner in the winner's colour once over (seat 0 was to move before).
    corner = (0, STATUS_TOP, WIDTH // 2, STATUS_TOP + 22)
    assert has_colour(final_image, corner, SEAT_COLOURS[1])
    assert not has_colour(before_image, corner, SEAT_COLOURS[1])
    # e1 was the last legal square (tinted for seat 0); in the final position it holds the highlighted mark.
    x0, y0, x1, _ = square_box(9, 4, 0)
    tint = before_image.getpixel(((x0 + x1) // 2, y0 + 4))
    assert isinstance(tint, tuple) and tint[0] > tint[2]
    assert not has_colour(before_image, square_box(9, 4, 0), HIGHLIGHT)
    assert has_colour(final_image, square_box(9, 4, 0), HIGHLIGHT)
    assert has_colour(final_image, square_box(9, 4, 0), SEAT_COLOURS[0])


def test_differences_are_written_in_seat_colours_beside_the_grid() -> None:
    state = seed_final()
    image = open_png(render(state, NAMES))
    n = 9
    left, _, right, bottom = square_box(n, 0, 0)[0], 0, square_box(n, n - 1, 0)[2], square_box(n, 0, 0)[3]
    below = (left, bottom + 28, right, bottom + 60)
    beside = (right + 4, BOARD_TOP, right + 40, bottom)
    assert has_colour(image, below, SEAT_COLOURS[0])
    assert has_colour(image, beside, SEAT_COLOURS[1])


def test_replay_gif() -> None:
    state = GAME.new_state({"n": 5})
    states = [state]
    for move in ("a1", "b3", "c5"):
        state = state.play(move)
        states.append(state)
    gif = render_replay(states, NAMES)
    assert gif[:6] in (b"GIF89a", b"GIF87a")


def test_render_needs_two_names() -> None:
    with pytest.raises(ValueError, match="two names"):
        render(GAME.new_state(), ("alice",))
