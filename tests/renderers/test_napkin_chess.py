"""Tests of the Napkin Chess renderer: a readable PNG with coins, hole, last move, panel and free region."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from PIL import Image

import renderers
from games.napkin_chess import GAME, NapkinState
from renderers import napkin_chess as view
from renderers._common import HIGHLIGHT, SEAT_COLOURS, SEAT_LIGHT

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "seeds" / "napkin_chess.json").read_text())
NAMES = ["alice", "bob"]


def _open(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(png)).convert("RGB")


def _pixel(state: NapkinState, image: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    """Colour at napkin point (x, y) in hundredths."""
    scale, _, h_px = view._layout(state)
    return image.getpixel((round(view._LEFT + x / 100 * scale), round(view._TOP + h_px - y / 100 * scale)))


def _near(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 40) -> bool:
    return sum(abs(p - q) for p, q in zip(a, b, strict=True)) <= tolerance


def _board() -> NapkinState:
    state = GAME.new_state({"preset": "holed"})
    for text in ("2@5,5", "4@20,22", "3@8,24"):
        state = state.play(text)
    return state


def test_board_shows_coins_hole_and_last_move() -> None:
    state = _board()
    png = view.render(state, NAMES)
    image = _open(png)
    assert 600 <= image.width <= 800 and len(png) <= 150_000
    # Seat 0's coins are solid in its colour, seat 1's hollow (its light colour inside a ring of its colour), away
    # from the value text; the hole is black.
    assert _near(_pixel(state, image, 500 + 120, 500), SEAT_COLOURS[0])
    assert _near(_pixel(state, image, 2000 + 250, 2200), SEAT_LIGHT[1])
    assert _near(_pixel(state, image, 2000 + 390, 2200), SEAT_COLOURS[1])
    assert _near(_pixel(state, image, 1650, 1550), (20, 20, 20))
    # The last coin (3@8,24, seat 0) carries the highlight ring just outside its rim.
    scale, _, _ = view._layout(state)
    outside = 3 / scale * 100
    assert _near(_pixel(state, image, 800 + 300 + outside, 2400), HIGHLIGHT, 60)
    assert not _near(_pixel(state, image, 2000 + 400 + outside, 2200), HIGHLIGHT, 60)
    # Names are written in seat colours in the panel.
    panel = image.crop((view.WIDTH - 220, 0, view.WIDTH, 200))
    colours = {colour for _, colour in panel.getcolors(maxcolors=100_000)}
    for colour in SEAT_COLOURS:
        assert any(_near(c, colour, 30) for c in colours)
    assert renderers.render(state, NAMES) == png


def test_free_region_is_shaded_only_where_a_coin_fits() -> None:
    state = _board()
    image = _open(view.render_free(state, NAMES, 4))
    plain = _open(view.render(state, NAMES))
    free_point = state.sample_placements(4, 1, random.Random(0))[0]
    shaded = _pixel(state, image, free_point.x, free_point.y)
    assert shaded != _pixel(state, plain, free_point.x, free_point.y)
    assert shaded[1] > shaded[0] and shaded[1] > shaded[2]  # green tint
    # Outside the free region (inside a coin) nothing changes.
    assert _pixel(state, image, 2000 + 250, 2200) == _pixel(state, plain, 2000 + 250, 2200)
    with pytest.raises(ValueError, match="2, 3 or 4"):
        view.render_free(state, NAMES, 5)


def test_tiny_pocket_is_ringed_and_full_napkin_is_not_shaded() -> None:
    boards = {case["name"]: case for case in VECTORS["boards"]}
    pocket = next(c for n, c in boards.items() if n.startswith("a pocket of exactly one"))
    state = GAME.new_state(pocket["variant"]).play(pocket["moves"][0])
    assert state.pocket_points(2) == [(200, 200)]
    image = _open(view.render_free(state, NAMES, 2))
    scale, _, h_px = view._layout(state)
    cx, cy = round(view._LEFT + 2 * scale), round(view._TOP + h_px - 2 * scale)
    window = image.crop((cx - 9, cy - 9, cx + 10, cy + 10)).getcolors(maxcolors=1000)
    assert any(g > r + 40 and g > b + 40 for _, (r, g, b) in window)
    plain = _open(view.render(state, NAMES)).crop((cx - 9, cy - 9, cx + 10, cy + 10)).getcolors(maxcolors=1000)
    assert not any(g > r + 40 and g > b + 40 for _, (r, g, b) in plain)
    narrowed = next(c for n, c in boards.items() if n.startswith("the same pocket narrowed"))
    full = GAME.new_state(narrowed["variant"]).play(narrowed["moves"][0])
    assert full.is_over
    assert _open(view.render_free(full, NAMES, 2)).crop((view._LEFT, view._TOP, view._LEFT + 50, view._TOP + 50)) \
        == _open(view.render(full, NAMES)).crop((view._LEFT, view._TOP, view._LEFT + 50, view._TOP + 50))


@pytest.mark.parametrize("variant", [{"width": 60, "height": 8}, {"width": 8.5, "height": 60}, {"preset": "quick"}])
def test_other_napkin_shapes_and_finished_games(variant: dict) -> None:
    rng = random.Random(4)
    state = GAME.new_state(variant)
    while not state.is_over:
        state = state.apply(GAME.computer_move(state, "easy", rng))
    png = view.render(state, ["a very long display name that goes on", "b"])
    image = _open(png)
    assert image.width == view.WIDTH and len(png) <= 150_000


def test_replay_gif() -> None:
    rng = random.Random(1)
    states = [GAME.new_state({"preset": "quick"})]
    for _ in range(3):
        states.append(states[-1].apply(GAME.computer_move(states[-1], "medium", rng)))
    gif = renderers.render_replay(states, NAMES)
    assert gif[:6] in (b"GIF87a", b"GIF89a")
