"""Shared drawing helpers for the board renderers: palette, fonts, PNG encoding, status panel.

Every renderer draws on an RGB :class:`PIL.Image.Image` and returns PNG bytes through :func:`to_png`.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

# Seat colours (seat 0, seat 1), the highlight for the last move, and neutral tones.
SEAT_COLOURS: tuple[tuple[int, int, int], ...] = ((214, 69, 65), (52, 101, 164))
SEAT_LIGHT: tuple[tuple[int, int, int], ...] = ((246, 205, 203), (200, 216, 238))
HIGHLIGHT = (245, 180, 20)
BACKGROUND = (250, 248, 242)
INK = (40, 40, 40)
MUTED = (140, 140, 140)
GRID = (215, 212, 204)
DEAD = (120, 120, 120)


@functools.lru_cache(maxsize=16)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Return Pillow's bundled scalable font at ``size`` pixels (cached)."""
    return ImageFont.load_default(size=size)


def new_canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """Return a blank RGB canvas of ``width`` x ``height`` pixels and a drawing context for it."""
    image = Image.new("RGB", (width, height), BACKGROUND)
    return image, ImageDraw.Draw(image)


def to_png(image: Image.Image) -> bytes:
    """Encode ``image`` as PNG bytes (renderers quantise to a palette first where that keeps boards small)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


def text_width(draw: ImageDraw.ImageDraw, text: str, size: int) -> int:
    """Width in pixels of ``text`` at font ``size``."""
    left, _, right, _ = draw.textbbox((0, 0), text, font=font(size))
    return int(right - left)


def status_lines(
    names: Sequence[str],
    current_seat: int | None,
    scores: Sequence[int] | None,
    outcome_text: str | None,
) -> list[tuple[str, tuple[int, int, int]]]:
    """Return the lines of the usual status panel with their colours.

    Args:
        names: display name per seat.
        current_seat: seat to move, or ``None`` when over.
        scores: running score per seat, or ``None``.
        outcome_text: e.g. ``"alice wins: both hands dead"`` once the game is over.
    """
    lines: list[tuple[str, tuple[int, int, int]]] = []
    for seat, name in enumerate(names):
        label = name if scores is None else f"{name}: {scores[seat]}"
        lines.append((label, SEAT_COLOURS[seat % len(SEAT_COLOURS)]))
    if outcome_text:
        lines.append((outcome_text, INK))
    elif current_seat is not None and current_seat < len(names):
        lines.append((f"{names[current_seat]} to move", INK))
    return lines


def outcome_text(names: Sequence[str], winner: int | None, draw: bool, reason: str) -> str:
    """Return a one-line description of an outcome, e.g. ``"alice wins (both hands dead)"``."""
    if draw:
        return f"Draw ({reason})"
    if winner is None:
        return f"Finished ({reason})"
    return f"{names[winner]} wins ({reason})"
