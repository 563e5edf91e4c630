"""Napkin Chess board: the napkin to scale with a light coordinate grid, the coins, supply and scores; and its alt text.

The napkin's origin is its lower-left corner (as in the source demo, where new coins appear there), so ``y``
grows upwards. Coins are drawn to scale with their value in the middle: seat 0's solid in its colour, seat 1's hollow
(a light fill inside a thick ring in its colour), so the seats differ by fill as well as colour; the panel names each
player after the same mark. The newest coin has a ring in the highlight colour edged in ink; the hole is a black disk.
The panel on the right lists both players with their points, whose turn it is or the outcome, the last move and the
coins left in the shared supply; names are drawn whole (wrapped) and the board grows taller when they need it.

:func:`render_free` adds the region where a coin of one size still fits, shaded, with small pockets (too thin
to see at this scale) marked by rings; it backs ``/napkin free size:``. :func:`alt_text` and :func:`free_alt_text`
say the same in words.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import shapely
from PIL import Image, ImageDraw

from games import Outcome
from games.napkin_chess import SCALE, SIZES, Move, NapkinState, format_coord, format_move
from renderers._alt import ALT_TEXT_LIMIT, Listing, _, compose, names_for_alt, plural_forms, sentence
from renderers._common import (
    BACKGROUND,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    SEAT_LIGHT,
    blend,
    declare_point,
    draw_seat_label,
    draw_text,
    ended,
    finish,
    fixed_palette,
    language_cache,
    lines_needed,
    min_text_px,
    move_count,
    new_canvas,
    outcome_text,
    seat_label_lines,
    status_line,
    status_texts,
    to_png,
    wrap_text,
)

BOARD_PX = 400
"""Longest side of the napkin in pixels."""
WIDTH = 720
"""Image width in pixels; the height is at least 460 and grows with what the panel must say."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 24 px, 13.3 px once Discord shows it 400 px wide."""
_LEFT, _TOP, _BOTTOM = 40, 30, 30
_PANEL_GAP = 26
_NAPKIN = (255, 255, 255)
_GRID_MAJOR = (196, 192, 182)
_FREE = (60, 170, 90)
_FREE_ALPHA = 110
_HOLE = (20, 20, 20)
_SUPPLY = (236, 233, 224)
_LINE = SMALL + 6
_TITLE = 26
_UNIT_GRID_PX = 12
"""A grid line every napkin unit when units are at least this many pixels apart, else every five units."""
PNG_LEVEL = 5
"""zlib level of this board's PNG: a full napkin of coins (70 on the largest) is the busiest board of all, and level 5
keeps it within the benchmark's 30 KB (:data:`renderers._common.PNG_COMPRESS_LEVEL` would give 34 KB)."""


def _palette() -> Image.Image:
    """Every colour of the board, and each text colour over each colour text lies on (the panel, the coins: a solid
    coin's value is written in the background colour)."""
    free_on = [blend(_FREE, ground, _FREE_ALPHA / 255) for ground in (_NAPKIN, GRID, _GRID_MAJOR)]
    inks = [*SEAT_COLOURS, INK, MUTED, BACKGROUND]
    grounds = [BACKGROUND, _NAPKIN, *SEAT_LIGHT, *SEAT_COLOURS]
    return fixed_palette(inks, grounds, [HIGHLIGHT, _HOLE, _FREE, GRID, _GRID_MAJOR, _SUPPLY, *free_on])


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
        declare_point(_LEFT + cx, _TOP + cy, rad)

    last = len(state.coins) - 1
    for coin in state.coins:
        cx, cy = px(coin.x, coin.y)
        rad = coin.radius * k
        colour = SEAT_COLOURS[coin.seat % 2]
        if coin.seat % 2 == 0:  # solid
            draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=colour, outline=colour, width=2)
        else:  # hollow: a light fill in a thick ring
            draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=SEAT_LIGHT[1], outline=colour,
                         width=max(3, round(rad / 5)))
    if state.coins:  # the newest coin: a ring just outside its rim, amber edged in ink
        coin = state.coins[last]
        cx, cy = px(coin.x, coin.y)
        rad = coin.radius * k + 6
        draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], outline=INK, width=6)
        draw.ellipse([cx - rad + 1, cy - rad + 1, cx + rad - 1, cy + rad - 1], outline=HIGHLIGHT, width=4)
    draw.rectangle([0, 0, w_px - 1, h_px - 1], outline=INK, width=2)
    image.paste(napkin, (_LEFT, _TOP))
    return pockets


@dataclass(frozen=True)
class _Panel:
    """The panel's lines: how many the status may take (the most any board of the match needs) and the height."""

    status_lines: int
    height: int


def _panel_room(state: NapkinState) -> tuple[int, int]:
    _, w_px, _ = _layout(state)
    panel_x = _LEFT + w_px + _PANEL_GAP
    return panel_x, WIDTH - panel_x - 12


@language_cache(maxsize=256)
def _panel(width_h: int, height_h: int, hole: bool, names: tuple[str, str]) -> _Panel:
    """The panel's layout for a napkin of ``width_h`` x ``height_h`` hundredths and these names."""
    scale = BOARD_PX / (max(width_h, height_h) / SCALE)
    panel_x = _LEFT + round(width_h / SCALE * scale) + _PANEL_GAP
    room = WIDTH - panel_x - 12
    status = lines_needed(status_texts("napkin_chess", names), SMALL, room)
    seats = sum(seat_label_lines(name, SMALL, room, "999") for name in names)
    napkin = _("{width} × {height} napkin, hole").format(width=format_move_units(width_h),
                                                        height=format_move_units(height_h))
    scoring = max((_("last mover wins"), _("most points wins")), key=lambda fact: len(wrap_text(fact, SMALL, room)))
    facts = 2 + len(wrap_text(napkin, SMALL, room)) + len(wrap_text(scoring, SMALL, room))
    lines = seats + status + 1 + 1 + facts
    title = len(wrap_text(_("Napkin Chess"), _TITLE, room)) * (_TITLE + 4) + 4
    height = _TOP - 8 + title + _LINE + 4 + lines * _LINE + 3 * (_LINE + 2) + 10 + 8 + 12
    return _Panel(status, height)


def _draw(state: NapkinState, names: Sequence[str], free_size: int | None, outcome: Outcome | None) -> Image.Image:
    names = names_for_alt(names)
    scale, w_px, h_px = _layout(state)
    variant = state.variant
    panel = _panel(variant.width, variant.height, variant.hole, (names[0], names[1]))
    height = max(_TOP + h_px + _BOTTOM, 460, panel.height)
    image, draw = new_canvas(WIDTH, height)
    pockets = _draw_napkin(image, state, free_size)
    text = functools.partial(draw_text, image)

    # Coin values, drawn at the board's scale (never below the smallest font): light on seat 0's solid coins.
    for coin in state.coins:
        cx = _LEFT + coin.x / SCALE * scale
        cy = _TOP + h_px - coin.y / SCALE * scale
        size = max(SMALL, round(coin.size * scale * 0.9))
        ink = BACKGROUND if coin.seat % 2 == 0 else SEAT_COLOURS[1]
        text((cx, cy), str(coin.size), size, ink, "mm")

    # Axis labels every 5 units (10 on large napkins), in napkin units.
    units_w, units_h = state.variant.width // SCALE, state.variant.height // SCALE
    every = 5 if max(units_w, units_h) <= 40 else 10
    for u in range(0, units_w + 1, every):
        text((_LEFT + u * scale, _TOP + h_px + 6), str(u), SMALL, MUTED, "mt")
    for u in range(every, units_h + 1, every):  # the corner's 0 is the bottom axis's
        text((_LEFT - 7, _TOP + h_px - u * scale), str(u), SMALL, MUTED, "rm")
    text((_LEFT + w_px + 8, _TOP + h_px - 4), "x", SMALL, MUTED, "lb")
    text((_LEFT, _TOP - 6), "y", SMALL, MUTED, "mb")

    for x, y in pockets:
        cx = _LEFT + x / SCALE * scale
        cy = _TOP + h_px - y / SCALE * scale
        draw.ellipse([cx - 7, cy - 7, cx + 7, cy + 7], outline=_FREE, width=3)
        declare_point(cx, cy, 8)
    _draw_panel(image, state, names, free_size, outcome, panel, bool(pockets))
    return finish(image, _PALETTE)


def _draw_panel(image: Image.Image, state: NapkinState, names: Sequence[str], free_size: int | None,
                outcome: Outcome | None, panel: _Panel, pockets: bool) -> None:
    """The panel right of the napkin: title, move, players, status, last move, supply and the napkin's facts (or,
    on the free-region map, what the shading means)."""
    draw = ImageDraw.Draw(image)
    text = functools.partial(draw_text, image)
    panel_x, room = _panel_room(state)
    variant = state.variant
    y = _TOP - 8
    for part in wrap_text(_("Napkin Chess"), _TITLE, room):
        text((panel_x, y), part, _TITLE, INK)
        y += _TITLE + 4
    y += 4
    text((panel_x, y), move_count(state.ply), SMALL, MUTED)
    y += _LINE + 4
    for seat, score in enumerate(state.scores):
        y = draw_seat_label(image, seat, (panel_x, y), names[seat], SMALL, room, _LINE, score=str(score))
    shown = ended(state.outcome, outcome)
    colour = INK if shown is not None or state.current_seat is None else SEAT_COLOURS[state.current_seat]
    status_top = y
    for part in wrap_text(status_line(state, names, outcome), SMALL, room):
        text((panel_x, y), part, SMALL, colour)
        y += _LINE
    y = status_top + panel.status_lines * _LINE
    if state.last_move is not None:
        seat = (state.ply - 1) % 2
        last = _("Last: {move}").format(move=format_move(state.last_move))
        y = draw_seat_label(image, seat, (panel_x, y), last, SMALL, room, _LINE)
    y += 10

    text((panel_x, y), _("Supply"), SMALL, INK)
    y += _LINE
    for size, count in zip(SIZES, state.supply, strict=True):
        rad = size * 3
        cy = y + _LINE // 2
        ink = INK if count else MUTED
        draw.ellipse([panel_x + 13 - rad, cy - rad, panel_x + 13 + rad, cy + rad], fill=_SUPPLY, outline=ink,
                     width=2)
        text((panel_x + 32, cy), _("size {size}: {count} left").format(size=size, count=count), SMALL, ink, "lm")
        y += _LINE + 2
    y += 8
    if free_size is None:
        napkin = _("{width} × {height} napkin, hole") if variant.hole else _("{width} × {height} napkin")
        facts = [napkin.format(width=format_move_units(variant.width), height=format_move_units(variant.height)),
                 _("last mover wins") if variant.scoring == "last_mover" else _("most points wins")]
        for fact in facts:
            for part in wrap_text(fact, SMALL, room):
                text((panel_x, y), part, SMALL, MUTED)
                y += _LINE
    else:
        fits = state.fits(free_size)
        label = (_("Size {size} fits") if fits else _("Size {size} fits nowhere")).format(size=free_size)
        draw.rectangle([panel_x, y + 5, panel_x + 16, y + 21], fill=blend(_FREE, _NAPKIN, _FREE_ALPHA / 255)
                       if fits else MUTED)
        for part in wrap_text(label, SMALL, room - 24):
            text((panel_x + 24, y), part, SMALL, INK)
            y += _LINE
        if pockets:
            for part in wrap_text("rings: tiny pockets", SMALL, room - 24):
                text((panel_x + 24, y), part, SMALL, MUTED)
                y += _LINE


def format_move_units(hundredths: int) -> str:
    """A length in hundredths as napkin units without trailing zeros (``3050 -> "30.5"``)."""
    whole, frac = divmod(hundredths, SCALE)
    return str(whole) if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")


def render(state: NapkinState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes (720 px wide): napkin to scale, coins, last coin ringed, panel.

    Args:
        state: a Napkin Chess state.
        names: display name per seat (two names).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).
    """
    return to_png(draw_board(state, names, outcome=outcome), PNG_LEVEL)


def draw_board(state: NapkinState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette (720 px wide; see :func:`render`)."""
    return _draw(state, names, None, outcome)


def render_free(state: NapkinState, names: Sequence[str], size: int) -> bytes:
    """Render ``state`` with the region where a coin of ``size`` still fits shaded (PNG bytes).

    Geometry alone decides the shading (supply and turn are ignored); pockets too small to see are ringed.

    Raises:
        ValueError: ``size`` is not 2, 3 or 4.
    """
    if size not in SIZES:
        raise ValueError(f"Coin size must be 2, 3 or 4, not {size!r}.")
    return to_png(_draw(state, names, size, None), PNG_LEVEL)


# ------------------------------------------------------------------------------------------------ alt text


def _alt_sentences(state: NapkinState, names: Sequence[str], outcome: Outcome | None) -> list[str]:
    variant = state.variant
    shown = ended(state.outcome, outcome)
    parts = [sentence(_("Napkin Chess board, move {ply}."), ply=state.ply),
             sentence(_("The napkin is {width} by {height} units; x runs right and y up from its lower-left corner."),
                      width=format_move_units(variant.width), height=format_move_units(variant.height))]
    hole = variant.hole_centre
    if hole is not None:
        parts.append(sentence(_("A hole of radius 1 is at {x}, {y}."), x=format_coord(hole[0]),
                              y=format_coord(hole[1])))
    parts.append(_("The last player able to place a coin wins.") if variant.scoring == "last_mover" else
                 _("The player with more points wins; a coin scores its size."))
    if shown is not None:
        parts.append(sentence(_("{result}."), result=outcome_text(state.game, names, shown)))
    else:
        parts.append(sentence(_("{name} to move."), name=names[state.current_seat or 0]))
        if variant.first_coin_two and not state.coins:
            parts.append(_("The first coin must be size 2."))
    parts.append(sentence(_("Score: {first} {first_score}, {second} {second_score}."), first=names[0],
                          second=names[1], first_score=state.scores[0], second_score=state.scores[1]))
    last = state.last_move
    if last is not None:
        parts.append(sentence(_("Last move: {name} placed a size {size} coin at {x}, {y} ({move})."),
                              name=names[(state.ply - 1) % 2], size=last.size, x=format_coord(last.x),
                              y=format_coord(last.y), move=format_move(last)))
    else:
        parts.append(_("No coin has been placed yet."))
    two, three, four = state.supply
    parts.append(sentence(_("Supply left: {two} of size 2, {three} of size 3, {four} of size 4."), two=two,
                          three=three, four=four))
    if state.coins:
        parts.append(sentence(_("{first} placed the first coin; the players alternate."), first=names[0]))
    return parts


def _coins(state: NapkinState) -> Listing:
    return Listing(_("Coins as size@x,y, newest first: {items}."),
                   [format_move(coin.move) for coin in reversed(state.coins)],
                   plural_forms("{count} older coin not listed.", "{count} older coins not listed."), separator="; ")


def alt_text(state: NapkinState, names: Sequence[str], *, outcome: Outcome | None = None,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The board in words for a screen reader (an attachment's description), at most ``limit`` characters.

    In order: the game and the move number; the napkin (its size, the hole) and how it is won; whose move it is or
    the result; the score; the last coin; the supply; then every coin in the game's notation (``3@12.5,7``: size
    and centre), newest first. When they do not all fit, the oldest coins are left out first and the text says how
    many.

    Args:
        state: a Napkin Chess state.
        names: display name per seat (two names).
        outcome: the result when a player's action ended the match (else the state's own outcome).
        limit: the most characters (Discord's 1,024 by default).
    """
    names = names_for_alt(names)
    return compose(_alt_sentences(state, names, outcome), [_coins(state)], limit)


def free_alt_text(state: NapkinState, names: Sequence[str], size: int, *, limit: int = ALT_TEXT_LIMIT) -> str:
    """The free-region map of :func:`render_free` in words, at most ``limit`` characters: where a coin of ``size``
    still fits (each free region largest first, by its extent and a point inside it where the coin fits, then the
    tiny pockets), then the board as :func:`alt_text` says it. Regions that do not fit are left out smallest first,
    then the oldest coins, and the text says how many.

    Raises:
        ValueError: ``size`` is not 2, 3 or 4.
    """
    if size not in SIZES:
        raise ValueError(f"Coin size must be 2, 3 or 4, not {size!r}.")
    names = names_for_alt(names)
    region = state.free_region(size)
    parts = [part for part in shapely.get_parts(region) if not part.is_empty and part.geom_type == "Polygon"]
    places = []
    for part in sorted(parts, key=lambda polygon: -polygon.area):
        point = part.representative_point()
        x0, y0, x1, y1 = part.bounds
        places.append(sentence(_("from x {left} to {right} and y {bottom} to {top}, for example {move}"),
                               left=format_coord(math.ceil(x0)), right=format_coord(math.floor(x1)),
                               bottom=format_coord(math.ceil(y0)), top=format_coord(math.floor(y1)),
                               move=format_move(Move(size, round(point.x), round(point.y)))))
    places += [sentence(_("a tiny pocket at {move}"), move=format_move(Move(size, x, y)))
               for x, y in state.pocket_points(size, limit=12)]
    if places:
        lead = [sentence(_("Map of where a size {size} coin still fits, shaded green."), size=size)]
        listing = Listing(_("It fits {items}."), places, plural_forms("{count} more place not listed.",
                                                          "{count} more places not listed."), separator="; ")
    else:
        lead = [sentence(_("Map of where a size {size} coin still fits: it fits nowhere."), size=size)]
        listing = Listing("{items}", [], ("", ""))
    return compose([*lead, listing, *_alt_sentences(state, names, None)], [_coins(state)], limit)
