"""Napkin Chess board: the napkin to scale with a light coordinate grid, the coins, supply and scores.

The napkin's origin is its lower-left corner (as in the source demo, where new coins appear there), so ``y``
grows upwards. Coins are drawn to scale in the colour of the seat that placed them, with their value in the
middle; the newest coin has a ring in the highlight colour; the hole is a black disk. The panel on the right
lists both players with their points in seat colours, whose turn it is or the outcome, the last move and the
coins left in the shared supply.

:func:`render_free` adds the region where a coin of one size still fits, shaded, with small pockets (too thin
to see at this scale) marked by rings; it backs ``/napkin free size:``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import shapely
from PIL import Image, ImageDraw

from games.napkin_chess import SCALE, SIZES, NapkinState, format_move
from renderers import _common
from renderers._common import (
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    SEAT_LIGHT,
    fit_text,
    new_canvas,
    outcome_text,
    status_lines,
    text_width,
    to_png,
)

BOARD_PX = 520
"""Longest side of the napkin in pixels."""
WIDTH = 800
"""Image width in pixels."""
_LEFT, _TOP, _BOTTOM = 44, 34, 30
_PANEL_GAP = 26
_SS = 2  # supersampling factor for the napkin (antialiased circles)
_NAPKIN = (255, 255, 255)
_GRID_MAJOR = (196, 192, 182)
_FREE = (60, 170, 90)
_HOLE = (20, 20, 20)
_NAME_PX = 220
"""Widest a player's name may be in the panel, pixels at 19 px (longer names end with an ellipsis)."""

font = functools.lru_cache(maxsize=32)(_common.font)
"""The shared font helper, with a cache of its own so that the coin sizes never evict the other boards' fonts."""


def _layout(state: NapkinState) -> tuple[float, int, int]:
    """Pixels per napkin unit and the napkin's size in pixels."""
    width, height = state.variant.width / SCALE, state.variant.height / SCALE
    scale = BOARD_PX / max(width, height)
    return scale, round(width * scale), round(height * scale)


def _napkin_image(state: NapkinState, free_size: int | None) -> tuple[Image.Image, list[tuple[int, int]]]:
    """Draw the napkin (grid, free region, hole, coins) at _SS times the final size and scale it down.

    Returns the napkin image and, for ``free_size``, the exact pocket points (hundredths) to mark.
    """
    scale, w_px, h_px = _layout(state)
    k = scale * _SS / SCALE  # supersampled pixels per hundredth
    height_h = state.variant.height
    image = Image.new("RGB", (w_px * _SS, h_px * _SS), _NAPKIN)
    draw = ImageDraw.Draw(image)

    def px(x: float, y: float) -> tuple[float, float]:
        return x * k, (height_h - y) * k

    # Light grid: every unit, darker every five.
    units_w, units_h = state.variant.width // SCALE, state.variant.height // SCALE
    step = 1 if max(units_w, units_h) <= 40 else 2
    for u in range(0, units_w + 1, step):
        x = u * SCALE * k
        draw.line([(x, 0), (x, h_px * _SS)], fill=_GRID_MAJOR if u % 5 == 0 else GRID, width=_SS)
    for u in range(0, units_h + 1, step):
        y = (height_h - u * SCALE) * k
        draw.line([(0, y), (w_px * _SS, y)], fill=_GRID_MAJOR if u % 5 == 0 else GRID, width=_SS)

    pockets: list[tuple[int, int]] = []
    if free_size is not None:
        region = state.free_region(free_size)
        mask = Image.new("L", image.size, 0)
        mask_draw = ImageDraw.Draw(mask)
        for part in shapely.get_parts(region):
            if part.is_empty or part.geom_type != "Polygon":
                continue
            mask_draw.polygon([px(x, y) for x, y in part.exterior.coords], fill=110)
            for ring in part.interiors:
                mask_draw.polygon([px(x, y) for x, y in ring.coords], fill=0)
        image.paste(_FREE, (0, 0), mask)
        pockets = state.pocket_points(free_size, limit=12)

    hole = state.variant.hole_centre
    if hole is not None:
        cx, cy = px(*hole)
        rad = SCALE * k
        draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=_HOLE)

    last = len(state.coins) - 1
    for index, coin in enumerate(state.coins):
        cx, cy = px(coin.x, coin.y)
        rad = coin.radius * k
        colour, light = SEAT_COLOURS[coin.seat % 2], SEAT_LIGHT[coin.seat % 2]
        draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=light, outline=colour, width=2 * _SS)
        if index == last:
            inset = 3 * _SS
            draw.ellipse([cx - rad + inset, cy - rad + inset, cx + rad - inset, cy + rad - inset],
                         outline=HIGHLIGHT, width=4 * _SS)
        size = round(coin.size * scale * 0.9) * _SS
        draw.text((cx, cy), str(coin.size), fill=colour, font=font(size), anchor="mm")
    draw.rectangle([0, 0, w_px * _SS - 1, h_px * _SS - 1], outline=INK, width=2 * _SS)
    return image.reduce(_SS), pockets


def _render(state: NapkinState, names: Sequence[str], free_size: int | None) -> bytes:
    names = [fit_text(n, 19, _NAME_PX)[0] for n in names]
    scale, w_px, h_px = _layout(state)
    panel_x = _LEFT + w_px + _PANEL_GAP
    height = max(_TOP + h_px + _BOTTOM, 420)
    image, draw = new_canvas(WIDTH, height)
    napkin, pockets = _napkin_image(state, free_size)
    image.paste(napkin, (_LEFT, _TOP))

    # Axis labels every 5 units (10 on large napkins), in napkin units.
    units_w, units_h = state.variant.width // SCALE, state.variant.height // SCALE
    every = 5 if max(units_w, units_h) <= 40 else 10
    label = font(14)
    for u in range(0, units_w + 1, every):
        draw.text((_LEFT + u * scale, _TOP + h_px + 6), str(u), fill=MUTED, font=label, anchor="mt")
    for u in range(0, units_h + 1, every):
        draw.text((_LEFT - 6, _TOP + h_px - u * scale), str(u), fill=MUTED, font=label, anchor="rm")
    draw.text((_LEFT + w_px + 8, _TOP + h_px), "x", fill=MUTED, font=font(14), anchor="lm")
    draw.text((_LEFT, _TOP - 10), "y", fill=MUTED, font=font(14), anchor="mb")

    for x, y in pockets:
        cx = _LEFT + x / SCALE * scale
        cy = _TOP + h_px - y / SCALE * scale
        draw.ellipse([cx - 7, cy - 7, cx + 7, cy + 7], outline=_FREE, width=3)

    y = _TOP
    draw.text((panel_x, y), "Napkin Chess", fill=INK, font=font(24))
    y += 38
    outcome = state.outcome
    result = outcome_text(state.game, names, outcome) if outcome else None
    room = WIDTH - panel_x - 12
    lines = status_lines(names, state.current_seat, state.scores, result)
    for seat, (name, score) in enumerate(zip(names, state.scores, strict=True)):
        draw.text((panel_x, y), fit_text(name, 19, room, suffix=f": {score}")[0], fill=lines[seat][1], font=font(19))
        y += 28
    for text, colour in lines[len(names):]:
        head, sep, tail = text.partition(": ")
        parts = [head + sep.strip(), tail] if sep and text_width(text, 19) > room else [text]
        for part in parts:
            draw.text((panel_x, y), fit_text(part, 19, room)[0], fill=colour, font=font(19))
            y += 28
    if state.last_move is not None:
        seat = (state.ply - 1) % 2
        draw.text((panel_x, y), f"Last: {format_move(state.last_move)}", fill=SEAT_COLOURS[seat], font=font(16))
        y += 24
    draw.text((panel_x, y), f"Move {state.ply}", fill=MUTED, font=font(14))
    y += 34

    draw.text((panel_x, y), "Supply", fill=INK, font=font(18))
    y += 30
    for size, count in zip(SIZES, state.supply, strict=True):
        rad = size * 4
        cy = y + 14
        draw.ellipse([panel_x + 18 - rad, cy - rad, panel_x + 18 + rad, cy + rad], fill=(236, 233, 224),
                     outline=INK if count else MUTED, width=2)
        draw.text((panel_x + 18, cy), str(size), fill=INK if count else MUTED, font=font(max(10, rad)), anchor="mm")
        draw.text((panel_x + 44, cy), f"{count} left", fill=INK if count else MUTED, font=font(18), anchor="lm")
        y += 38
    y += 8
    variant = state.variant
    facts = [f"{format_move_units(variant.width)} by {format_move_units(variant.height)} napkin"]
    facts.append("hole" if variant.hole else "no hole")
    facts.append("last mover wins" if variant.scoring == "last_mover" else "most points wins")
    for fact in facts:
        draw.text((panel_x, y), fact, fill=MUTED, font=font(14))
        y += 20

    if free_size is not None:
        y += 14
        fits = state.fits(free_size)
        text = f"Size {free_size}: centres that fit" if fits else f"Size {free_size} fits nowhere"
        draw.rectangle([panel_x, y + 3, panel_x + 14, y + 17], fill=(158, 214, 170) if fits else MUTED)
        draw.text((panel_x + 22, y), text, fill=INK, font=font(16))
        if pockets:
            draw.text((panel_x + 22, y + 22), "rings: tiny pockets", fill=MUTED, font=font(14))
    # 128 colours keep every tone of the board; encoding a palette image is faster and far smaller.
    return to_png(image.quantize(colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE))


def format_move_units(hundredths: int) -> str:
    """A length in hundredths as napkin units without trailing zeros (``3050 -> "30.5"``)."""
    whole, frac = divmod(hundredths, SCALE)
    return str(whole) if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")


def render(state: NapkinState, names: Sequence[str]) -> bytes:
    """Render ``state`` as PNG bytes (780 px wide): napkin to scale, coins, last coin ringed, panel.

    Args:
        state: a Napkin Chess state.
        names: display name per seat (two names).
    """
    return _render(state, names, None)


def render_free(state: NapkinState, names: Sequence[str], size: int) -> bytes:
    """Render ``state`` with the region where a coin of ``size`` still fits shaded (PNG bytes).

    Geometry alone decides the shading (supply and turn are ignored); pockets too small to see are ringed.

    Raises:
        ValueError: ``size`` is not 2, 3 or 4.
    """
    if size not in SIZES:
        raise ValueError(f"Coin size must be 2, 3 or 4, not {size!r}.")
    return _render(state, names, size)
