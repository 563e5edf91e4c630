"""Grid Game of Differences board: the grid, the marks, the last mark, the legal squares and both score lists; and
its alt text.

The header names the game and how far the match is, says whose turn it is or how the game ended, and names both
players after their seat's mark (× for seat 0, ○ for seat 1) with their running points. On the grid, files ``a``...
run along the bottom and ranks ``1``... up the left side; each mark is drawn as its seat's mark (× or ○) in the seat's
colour, and the latest mark sits on a highlighted square with a highlight frame edged in ink. While the game runs,
the squares still legal (a free column and a free row) are tinted in the light colour of the seat to move.

Seat 0's row differences are written under the file letters, each halfway between the two consecutive filled
columns it spans; seat 1's column differences are written right of the grid, halfway between the two
consecutive filled rows. Under the board each seat's list is spelt out, after the seat's mark, with the values that
score (distinct values, or with the ``unique`` variant the values occurring exactly once) and the points. Names are
drawn whole (wrapped); the board is as tall as the grid and the names need (:func:`image_height`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from games import Outcome
from games.differences import FILES, DifferencesState
from i18n import N_, ngettext
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
    draw_seat_label,
    draw_text,
    ended,
    finish,
    fit_text,
    fixed_palette,
    language_cache,
    lines_needed,
    min_text_px,
    new_canvas,
    outcome_text,
    status_line,
    status_texts,
    text_width,
    to_png,
    wrap_text,
)

WIDTH = 600
"""Image width in pixels; the height is :func:`image_height` (the same for every position of a match)."""
BOARD_PIXELS = 420
"""Side of the grid in pixels, rounded down to a whole number of squares (at most 60 px a square)."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 20 px, 13.3 px once Discord shows it 400 px wide."""
TITLE = 24
_MARGIN = 24
_LINE = SMALL + 5
_STRIP = 6 + SMALL + 6 + SMALL + 10
_PAPER = (255, 255, 253)
_LAST_FILL = (252, 231, 176)
_COLUMN = WIDTH // 2 - _MARGIN - 8
"""Width in pixels of each seat's column in the header."""
_ROLES = (N_("scores row differences, reading the columns left to right"),
          N_("scores column differences, reading the rows bottom to top"))
_RUNNING = N_("Running scores use the filled columns and rows so far.")


def cell_pixels(n: int) -> int:
    """Side of one square in pixels on an n x n grid."""
    return min(60, BOARD_PIXELS // n)


@dataclass(frozen=True)
class _Layout:
    board_top: int
    status_lines: int
    score_lines: int
    height: int


STATUS_TOP = 12 + TITLE + 8 + SMALL + 8
"""Top y in pixels of the status line (whose move, or the result)."""


def _header_top(status_lines: int) -> int:
    return STATUS_TOP + status_lines * _LINE


@language_cache(maxsize=256)
def _layout(n: int, unique: bool, names: tuple[str, str]) -> _Layout:
    """Where things go for an ``n`` x ``n`` grid and these names: the status and the names take the lines their
    longest text needs, so every board of a match has the same size."""
    status = lines_needed(status_texts("differences", names), SMALL, WIDTH - 2 * _MARGIN)
    seat_lines = max(len(wrap_text(f"{name}: {n * n}", SMALL, _COLUMN - round(SMALL * 1.05))) +
                     len(wrap_text(_(role), SMALL, _COLUMN)) for name, role in zip(names, _ROLES, strict=True))
    board_top = _header_top(status) + seat_lines * _LINE + 10
    kind = _("occurring once") if unique else _("distinct")
    values = " ".join(str(value) for value in range(1, n))
    total = ngettext("{count} point", "{count} points", n - 1).format(count=n - 1)
    score = lines_needed([f"{kind}: {values} = {total}"], SMALL, WIDTH - 2 * _MARGIN - 16)
    lists = 2 * ((2 + score) * _LINE + 12) + lines_needed([_(_RUNNING)], SMALL, WIDTH - 2 * _MARGIN) * _LINE
    return _Layout(board_top, status, score, board_top + cell_pixels(n) * n + _STRIP + lists + 10)


def _layout_of(state: DifferencesState, names: Sequence[str]) -> _Layout:
    return _layout(state.n, state.unique, (names[0], names[1]))


BOARD_TOP = _layout(8, False, ("alice", "bob")).board_top
"""Top y of the grid in pixels when both names and the status fit on one line each (longer names push it down)."""


def image_height(n: int, names: Sequence[str] = ("alice", "bob"), unique: bool = False) -> int:
    """Image height in pixels for an n x n grid and players ``names``: header, grid, labels and differences, then
    the lists."""
    return _layout(n, unique, (names[0], names[1])).height


def square_box(n: int, col: int, row: int, top: int = BOARD_TOP) -> tuple[int, int, int, int]:
    """Pixel box ``(left, top, right, bottom)`` of the square in 0-based ``col``/``row`` on an n x n grid whose top
    is at ``top`` pixels (:data:`BOARD_TOP` for short names)."""
    cell = cell_pixels(n)
    x0 = (WIDTH - cell * n) // 2 + col * cell
    y0 = top + (n - 1 - row) * cell
    return x0, y0, x0 + cell, y0 + cell


def _palette() -> Image.Image:
    """A fixed palette: the board's colours and blends of each ink over each fill (antialiased edges)."""
    inks = [*SEAT_COLOURS, INK, MUTED, HIGHLIGHT, GRID]
    fills = [BACKGROUND, _PAPER, _LAST_FILL, *(blend(light, _PAPER, 0.55) for light in SEAT_LIGHT)]
    return fixed_palette(inks, fills)


_PALETTE = _palette()
_text = draw_text


def _scoring_values(diffs: Sequence[int], unique: bool) -> list[int]:
    """The values of ``diffs`` that score, ascending."""
    counts = Counter(diffs)
    return sorted(value for value, count in counts.items() if count == 1 or not unique)


def _header(image: Image.Image, state: DifferencesState, names: Sequence[str], outcome: Outcome | None,
            layout: _Layout) -> None:
    scores = state.scores
    count = _("move {ply} of {n}").format(ply=state.ply, n=state.n)
    room = WIDTH - 2 * _MARGIN - text_width(count, SMALL) - 12
    _text(image, (_MARGIN, 12), *fit_text(_("Grid Game of Differences"), TITLE, room, min_size=SMALL), INK)
    _text(image, (WIDTH - _MARGIN, 14), count, SMALL, MUTED, anchor="ra")
    rule = _("unique: only differences occurring once score") if state.unique else _("distinct differences score")
    _text(image, (_MARGIN, 12 + TITLE + 8), f"{state.n} × {state.n} · {rule}", SMALL, MUTED)
    shown = ended(state.outcome, outcome)
    if shown is not None:
        colour = INK if shown.winner is None else SEAT_COLOURS[shown.winner]
    else:
        colour = SEAT_COLOURS[state.current_seat or 0]
    y = STATUS_TOP
    for part in wrap_text(status_line(state, names, outcome), SMALL, WIDTH - 2 * _MARGIN):
        _text(image, (_MARGIN, y), part, SMALL, colour)
        y += _LINE
    top = _header_top(layout.status_lines)
    for seat in (0, 1):
        x = _MARGIN if seat == 0 else WIDTH // 2 + 8
        y = draw_seat_label(image, seat, (x, top), f"{names[seat]}: {scores[seat]}", SMALL, _COLUMN, _LINE,
                            style="cross")
        for part in wrap_text(_(_ROLES[seat]), SMALL, _COLUMN):
            _text(image, (x, y), part, SMALL, MUTED)
            y += _LINE


def _mark(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], seat: int, cell: int) -> None:
    """Seat 0's × or seat 1's ○ in the square ``box``."""
    x0, y0, x1, y1 = box
    inset = max(5, cell // 4)
    stroke = max(3, cell // 9)
    colour = SEAT_COLOURS[seat]
    if seat == 0:
        draw.line((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=colour, width=stroke)
        draw.line((x0 + inset, y1 - inset, x1 - inset, y0 + inset), fill=colour, width=stroke)
    else:
        draw.ellipse((x0 + inset - 1, y0 + inset - 1, x1 - inset + 1, y1 - inset + 1), outline=colour, width=stroke)


def _board(image: Image.Image, draw: ImageDraw.ImageDraw, state: DifferencesState, top: int) -> int:
    """Draw the grid, labels, marks and the differences beside it; return the y below all of it."""
    n = state.n
    cell = cell_pixels(n)
    side = cell * n
    left = (WIDTH - side) // 2
    bottom = top + side
    draw.rectangle((left, top, left + side, bottom), fill=_PAPER)

    def box(col: int, row: int) -> tuple[int, int, int, int]:
        return square_box(n, col, row, top)

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
        x0, y0, x1, y1 = box(last.col, last.row)
        width = max(3, cell // 14)
        draw.rectangle((x0, y0, x1, y1), outline=INK, width=width + 2)
        draw.rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), outline=HIGHLIGHT, width=width)

    for i in range(n):
        _text(image, (left + i * cell + cell / 2, bottom + 6), FILES[i], SMALL, MUTED, anchor="mt")
        _text(image, (left - 8, bottom - i * cell - cell / 2), str(i + 1), SMALL, MUTED, anchor="rm")

    for mark in state.marks:
        _mark(draw, box(mark.square.col, mark.square.row), mark.seat, cell)

    strip = bottom + 6 + SMALL + 8
    filled = [(col, row) for col, row in enumerate(state.rows_by_column) if row is not None]
    for (col_a, row_a), (col_b, row_b) in itertools.pairwise(filled):
        x = left + (col_a + col_b + 1) * cell / 2
        _text(image, (x, strip), str(abs(row_b - row_a)), SMALL, SEAT_COLOURS[0], anchor="mt")
    filled = [(row, col) for row, col in enumerate(state.columns_by_row) if col is not None]
    for (row_a, col_a), (row_b, col_b) in itertools.pairwise(filled):
        y = bottom - (row_a + row_b + 1) * cell / 2
        _text(image, (left + side + 10, y), str(abs(col_b - col_a)), SMALL, SEAT_COLOURS[1], anchor="lm")
    return bottom + _STRIP


def _lists(image: Image.Image, state: DifferencesState, top: int, layout: _Layout) -> None:
    """Spell out each seat's differences (after the seat's mark), the values that score and the points."""
    y = top
    kind = _("occurring once") if state.unique else _("distinct")
    room = WIDTH - 2 * _MARGIN - 16
    for seat, diffs in enumerate(state.difference_lists):
        what = _("row differences, left to right") if seat == 0 else _("column differences, bottom to top")
        draw_seat_label(image, seat, (_MARGIN, y), what, SMALL, WIDTH - 2 * _MARGIN, _LINE, style="cross")
        listed = " ".join(map(str, diffs)) if diffs else _("none yet")
        _text(image, (_MARGIN + 16, y + _LINE), listed, SMALL, INK)
        scoring = _scoring_values(diffs, state.unique)
        points = state.scores[seat]
        values = " ".join(map(str, scoring)) if scoring else _("none")
        total = ngettext("{count} point", "{count} points", points).format(count=points)
        line_y = y + 2 * _LINE
        for part in wrap_text(f"{kind}: {values} = {total}", SMALL, room):
            _text(image, (_MARGIN + 16, line_y), part, SMALL, INK)
            line_y += _LINE
        y += (2 + layout.score_lines) * _LINE + 12
    if not state.is_over and state.marks:
        for part in wrap_text(_(_RUNNING), SMALL, WIDTH - 2 * _MARGIN):
            _text(image, (_MARGIN, y), part, SMALL, MUTED)
            y += _LINE


def render(state: DifferencesState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes, :data:`WIDTH` x :func:`image_height` pixels: :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: DifferencesState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette, :data:`WIDTH` x :func:`image_height` pixels.

    Args:
        state: the position to draw.
        names: display name per seat (two names, any text: drawn whole, wrapped).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        ValueError: ``names`` does not hold two names.
    """
    if len(names) != 2:
        raise ValueError("render needs one name per seat (two names).")
    names = names_for_alt(names)
    layout = _layout_of(state, names)
    image, draw = new_canvas(WIDTH, layout.height)
    _header(image, state, names, outcome, layout)
    _lists(image, state, _board(image, draw, state, layout.board_top), layout)
    return finish(image, _PALETTE)


# ------------------------------------------------------------------------------------------------ alt text


def alt_text(state: DifferencesState, names: Sequence[str], *, outcome: Outcome | None = None,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The board in words for a screen reader (an attachment's description), at most ``limit`` characters.

    In order: the game, the grid and how far the match is; the scoring rule; whose move it is or the result; the
    score; the last mark; each player's marks in the order placed (squares in the game's notation, ``e5``: seat 0
    placed the 1st, 3rd, ... mark); the free columns and rows; each player's differences. With at most 15 marks and
    names of up to 32 characters all of it fits, so nothing is ever left out; were it to come to that, the
    differences would go first, then the free columns and rows.

    Args:
        state: the position.
        names: display name per seat (two names).
        outcome: the result when a player's action ended the match (else the state's own outcome).
        limit: the most characters (Discord's 1,024 by default).
    """
    names = names_for_alt(names)
    shown = ended(state.outcome, outcome)
    parts = [sentence(_("Grid Game of Differences board, move {ply} of {n}, on a grid of {n} × {n} squares."),
                      n=state.n, ply=state.ply),
             _("Each player scores only the differences that occur exactly once.") if state.unique else
             _("Each player scores their distinct differences.")]
    if shown is not None:
        parts.append(sentence(_("{result}."), result=outcome_text(state.game, names, shown)))
    else:
        parts.append(sentence(_("{name} to move."), name=names[state.current_seat or 0]))
    parts.append(sentence(_("Score: {first} {first_score}, {second} {second_score}."), first=names[0],
                          second=names[1], first_score=state.scores[0], second_score=state.scores[1]))
    if state.last_move is not None:
        mover = names[(state.ply - 1) % 2]
        parts.append(sentence(_("Last move: {name} marked {square}."), name=mover, square=state.last_move.name))
    else:
        parts.append(_("No mark has been placed yet."))
    listings = [Listing(_("Marks of {name}, in the order placed: {items}."),
                        [mark.square.name for mark in state.marks if mark.seat == seat],
                        plural_forms("{count} more mark of {name} not listed.",
                                     "{count} more marks of {name} not listed."),
                        (("name", names[seat]),)) for seat in (0, 1)]
    if not state.is_over:
        parts_free = sentence(_("Free columns: {columns}. Free rows: {rows}."),
                              columns=", ".join(FILES[col] for col in state.free_columns),
                              rows=", ".join(str(row + 1) for row in state.free_rows))
        listings.append(Listing("{items}", [parts_free], ("", "")))
    roles = (_("{name}'s row differences, left to right: {items}."),
             _("{name}'s column differences, bottom to top: {items}."))
    more = plural_forms("{count} more difference not listed.", "{count} more differences not listed.")
    for seat, diffs in enumerate(state.difference_lists):
        if diffs:
            listings.append(Listing(roles[seat], [str(value) for value in diffs], more, (("name", names[seat]),)))
    return compose(parts, listings, limit)
