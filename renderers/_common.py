"""Shared drawing helpers for the board renderers: palette, fonts, PNG encoding, status panel.

Every renderer draws on an RGB :class:`PIL.Image.Image` and returns PNG bytes through :func:`to_png`.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from games import GAMES, Outcome, Termination

# Seat colours (seat 0, seat 1), the highlight for the last move, and neutral tones.
SEAT_COLOURS: tuple[tuple[int, int, int], ...] = ((214, 69, 65), (52, 101, 164))
SEAT_LIGHT: tuple[tuple[int, int, int], ...] = ((246, 205, 203), (200, 216, 238))
HIGHLIGHT = (245, 180, 20)
BACKGROUND = (250, 248, 242)
INK = (40, 40, 40)
MUTED = (140, 140, 140)
GRID = (215, 212, 204)
DEAD = (120, 120, 120)


SYSTEM_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",  # Debian/Ubuntu: fonts-dejavu-core
    "/usr/share/fonts/dejavu/DejaVuSansCondensed.ttf",  # Fedora, Arch
    "/usr/share/fonts/TTF/DejaVuSansCondensed.ttf",
)
"""DejaVu Sans, where the system has it: unlike Pillow's bundled font it covers Greek, Cyrillic, arrows and
accented letters, so player names in those scripts are drawn instead of as boxes."""


@functools.lru_cache(maxsize=16)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Return the board font at ``size`` pixels (cached): DejaVu Sans if installed, else Pillow's bundled font."""
    for path in SYSTEM_FONTS:
        try:
            return ImageFont.truetype(path, size=size)
        except OSError:
            continue
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


def blend(ink: tuple[int, int, int], ground: tuple[int, int, int], weight: float) -> tuple[int, int, int]:
    """``ink`` laid over ``ground`` with opacity ``weight`` (0–1), rounded to whole RGB values."""
    return (round(ink[0] * weight + ground[0] * (1 - weight)), round(ink[1] * weight + ground[1] * (1 - weight)),
            round(ink[2] * weight + ground[2] * (1 - weight)))


def fixed_palette(inks: Sequence[tuple[int, int, int]], grounds: Sequence[tuple[int, int, int]],
                  weights: Sequence[float]) -> Image.Image:
    """A ``P``-mode palette image holding every ink and ground and each ink blended over each ground at
    ``weights`` (the antialiased edges), at most 256 colours. Quantising a board to it without dithering keeps
    the board's colours exact and makes PNG encoding several times faster."""
    colours: list[tuple[int, int, int]] = []
    for colour in [*inks, *grounds]:
        if colour not in colours:
            colours.append(colour)
    for ink in inks:
        for ground in grounds:
            for weight in weights:
                mixed = blend(ink, ground, weight)
                if mixed not in colours:
                    colours.append(mixed)
    palette = Image.new("P", (1, 1))
    flat = [value for colour in colours[:256] for value in colour]
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def palette_png(image: Image.Image, palette: Image.Image) -> bytes:
    """Quantise ``image`` to ``palette`` (no dithering) and encode it as PNG bytes."""
    return to_png(image.quantize(palette=palette, dither=Image.Dither.NONE))


@functools.lru_cache(maxsize=4096)
def text_mask(text: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an antialiased ``L`` mask, with its offset from the anchor point (cached: labels
    repeat on every board)."""
    face = font(size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=face, anchor=anchor)
    return mask, left, top


def draw_text(image: Image.Image, xy: tuple[float, float], text: str, size: int, fill: tuple[int, int, int],
              anchor: str = "la") -> None:
    """Draw ``text`` at ``xy`` (pixels, Pillow anchor semantics) from the cached mask."""
    mask, left, top = text_mask(text, size, anchor)
    image.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)


def text_width(text: str, size: int) -> float:
    """Advance width in pixels of ``text`` at font ``size`` (``font(size).getlength``: the one measure every
    renderer uses)."""
    return float(font(size).getlength(text))


ELLIPSIS = "…"


def fit_text(text: str, size: int, width: float, *, min_size: int | None = None, suffix: str = "") -> tuple[str, int]:
    """Fit ``text + suffix`` into ``width`` pixels: the one text-fitting rule of every board.

    The font shrinks a pixel at a time from ``size`` down to ``min_size`` (default: it does not shrink); if the
    text is still too wide, ``text`` is cut and ends with an ellipsis, ``suffix`` (such as ``": 12"``) kept whole.

    Returns:
        ``(the text to draw, the font size in pixels)``.
    """
    smallest = size if min_size is None else min(min_size, size)
    while size > smallest and text_width(text + suffix, size) > width:
        size -= 1
    if text_width(text + suffix, size) <= width:
        return text + suffix, size
    while text and text_width(text + ELLIPSIS + suffix, size) > width:
        text = text[:-1]
    return text + ELLIPSIS + suffix, size


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


def outcome_text(game: str, names: Sequence[str], outcome: Outcome) -> str:
    """Return a one-line description of ``outcome`` of a match of ``game`` (a registry key), with why it ended as
    the game describes it (:meth:`games.Game.describe_end`): ``"alice wins: both hands are dead"``,
    ``"Draw: third repetition"``, ``"Finished: the sticks form a Gröbner basis in 5 turns"`` (solitaire),
    ``"Aborted"``."""
    if outcome.termination is Termination.ABORTED:
        return "Aborted"
    reason = GAMES[game].describe_end(outcome)
    if outcome.draw:
        return f"Draw: {reason}"
    if outcome.winner is None or not 0 <= outcome.winner < len(names):
        return f"Finished: {reason}"
    return f"{names[outcome.winner]} wins: {reason}"
