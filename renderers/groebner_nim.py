"""Gröbner Nim board: the quarter-plane lattice with the sticks, the picked pairs and the score panel.

Each stick is a segment between its two lattice points with a larger dot on its head and its number beside the
head. Start sticks are drawn in ink, added sticks in the colour of the seat that added them. The newest stick
has a highlight halo and the numbers of the pair picked last sit on highlighted tags. The panel on the right
lists the players (in seat colours) with their points, or the turns and par in solitaire, whose turn it is or
the outcome, the picked pairs, and once the game is over the reduced Gröbner basis written as polynomials.
The lattice is zoomed to the sticks: it runs from 0 to one more than the largest exponent on the board.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw

from games import Outcome
from games.groebner_nim import GroebnerNimState, Point, Stick
from renderers._common import (
    BACKGROUND,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    draw_text,
    ended,
    fit_text,
    fixed_palette,
    min_text_px,
    move_count,
    new_canvas,
    outcome_text,
    short_name,
    text_width,
    to_palette,
    to_png,
    wrap_text,
)

WIDTH = 640
HEIGHT = 500
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 18 px, 11 px once Discord shows it 400 px wide."""
BOARD_LEFT = 40
BOARD_TOP = 30
BOARD_SIZE = 410
PANEL_LEFT = BOARD_LEFT + BOARD_SIZE + 26
START_INK = (70, 70, 70)
HALO = (250, 214, 120)
_LINE = SMALL + 5
_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _grid_step(cell: float) -> int:
    """Smallest lattice step whose labels (``SMALL`` px) are at least 1.6 labels apart."""
    return next((step for step in _STEPS if step * cell >= 1.6 * SMALL), _STEPS[-1])


def extent(state: GroebnerNimState) -> int:
    """The lattice side the board shows: one more than the largest exponent of any stick (at least 3)."""
    return max(2, *(max(*stick.head, *stick.tail) for stick in state.sticks)) + 1


def monomial(point: Point) -> str:
    """``point`` as a monomial with superscript exponents: ``(3, 1)`` -> ``"x³y"``, ``(0, 0)`` -> ``"1"``."""
    a, b = point
    text = ("x" + (str(a).translate(_SUPERSCRIPT) if a > 1 else "") if a else "") + \
        ("y" + (str(b).translate(_SUPERSCRIPT) if b > 1 else "") if b else "")
    return text or "1"


def polynomial(stick: Stick) -> str:
    """``stick`` as a polynomial, head first: ``"x³y + y²"``."""
    return f"{monomial(stick.head)} + {monomial(stick.tail)}"


def _stick_colour(state: GroebnerNimState, index: int) -> tuple[int, int, int]:
    if index < state.start_count:
        return START_INK
    ply = state.added.index(index + 1)
    return SEAT_COLOURS[state.movers[ply] % len(SEAT_COLOURS)]


def status_line(state: GroebnerNimState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line: whose move it is, or the result (``outcome`` when given, else the state's).

    Names are drawn shortened (see :func:`renderers._common.short_name`).
    """
    short = [short_name(name, SMALL, WIDTH - PANEL_LEFT - 10) for name in names]
    shown = ended(state.outcome, outcome)
    if shown is not None:
        if state.variant.mode == "solitaire" and shown.termination.value == "natural":
            par = state.par or 0
            verdict = "under par" if state.ply < par else "on par" if state.ply == par else "over par"
            if not state.par_exact:  # par is then only an upper bound: "on par" is all that can be said of equal
                verdict = "within par" if state.ply <= par else "over par"
            return f"Basis complete: {verdict}"
        return outcome_text(state.game, short, shown)
    return f"{short[state.current_seat or 0]} to move"


def render(state: GroebnerNimState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes (640 x 500 px): :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: GroebnerNimState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a 640 x 500 ``P`` image on the board's fixed palette.

    Args:
        state: a Gröbner Nim state.
        names: display name per seat (one name in solitaire).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        ValueError: ``len(names)`` differs from ``state.seats``.
    """
    if len(names) != state.seats:
        raise ValueError(f"expected {state.seats} name(s), got {len(names)}")
    image, draw = new_canvas(WIDTH, HEIGHT)
    _draw_board(image, draw, state)
    _draw_panel(image, state, names, outcome)
    # every colour drawn is in the palette, so the image stays exact while encoding three times faster
    return to_palette(image, _palette())


@functools.cache
def _palette() -> Image.Image:
    """A palette image with every colour the board uses and its anti-aliasing blends over each background."""
    inks = [INK, MUTED, GRID, START_INK, HALO, HIGHLIGHT, *SEAT_COLOURS, (255, 255, 255)]
    return fixed_palette(inks, [BACKGROUND, (255, 255, 255), HIGHLIGHT, HALO], (0.2, 0.4, 0.6, 0.8))


def _draw_board(image: Image.Image, draw: ImageDraw.ImageDraw, state: GroebnerNimState) -> None:
    side = extent(state)
    cell = BOARD_SIZE / side
    left, bottom = BOARD_LEFT, BOARD_TOP + BOARD_SIZE

    def at(point: tuple[int, int]) -> tuple[float, float]:
        return (left + point[0] * cell, bottom - point[1] * cell)

    step = _grid_step(cell)
    for value in range(side + 1):
        x, y = left + value * cell, bottom - value * cell
        draw.line([(x, BOARD_TOP), (x, bottom)], fill=GRID, width=1)
        draw.line([(left, y), (left + BOARD_SIZE, y)], fill=GRID, width=1)
        if value % step == 0:
            draw_text(image, (x, bottom + 5), str(value), SMALL, MUTED, "mt")
            draw_text(image, (left - 6, y), str(value), SMALL, MUTED, "rm")
    # axes: the quarter plane's two edges
    draw.line([(left, BOARD_TOP - 6), (left, bottom)], fill=INK, width=2)
    draw.line([(left, bottom), (left + BOARD_SIZE + 6, bottom)], fill=INK, width=2)
    draw_text(image, (left + BOARD_SIZE + 10, bottom), "x", SMALL, INK, "lm")
    draw_text(image, (left, BOARD_TOP - 8), "y", SMALL, INK, "mb")

    newest = len(state.sticks) - 1 if state.added and state.added[-1] is not None else None
    last = state.last_move
    picked = set(last.indices) if last is not None else set()
    head_r = max(4.0, min(9.0, cell * 0.25))
    tail_r = max(2.5, head_r * 0.55)
    width = max(2, min(5, round(cell * 0.1)))

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
        _draw_number(image, state, index, stick, at, head_r, highlighted=index in picked)


def _draw_number(image: Image.Image, state: GroebnerNimState, index: int, stick: Stick,
                 at: Callable[[tuple[int, int]], tuple[float, float]],
                 head_r: float, highlighted: bool) -> None:
    hx, hy = at(stick.head)
    tx, ty = at(stick.tail)
    dx, dy = hx - tx, hy - ty
    length = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    text = str(index + 1)
    half_w = text_width(text, SMALL) / 2 + 4
    half_h = SMALL / 2 + 2
    # beside the head, away from the tail
    reach = head_r + half_w + 2
    x, y = hx + dx / length * reach, hy + dy / length * reach
    # keep the tag on the board
    x = min(max(x, BOARD_LEFT + half_w + 2), BOARD_LEFT + BOARD_SIZE + 16 - half_w)
    y = min(max(y, BOARD_TOP - 8 + half_h), BOARD_TOP + BOARD_SIZE - half_h - 2)
    left, top = round(x - half_w), round(y - half_h)
    fill, outline = (HIGHLIGHT, INK) if highlighted else ((255, 255, 255), _stick_colour(state, index))
    tile, mask = _tag(round(x + half_w) - left, round(y + half_h) - top, fill, outline)
    image.paste(tile, (left, top), mask)
    draw_text(image, (x, y), text, SMALL, INK, "mm")


@functools.lru_cache(maxsize=256)
def _tag(width: int, height: int, fill: tuple[int, int, int],
         outline: tuple[int, int, int]) -> tuple[Image.Image, Image.Image]:
    """A stick number's tag, ``width`` x ``height`` pixels between its outer edges, drawn once per size and
    colours: its pixels and the ``1`` mask of the pixels it covers. Pillow draws a rounded rectangle at whole
    pixels (it rounds the corners of the box), so this tile pasted at the rounded corner is the same as drawing
    the tag there."""
    tile = Image.new("RGB", (width + 1, height + 1), fill)
    mask = Image.new("1", tile.size, 0)
    ImageDraw.Draw(tile).rounded_rectangle((0, 0, width, height), radius=6, fill=fill, outline=outline)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width, height), radius=6, fill=1, outline=1)
    return tile, mask


def _draw_panel(image: Image.Image, state: GroebnerNimState, names: Sequence[str], outcome: Outcome | None) -> None:
    x = PANEL_LEFT
    room = WIDTH - x - 8
    y = 8
    variant = state.variant
    draw_text(image, (x, y), "Gröbner Nim", 20, INK)
    y += 26
    mode = "solitaire" if variant.mode == "solitaire" else ("duel, bonus turn" if variant.bonus_turn else "duel")
    draw_text(image, (x, y), fit_text(f"{mode} · {variant.order}", SMALL, room)[0], SMALL, MUTED)
    y += _LINE
    solitaire = variant.mode == "solitaire"
    counter = f"{state.ply} turn{'s' if state.ply != 1 else ''} · {state.par_text()}" if solitaire \
        else move_count(state.ply)
    draw_text(image, (x, y), fit_text(counter, SMALL, room)[0], SMALL, MUTED)
    y += _LINE + 4

    for seat, name in enumerate(names):
        suffix = "" if solitaire else f": {state.scores[seat]}"
        draw_text(image, (x, y), short_name(name, SMALL, room, suffix=suffix), SMALL, SEAT_COLOURS[seat])
        y += _LINE
    shown = ended(state.outcome, outcome)
    colour = INK if shown is not None or solitaire or state.current_seat is None else SEAT_COLOURS[state.current_seat]
    for part in wrap_text(status_line(state, names, outcome), SMALL, room):
        draw_text(image, (x, y), part, SMALL, colour)
        y += _LINE
    y += 6

    last = state.last_move
    if last is not None:
        new = state.added[-1]
        draw_text(image, (x, y), f"Last pair {last}", SMALL, MUTED)
        y += _LINE
        result = f"+{new}: {polynomial(state.sticks[new - 1])}" if new is not None else "reduced to zero"
        draw_text(image, (x, y), fit_text(result, SMALL, room)[0], SMALL, INK)
        y += _LINE + 6

    if state.is_over:
        y = _draw_basis(image, state, x, y)
    _draw_picked(image, state, x, y)


def _draw_basis(image: Image.Image, state: GroebnerNimState, x: int, y: int) -> int:
    room = WIDTH - x - 8
    draw_text(image, (x, y), fit_text("Gröbner basis", SMALL, room)[0], SMALL, MUTED)
    y += _LINE
    basis = state.final_basis()
    shown = basis if len(basis) <= 5 else basis[:4]
    for stick in shown:
        draw_text(image, (x, y), fit_text(polynomial(stick), SMALL, room)[0], SMALL, INK)
        y += _LINE
    if len(basis) > len(shown):
        draw_text(image, (x, y), f"… and {len(basis) - len(shown)} more", SMALL, MUTED)
        y += _LINE
    return y + 6


def _draw_picked(image: Image.Image, state: GroebnerNimState, x: int, y: int) -> None:
    rows = max(0, (HEIGHT - 8 - (y + _LINE)) // _LINE)
    texts = [f"{pair} +{new}" if new is not None else f"{pair} ·"
             for pair, new in zip(state.picked, state.added, strict=True)]
    room = WIDTH - x - 6
    widest = max((text_width(text, SMALL) for text in texts), default=0)
    columns = max(1, min(3, int(room // (widest + 12)))) if texts else 1
    column_width = room // columns
    capacity = rows * columns
    if rows <= 0:
        return
    draw_text(image, (x, y), f"Picked pairs ({state.ply})", SMALL, MUTED)
    y += _LINE
    entries = list(zip(texts, state.added, state.movers, strict=True))
    if len(entries) > capacity:
        hidden = len(entries) - (capacity - columns)
        entries = entries[hidden:]
        draw_text(image, (x, y), f"… {hidden} earlier", SMALL, MUTED)
        y += _LINE
    solitaire = state.variant.mode == "solitaire"
    for n, (text, new, seat) in enumerate(entries):
        col, row = n % columns, n // columns
        colour = SEAT_COLOURS[0] if solitaire else SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        draw_text(image, (x + col * column_width, y + row * _LINE), fit_text(text, SMALL, column_width - 4)[0], SMALL,
                  colour if new is not None else MUTED)
