"""The seats' colours stay apart for every eye, and every board stands out on both of Discord's themes.

Colour vision deficiency is simulated with daltonlens (Brettel, Viénot & Mollon 1997 for the three dichromacies,
and Machado, Oliveira & Fernandes 2009 at full severity as a second opinion); colour differences are CIEDE2000
(coloraide's ``delta_e(method="2000")``), contrast ratios WCAG 2.1's (coloraide's ``contrast``). The table of ΔE is
printed (``pytest -s``) and every pair is held to :data:`MIN_DELTA_E`.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from coloraide import Color
from daltonlens import simulate
from PIL import Image

import renderers
import renderers._common
from bench.largest_boards import LARGEST, NAMES
from renderers._common import BORDER, HIGHLIGHT, SEAT_COLOURS, SEAT_LIGHT, border_px, fixed_palette
from renderers.napkin_chess import render_free
from renderers.standings import SWISS_COLUMNS, render_standings
from tests.renderers.positions import positions

MIN_DELTA_E = 20.0
"""The least CIEDE2000 difference between the two seats' colours, for normal vision and each simulation."""
MIN_CONTRAST = 3.0
"""WCAG's least contrast for graphics: a board's outer pixels against each of Discord's chat backgrounds."""
DISCORD_BACKGROUNDS = {"dark": (0x31, 0x33, 0x38), "light": (0xFF, 0xFF, 0xFF)}

RGB = tuple[int, int, int]
PAIRS: dict[str, tuple[RGB, RGB]] = {
    "seat colours": (SEAT_COLOURS[0], SEAT_COLOURS[1]),
    "seat light tints": (SEAT_LIGHT[0], SEAT_LIGHT[1]),
    "highlight / seat 0": (HIGHLIGHT, SEAT_COLOURS[0]),
    "highlight / seat 1": (HIGHLIGHT, SEAT_COLOURS[1]),
}
"""The pairs that must stay apart: the seats' colours and tints, and the last move's highlight against each seat."""
SIMULATORS = {"Brettel 1997": simulate.Simulator_Brettel1997(), "Machado 2009": simulate.Simulator_Machado2009()}
DEFICIENCIES = {"protanopia": simulate.Deficiency.PROTAN, "deuteranopia": simulate.Deficiency.DEUTAN,
                "tritanopia": simulate.Deficiency.TRITAN}


def _colour(rgb: RGB) -> Color:
    return Color("srgb", [value / 255 for value in rgb])


def delta_e(a: RGB, b: RGB) -> float:
    """CIEDE2000 between two sRGB colours."""
    return float(_colour(a).delta_e(_colour(b), method="2000"))


def simulated(rgb: RGB, simulator: simulate.Simulator, deficiency: simulate.Deficiency) -> RGB:
    """``rgb`` as a dichromat sees it (full severity)."""
    image = np.array([[rgb]], dtype=np.uint8)
    out = simulator.simulate_cvd(image, deficiency, severity=1.0)[0, 0]
    return int(out[0]), int(out[1]), int(out[2])


def contrast(a: RGB, b: RGB) -> float:
    """WCAG 2.1 contrast ratio."""
    return float(_colour(a).contrast(_colour(b), method="wcag21"))


def delta_e_table() -> dict[str, dict[str, float]]:
    """ΔE of every pair for normal vision and under each deficiency by each simulator."""
    table: dict[str, dict[str, float]] = {}
    for name, (a, b) in PAIRS.items():
        row = {"normal vision": delta_e(a, b)}
        for sim_name, simulator in SIMULATORS.items():
            for deficiency_name, deficiency in DEFICIENCIES.items():
                row[f"{deficiency_name} ({sim_name})"] = delta_e(simulated(a, simulator, deficiency),
                                                                 simulated(b, simulator, deficiency))
        table[name] = row
    return table


def test_the_seats_stay_apart_for_every_eye() -> None:
    table = delta_e_table()
    columns = list(next(iter(table.values())))
    print("\nCIEDE2000 ΔE between the colours of each pair")
    print(f"{'pair':<20}" + "".join(f"{column:>28}" for column in columns))
    for name, row in table.items():
        print(f"{name:<20}" + "".join(f"{row[column]:>28.1f}" for column in columns))
    low = {(name, column): value for name, row in table.items() for column, value in row.items()
           if value < MIN_DELTA_E}
    assert low == {}, low


def test_the_checks_tell_near_colours() -> None:
    assert delta_e((214, 69, 65), (214, 69, 65)) == 0
    # the classic red/green pair is far apart for normal vision and close for a deuteranope
    red, green = (200, 60, 50), (60, 160, 60)
    simulator = SIMULATORS["Brettel 1997"]
    assert delta_e(red, green) > 50
    deutan = DEFICIENCIES["deuteranopia"]
    assert delta_e(simulated(red, simulator, deutan), simulated(green, simulator, deutan)) < 20
    assert round(contrast((0, 0, 0), (255, 255, 255)), 1) == 21.0


def _boards() -> Iterator[tuple[str, bytes]]:
    for key, build in LARGEST.items():
        state = build()
        yield f"{key} (largest)", renderers.render(state, list(NAMES[: state.seats]))
        for index, state in enumerate(positions(key)[::100]):
            yield f"{key} (position {index * 100})", renderers.render(state, ["alice", "bob"][: state.seats])
    napkin = positions("napkin_chess")[40]
    yield "free map", render_free(napkin, ["alice", "bob"], 2)
    rows = [[str(n), f"player {n}", "1", "2", "3", "4", "1500"] for n in range(1, 6)]
    yield "standings", render_standings("Cup · standings after round 1 of 3", SWISS_COLUMNS, rows)


@pytest.mark.parametrize(("name", "png"), list(_boards()))
def test_every_board_has_its_own_background_and_a_border_for_both_themes(name: str, png: bytes) -> None:
    image = Image.open(io.BytesIO(png))
    assert image.mode in ("P", "RGB") and "transparency" not in image.info, "a board is opaque: its own background"
    rgb: Any = image.convert("RGB")
    width, height = rgb.size
    ring = border_px(width)
    outer = {rgb.getpixel((x, y)) for x in range(width) for y in (0, height - 1)} | \
            {rgb.getpixel((x, y)) for y in range(height) for x in (0, width - 1)}
    inner = {rgb.getpixel((x, ring - 1)) for x in range(ring, width - ring)}
    assert outer == {BORDER} and inner == {BORDER}, f"{name}: the frame is {ring} px of {BORDER}"
    for theme, background in DISCORD_BACKGROUNDS.items():
        worst = min(contrast(pixel, background) for pixel in outer)
        assert worst >= MIN_CONTRAST, f"{name}: {worst:.2f}:1 against Discord's {theme} theme"


def test_the_border_contrast_is_printed() -> None:
    print("\nWCAG contrast of the board's frame", BORDER, {theme: round(contrast(BORDER, background), 2)
                                                           for theme, background in DISCORD_BACKGROUNDS.items()})
    assert all(contrast(BORDER, background) >= MIN_CONTRAST for background in DISCORD_BACKGROUNDS.values())


OFF_PALETTE_LEVELS = 3
"""How far (in any channel) a drawn colour may be from its palette colour and still be that colour: Pillow's paste
rounds a blend to either side, and :func:`renderers._common.blend` rounds halves to even."""
OFF_PALETTE_SHARE = 0.0005
"""The most pixels of a board drawn in a colour its palette does not hold (where two text edges overlap): 0.05 %.
Text drawn with FreeType's 256 coverages put about 3 % of a board's pixels there."""


@pytest.mark.slow  # a sweep: every game's boards drawn and their pixels read
@pytest.mark.parametrize("key", list(LARGEST))
def test_every_board_is_drawn_in_its_palette_colours(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[tuple[Image.Image, Image.Image]] = []
    to_palette = renderers._common.to_palette

    def capture(image: Image.Image, palette: Image.Image) -> Image.Image:
        drawn.append((image.copy(), palette))
        return to_palette(image, palette)

    monkeypatch.setattr(renderers._common, "to_palette", capture)
    state = LARGEST[key]()
    states = [state, *positions(key)[::50]]
    for each in states:
        renderers.render(each, list(NAMES[: each.seats]))
    assert len(drawn) == len(states)
    for index, (image, palette) in enumerate(drawn):
        held = np.array(palette.getpalette() or [], dtype=np.int16).reshape(-1, 3)
        counts, colours = zip(*(image.getcolors(1 << 24) or []), strict=True)
        used = np.array(colours, dtype=np.int16)
        distance = np.abs(used[:, None, :] - held[None, :, :]).max(axis=2).min(axis=1)
        off = sum(count for count, far in zip(counts, distance > OFF_PALETTE_LEVELS, strict=True) if far)
        share = off / (image.width * image.height)
        assert share <= OFF_PALETTE_SHARE, f"{key} board {index}: {share:.2%} of its pixels off its palette"


def test_a_palette_holds_at_most_256_colours() -> None:
    reds = [(value, 0, 0) for value in range(8, 256, 16)]
    greens = [(0, value, 0) for value in range(8, 256, 16)]
    small = fixed_palette([(200, 0, 0)], [(0, 0, 200)], [(0, 200, 0)])
    assert len(small.getpalette() or []) // 3 == 1 + 1 + 1 + 1 + 3  # ink, ground, flat colour, frame, three blends
    with pytest.raises(ValueError, match="at most 256 colours, not"):
        fixed_palette(reds, greens)
