"""Tests of the Polygons & Dots board renderer."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from PIL import Image

import renderers
from games.polygons import GAME, PolygonsState
from renderers._common import HIGHLIGHT, SEAT_COLOURS, SEAT_LIGHT
from renderers.polygons import BOARD_PX, MARGIN, _hatch_ink, render

VECTORS = json.loads((Path(__file__).parents[2] / "seeds" / "polygons.json").read_text())
NAMES = ("alice", "bob")


def _game(name: str, plies: int | None = None) -> PolygonsState:
    vector = next(v for v in VECTORS["games"] if v["name"] == name)
    state = GAME.new_state(vector["variant"])
    for text in vector["moves"][:plies]:
        state = state.play(text)
    return state


def _image(state: PolygonsState, names: tuple[str, str] = NAMES) -> Image.Image:
    data = render(state, names)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data)).convert("RGB")


def _count(image: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int] | None = None,
           tolerance: int = 14) -> int:
    """Pixels within ``tolerance`` (per channel) of ``colour``, optionally inside ``box``."""
    region = image.crop(box) if box else image
    return sum(
        n for n, c in region.getcolors(1 << 20) if all(abs(a - b) <= tolerance for a, b in zip(c, colour, strict=True))
    )


BOARD = (MARGIN, MARGIN, MARGIN + BOARD_PX + 1, MARGIN + BOARD_PX + 1)
PANEL = (MARGIN * 2 + BOARD_PX, 0, MARGIN * 2 + BOARD_PX + 200, MARGIN * 2 + BOARD_PX)


def test_size_and_dispatch() -> None:
    state = _game("three diameters")
    data = render(state, NAMES)
    assert renderers.render(state, NAMES) == data
    image = Image.open(io.BytesIO(data))
    assert 600 <= image.width <= 800 and 380 <= image.height <= 800
    assert len(data) <= 150_000


def test_finished_game_fills_faces_by_parity() -> None:
    odd_only = _image(_game("three diameters"))  # three triangles
    assert _count(odd_only, SEAT_LIGHT[0], BOARD) > 5000
    assert _count(odd_only, SEAT_LIGHT[1], BOARD) < 300  # only inside seat 1's three rings (its dots)
    even_only = _image(_game("hexagon traced in order"))  # one hexagon, hatched over seat 1's light colour
    assert _count(even_only, SEAT_LIGHT[1], BOARD) > 12000
    assert _count(even_only, _hatch_ink(True), BOARD, tolerance=4) > 4000
    assert _count(odd_only, _hatch_ink(True), BOARD, tolerance=4) < 30  # odd faces are solid (text edges aside)
    assert _count(even_only, SEAT_LIGHT[0], BOARD) < 50


def test_last_move_and_path_end_are_highlighted() -> None:
    start = _image(GAME.new_state())
    assert _count(start, HIGHLIGHT, BOARD) == 0
    placing = _image(_game("three diameters", 3))
    assert _count(placing, HIGHLIGHT, BOARD) > 50  # ring round the last dot placed
    drawing = _image(_game("three diameters", 8))  # A-D, E: the last segment D-E, path end E
    assert _count(drawing, HIGHLIGHT, BOARD) > _count(placing, HIGHLIGHT, BOARD)


def test_names_in_seat_colours_and_blocked_points() -> None:
    image = _image(_game("three diameters", 4))
    for colour in SEAT_COLOURS:
        assert _count(image, colour, PANEL) > 20  # names in the panel
        assert _count(image, colour, BOARD) > 50  # dots and their names
    # Blocked lattice points are marked during placement (three lines through pairs of 4 dots at least).
    empty = _image(_game("three diameters", 1))
    assert _count(image, (140, 140, 140), BOARD, tolerance=30) > _count(empty, (140, 140, 140), BOARD, tolerance=30)


def test_every_phase_of_a_large_game_renders() -> None:
    rng = random.Random(3)
    state = GAME.new_state({"size": 30, "dots": 10})
    sizes = []
    while True:
        sizes.append(len(render(state, ("a very long player name indeed", "b"))))
        if state.is_over:
            break
        state = state.apply(GAME.computer_move(state, "easy", rng))
    assert max(sizes) <= 150_000


def test_rejects_wrong_arguments() -> None:
    with pytest.raises(ValueError, match="2 names"):
        render(GAME.new_state(), ("solo",))
    with pytest.raises(TypeError):
        render(object(), NAMES)  # type: ignore[arg-type]
