"""Shared drawing helpers for the board renderers: palette, fonts, text, names, PNG encoding, status lines.

Every renderer draws on an RGB :class:`PIL.Image.Image`, writes every text through :func:`draw_text` (cached
masks, recorded for the legibility tests by :func:`recording`), maps the board onto its fixed palette with
:func:`to_palette` (its ``draw_board``, which replays take frame by frame) and encodes that with :func:`to_png`
(its ``render``).

Legibility: Discord shows a board about :data:`DISPLAY_WIDTH` (400) pixels wide on a phone. No text may then be
smaller than :data:`MIN_TEXT_AT_DISPLAY` (13) pixels, so a board ``width`` pixels wide draws no font smaller
than :func:`min_text_px` ``(width)`` = ``ceil(13 * width / 400)`` (24 px on a 720-px board). Names are never cut:
:func:`wrap_text` breaks them over lines (between words, or inside a word too long for a line). Labels on a board
(dot names, stick numbers) are placed by a :class:`Placer`, which keeps them off each other and off the points it is
told of; :func:`recording` and :func:`recording_points` let the tests see every text and point drawn.

Colour: the two seats' colours (:data:`SEAT_COLOURS`, :data:`SEAT_LIGHT`) stay at least ΔE 20 (CIEDE2000) apart for
normal vision and under simulated protanopia, deuteranopia and tritanopia (``tests/renderers/test_palette.py``
prints the table), and no board tells the seats apart by colour alone: seat 0's things are solid (a filled disc, a
solid face, ×), seat 1's hollow or hatched (a ring, a hatched face, ○), and every name carries its seat's mark
(:func:`draw_seat_mark`). Every board is framed by :func:`finish` in :data:`BORDER`, a grey at least 3:1 (WCAG)
against both Discord themes' chat backgrounds, so a light board never melts into the light theme.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image, ImageDraw, ImageFont

from games import GAMES, Outcome, State, Termination
from i18n import gettext, spoken

# Seat colours (seat 0, seat 1), the highlight for the last move, and neutral tones.
SEAT_COLOURS: tuple[tuple[int, int, int], ...] = ((190, 70, 20), (30, 100, 180))
"""Seat 0's burnt orange and seat 1's blue (the colour-blind-safe orange-blue pair): at least ΔE 37 apart for normal
vision and every simulated dichromacy, and at least 4.5:1 (WCAG) against :data:`BACKGROUND` for text."""
SEAT_LIGHT: tuple[tuple[int, int, int], ...] = ((229, 181, 161), (210, 224, 240))
"""The seats' light tints (faces, coins, hands, the panel of the seat to move): 40 % and 20 % of each seat colour
over white, which keeps them ΔE 21 apart under every simulation (equal tints of the two would not be)."""
HIGHLIGHT = (245, 180, 20)
"""The last move's amber, always drawn with an :data:`INK` edge or as a shape of its own (a frame, a ring, a halo),
so that it shows where a simulated dichromacy brings it near a light tint."""
BACKGROUND = (250, 248, 242)
INK = (40, 40, 40)
MUTED = (140, 140, 140)
GRID = (215, 212, 204)
DEAD = (120, 120, 120)
BORDER = (136, 134, 130)
"""The frame of every board: 3.6:1 against Discord's light chat background (#FFFFFF) and 3.5:1 against its dark one
(#313338), so that a board never melts into either theme."""


SYSTEM_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",  # Debian/Ubuntu: fonts-dejavu-core
    "/usr/share/fonts/dejavu/DejaVuSansCondensed.ttf",  # Fedora, Arch
    "/usr/share/fonts/TTF/DejaVuSansCondensed.ttf",
)
"""DejaVu Sans, where the system has it: unlike Pillow's bundled font it covers Greek, Cyrillic, arrows and
accented letters, so player names in those scripts are drawn instead of as boxes."""


T = TypeVar("T")


def language_cache(maxsize: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """``functools.lru_cache`` for a layout that measures texts: one entry per language being spoken
    (:func:`i18n.speaking`) and arguments, since the same names take other lines in another language."""
    def wrap(function: Callable[..., T]) -> Callable[..., T]:
        @functools.lru_cache(maxsize=maxsize)
        def cached(language: str, *args: Any) -> T:
            return function(*args)

        @functools.wraps(function)
        def call(*args: Any) -> T:
            return cached(spoken(), *args)

        return call

    return wrap


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
MIN_TEXT_AT_DISPLAY = 13
"""Smallest font size in pixels any board text may have when the board is shown :data:`DISPLAY_WIDTH` wide (the
12-14 px that phone interface guidelines take as the smallest body text)."""


def min_text_px(width: int) -> int:
    """The smallest font size in pixels allowed on a board ``width`` pixels wide (13 px once shown 400 px wide)."""
    return math.ceil(MIN_TEXT_AT_DISPLAY * width / DISPLAY_WIDTH)


PNG_COMPRESS_LEVEL = 3
"""zlib compression level (0-9) of a board PNG unless its renderer names another: the fastest level at which the
largest board of Chopsticks, the Grid Game, Polygons and Gröbner Nim stays within 30 KB, the size the render benchmark
holds every board to (``bench/bench_boards.py``, with the render time). Pillow's zlib-ng spends about half of level
5's time at level 3, for about a fifth more bytes."""


def to_png(image: Image.Image, level: int = PNG_COMPRESS_LEVEL) -> bytes:
    """Encode ``image`` as PNG bytes at zlib ``level`` (pass a palette image: see :func:`to_palette`)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=level)
    return buffer.getvalue()


def blend(ink: tuple[int, int, int], ground: tuple[int, int, int], weight: float) -> tuple[int, int, int]:
    """``ink`` laid over ``ground`` with opacity ``weight`` (0–1), rounded to whole RGB values."""
    return (round(ink[0] * weight + ground[0] * (1 - weight)), round(ink[1] * weight + ground[1] * (1 - weight)),
            round(ink[2] * weight + ground[2] * (1 - weight)))


TEXT_COVERAGE = (0.25, 0.5, 0.75)
"""The partial coverages an antialiased text edge may have (with 0 and 1): :func:`text_mask` rounds every mask to
them and :func:`fixed_palette` holds each ink over each ground at them, so a board's text maps onto its palette
exactly. Five levels read as smooth as FreeType's 256 at the boards' sizes (24 px and up at full size) and keep the
text's edges as few distinct bytes, which is most of what a board's PNG holds."""


def fixed_palette(inks: Sequence[tuple[int, int, int]], grounds: Sequence[tuple[int, int, int]],
                  flat: Sequence[tuple[int, int, int]] = ()) -> Image.Image:
    """A ``P``-mode palette image holding every ink, ground and ``flat`` colour and each ink (a colour text is
    written in) blended over each ground (a colour text is written on) at :data:`TEXT_COVERAGE`, the antialiased
    text edges: at most 256 colours. ``flat`` colours are those only drawn solid (lines, shapes: Pillow draws them
    without antialiasing). A board drawn in these colours maps onto the palette exactly.

    Raises:
        ValueError: the colours do not fit in 256 entries.
    """
    colours: list[tuple[int, int, int]] = []
    for colour in [*inks, *grounds, *flat, BORDER]:
        if colour not in colours:
            colours.append(colour)
    for ink in inks:
        for ground in grounds:
            for weight in TEXT_COVERAGE:
                mixed = blend(ink, ground, weight)
                if mixed not in colours:
                    colours.append(mixed)
    if len(colours) > 256:
        raise ValueError(f"A board palette holds at most 256 colours, not {len(colours)}.")
    palette = Image.new("P", (1, 1))
    palette.putpalette([value for colour in colours for value in colour])
    return palette


def to_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` (RGB) mapped onto ``palette`` (a :func:`fixed_palette`) without dithering: a ``P`` image whose
    pixels are exactly the palette's colours."""
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def border_px(width: int) -> int:
    """The frame's width in pixels on a board ``width`` pixels wide: 2 px once shown 400 px wide."""
    return math.ceil(2 * width / DISPLAY_WIDTH)


def finish(image: Image.Image, palette: Image.Image) -> Image.Image:
    """Frame ``image`` (RGB) in :data:`BORDER` (:func:`border_px` wide, over its outermost pixels) and map it onto
    ``palette`` (:func:`to_palette`): the board every renderer's ``draw_board`` returns."""
    ImageDraw.Draw(image).rectangle((0, 0, image.width - 1, image.height - 1), outline=BORDER,
                                    width=border_px(image.width))
    return to_palette(image, palette)



@functools.lru_cache(maxsize=4096)
def text_mask(text: str, size: int, anchor: str, stroke: int = 0) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an antialiased ``L`` mask (with ``stroke`` pixels of outline when given), its
    coverage rounded to :data:`TEXT_COVERAGE`, with its offset from the anchor point (cached: labels repeat on every
    board)."""
    face = font(size)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor, stroke_width=stroke))
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=face, anchor=anchor, stroke_width=stroke,
                              stroke_fill=255)
    return mask.point(_COVERAGE_LUT), left, top


_COVERAGE_LEVELS = (0.0, *TEXT_COVERAGE, 1.0)
_COVERAGE_LUT = [round(255 * min(_COVERAGE_LEVELS, key=lambda level: abs(level - value / 255))) for value in range(256)]
"""Each 0-255 coverage rounded to the nearest of :data:`TEXT_COVERAGE`, 0 and 1 (a lookup table for ``point``)."""


Box = tuple[int, int, int, int]
"""A pixel box ``(left, top, right, bottom)``, right and bottom exclusive."""


@dataclass(frozen=True, slots=True)
class DrawnText:
    """One text a board drew: the text, its font size in pixels, its box ``(left, top, right, bottom)`` in
    pixels and the board's ``(width, height)``; ``plate`` is the box of the tag it sits on, if any (a stick's
    number), which is what must stay clear of other labels."""

    text: str
    size: int
    box: Box
    canvas: tuple[int, int]
    plate: Box | None = None

    @property
    def extent(self) -> Box:
        """The box the label takes: its plate, or the text itself."""
        return self.plate or self.box


@dataclass(frozen=True, slots=True)
class DrawnPoint:
    """A point a board drew that labels must leave visible (a dot, a stick's end): centre and radius in pixels."""

    x: float
    y: float
    radius: float


_recorders: list[list[DrawnText]] = []
_point_recorders: list[list[DrawnPoint]] = []


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


@contextlib.contextmanager
def recording_points() -> Iterator[list[DrawnPoint]]:
    """Collect every point the boards declare with :func:`declare_point` inside the ``with`` block."""
    points: list[DrawnPoint] = []
    _point_recorders.append(points)
    try:
        yield points
    finally:
        _point_recorders.remove(points)


def declare_point(x: float, y: float, radius: float) -> None:
    """Tell the recorders (:func:`recording_points`) of a point drawn at ``(x, y)`` with ``radius`` pixels."""
    for points in _point_recorders:
        points.append(DrawnPoint(x, y, radius))


def draw_text(image: Image.Image, xy: tuple[float, float], text: str, size: int, fill: tuple[int, int, int],
              anchor: str = "la", *, stroke: int = 0, stroke_fill: tuple[int, int, int] | None = None,
              plate: Box | None = None) -> None:
    """Draw ``text`` at ``xy`` (pixels, Pillow anchor semantics) from the cached mask: the one way boards write.

    With ``stroke`` > 0 the text is first outlined ``stroke`` pixels wide in ``stroke_fill`` (a halo that keeps
    it readable over lines). ``plate`` is the box of the tag the text sits on, for the recorders.
    """
    mask, left, top = text_mask(text, size, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    if stroke and stroke_fill is not None:
        halo, halo_left, halo_top = text_mask(text, size, anchor, stroke)
        image.paste(stroke_fill, (round(xy[0]) + halo_left, round(xy[1]) + halo_top), halo)
    image.paste(fill, (x, y), mask)
    for texts in _recorders:
        texts.append(DrawnText(text, size, (x, y, x + mask.width, y + mask.height), image.size, plate))


def text_box(text: str, size: int, xy: tuple[float, float], anchor: str = "la") -> Box:
    """The box :func:`draw_text` would record for ``text`` at ``xy`` (without drawing it)."""
    mask, left, top = text_mask(text, size, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    return x, y, x + mask.width, y + mask.height


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


def _break_word(word: str, size: int, width: float) -> list[str]:
    """``word`` broken into pieces of at most ``width`` pixels (at least one character each)."""
    pieces: list[str] = []
    piece = ""
    for ch in word:
        if piece and text_width(piece + ch, size) > width:
            pieces.append(piece)
            piece = ""
        piece += ch
    return [*pieces, piece] if piece else pieces


@functools.lru_cache(maxsize=4096)
def _wrapped(text: str, size: int, width: float) -> tuple[str, ...]:
    lines: list[str] = []
    line = ""
    for word in re.findall(r"[^ -]+-?|\s+", text):
        trial = line + word
        if text_width(trial.rstrip(), size) <= width:
            line = trial
            continue
        if line.strip():
            lines.append(line.rstrip())
        line = word.lstrip()
        if text_width(line.rstrip(), size) > width:  # a word longer than a line: broken inside
            *whole, line = _break_word(line, size, width)
            lines.extend(whole)
    if line.strip():
        lines.append(line.rstrip())
    return tuple(lines) or ("",)


def wrap_text(text: str, size: int, width: float) -> list[str]:
    """``text`` broken after spaces or hyphens into lines of at most ``width`` pixels at font ``size``; a word too
    long for a line is broken inside, so that nothing is ever cut (names included). The one wrapping rule of every
    board (cached)."""
    return list(_wrapped(text, size, width))


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


def outcome_text(game: str, names: Sequence[str], outcome: Outcome) -> str:
    """Return the result line of ``outcome`` of a match of ``game`` (a registry key): :meth:`games.Outcome.result`
    with why it ended as the game describes it (:meth:`games.Game.describe_end`), e.g. ``"Ann wins: both hands are
    dead"``, ``"Bob resigned: Ann wins"``, ``"Draw agreed"``."""
    return outcome.result(names, GAMES[game].describe_end(outcome))


def ended(state_outcome: Outcome | None, outcome: Outcome | None) -> Outcome | None:
    """The outcome a board shows: ``outcome`` (a match ended by a player's action: resigned, out of time, draw
    agreed, aborted) when given, else the state's own."""
    return outcome if outcome is not None else state_outcome


def status_line(state: State[Any], names: Sequence[str], outcome: Outcome | None = None) -> str:
    """A board's status line: whose move it is (``"Ann to move"``), or the result (:func:`outcome_text` of
    ``outcome`` when given, else of the state's own), with the names whole (the board wraps the line). A game whose
    line says more (Chopsticks' repetition warning, Gröbner Nim's par) builds on this one."""
    shown = ended(state.outcome, outcome)
    if shown is not None:
        return outcome_text(state.game, names, shown)
    return gettext("{name} to move").format(name=names[state.current_seat or 0])


def move_count(ply: int) -> str:
    """The board's word for how far a match is, the same as the bot's texts: ``"move 12"`` (moves played)."""
    return gettext("move {ply}").format(ply=ply)


def status_texts(game: str, names: Sequence[str]) -> list[str]:
    """Every status line a board of ``game`` with these ``names`` may show: each seat to move and every result
    (:func:`outcome_text` of each way a match can end). A panel reserves the lines the longest of them needs, so that
    every board of a match (every frame of its replay) has the same size."""
    texts = [gettext("{name} to move").format(name=name) for name in names]
    seats = range(len(names))
    outcomes = [Outcome(None, True, None, Termination.REPETITION), Outcome(None, True, None, Termination.MOVE_LIMIT),
                Outcome(None, True, None, Termination.NATURAL), Outcome(None, True, None, Termination.DRAW_AGREED),
                Outcome(None, False, None, Termination.ABORTED), Outcome(None, False, None, Termination.NATURAL)]
    for seat in seats:
        other = None if len(names) == 1 else 1 - seat
        outcomes += [Outcome(seat, False, None, Termination.NATURAL),
                     Outcome(other, False, None, Termination.RESIGNED, loser=seat),
                     Outcome(other, False, None, Termination.OUT_OF_TIME, loser=seat)]
    texts += [outcome_text(game, names, outcome) for outcome in outcomes]
    return texts


def lines_needed(texts: Sequence[str], size: int, width: float) -> int:
    """The most lines any of ``texts`` takes when wrapped (:func:`wrap_text`) at font ``size`` into ``width``."""
    return max((len(wrap_text(text, size, width)) for text in texts), default=1)


def draw_seat_mark(draw: ImageDraw.ImageDraw, seat: int, centre: tuple[float, float], radius: float,
                   style: str = "disc") -> None:
    """Draw ``seat``'s mark, the shape that tells the seats apart without colour: ``style`` ``"disc"`` draws seat 0 a
    filled disc and seat 1 a ring; ``"cross"`` draws seat 0 a × and seat 1 a ○ (the Grid Game's marks); both in the
    seat's colour, ``radius`` pixels from ``centre``."""
    x, y = centre
    colour = SEAT_COLOURS[seat % 2]
    width = max(2, round(radius / 2.6))
    if style == "cross" and seat % 2 == 0:
        arm = radius * 0.85
        draw.line((x - arm, y - arm, x + arm, y + arm), fill=colour, width=width)
        draw.line((x - arm, y + arm, x + arm, y - arm), fill=colour, width=width)
    elif seat % 2 == 0:
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)
    else:
        inner = SEAT_LIGHT[1] if style == "disc" else BACKGROUND
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=inner, outline=colour, width=width)


def draw_seat_label(image: Image.Image, seat: int, xy: tuple[float, float], text: str, size: int, width: float,
                    line: int, *, style: str = "disc", colour: tuple[int, int, int] | None = None,
                    score: str | None = None) -> int:
    """Draw ``text`` (a name, say) in ``seat``'s colour after the seat's mark (:func:`draw_seat_mark`), wrapped into
    ``width`` pixels at font ``size`` with ``line`` pixels a line, and ``score``, when given, right-aligned on the
    last line (on a line of its own when the last line has no room for it).

    Returns:
        The y below the last line.
    """
    x, y = xy
    ink = colour or SEAT_COLOURS[seat % 2]
    indent = round(size * 1.05)
    draw_seat_mark(ImageDraw.Draw(image), seat, (x + size * 0.42, y + size * 0.55), size * 0.36, style)
    parts = wrap_text(text, size, width - indent)
    for part in parts:
        draw_text(image, (x + indent, y), part, size, ink)
        y += line
    if score is not None:
        if text_width(parts[-1], size) + text_width(score, size) + size * 0.5 <= width - indent:
            y -= line
        draw_text(image, (x + width, y), score, size, ink, "ra")
        y += line
    return round(y)


def seat_label_lines(text: str, size: int, width: float, score: str | None = None) -> int:
    """How many lines :func:`draw_seat_label` takes for ``text`` (and ``score``) in ``width`` pixels."""
    room = width - round(size * 1.05)
    parts = wrap_text(text, size, room)
    extra = score is not None and text_width(parts[-1], size) + text_width(score, size) + size * 0.5 > room
    return len(parts) + int(extra)


class Placer:
    """Places labels on a board so that none covers another or a point: each label takes the first free spot of
    the candidates it is offered (Pillow leaves layout to us; this is the one rule every board follows).

    What is placed is kept in buckets of :data:`_BUCKET` pixels, so that a test looks only at its neighbours.

    Args:
        bounds: the box labels must stay inside.
        gap: pixels kept between any two labels, and between a label and a point's edge.
    """

    def __init__(self, bounds: Box, gap: int = 1) -> None:
        self.bounds = bounds
        self.gap = gap
        self.boxes: list[Box] = []
        self.points: list[tuple[float, float, float]] = []
        self._box_buckets: dict[tuple[int, int], list[Box]] = {}
        self._point_buckets: dict[tuple[int, int], list[tuple[float, float, float]]] = {}

    def block(self, box: Box) -> None:
        """Keep labels off ``box`` (a label already drawn, a legend)."""
        self.boxes.append(box)
        for bx in range(box[0] // _BUCKET, box[2] // _BUCKET + 1):
            for by in range(box[1] // _BUCKET, box[3] // _BUCKET + 1):
                self._box_buckets.setdefault((bx, by), []).append(box)

    def block_point(self, x: float, y: float, radius: float) -> None:
        """Keep labels off the disc of ``radius`` pixels around ``(x, y)``."""
        point = (x, y, radius)
        self.points.append(point)
        for bx in range(math.floor(x - radius) // _BUCKET, math.ceil(x + radius) // _BUCKET + 1):
            for by in range(math.floor(y - radius) // _BUCKET, math.ceil(y + radius) // _BUCKET + 1):
                self._point_buckets.setdefault((bx, by), []).append(point)

    def free(self, box: Box) -> bool:
        """Whether ``box`` lies inside the bounds and clear of every label and point (with the gap)."""
        left, top, right, bottom = box
        b_left, b_top, b_right, b_bottom = self.bounds
        if left < b_left or top < b_top or right > b_right or bottom > b_bottom:
            return False
        gap = self.gap
        boxes, points = self._box_buckets, self._point_buckets
        for bx in range((left - gap) // _BUCKET, (right + gap) // _BUCKET + 1):
            for by in range((top - gap) // _BUCKET, (bottom + gap) // _BUCKET + 1):
                for o_left, o_top, o_right, o_bottom in boxes.get((bx, by), ()):
                    if left < o_right + gap and o_left < right + gap and top < o_bottom + gap and o_top < bottom + gap:
                        return False
                for x, y, radius in points.get((bx, by), ()):
                    dx = x - left if x < left else x - right if x > right else 0.0
                    dy = y - top if y < top else y - bottom if y > bottom else 0.0
                    reach = radius + gap
                    if dx * dx + dy * dy < reach * reach:
                        return False
        return True

    def place(self, width: float, height: float, centres: Iterable[tuple[float, float]]) -> Box | None:
        """The first of ``centres`` where a ``width`` x ``height`` box is :meth:`free`, taken (kept clear from then
        on); ``None`` when none is."""
        w, h = math.ceil(width), math.ceil(height)
        for cx, cy in centres:
            left, top = round(cx - width / 2), round(cy - height / 2)
            box = (left, top, left + w, top + h)
            if self.free(box):
                self.block(box)
                return box
        return None

    def nearest(self, width: float, height: float, x: float, y: float, step: int = 6) -> Box | None:
        """The free spot for a ``width`` x ``height`` box nearest to ``(x, y)`` anywhere inside the bounds (on a grid
        of ``step`` pixels), taken; ``None`` only when the bounds hold no free spot at all. For the rare label whose
        neighbourhood is full."""
        left, top, right, bottom = self.bounds
        spots = [(cx, cy) for cx in range(left + math.ceil(width / 2), right - math.ceil(width / 2) + 1, step)
                 for cy in range(top + math.ceil(height / 2), bottom - math.ceil(height / 2) + 1, step)]
        spots.sort(key=lambda spot: (spot[0] - x) ** 2 + (spot[1] - y) ** 2)
        return self.place(width, height, spots)


_BUCKET = 48
"""Side in pixels of the :class:`Placer`'s buckets."""


def around(x: float, y: float, reach: float, width: float, height: float, *, rings: int = 6,
           first: tuple[float, float] | None = None) -> Iterator[tuple[float, float]]:
    """Centres for a ``width`` x ``height`` label near the point ``(x, y)``: ``first`` (a direction, when given),
    then 16 directions at ``reach`` pixels from the point's centre to the label's edge, then farther out ring by ring
    (each ``height`` pixels farther), ``rings`` rings in all."""
    directions = [(math.cos(k * math.pi / 8), -math.sin(k * math.pi / 8)) for k in (1, 3, 7, 5, 0, 4, 2, 6,
                                                                                     15, 9, 13, 11, 14, 10, 12, 8)]
    if first is not None:
        length = math.hypot(*first) or 1.0
        directions.insert(0, (first[0] / length, first[1] / length))
    for ring in range(rings):
        distance = reach + ring * height
        for dx, dy in directions:
            # from the point's centre to the box's centre: the distance to its edge plus half the box along dx, dy
            yield x + dx * (distance + abs(dx) * width / 2), y + dy * (distance + abs(dy) * height / 2)
