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

from games import Outcome
from games.napkin_chess import SCALE, SIZES, NapkinState, format_move
from renderers._common import (
    BACKGROUND,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    SEAT_LIGHT,
    blend,
    draw_text,
    ended,
    fit_text,
    fixed_palette,
    min_text_px,
    move_count,
    new_canvas,
    outcome_text,
    short_name,
    to_palette,
    to_png,
    wrap_text,
)

BOARD_PX = 400
"""Longest side of the napkin in pixels."""
WIDTH = 640
"""Image width in pixels."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 18 px, 11 px once Discord shows it 400 px wide."""
_LEFT, _TOP, _BOTTOM = 40, 30, 30
_PANEL_GAP = 18
_NAPKIN = (255, 255, 255)
_GRID_MAJOR = (196, 192, 182)
_FREE = (60, 170, 90)
_FREE_ALPHA = 110
_HOLE = (20, 20, 20)
_SUPPLY = (236, 233, 224)
_LINE = SMALL + 7
_UNIT_GRID_PX = 12
"""A grid line every napkin unit when units are at least this many pixels apart, else every five units."""


def _palette() -> Image.Image:
    """Every colour of the board and blends of each ink over each ground (antialiased edges and text)."""
    free_on = [blend(_FREE, ground, _FREE_ALPHA / 255) for ground in (_NAPKIN, GRID, _GRID_MAJOR)]
    inks = [*SEAT_COLOURS, INK, MUTED, HIGHLIGHT, _HOLE, _FREE, GRID, _GRID_MAJOR]
    grounds = [BACKGROUND, _NAPKIN, *SEAT_LIGHT, _SUPPLY, *free_on]
    return fixed_palette(inks, grounds, (0.25, 0.5, 0.75))


_PALETTE = _palette()


def _layout(state: NapkinState) -> tuple[float, int, int]:
    """Pixels per napkin unit and the napkin's size in pixels."""
    width, height = state.variant.width / SCALE, state.variant.height / SCALE
    scale = BOARD_PX / max(width, height)
    return scale, round(width * scale), round(height * scale)


@functools.lru_cache(maxsize=16)
def _grid(width_h: int, height_h: int) -> Image.Image:
    """The empty napkin of ``width_h`` x ``height_h`` hundredths with its light grid, at the board's size (cached
    per napkin: the static layer of every board of a match). Lines every unit (every fifth darker) where units are
    at least 12 px apart, else every five units (every tenth darker)."""
    scale = BOARD_PX / (max(width_h, height_h) / SCALE)
    w_px, h_px = round(width_h / SCALE * scale), round(height_h / SCALE * scale)
    k = scale / SCALE
    image = Image.new("RGB", (w_px, h_px), _NAPKIN)
    draw = ImageDraw.Draw(image)
    step = 1 if scale >= _UNIT_GRID_PX else 5
    units_w, units_h = width_h // SCALE, height_h // SCALE
    for u in range(0, units_w + 1, step):
        x = u * SCALE * k
        draw.line([(x, 0), (x, h_px)], fill=_GRID_MAJOR if u % (5 * step) == 0 else GRID, width=1)
    for u in range(0, units_h + 1, step):
        y = (height_h - u * SCALE) * k
        draw.line([(0, y), (w_px, y)], fill=_GRID_MAJOR if u % (5 * step) == 0 else GRID, width=1)
    return image


def _draw_napkin(image: Image.Image, state: NapkinState, free_size: int | None) -> list[tuple[int, int]]:
    """Draw the napkin (grid, free region, hole, coins, edge) at its final size and paste it onto the board at
    ``(_LEFT, _TOP)``; return, for ``free_size``, the exact pocket points (hundredths) to mark."""
    scale, w_px, h_px = _layout(state)
    k = scale / SCALE  # pixels per hundredth
    height_h = state.variant.height
    napkin = _grid(state.variant.width, height_h).copy()
    draw = ImageDraw.Draw(napkin)

    def px(x: float, y: float) -> tuple[float, float]:
        return x * k, (height_h - y) * k

    pockets: list[tuple[int, int]] = []
    if free_size is not None:
        region = state.free_region(free_size)
        mask = Image.new("L", napkin.size, 0)
        mask_draw = ImageDraw.Draw(mask)
        fill = _FREE_ALPHA
        for part in shapely.get_parts(region):
            if part.is_empty or part.geom_type != "Polygon":
                continue
            mask_draw.polygon([px(x, y) for x, y in part.exterior.coords], fill=fill)
            for ring in part.interiors:
                mask_draw.polygon([px(x, y) for x, y in ring.coords], fill=0)
        napkin.paste(_FREE, (0, 0), mask)
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
        draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=light, outline=colour, width=2)
        if index == last:
            inset = 3
            draw.ellipse([cx - rad + inset, cy - rad + inset, cx + rad - inset, cy + rad - inset],
                         outline=HIGHLIGHT, width=4)
    draw.rectangle([0, 0, w_px - 1, h_px - 1], outline=INK, width=2)
    image.paste(napkin, (_LEFT, _TOP))
    return pockets


def status_line(state: NapkinState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line: whose move it is, or the result (``outcome`` when given, else the state's).

    Names are drawn shortened (see :func:`renderers._common.short_name`).
    """
    short = [short_name(name, SMALL, _NAME_PX) for name in names]
    shown = ended(state.outcome, outcome)
    if shown is not None:
        return outcome_text(state.game, short, shown)
    return f"{short[state.current_seat or 0]} to move"


_NAME_PX = 150
"""Widest a player's name may be in the status line, pixels (longer names are shortened)."""


def _draw(state: NapkinState, names: Sequence[str], free_size: int | None, outcome: Outcome | None) -> Image.Image:
    scale, w_px, h_px = _layout(state)
    panel_x = _LEFT + w_px + _PANEL_GAP
    height = max(_TOP + h_px + _BOTTOM, 420)
    image, draw = new_canvas(WIDTH, height)
    pockets = _draw_napkin(image, state, free_size)
    text = functools.partial(draw_text, image)

    # Coin values, drawn at the board's scale (never below the smallest font).
    for coin in state.coins:
        cx = _LEFT + coin.x / SCALE * scale
        cy = _TOP + h_px - coin.y / SCALE * scale
        size = max(SMALL, round(coin.size * scale * 0.9))
        text((cx, cy), str(coin.size), size, SEAT_COLOURS[coin.seat % 2], "mm")

    # Axis labels every 5 units (10 on large napkins), in napkin units.
    units_w, units_h = state.variant.width // SCALE, state.variant.height // SCALE
    every = 5 if max(units_w, units_h) <= 40 else 10
    for u in range(0, units_w + 1, every):
        text((_LEFT + u * scale, _TOP + h_px + 5), str(u), SMALL, MUTED, "mt")
    for u in range(0, units_h + 1, every):
        text((_LEFT - 6, _TOP + h_px - u * scale), str(u), SMALL, MUTED, "rm")
    text((_LEFT + w_px + 6, _TOP + h_px), "x", SMALL, MUTED, "lm")
    text((_LEFT, _TOP - 6), "y", SMALL, MUTED, "mb")

    for x, y in pockets:
        cx = _LEFT + x / SCALE * scale
        cy = _TOP + h_px - y / SCALE * scale
        draw.ellipse([cx - 7, cy - 7, cx + 7, cy + 7], outline=_FREE, width=3)

    room = WIDTH - panel_x - 10
    y = _TOP - 8
    text((panel_x, y), "Napkin Chess", 22, INK)
    y += 34
    text((panel_x, y), move_count(state.ply), SMALL, MUTED)
    y += _LINE + 4
    for seat, score in enumerate(state.scores):
        text((panel_x, y), short_name(names[seat], SMALL, room, suffix=f": {score}"), SMALL, SEAT_COLOURS[seat])
        y += _LINE
    shown = ended(state.outcome, outcome)
    colour = INK if shown is not None or state.current_seat is None else SEAT_COLOURS[state.current_seat]
    for part in wrap_text(status_line(state, names, outcome), SMALL, room):
        text((panel_x, y), part, SMALL, colour)
        y += _LINE
    if state.last_move is not None:
        seat = (state.ply - 1) % 2
        text((panel_x, y), fit_text(f"Last: {format_move(state.last_move)}", SMALL, room)[0], SMALL,
             SEAT_COLOURS[seat])
        y += _LINE
    y += 10

    text((panel_x, y), "Supply", SMALL, INK)
    y += _LINE
    for size, count in zip(SIZES, state.supply, strict=True):
        rad = size * 3
        cy = y + _LINE // 2
        ink = INK if count else MUTED
        draw.ellipse([panel_x + 13 - rad, cy - rad, panel_x + 13 + rad, cy + rad], fill=_SUPPLY, outline=ink,
                     width=2)
        text((panel_x + 32, cy), f"size {size}: {count} left", SMALL, ink, "lm")
        y += _LINE + 2
    y += 8
    variant = state.variant
    if free_size is None:
        facts = [f"{format_move_units(variant.width)} × {format_move_units(variant.height)} napkin"
                 + (", hole" if variant.hole else ""),
                 "last mover wins" if variant.scoring == "last_mover" else "most points wins"]
        for fact in facts:
            text((panel_x, y), fit_text(fact, SMALL, room)[0], SMALL, MUTED)
            y += _LINE
    else:
        fits = state.fits(free_size)
        label = f"Size {free_size} fits" if fits else f"Size {free_size} fits nowhere"
        draw.rectangle([panel_x, y + 5, panel_x + 16, y + 21], fill=blend(_FREE, _NAPKIN, _FREE_ALPHA / 255)
                       if fits else MUTED)
        text((panel_x + 24, y), fit_text(label, SMALL, room - 24)[0], SMALL, INK)
        if pockets:
            text((panel_x + 24, y + _LINE), fit_text("rings: tiny pockets", SMALL, room - 24)[0], SMALL, MUTED)
    return to_palette(image, _PALETTE)


def format_move_units(hundredths: int) -> str:
    """A length in hundredths as napkin units without trailing zeros (``3050 -> "30.5"``)."""
    whole, frac = divmod(hundredths, SCALE)
    return str(whole) if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")


def render(state: NapkinState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes (640 px wide): napkin to scale, coins, last coin ringed, panel.

    Args:
        state: a Napkin Chess state.
        names: display name per seat (two names).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).
    """
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: NapkinState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette (640 px wide; see :func:`render`)."""
    return _draw(state, names, None, outcome)


def render_free(state: NapkinState, names: Sequence[str], size: int) -> bytes:
    """Render ``state`` with the region where a coin of ``size`` still fits shaded (PNG bytes).

    Geometry alone decides the shading (supply and turn are ignored); pockets too small to see are ringed.

    Raises:
        ValueError: ``size`` is not 2, 3 or 4.
    """
    if size not in SIZES:
        raise ValueError(f"Coin size must be 2, 3 or 4, not {size!r}.")
    return to_png(_draw(state, names, size, None))
