"""Polygons & Dots board: the lattice, the dots and the path, faces by parity, scores beside the board; and its
alt text.

``render(state, names)`` returns a PNG :data:`WIDTH` pixels wide (450 tall, taller when long names need it). The
lattice's y axis points up. Dots are drawn in the colour of the seat that placed them, seat 0's as filled discs and
seat 1's as rings, each named (``A``, ``B``...) beside it where the label covers no other label or dot (a
:class:`renderers._common.Placer` places them); the panel names each player after the same mark. Segments are drawn
in ink (the closing segment in grey, dashed); the last move is highlighted in amber edged in ink and the path end
is ringed. Odd faces (seat 0's) are filled solid in seat 0's light colour and even faces (seat 1's) hatched over
seat 1's (paler while the path is still open, when the faces are provisional), with the side count written inside
when it fits clear of every other label.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from PIL import Image, ImageChops, ImageDraw

from games import Outcome
from games.polygons import Dot, Face, PolygonsState
from i18n import ngettext
from renderers._alt import ALT_TEXT_LIMIT, Listing, _, compose, names_for_alt, plural_forms, sentence
from renderers._common import (
    BACKGROUND,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    SEAT_LIGHT,
    Placer,
    around,
    blend,
    declare_point,
    draw_seat_label,
    draw_seat_mark,
    draw_text,
    ended,
    finish,
    fit_text,
    fixed_palette,
    language_cache,
    lines_needed,
    min_text_px,
    move_count,
    new_canvas,
    outcome_text,
    seat_label_lines,
    status_line,
    status_texts,
    text_box,
    text_width,
    to_png,
    wrap_text,
)

BOARD_PX = 320
"""Side of the lattice square in pixels."""
MARGIN = 34
"""Space around the lattice for the axis labels."""
PANEL_PX = 212
"""Width of the status panel right of the board."""
WIDTH = MARGIN * 2 + BOARD_PX + PANEL_PX
HEIGHT = MARGIN * 2 + BOARD_PX
"""The board's least height in pixels (long names make it taller)."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 20 px, 13.3 px once Discord shows it 400 px wide."""
DOT_RADIUS = 6
LABEL_SIZE = SMALL
COUNT_SIZE = SMALL
PANEL_SIZE = SMALL
_LINE = SMALL + 3
_TITLE = 22
_FACE_AMOUNT = 0.55
"""How strongly provisional faces (path still open) show their colour over the background."""
_HATCH_STEP = 6
"""Pixels between the hatch lines of even faces."""
_PANEL_LEFT = MARGIN * 2 + BOARD_PX - 8
_PANEL_ROOM = PANEL_PX - 12


def _blend(colour: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    """Mix ``colour`` with the background: ``amount`` 1 keeps the colour, 0 gives the background."""
    return blend(colour, BACKGROUND, amount)


def _hatch_ink(final: bool) -> tuple[int, int, int]:
    return _blend(SEAT_COLOURS[1], 0.7 if final else 0.45)


class _Frame:
    """Lattice-to-pixel mapping for one board size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.cell = BOARD_PX / size

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Pixel centre of lattice point ``(x, y)`` (y up)."""
        return MARGIN + x * self.cell, MARGIN + (self.size - y) * self.cell


def _palette() -> Image.Image:
    """Every colour of the board and blends of each ink over each ground (antialiased text; a face's count is
    haloed in the background colour)."""
    grounds = [BACKGROUND, *SEAT_LIGHT, *(_blend(light, _FACE_AMOUNT) for light in SEAT_LIGHT)]
    inks = [*SEAT_COLOURS, INK, MUTED, GRID, HIGHLIGHT, _hatch_ink(True), _hatch_ink(False), BACKGROUND]
    return fixed_palette(inks, grounds)


_PALETTE = _palette()


@functools.lru_cache(maxsize=2)
def _hatching(width: int, height: int) -> Image.Image:
    """An ``L`` mask of diagonal hatch lines over the whole board (255 on the lines)."""
    mask = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(mask)
    for start in range(-height, width, _HATCH_STEP):
        draw.line((start, height, start + height, 0), fill=255, width=2)
    return mask


def _draw_lattice(image: Image.Image, draw: ImageDraw.ImageDraw, frame: _Frame, placer: Placer) -> None:
    size = frame.size
    step = 1 if frame.cell >= 1.5 * SMALL else 5
    for k in range(size + 1):
        x0, y0 = frame.px(k, 0)
        x1, y1 = frame.px(k, size)
        draw.line([(x0, y0), (x1, y1)], fill=GRID, width=1)
        xa, ya = frame.px(0, k)
        xb, yb = frame.px(size, k)
        draw.line([(xa, ya), (xb, yb)], fill=GRID, width=1)
        if k % step == 0 or k == size:
            for xy, anchor in (((x0, y0 + 7), "mt"), ((xa - 7, ya), "rm")):
                box = text_box(str(k), SMALL, xy, anchor)
                if k % step and not placer.free(box):  # the lattice's end, too near the step before it
                    continue
                draw_text(image, xy, str(k), SMALL, MUTED, anchor)
                placer.block(box)


def _draw_blocked(draw: ImageDraw.ImageDraw, frame: _Frame, state: PolygonsState) -> None:
    """Mark with a small x every free lattice point where a dot may not go (in line with two dots)."""
    free = set(state.legal_points())
    taken = set(state.points)
    arm = max(2.0, min(4.0, frame.cell / 6))
    for y in range(state.size + 1):
        for x in range(state.size + 1):
            if (x, y) in free or (x, y) in taken:
                continue
            cx, cy = frame.px(x, y)
            draw.line([(cx - arm, cy - arm), (cx + arm, cy + arm)], fill=MUTED, width=1)
            draw.line([(cx - arm, cy + arm), (cx + arm, cy - arm)], fill=MUTED, width=1)


def _outlines(frame: _Frame, faces: Sequence[Face]) -> list[list[tuple[float, float]]]:
    """Each face's outline in pixels (the faces' exact lattice corners converted once per board)."""
    return [[frame.px(float(x), float(y)) for x, y in face.outline] for face in faces]


def _draw_faces(image: Image.Image, faces: Sequence[Face], outlines: Sequence[Sequence[tuple[float, float]]],
                final: bool) -> None:
    """Odd faces solid, even faces hatched over their light colour (the hatching through one mask of them all)."""
    draw = ImageDraw.Draw(image)
    amount = 1.0 if final else _FACE_AMOUNT
    even = Image.new("L", image.size, 0)
    even_draw = ImageDraw.Draw(even)
    any_even = False
    for face, outline in zip(faces, outlines, strict=True):
        draw.polygon(outline, fill=_blend(SEAT_LIGHT[0] if face.odd else SEAT_LIGHT[1], amount))
        if not face.odd:
            even_draw.polygon(outline, fill=255)
            any_even = True
    box = even.getbbox() if any_even else None
    if box is not None:  # the hatching through the even faces only, where there are any
        mask = ImageChops.multiply(even.crop(box), _hatching(*image.size).crop(box))
        image.paste(_hatch_ink(final), box[:2], mask)


def _draw_counts(image: Image.Image, faces: Sequence[Face], outlines: Sequence[Sequence[tuple[float, float]]],
                 placer: Placer) -> None:
    """Write each face's side count at the centre of its largest inscribed circle, when the text fits in it and
    covers no other label or dot.

    The faces large enough to hold their label go to shapely together: one call builds their polygons, one checks
    them, one finds every inscribed circle (a ring pinched at a crossing point is labelled in its largest part).
    """
    labelled: list[tuple[Face, float]] = []
    rings: list[Sequence[tuple[float, float]]] = []
    for face, outline in zip(faces, outlines, strict=True):
        half = max(text_width(str(face.sides), COUNT_SIZE), COUNT_SIZE) / 2 + 1
        edges = zip(outline, [*outline[1:], outline[0]], strict=True)
        area = abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in edges)) / 2
        if area >= (2 * half) ** 2:
            labelled.append((face, half))
            rings.append(outline)
    if not rings:
        return
    coords = np.array([point for outline in rings for point in outline], dtype=float)
    indices = np.repeat(np.arange(len(rings)), [len(outline) for outline in rings])
    polygons = shapely.polygons(shapely.linearrings(coords, indices=indices))
    kept: list[tuple[Face, float]] = []
    shapes: list[shapely.Polygon] = []
    for (face, half), polygon, valid in zip(labelled, polygons, shapely.is_valid(polygons), strict=True):
        if not valid:
            parts = [p for p in shapely.get_parts(shapely.make_valid(polygon)) if isinstance(p, shapely.Polygon)]
            if not parts:
                continue
            polygon = max(parts, key=lambda p: p.area)
        kept.append((face, half))
        shapes.append(polygon)
    if not shapes:
        return
    circles = shapely.maximum_inscribed_circle(shapes, tolerance=1.0)
    for (face, half), radius, centre in zip(kept, shapely.length(circles), shapely.get_point(circles, 0),
                                            strict=True):
        if radius < half * 1.2:
            continue
        text = str(face.sides)
        box = text_box(text, COUNT_SIZE, (centre.x, centre.y), "mm")
        if not placer.free(box):
            continue
        placer.block(box)
        colour = SEAT_COLOURS[0] if face.odd else SEAT_COLOURS[1]
        draw_text(image, (centre.x, centre.y), text, COUNT_SIZE, colour, "mm", stroke=3,
                  stroke_fill=BACKGROUND if face.odd else SEAT_LIGHT[1])


def _draw_segments(draw: ImageDraw.ImageDraw, frame: _Frame, state: PolygonsState) -> None:
    segments = state.segments
    points = state.points
    over = state.phase == "over"
    drawn = len(segments) - (1 if over else 0)
    for k, (a, b) in enumerate(segments):
        start = frame.px(*points[a])
        end = frame.px(*points[b])
        if k >= drawn:  # the automatic closing segment
            _dashed(draw, start, end, MUTED, 3)
            continue
        if k == drawn - 1:  # the last move: an amber band edged in ink under the segment
            draw.line([start, end], fill=INK, width=11)
            draw.line([start, end], fill=HIGHLIGHT, width=9)
        draw.line([start, end], fill=INK, width=3)


def _dashed(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float],
            colour: tuple[int, int, int], width: int, dash: float = 9.0) -> None:
    (x0, y0), (x1, y1) = start, end
    length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
    pieces = max(1, int(length // dash))
    for k in range(0, pieces, 2):
        t0, t1 = k / pieces, min(1.0, (k + 1) / pieces)
        draw.line([(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0), (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)],
                  fill=colour, width=width)


def _draw_dots(draw: ImageDraw.ImageDraw, frame: _Frame, state: PolygonsState, dots: Sequence[Dot],
               placer: Placer) -> None:
    """The dots, seat 0's filled and seat 1's rings, the last one placed (or the path end) ringed in amber."""
    last_placed = len(state.points) - 1 if state.points and not state.path else None
    end = state.path[-1] if state.phase == "draw" and state.path else None
    r = DOT_RADIUS
    for i, dot in enumerate(dots):
        cx, cy = frame.px(dot.x, dot.y)
        if i in (last_placed, end):
            ring = r + 5
            draw.ellipse([cx - ring - 1, cy - ring - 1, cx + ring + 1, cy + ring + 1], outline=INK, width=6)
            draw.ellipse([cx - ring, cy - ring, cx + ring, cy + ring], outline=HIGHLIGHT, width=4)
            placer.block_point(cx, cy, ring + 1)
        else:
            placer.block_point(cx, cy, r + 1)
        draw.ellipse([cx - r - 2, cy - r - 2, cx + r + 2, cy + r + 2], fill=BACKGROUND)
        draw_seat_mark(draw, dot.seat, (cx, cy), r)
        declare_point(cx, cy, r)


def _draw_dot_names(image: Image.Image, frame: _Frame, dots: Sequence[Dot], placer: Placer) -> None:
    """Each dot's name beside it, above right first, where it covers no other label or dot."""
    height = LABEL_SIZE
    for dot in dots:
        cx, cy = frame.px(dot.x, dot.y)
        width = text_width(dot.name, LABEL_SIZE) + 2
        box = placer.place(width, height, around(cx, cy, DOT_RADIUS + 3, width, height, rings=8))
        if box is None:  # the dot's neighbourhood is full: the nearest free spot on the board
            box = placer.nearest(width, height, cx, cy)
        if box is None:  # no free spot left anywhere: beside the dot, over whatever is there (never seen in the tests)
            box = (round(cx + DOT_RADIUS), round(cy - DOT_RADIUS - height), round(cx + DOT_RADIUS + width),
                   round(cy - DOT_RADIUS))
        draw_text(image, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), dot.name, LABEL_SIZE,
                  SEAT_COLOURS[dot.seat], "mm", stroke=3, stroke_fill=BACKGROUND)


@dataclass(frozen=True)
class _Panel:
    status_lines: int
    height: int


@language_cache(maxsize=256)
def _panel(size: int, dots: int, komi: int, names: tuple[str, str]) -> _Panel:
    """The panel's layout for these names and variant: the status takes the lines its longest text needs; the
    height is what the busiest phase needs (every board of a match has the same size)."""
    status = lines_needed(status_texts("polygons", names), PANEL_SIZE, _PANEL_ROOM)
    seats = sum(seat_label_lines(name, PANEL_SIZE, _PANEL_ROOM, "99") for name in names)
    path = "-".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: 2 * dots])
    info = [_("{connected} of {total} dots connected").format(connected=2 * dots, total=2 * dots),
            _("Next segment from {dot}").format(dot="A"), _("Scores so far"), _("Path: {path}").format(path=path),
            _("Last move: {move}").format(move="A-B")]
    if komi:
        info.append(ngettext("Komi: {count} point to {name}", "Komi: {count} points to {name}", komi)
                    .format(count=komi, name=names[1]))
    lines = sum(len(wrap_text(line, SMALL, _PANEL_ROOM)) for line in info) + 2
    height = MARGIN - 8 + _TITLE + 6 + _LINE + 4 + (seats + status + lines) * _LINE + 6 + 6 + 14
    return _Panel(status, max(HEIGHT, height))


def _draw_panel(image: Image.Image, draw: ImageDraw.ImageDraw, state: PolygonsState, names: Sequence[str],
                outcome: Outcome | None, dots: Sequence[Dot], faces: Sequence[Face], panel: _Panel) -> None:
    left, width = _PANEL_LEFT, _PANEL_ROOM
    text = functools.partial(draw_text, image)
    y = MARGIN - 8
    text((left, y), *fit_text(_("Polygons & Dots"), _TITLE, width, min_size=SMALL), INK)
    y += _TITLE + 6
    text((left, y), move_count(state.ply), SMALL, MUTED)
    y += _LINE + 4
    phase = state.phase
    for seat, name in enumerate(names):
        score = None if phase == "place" else str(state.scores[seat])
        y = draw_seat_label(image, seat, (left, y), name, PANEL_SIZE, width, _LINE, score=score)
    shown = ended(state.outcome, outcome)
    colour = INK if shown is not None or state.current_seat is None else SEAT_COLOURS[state.current_seat]
    top = y
    for part in wrap_text(status_line(state, names, outcome), PANEL_SIZE, width):
        text((left, y), part, PANEL_SIZE, colour)
        y += _LINE
    y = top + panel.status_lines * _LINE + 6
    for line in _info(state, names, dots, faces):
        for part in wrap_text(line, SMALL, width):
            text((left, y), part, SMALL, INK)
            y += _LINE
    y += 6
    if phase != "place":
        for seat, label in ((0, _("odd faces")), (1, _("even faces"))):
            swatch = (left, y + 4, left + SMALL, y + 4 + SMALL - 4)
            draw.rectangle(swatch, fill=SEAT_LIGHT[seat], outline=SEAT_COLOURS[seat])
            if seat == 1:
                hatch = _hatching(*image.size).crop(swatch)
                image.paste(_hatch_ink(True), swatch[:2], hatch)
                draw.rectangle(swatch, outline=SEAT_COLOURS[seat])
            text((left + SMALL + 8, y), label, SMALL, SEAT_COLOURS[seat])
            mark_x = left + SMALL + 8 + text_width(label, SMALL) + SMALL * 0.7
            draw_seat_mark(draw, seat, (mark_x, y + SMALL * 0.55), SMALL * 0.36)
            y += _LINE


def _info(state: PolygonsState, names: Sequence[str], dots: Sequence[Dot], faces: Sequence[Face]) -> list[str]:
    """The panel's lines about the phase, the path, the komi and the last move."""
    info: list[str] = []
    phase = state.phase
    if phase == "place":
        info.append(_("Placing dots: {placed} of {total}").format(placed=len(state.points), total=state.total_dots))
        info.append(_("x: in line with two dots"))
    else:
        connected = len(state.path)
        if phase == "draw":
            info.append(_("{connected} of {total} dots connected").format(connected=connected,
                                                                           total=len(state.points)))
            if state.path_end:
                info.append(_("Next segment from {dot}").format(dot=state.path_end))
            else:
                info.append(_("First segment: any two dots"))
            if connected >= 2:
                info.append(_("Scores so far"))
        else:
            info.append(ngettext("{count} face", "{count} faces", len(faces)).format(count=len(faces)))
        if state.path:
            info.append(_("Path: {path}").format(path="-".join(dots[i].name for i in state.path)))
    if state.komi:
        info.append(ngettext("Komi: {count} point to {name}", "Komi: {count} points to {name}", state.komi)
                    .format(count=state.komi, name=names[1]))
    last = state.last_move
    if last is not None:
        info.append(_("Last move: {move}").format(move=state.format_move(last)))
    return info


def render(state: PolygonsState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes (:data:`WIDTH` px wide): :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: PolygonsState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette, :data:`WIDTH` px wide and :data:`HEIGHT` px tall
    or taller when long names need it (the same for every board of the match).

    Args:
        state: a Polygons & Dots state.
        names: display name per seat (two names, any text: drawn whole, wrapped).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        TypeError: ``state`` is not a Polygons & Dots state.
        ValueError: ``names`` does not hold two names.
    """
    if not isinstance(state, PolygonsState):
        raise TypeError("render needs a Polygons & Dots state")
    if len(names) != state.seats:
        raise ValueError(f"render needs {state.seats} names, got {len(names)}")
    names = names_for_alt(names)
    panel = _panel(state.size, state.per_seat, state.komi, (names[0], names[1]))
    image, draw = new_canvas(WIDTH, panel.height)
    frame = _Frame(state.size)
    faces = state.faces()
    outlines = _outlines(frame, faces)
    dots = state.dots
    placer = Placer((2, 2, MARGIN * 2 + BOARD_PX - 12, panel.height - 2))
    _draw_faces(image, faces, outlines, state.phase == "over")
    _draw_lattice(image, draw, frame, placer)
    if state.phase == "place":
        _draw_blocked(draw, frame, state)
    _draw_segments(draw, frame, state)
    _draw_dots(draw, frame, state, dots, placer)
    _draw_dot_names(image, frame, dots, placer)
    _draw_counts(image, faces, outlines, placer)
    _draw_panel(image, draw, state, names, outcome, dots, faces, panel)
    return finish(image, _PALETTE)


# ------------------------------------------------------------------------------------------------ alt text


def alt_text(state: PolygonsState, names: Sequence[str], *, outcome: Outcome | None = None,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The board in words for a screen reader (an attachment's description), at most ``limit`` characters.

    In order: the game, the move number, the lattice and the dots each; the komi; the phase (dots placed, dots
    connected, where the next segment starts); whose move it is or the result; the score; the last move; each
    player's dots in the game's notation (``A 3,9``: name, then x,y; seat 0 placed A, C, E...); the path in drawing
    order (``C-G-J``); the faces with their owners and their numbers of sides. With at most 20 dots and names of up
    to 32 characters all of it fits; were it to come to that, the faces' sides would go first, then the path.

    Args:
        state: a Polygons & Dots state.
        names: display name per seat (two names).
        outcome: the result when a player's action ended the match (else the state's own outcome).
        limit: the most characters (Discord's 1,024 by default).
    """
    names = names_for_alt(names)
    phase = state.phase
    parts = [sentence(_("Polygons & Dots board, move {ply}."), ply=state.ply),
             sentence(_("The lattice runs from 0 to {size} in both directions; each player places {dots} dots."),
                      size=state.size, dots=state.per_seat)]
    if state.komi:
        parts.append(sentence(ngettext("{name} starts with {komi} face of komi.",
                                       "{name} starts with {komi} faces of komi.", state.komi),
                              name=names[1], komi=state.komi))
    if phase == "place":
        parts.append(sentence(_("Placing dots: {placed} of {total} placed; no three dots may lie on one line."),
                              placed=len(state.points), total=state.total_dots))
    elif phase == "draw":
        parts.append(sentence(_("Drawing the path: {connected} of {total} dots connected."),
                              connected=len(state.path), total=len(state.points)))
        parts.append(sentence(_("The next segment starts from {dot}."), dot=state.path_end) if state.path_end else
                     _("The first segment may join any two dots."))
    else:
        parts.append(_("The path is closed."))
    shown = ended(state.outcome, outcome)
    if shown is not None:
        parts.append(sentence(_("{result}."), result=outcome_text(state.game, names, shown)))
    else:
        parts.append(sentence(_("{name} to move."), name=names[state.current_seat or 0]))
    parts.append(sentence(_("Score: {first} {first_score}, {second} {second_score}."), first=names[0],
                          second=names[1], first_score=state.scores[0], second_score=state.scores[1]))
    if phase == "draw" and len(state.path) >= 2:
        parts.append(_("The scores are provisional until the path is closed."))
    last = state.last_move
    if last is not None:
        # the first segment is seat 0's, and segments alternate; before it, dot i is seat i % 2's
        mover = names[(len(state.path) - 2) % 2] if state.path else names[(len(state.points) - 1) % 2]
        notation = state.format_move(last)
        parts.append(sentence(_("Last move: {name} drew {segment}."), name=mover, segment=notation) if state.path
                     else sentence(_("Last move: {name} placed dot {dot} at {point}."), name=mover,
                                   dot=state.dots[-1].name, point=notation))
    else:
        parts.append(_("No dot has been placed yet."))
    dots = state.dots
    listings = [Listing(_("Dots of {name}: {items}."), [f"{dot.name} {dot.x},{dot.y}" for dot in dots
                                                         if dot.seat == seat],
                        plural_forms("{count} more dot of {name} not listed.",
                                     "{count} more dots of {name} not listed."),
                        (("name", names[seat]),), separator="; ") for seat in (0, 1)]
    if state.path:
        listings.append(Listing(_("Path: {items}."), ["-".join(dots[i].name for i in state.path)], ("", "")))
    faces = state.faces()
    if phase != "place":
        odd = sum(face.odd for face in faces)
        parts_faces = sentence(_("Faces: {odd} odd, scoring for {first}; {even} even, scoring for {second}."),
                               odd=odd, even=len(faces) - odd, first=names[0], second=names[1])
        listings.append(Listing("{items}", [parts_faces], ("", "")))
        if faces:
            listings.append(Listing(_("Sides of each face: {items}."), [str(face.sides) for face in faces],
                                    plural_forms("{count} more face not listed.", "{count} more faces not listed.")))
    return compose(parts, listings, limit)
