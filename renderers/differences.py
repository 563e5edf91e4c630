"""Grid Game of Differences board: the grid, the marks, the last mark, the legal squares and both score lists.

The header names both players in their seat colours with their running points and says whose turn it is or
how the game ended. On the grid, files ``a``... run along the bottom and ranks ``1``... up the left side;
each mark is an x in the colour of the seat that placed it, and the latest mark sits on a highlighted square
with a highlight frame. While the game runs, the squares still legal (a free column and a free row) are
tinted in the light colour of the seat to move.

Seat 0's row differences are written under the file letters, each halfway between the two consecutive filled
columns it spans; seat 1's column differences are written right of the grid, halfway between the two
consecutive filled rows. Under the board each seat's list is spelt out with the values that score
(distinct values, or with the ``unique`` variant the values occurring exactly once) and the points.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from PIL import Image, ImageDraw

from games import Outcome
from games.differences import FILES, DifferencesState
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
)

WIDTH = 600
"""Image width in pixels; the height is :func:`image_height` (the same for every position of a match)."""
BOARD_PIXELS = 420
"""Side of the grid in pixels, rounded down to a whole number of squares (at most 60 px a square)."""
BOARD_TOP = 100
"""Top y of the grid in pixels."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 17 px, 11 px once Discord shows it 400 px wide."""
_MARGIN = 24
_LINE = SMALL + 6
_LISTS_HEIGHT = 6 * _LINE + 2 * 12 + _LINE
_STRIP = 6 + SMALL + 6 + SMALL + 10
_PAPER = (255, 255, 253)
_LAST_FILL = (252, 231, 176)
_NAME_WIDTH = 170
"""Widest a name may be in the status line, pixels (longer names end with an ellipsis)."""


def cell_pixels(n: int) -> int:
    """Side of one square in pixels on an n x n grid."""
    return min(60, BOARD_PIXELS // n)


def image_height(n: int) -> int:
    """Image height in pixels for an n x n grid: header, grid, labels and differences, then the lists."""
    return BOARD_TOP + cell_pixels(n) * n + _STRIP + _LISTS_HEIGHT


def square_box(n: int, col: int, row: int) -> tuple[int, int, int, int]:
    """Pixel box ``(left, top, right, bottom)`` of the square in 0-based ``col``/``row`` on an n x n grid."""
    cell = cell_pixels(n)
    x0 = (WIDTH - cell * n) // 2 + col * cell
    y0 = BOARD_TOP + (n - 1 - row) * cell
    return x0, y0, x0 + cell, y0 + cell


def _palette() -> Image.Image:
    """A fixed palette: the board's colours and blends of each ink over each fill (antialiased edges)."""
    inks = [*SEAT_COLOURS, INK, MUTED, HIGHLIGHT, GRID]
    fills = [BACKGROUND, _PAPER, _LAST_FILL, *(blend(light, _PAPER, 0.55) for light in SEAT_LIGHT)]
    return fixed_palette(inks, fills, (0.15, 0.3, 0.45, 0.6, 0.75, 0.9))


_PALETTE = _palette()
_text = draw_text


def _scoring_values(diffs: Sequence[int], unique: bool) -> list[int]:
    """The values of ``diffs`` that score, ascending."""
    counts = Counter(diffs)
    return sorted(value for value, count in counts.items() if count == 1 or not unique)


def status_line(state: DifferencesState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line: whose move it is, or the result (``outcome`` when given, else the state's).

    Names are drawn shortened (see :func:`renderers._common.short_name`).
    """
    short = [short_name(name, 19, _NAME_WIDTH) for name in names]
    shown = ended(state.outcome, outcome)
    if shown is not None:
        return outcome_text(state.game, short, shown)
    return f"{short[state.current_seat or 0]} to move"


def _header(image: Image.Image, state: DifferencesState, names: Sequence[str], outcome: Outcome | None) -> None:
    scores = state.scores
    rule = "unique" if state.unique else "distinct"
    title = f"Grid Game of Differences · {state.n} × {state.n} · {rule} · {move_count(state.ply)} of {state.n}"
    _text(image, (_MARGIN, 8), fit_text(title, SMALL, WIDTH - 2 * _MARGIN)[0], SMALL, MUTED)
    shown = ended(state.outcome, outcome)
    if shown is not None:
        colour = INK if shown.winner is None else SEAT_COLOURS[shown.winner]
    else:
        colour = SEAT_COLOURS[state.current_seat or 0]
    status, size = fit_text(status_line(state, names, outcome), 19, WIDTH - 2 * _MARGIN, min_size=SMALL)
    _text(image, (_MARGIN, 29), status, size, colour)
    for seat in (0, 1):
        role = "rows, left to right" if seat == 0 else "columns, bottom to top"
        x = _MARGIN if seat == 0 else WIDTH // 2 + 8
        label = short_name(names[seat], 19, WIDTH // 2 - _MARGIN - 8, suffix=f": {scores[seat]}")
        _text(image, (x, 53), label, 19, SEAT_COLOURS[seat])
        _text(image, (x, 76), f"scores {role}", SMALL, MUTED)


def _board(image: Image.Image, draw: ImageDraw.ImageDraw, state: DifferencesState) -> int:
    """Draw the grid, labels, marks and the differences beside it; return the y below all of it."""
    n = state.n
    cell = cell_pixels(n)
    side = cell * n
    left = (WIDTH - side) // 2
    top = BOARD_TOP
    bottom = top + side
    draw.rectangle((left, top, left + side, bottom), fill=_PAPER)

    def box(col: int, row: int) -> tuple[int, int, int, int]:
        return square_box(n, col, row)

    seat = state.current_seat
    if seat is not None:
        tint = blend(SEAT_LIGHT[seat], _PAPER, 0.55)
        for col in state.free_columns:
            for row in state.free_rows:
                draw.rectangle(box(col, row), fill=tint)
    last = state.last_move
    if last is not None:
        draw.rectangle(box(last.col, last.row), fill=_LAST_FILL)
    for i in range(n + 1):
        draw.line((left + i * cell, top, left + i * cell, bottom), fill=GRID, width=1)
        draw.line((left, top + i * cell, left + side, top + i * cell), fill=GRID, width=1)
    draw.rectangle((left, top, left + side, bottom), outline=MUTED, width=2)
    if last is not None:
        draw.rectangle(box(last.col, last.row), outline=HIGHLIGHT, width=max(3, cell // 14))

    label = SMALL
    for i in range(n):
        _text(image, (left + i * cell + cell / 2, bottom + 6), FILES[i], label, MUTED, anchor="mt")
        _text(image, (left - 8, bottom - i * cell - cell / 2), str(i + 1), label, MUTED, anchor="rm")

    inset = max(5, cell // 4)
    stroke = max(3, cell // 9)
    for mark in state.marks:
        x0, y0, x1, y1 = box(mark.square.col, mark.square.row)
        colour = SEAT_COLOURS[mark.seat]
        draw.line((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=colour, width=stroke)
        draw.line((x0 + inset, y1 - inset, x1 - inset, y0 + inset), fill=colour, width=stroke)

    size = SMALL
    strip = bottom + 6 + label + 8
    filled = [(col, row) for col, row in enumerate(state.rows_by_column) if row is not None]
    for (col_a, row_a), (col_b, row_b) in itertools.pairwise(filled):
        x = left + (col_a + col_b + 1) * cell / 2
        _text(image, (x, strip), str(abs(row_b - row_a)), size, SEAT_COLOURS[0], anchor="mt")
    filled = [(row, col) for row, col in enumerate(state.columns_by_row) if col is not None]
    for (row_a, col_a), (row_b, col_b) in itertools.pairwise(filled):
        y = bottom - (row_a + row_b + 1) * cell / 2
        _text(image, (left + side + 10, y), str(abs(col_b - col_a)), size, SEAT_COLOURS[1], anchor="lm")
    return bottom + _STRIP


def _lists(image: Image.Image, state: DifferencesState, names: Sequence[str], top: int) -> None:
    """Spell out each seat's differences, the values that score and the points."""
    y = top
    kind = "occurring once" if state.unique else "distinct"
    for seat, diffs in enumerate(state.difference_lists):
        what = "row differences, left to right" if seat == 0 else "column differences, bottom to top"
        _text(image, (_MARGIN, y), short_name(names[seat], SMALL, WIDTH - 2 * _MARGIN, suffix=f" · {what}"), SMALL,
              SEAT_COLOURS[seat])
        listed = " ".join(map(str, diffs)) if diffs else "none yet"
        _text(image, (_MARGIN + 16, y + _LINE), fit_text(listed, SMALL, WIDTH - 2 * _MARGIN - 16)[0], SMALL, INK)
        scoring = _scoring_values(diffs, state.unique)
        points = state.scores[seat]
        values = " ".join(map(str, scoring)) if scoring else "none"
        total = f" = {points} point{'s' if points != 1 else ''}"
        _text(image, (_MARGIN + 16, y + 2 * _LINE),
              fit_text(f"{kind}: {values}", SMALL, WIDTH - 2 * _MARGIN - 16, suffix=total)[0], SMALL, INK)
        y += 3 * _LINE + 12
    if not state.is_over and state.marks:
        _text(image, (_MARGIN, y), "Running scores use the filled columns and rows so far.", SMALL, MUTED)


def render(state: DifferencesState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes, :data:`WIDTH` x :func:`image_height` pixels: :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: DifferencesState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette, :data:`WIDTH` x :func:`image_height` pixels.

    Args:
        state: the position to draw.
        names: display name per seat (two names).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        ValueError: ``names`` does not hold two names.
    """
    if len(names) != 2:
        raise ValueError("render needs one name per seat (two names).")
    image, draw = new_canvas(WIDTH, image_height(state.n))
    _header(image, state, names, outcome)
    _lists(image, state, names, _board(image, draw, state))
    return to_palette(image, _PALETTE)
