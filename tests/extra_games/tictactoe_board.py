"""Tic-tac-toe boards: a 3×3 grid of crosses and circles (seat 0 red, seat 1 blue), with the names below."""

from __future__ import annotations

from collections.abc import Sequence

from games import Outcome
from renderers._common import INK, SEAT_COLOURS, font, new_canvas, to_png
from tests.extra_games.tictactoe import TicTacToeState

CELL = 120
MARGIN = 20


def render(state: TicTacToeState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """The grid as PNG bytes (400 × 440 pixels); ``outcome`` is accepted and not drawn."""
    size = 3 * CELL + 2 * MARGIN
    image, draw = new_canvas(size, size + 40)
    for k in (1, 2):
        draw.line([(MARGIN + k * CELL, MARGIN), (MARGIN + k * CELL, MARGIN + 3 * CELL)], fill=INK, width=3)
        draw.line([(MARGIN, MARGIN + k * CELL), (MARGIN + 3 * CELL, MARGIN + k * CELL)], fill=INK, width=3)
    for ply, square in enumerate(state.marks):
        column, row = square % 3, 2 - square // 3
        x, y = MARGIN + column * CELL + CELL // 2, MARGIN + row * CELL + CELL // 2
        colour = SEAT_COLOURS[ply % 2]
        if ply % 2 == 0:
            draw.line([(x - 35, y - 35), (x + 35, y + 35)], fill=colour, width=8)
            draw.line([(x - 35, y + 35), (x + 35, y - 35)], fill=colour, width=8)
        else:
            draw.ellipse([(x - 38, y - 38), (x + 38, y + 38)], outline=colour, width=8)
    draw.text((MARGIN, size), " vs ".join(names)[:40], fill=INK, font=font(20))
    return to_png(image)
