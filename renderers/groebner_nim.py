"""Gröbner Nim board: the quarter-plane lattice with the sticks, the picked pairs and the score panel.

Each stick is a segment between its two lattice points with a larger dot on its head and its number beside the
head. Start sticks are drawn in ink, added sticks in the colour of the seat that added them. The newest stick
has a highlight halo and the numbers of the pair picked last sit on highlighted tags. The panel on the right
lists the players (in seat colours) with their points, or the turns and par in solitaire, whose turn it is or
the outcome, the picked pairs, and once the game is over the reduced Gröbner basis written as polynomials.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw

from games.groebner_nim import GroebnerNimState, Stick, format_stick
from renderers._common import (
    BACKGROUND,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    fit_text,
    fixed_palette,
    font,
    new_canvas,
    outcome_text,
    palette_png,
    status_lines,
    text_width,
)

WIDTH = 780
HEIGHT = 600
BOARD_LEFT = 46
BOARD_TOP = 30
BOARD_SIZE = 510
PANEL_LEFT = 590
START_INK = (70, 70, 70)
HALO = (250, 214, 120)
_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000)


def _grid_step(cell: float) -> int:
    """Smallest lattice step whose grid lines are at least 18 px apart."""
    return next((step for step in _STEPS if step * cell >= 18), _STEPS[-1])


def _stick_colour(state: GroebnerNimState, index: int) -> tuple[int, int, int]:
    if index < state.start_count:
        return START_INK
    ply = state.added.index(index + 1)
    return SEAT_COLOURS[state.movers[ply] % len(SEAT_COLOURS)]


def render(state: GroebnerNimState, names: Sequence[str]) -> bytes:
    """Render ``state`` as PNG bytes (780 x 600 px).

    Args:
        state: a Gröbner Nim state.
        names: display name per seat (one name in solitaire).

    Raises:
        ValueError: ``len(names)`` differs from ``state.seats``.
    """
    if len(names) != state.seats:
        raise ValueError(f"expected {state.seats} name(s), got {len(names)}")
    image, draw = new_canvas(WIDTH, HEIGHT)
    _draw_board(draw, state)
    _draw_panel(draw, state, names)
    # every colour drawn is in the palette, so the image stays exact while encoding three times faster
    return palette_png(image, _palette())


@functools.cache
def _palette() -> Image.Image:
    """A palette image with every colour the board uses and its anti-aliasing blends over each background."""
    inks = [INK, MUTED, GRID, START_INK, HALO, HIGHLIGHT, *SEAT_COLOURS, (255, 255, 255)]
    return fixed_palette(inks, [BACKGROUND, (255, 255, 255), HIGHLIGHT, HALO], (0.25, 0.5, 0.75))


def _draw_board(draw: ImageDraw.ImageDraw, state: GroebnerNimState) -> None:
    extent = max(9, *(max(*stick.head, *stick.tail) for stick in state.sticks)) + 1
    cell = BOARD_SIZE / extent
    left, bottom = BOARD_LEFT, BOARD_TOP + BOARD_SIZE

    def at(point: tuple[int, int]) -> tuple[float, float]:
        return (left + point[0] * cell, bottom - point[1] * cell)

    step = _grid_step(cell)
    label_font = font(12)
    for value in range(0, extent + 1, step):
        x, y = left + value * cell, bottom - value * cell
        draw.line([(x, BOARD_TOP), (x, bottom)], fill=GRID, width=1)
        draw.line([(left, y), (left + BOARD_SIZE, y)], fill=GRID, width=1)
        draw.text((x, bottom + 6), str(value), fill=MUTED, font=label_font, anchor="mt")
        draw.text((left - 6, y), str(value), fill=MUTED, font=label_font, anchor="rm")
    # axes: the quarter plane's two edges
    draw.line([(left, BOARD_TOP - 6), (left, bottom)], fill=INK, width=2)
    draw.line([(left, bottom), (left + BOARD_SIZE + 6, bottom)], fill=INK, width=2)
    draw.text((left + BOARD_SIZE + 10, bottom), "x", fill=INK, font=font(15), anchor="lm")
    draw.text((left, BOARD_TOP - 10), "y", fill=INK, font=font(15), anchor="mb")

    newest = len(state.sticks) - 1 if state.added and state.added[-1] is not None else None
    last = state.last_move
    picked = set(last.indices) if last is not None else set()
    head_r = max(3.0, min(7.0, cell * 0.3))
    tail_r = max(2.0, head_r * 0.55)
    width = max(2, min(4, round(cell * 0.12)))

    if newest is not None:
        hx, hy = at(state.sticks[newest].head)
        tx, ty = at(state.sticks[newest].tail)
        draw.line([(tx, ty), (hx, hy)], fill=HALO, width=width + 10)
        for x, y in ((hx, hy), (tx, ty)):
            r = head_r + 6
            draw.ellipse([x - r, y - r, x + r, y + r], fill=HALO)
    for index, stick in enumerate(state.sticks):
        colour = _stick_colour(state, index)
        hx, hy = at(stick.head)
        tx, ty = at(stick.tail)
        draw.line([(tx, ty), (hx, hy)], fill=colour, width=width + (1 if index == newest else 0))
        draw.ellipse([tx - tail_r, ty - tail_r, tx + tail_r, ty + tail_r], fill=colour)
        draw.ellipse([hx - head_r, hy - head_r, hx + head_r, hy + head_r], fill=colour, outline=INK)
    # numbers last so that no segment covers them
    for index, stick in enumerate(state.sticks):
        _draw_number(draw, state, index, stick, at, head_r, highlighted=index in picked)


def _draw_number(draw: ImageDraw.ImageDraw, state: GroebnerNimState, index: int, stick: Stick,
                 at: Callable[[tuple[int, int]], tuple[float, float]],
                 head_r: float, highlighted: bool) -> None:
    hx, hy = at(stick.head)
    tx, ty = at(stick.tail)
    dx, dy = hx - tx, hy - ty
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    # beside the head, away from the tail
    x, y = hx + dx / length * (head_r + 10), hy + dy / length * (head_r + 10)
    text = str(index + 1)
    size = 13
    half_w = text_width(text, size) / 2 + 4
    # keep the tag inside the board, clear of the axis labels
    x = min(max(x, BOARD_LEFT + half_w + 2), BOARD_LEFT + BOARD_SIZE + 14)
    y = min(max(y, BOARD_TOP + 2), BOARD_TOP + BOARD_SIZE - 11)
    box = [x - half_w, y - 9, x + half_w, y + 9]
    if highlighted:
        draw.rounded_rectangle(box, radius=5, fill=HIGHLIGHT, outline=INK)
    else:
        draw.rounded_rectangle(box, radius=5, fill=(255, 255, 255), outline=_stick_colour(state, index))
    draw.text((x, y), text, fill=INK, font=font(size), anchor="mm")


def _draw_panel(draw: ImageDraw.ImageDraw, state: GroebnerNimState, names: Sequence[str]) -> None:
    x = PANEL_LEFT
    y = 22
    variant = state.variant
    title = "Groebner Nim"  # the bundled font has no ö
    draw.text((x, y), title, fill=INK, font=font(20))
    y += 28
    mode = "solitaire" if variant.mode == "solitaire" else ("duel, bonus turn" if variant.bonus_turn else "duel")
    draw.text((x, y), f"{mode} · {variant.order}", fill=MUTED, font=font(13))
    y += 26

    outcome = state.outcome
    if variant.mode == "solitaire":
        lines = [(names[0], SEAT_COLOURS[0]), (f"turns: {state.ply}   par: {state.par}", INK)]
        if outcome is not None:
            par = state.par or 0
            verdict = "under par" if state.ply < par else "on par" if state.ply == par else "over par"
            lines.append((f"Basis complete: {verdict}", INK))
        else:
            lines.append((f"{names[0]} to move", INK))
    else:
        text = None if outcome is None else outcome_text(state.game, names, outcome)
        lines = status_lines(names, state.current_seat, state.scores, text)
    for text, colour in lines:
        for part in _wrap(draw, text, 16, WIDTH - x - 10):
            draw.text((x, y), part, fill=colour, font=font(16))
            y += 21
    y += 6

    last = state.last_move
    if last is not None:
        new = state.added[-1]
        draw.text((x, y), f"Last pair {last}", fill=MUTED, font=font(13))
        y += 17
        result = f"added {new}: {format_stick(state.sticks[new - 1])}" if new is not None else "reduced to zero"
        draw.text((x, y), fit_text(result, 14, WIDTH - x - 10)[0], fill=INK, font=font(14))
        y += 24

    if state.is_over:
        y = _draw_basis(draw, state, x, y)
    _draw_picked(draw, state, x, y)


def _draw_basis(draw: ImageDraw.ImageDraw, state: GroebnerNimState, x: int, y: int) -> int:
    draw.text((x, y), "Reduced Groebner basis", fill=MUTED, font=font(13))
    y += 18
    basis = state.final_basis()
    for stick in basis[:8]:
        draw.text((x, y), fit_text(format_stick(stick), 14, WIDTH - x - 10)[0], fill=INK, font=font(14))
        y += 18
    if len(basis) > 8:
        draw.text((x, y), f"... and {len(basis) - 8} more", fill=MUTED, font=font(13))
        y += 18
    return y + 8


def _draw_picked(draw: ImageDraw.ImageDraw, state: GroebnerNimState, x: int, y: int) -> None:
    rows = max(0, (HEIGHT - 14 - (y + 18)) // 17)
    texts = [f"{pair} +{new}" if new is not None else f"{pair} ·"
             for pair, new in zip(state.picked, state.added, strict=True)]
    widest = max((text_width(text, 13) for text in texts), default=0)
    columns = 3 if widest <= 56 else 2
    column_width = (WIDTH - x - 6) // columns
    capacity = rows * columns
    draw.text((x, y), f"Picked pairs ({state.ply})", fill=MUTED, font=font(13))
    y += 18
    entries = list(zip(texts, state.added, state.movers, strict=True))
    if capacity <= 0:
        return
    if len(entries) > capacity:
        hidden = len(entries) - (capacity - columns)
        entries = entries[hidden:]
        draw.text((x, y), f"... {hidden} earlier", fill=MUTED, font=font(12))
        y += 17
    solitaire = state.variant.mode == "solitaire"
    for n, (text, new, seat) in enumerate(entries):
        col, row = n % columns, n // columns
        colour = SEAT_COLOURS[0] if solitaire else SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        draw.text((x + col * column_width, y + row * 17), text, fill=colour if new is not None else MUTED,
                  font=font(13))


def _wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` pixels at font ``size`` (long words are cut)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    lines.append(current)
    return [fit_text(line, size, width)[0] for line in lines]
