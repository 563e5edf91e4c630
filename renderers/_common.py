"""Shared drawing helpers for the board renderers: palette, fonts, text, names, PNG encoding, status lines.

Every renderer draws on an RGB :class:`PIL.Image.Image`, writes every text through :func:`draw_text` (cached
masks, recorded for the legibility tests by :func:`recording`), maps the board onto its fixed palette with
:func:`to_palette` (its ``draw_board``, which replays take frame by frame) and encodes that with :func:`to_png`
(its ``render``).

Legibility: Discord shows a board about :data:`DISPLAY_WIDTH` (400) pixels wide on a phone. No text may then be
smaller than :data:`MIN_TEXT_AT_DISPLAY` (11) pixels, so a board ``width`` pixels wide draws no font smaller
than :func:`min_text_px` ``(width)`` = ``ceil(11 * width / 400)`` (20 px on a 720-px board).
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from games import GAMES, Outcome

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


DISPLAY_WIDTH = 400
"""Width in pixels at which Discord shows a board on a phone."""
MIN_TEXT_AT_DISPLAY = 11
"""Smallest font size in pixels any board text may have when the board is shown :data:`DISPLAY_WIDTH` wide."""


def min_text_px(width: int) -> int:
    """The smallest font size in pixels allowed on a board ``width`` pixels wide (11 px once shown 400 px wide)."""
    return math.ceil(MIN_TEXT_AT_DISPLAY * width / DISPLAY_WIDTH)


PNG_COMPRESS_LEVEL = 5
"""zlib level of every board PNG: the fastest level that keeps the largest board of every game under 30 KB.
Measured on those five palette boards (600-720 px, Pillow's zlib-ng, best of 15): level 5 encodes in 1.6-2.0 ms
to 18-28 KB; level 4 saves 0.2-0.4 ms but Gröbner Nim's grows to 31 KB; level 3 saves 0.4-0.6 ms for 10-15% more
bytes (30-31 KB); level 1 takes 0.9-1.1 ms for 24-36 KB; level 6 costs 0.6-1.3 ms more for 5% fewer; zlib's
run-length strategy takes 0.9 ms at any level but 30-45% more bytes. Over the positions of 21 whole matches of every
game and variant the largest boards at level 5 are 21-30 KB, at level 3 24-34 KB: no game has room for a faster
level of its own."""


def to_png(image: Image.Image) -> bytes:
    """Encode ``image`` as PNG bytes at :data:`PNG_COMPRESS_LEVEL` (pass a palette image: see
    :func:`to_palette`)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=PNG_COMPRESS_LEVEL)
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


def to_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` (RGB) mapped onto ``palette`` (a :func:`fixed_palette`) without dithering: a ``P`` image whose
    pixels are exactly the palette's colours, the board every renderer's ``draw_board`` returns."""
    return image.quantize(palette=palette, dither=Image.Dither.NONE)



@functools.lru_cache(maxsize=4096)
def text_mask(text: str, size: int, anchor: str, stroke: int = 0) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an antialiased ``L`` mask (with ``stroke`` pixels of outline when given), with
    its offset from the anchor point (cached: labels repeat on every board)."""
    face = font(size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor, stroke_width=stroke))
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=face, anchor=anchor, stroke_width=stroke,
                              stroke_fill=255)
    return mask, left, top


@dataclass(frozen=True, slots=True)
class DrawnText:
    """One text a board drew: the text, its font size in pixels, its box ``(left, top, right, bottom)`` in
    pixels and the board's ``(width, height)``."""

    text: str
    size: int
    box: tuple[int, int, int, int]
    canvas: tuple[int, int]


_recorders: list[list[DrawnText]] = []


@contextlib.contextmanager
def recording() -> Iterator[list[DrawnText]]:
    """Collect every text :func:`draw_text` draws inside the ``with`` block (for tests of legibility and of
    what a board says)."""
    texts: list[DrawnText] = []
    _recorders.append(texts)
    try:
        yield texts
    finally:
        _recorders.remove(texts)


def draw_text(image: Image.Image, xy: tuple[float, float], text: str, size: int, fill: tuple[int, int, int],
              anchor: str = "la", *, stroke: int = 0, stroke_fill: tuple[int, int, int] | None = None) -> None:
    """Draw ``text`` at ``xy`` (pixels, Pillow anchor semantics) from the cached mask: the one way boards write.

    With ``stroke`` > 0 the text is first outlined ``stroke`` pixels wide in ``stroke_fill`` (a halo that keeps
    it readable over lines).
    """
    mask, left, top = text_mask(text, size, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    if stroke and stroke_fill is not None:
        halo, halo_left, halo_top = text_mask(text, size, anchor, stroke)
        image.paste(stroke_fill, (round(xy[0]) + halo_left, round(xy[1]) + halo_top), halo)
    image.paste(fill, (x, y), mask)
    for texts in _recorders:
        texts.append(DrawnText(text, size, (x, y, x + mask.width, y + mask.height), image.size))


@functools.lru_cache(maxsize=8192)
def text_width(text: str, size: int) -> float:
    """Advance width in pixels of ``text`` at font ``size`` (``font(size).getlength``: the one measure every
    renderer uses; cached)."""
    return float(font(size).getlength(text))


ELLIPSIS = "…"
_SPACES = re.compile(r"\s+")


def clean_name(name: str) -> str:
    """``name`` safe to draw on one line: every control, separator or format character (``\\n``, ``\\r``,
    ``\\x1c``, ``\\x85``, ``\\u2029``, zero-width and direction marks) and every run of spaces becomes one space;
    an empty result becomes ``"?"``."""
    spaced = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") else ch
                     for ch in name)
    return _SPACES.sub(" ", spaced).strip() or "?"


@functools.lru_cache(maxsize=2048)
def short_name(name: str, size: int, width: float, *, suffix: str = "") -> str:
    """``name`` (cleaned by :func:`clean_name`) with ``suffix`` in at most ``width`` pixels at font ``size``.

    A name too long first loses a parenthesised ending (``"Computer 2 (medium)"`` -> ``"Computer 2"``), then its
    last characters before an ellipsis, never below its first word's first letters.
    """
    name = clean_name(name)
    if text_width(name + suffix, size) <= width:
        return name + suffix
    bare = re.sub(r"\s*\([^()]*\)$", "", name).strip() or name
    return fit_text(bare, size, width, suffix=suffix)[0]


def wrap_text(text: str, size: int, width: float) -> list[str]:
    """``text`` broken after spaces or hyphens into lines of at most ``width`` pixels at font ``size``; a word too
    long for a line is cut to fit (:func:`fit_text`). The one wrapping rule of every board."""
    lines: list[str] = []
    line = ""
    for word in re.findall(r"[^ -]+-?|\s+", text):
        trial = line + word
        if line.strip() and text_width(trial.rstrip(), size) > width:
            lines.append(line.rstrip())
            line = word.lstrip()
        else:
            line = trial
    if line.strip():
        lines.append(line.rstrip())
    return [fit_text(part, size, width)[0] for part in lines or [""]]


@functools.lru_cache(maxsize=2048)
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
    """Return the result line of ``outcome`` of a match of ``game`` (a registry key): :meth:`games.Outcome.result`
    with why it ended as the game describes it (:meth:`games.Game.describe_end`), e.g. ``"Ann wins: both hands are
    dead"``, ``"Bob resigned: Ann wins"``, ``"Draw agreed"``."""
    return outcome.result(names, GAMES[game].describe_end(outcome))


def ended(state_outcome: Outcome | None, outcome: Outcome | None) -> Outcome | None:
    """The outcome a board shows: ``outcome`` (a match ended by a player's action: resigned, out of time, draw
    agreed, aborted) when given, else the state's own."""
    return outcome if outcome is not None else state_outcome


def move_count(ply: int) -> str:
    """The board's word for how far a match is, the same as the bot's texts: ``"move 12"`` (moves played)."""
    return f"move {ply}"
