"""A tournament's standings as a PNG table: rank, player, points, the two tie-breaks, games played and rating, one
page of :data:`PAGE_ROWS` rows, the podium marked once the tournament is over.

Plain data in (the texts of each cell), no game state: the bot computes the standings (:mod:`bot.service.standings`)
and passes their texts. Like every board, it reads on a phone: drawn :data:`WIDTH` pixels wide, no text below
:func:`renderers._common.min_text_px` of it (13 px once shown 400 px wide), framed for both Discord themes. A name too
long for its column is shortened with an ellipsis: the embed it is posted in lists every name whole. :func:`alt_text`
says the table in words.
"""

from __future__ import annotations

from collections.abc import Sequence

from renderers._alt import ALT_TEXT_LIMIT, Listing, _, compose, plural_forms, sentence
from renderers._common import (
    BACKGROUND,
    GRID,
    INK,
    MUTED,
    clean_name,
    draw_text,
    finish,
    fit_text,
    fixed_palette,
    min_text_px,
    new_canvas,
    short_name,
    text_width,
    to_png,
)

WIDTH = 720
"""The image's width in pixels."""
PAGE_ROWS = 25
"""Rows on one image (a page of ``/tournament standings``)."""
TEXT = min_text_px(WIDTH)
"""The table's font size: the smallest a board may use, so that the most columns fit."""
TITLE = TEXT + 6
ROW = TEXT + 14
"""A row's height in pixels."""
MARGIN = 16
HEADER = TITLE + 22 + ROW
"""Pixels above the first row: the title and the column headings."""

SWISS_COLUMNS: tuple[str, ...] = ("#", "Player", "Pts", "BH-1", "SB", "Games", "Rating")
"""A Swiss's columns: rank, player, points, Buchholz cut-1, Sonneborn-Berger, games played, rating."""
ROUND_ROBIN_COLUMNS: tuple[str, ...] = ("#", "Player", "Pts", "SB", "Wins", "Games", "Rating")
"""A round robin's columns: rank, player, points, Sonneborn-Berger, wins, games played, rating."""

PODIUM = ((212, 160, 23), (160, 166, 173), (176, 112, 58))
"""Gold, silver and bronze: the marks of the first three places."""
STRIPE = (240, 236, 226)
_PALETTE = fixed_palette((INK, MUTED, *PODIUM), (BACKGROUND, STRIPE, GRID))

_NARROW = 0.95
"""How much wider than its widest cell a number column is drawn (its cells are right-aligned)."""


def _column_widths(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[float]:
    """Pixel widths: every column but the player's as wide as its widest text (with padding); the player's takes the
    rest of :data:`WIDTH`."""
    widths = []
    for index, heading in enumerate(columns):
        if index == 1:
            widths.append(0.0)
            continue
        widest = max([text_width(heading, TEXT), *(text_width(row[index], TEXT) for row in rows if index < len(row))])
        widths.append(widest / _NARROW + 14)
    widths[1] = max(120.0, WIDTH - 2 * MARGIN - sum(widths))
    return widths


def render_standings(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *,
                     podium: bool = False, muted: Sequence[int] = ()) -> bytes:
    """Draw a page of standings as PNG bytes.

    Args:
        title: the line above the table (tournament, round), shortened to fit.
        columns: the headings, the player's second (:data:`SWISS_COLUMNS`, :data:`ROUND_ROBIN_COLUMNS`).
        rows: at most :data:`PAGE_ROWS` rows, each one text per column (the rank first); a name too long is cut.
        podium: mark the rows ranked 1, 2 and 3 (their first cell) in gold, silver and bronze.
        muted: indices of ``rows`` drawn in grey (withdrawn players).

    Raises:
        ValueError: more rows than :data:`PAGE_ROWS`, or a row with another number of cells than ``columns``.
    """
    if len(rows) > PAGE_ROWS:
        raise ValueError(f"a page holds {PAGE_ROWS} rows, not {len(rows)}")
    if any(len(row) != len(columns) for row in rows):
        raise ValueError("every row has one cell per column")
    height = HEADER + ROW * max(1, len(rows)) + MARGIN
    image, draw = new_canvas(WIDTH, height)
    text, size = fit_text(title, TITLE, WIDTH - 2 * MARGIN, min_size=TEXT)
    draw_text(image, (MARGIN, MARGIN), text, size, INK)
    widths = _column_widths(columns, rows)
    top = MARGIN + TITLE + 22
    draw.line((MARGIN, top + ROW - 4, WIDTH - MARGIN, top + ROW - 4), fill=GRID, width=2)
    _draw_row(image, columns, widths, top, MUTED)
    muted_rows = set(muted)
    for index, row in enumerate(rows):
        y = top + ROW * (index + 1)
        if index % 2:
            draw.rectangle((MARGIN, y - 3, WIDTH - MARGIN, y + ROW - 5), fill=STRIPE)
        place = int(row[0]) if row[0].isdigit() else 0
        if podium and 1 <= place <= 3:
            radius = TEXT // 2
            centre_y = y + ROW // 2 - 4
            draw.ellipse((MARGIN + 1, centre_y - radius, MARGIN + 1 + 2 * radius, centre_y + radius),
                         fill=PODIUM[place - 1])
        _draw_row(image, row, widths, y, MUTED if index in muted_rows else INK, podium and 1 <= place <= 3)
    if not rows:
        draw_text(image, (MARGIN, top + ROW), "No players yet", TEXT, MUTED)
    return to_png(finish(image, _PALETTE))


def _draw_row(image: object, cells: Sequence[str], widths: Sequence[float], y: int, ink: tuple[int, int, int],
              marked: bool = False) -> None:
    """One row: the player's cell left-aligned (shortened to fit), the others right-aligned in their columns; the
    rank of a podium row in white over its mark."""
    from PIL import Image

    assert isinstance(image, Image.Image)
    x = float(MARGIN)
    for index, (cell, width) in enumerate(zip(cells, widths, strict=True)):
        if index == 1:
            name = short_name(cell, TEXT, width - 12)
            draw_text(image, (x + 6, y), name, TEXT, ink)
        elif index == 0 and marked:
            draw_text(image, (x + TEXT // 2 + 1, y), cell, TEXT, BACKGROUND, anchor="ma")
        else:
            draw_text(image, (x + width - 6, y), cell, TEXT, ink, anchor="ra")
        x += width


def alt_text(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The standings page of :func:`render_standings` in words for a screen reader, at most ``limit`` characters:
    the title, then each row in rank order as its rank, the player's whole name and every other column under its
    heading; the lowest rows are left out first when they do not all fit, and the text says how many.

    Args:
        title: the line above the table.
        columns: the headings, the player's second.
        rows: the rows, each one text per column (the rank first).
        limit: the most characters (Discord's 1,024 by default).
    """
    parts = [sentence(_("Standings table: {title}."), title=clean_name(title))]
    if not rows:
        parts.append(_("No players yet."))
    items = [sentence(_("{rank}. {name}: {values}"), rank=row[0], name=clean_name(row[1]),
                      values=", ".join(f"{heading} {cell}" for heading, cell in zip(columns[2:], row[2:], strict=True)))
             for row in rows]
    listing = Listing("{items}.", items, plural_forms("{count} more row not listed.", "{count} more rows not listed."),
                      separator="; ")
    return compose(parts, [listing], limit)
