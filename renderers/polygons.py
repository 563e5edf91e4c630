"""Polygons & Dots board: the lattice, the dots and the path, faces shaded by parity, scores beside the board.

``render(state, names)`` returns PNG bytes of 646 x 450 pixels. The lattice's y axis points up. Dots are
drawn in the colour of the seat that placed them, segments in the colour of the seat that drew them (the
closing segment in grey, dashed), the last move is highlighted and the path end is ringed. Faces are filled
with seat 0's light colour when they have an odd number of sides and seat 1's when even (paler while the path
is still open, when the faces are provisional), with the side count written inside when it fits.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import shapely
from PIL import Image, ImageDraw

from games import Outcome
from games.polygons import Dot, Face, PolygonsState
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
    text_width,
    to_palette,
    to_png,
    wrap_text,
)

BOARD_PX = 390
"""Side of the lattice square in pixels."""
MARGIN = 30
"""Space around the lattice for the axis labels."""
PANEL_PX = 196
"""Width of the status panel right of the board."""
WIDTH = MARGIN * 2 + BOARD_PX + PANEL_PX
HEIGHT = MARGIN * 2 + BOARD_PX
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 18 px, 11 px once Discord shows it 400 px wide."""
DOT_RADIUS = 6
LABEL_SIZE = SMALL
COUNT_SIZE = SMALL
PANEL_SIZE = SMALL
_LINE = SMALL + 5
_FACE_AMOUNT = 0.55
"""How strongly provisional faces (path still open) show their colour over the background."""


def _blend(colour: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    """Mix ``colour`` with the background: ``amount`` 1 keeps the colour, 0 gives the background."""
    return blend(colour, BACKGROUND, amount)


class _Frame:
    """Lattice-to-pixel mapping for one board size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.cell = BOARD_PX / size

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Pixel centre of lattice point ``(x, y)`` (y up)."""
        return MARGIN + x * self.cell, MARGIN + (self.size - y) * self.cell


def _palette() -> Image.Image:
    """Every colour of the board and blends of each ink over each ground (antialiased text)."""
    grounds = [BACKGROUND, *SEAT_LIGHT, *(_blend(light, _FACE_AMOUNT) for light in SEAT_LIGHT)]
    return fixed_palette([*SEAT_COLOURS, INK, MUTED, GRID, HIGHLIGHT], grounds, (0.2, 0.4, 0.6, 0.8))


_PALETTE = _palette()


def _draw_lattice(image: Image.Image, draw: ImageDraw.ImageDraw, frame: _Frame) -> None:
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
            draw_text(image, (x0, y0 + 6), str(k), SMALL, MUTED, "mt")
            draw_text(image, (xa - 6, ya), str(k), SMALL, MUTED, "rm")


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


def _draw_faces(draw: ImageDraw.ImageDraw, faces: Sequence[Face], outlines: Sequence[Sequence[tuple[float, float]]],
                final: bool) -> None:
    amount = 1.0 if final else _FACE_AMOUNT
    for face, outline in zip(faces, outlines, strict=True):
        colour = _blend(SEAT_LIGHT[0] if face.odd else SEAT_LIGHT[1], amount)
        draw.polygon(outline, fill=colour)


def _draw_counts(image: Image.Image, faces: Sequence[Face], outlines: Sequence[Sequence[tuple[float, float]]]) -> None:
    """Write each face's side count at the centre of its largest inscribed circle, when the text fits in it.

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
        colour = SEAT_COLOURS[0] if face.odd else SEAT_COLOURS[1]
        draw_text(image, (centre.x, centre.y), str(face.sides), COUNT_SIZE, colour, "mm")


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
        if k == drawn - 1:
            draw.line([start, end], fill=HIGHLIGHT, width=9)
        draw.line([start, end], fill=SEAT_COLOURS[k % 2], width=3)


def _dashed(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float],
            colour: tuple[int, int, int], width: int, dash: float = 9.0) -> None:
    (x0, y0), (x1, y1) = start, end
    length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
    pieces = max(1, int(length // dash))
    for k in range(0, pieces, 2):
        t0, t1 = k / pieces, min(1.0, (k + 1) / pieces)
        draw.line([(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0), (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)],
                  fill=colour, width=width)


def _draw_dots(image: Image.Image, draw: ImageDraw.ImageDraw, frame: _Frame, state: PolygonsState,
               dots: Sequence[Dot]) -> None:
    last_placed = len(state.points) - 1 if state.points and not state.path else None
    end = state.path[-1] if state.phase == "draw" and state.path else None
    for i, dot in enumerate(dots):
        cx, cy = frame.px(dot.x, dot.y)
        colour = SEAT_COLOURS[dot.seat]
        if i in (last_placed, end):
            ring = DOT_RADIUS + 6
            draw.ellipse([cx - ring, cy - ring, cx + ring, cy + ring], outline=HIGHLIGHT, width=4)
        r = DOT_RADIUS
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour, outline=BACKGROUND, width=2)
        # The name sits above right of the dot, flipped left or below at the lattice's right and top edges.
        dx = -1 if dot.x >= state.size - 1 else 1
        dy = 1 if dot.y >= state.size else -1
        anchor = ("l" if dx > 0 else "r") + ("b" if dy < 0 else "t")
        lx, ly = cx + dx * (r + 2), cy + dy * (r - 1)
        draw_text(image, (lx, ly), dot.name, LABEL_SIZE, colour, anchor, stroke=3, stroke_fill=BACKGROUND)


def status_line(state: PolygonsState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line: whose move it is, or the result (``outcome`` when given, else the state's).

    Names are drawn shortened (see :func:`renderers._common.short_name`).
    """
    short = [short_name(name, PANEL_SIZE, PANEL_PX - 12) for name in names]
    shown = ended(state.outcome, outcome)
    if shown is not None:
        return outcome_text(state.game, short, shown)
    return f"{short[state.current_seat or 0]} to move"


def _draw_panel(image: Image.Image, draw: ImageDraw.ImageDraw, state: PolygonsState, names: Sequence[str],
                outcome: Outcome | None, dots: Sequence[Dot], faces: Sequence[Face]) -> None:
    left = MARGIN * 2 + BOARD_PX - 8
    width = PANEL_PX - 12
    text = functools.partial(draw_text, image)
    y = MARGIN - 8
    text((left, y), "Polygons & Dots", 20, INK)
    y += 26
    text((left, y), move_count(state.ply), SMALL, MUTED)
    y += _LINE + 4
    phase = state.phase
    for seat, name in enumerate(names):
        suffix = "" if phase == "place" else f": {state.scores[seat]}"
        text((left, y), short_name(name, PANEL_SIZE, width, suffix=suffix), PANEL_SIZE, SEAT_COLOURS[seat])
        y += _LINE
    shown = ended(state.outcome, outcome)
    colour = INK if shown is not None or state.current_seat is None else SEAT_COLOURS[state.current_seat]
    for part in wrap_text(status_line(state, names, outcome), PANEL_SIZE, width):
        text((left, y), fit_text(part, PANEL_SIZE, width)[0], PANEL_SIZE, colour)
        y += _LINE
    y += 6
    info: list[str] = []
    if phase == "place":
        info.append(f"Placing dots: {len(state.points)} of {state.total_dots}")
        info.append("x: in line with two dots")
    else:
        connected = len(state.path)
        if phase == "draw":
            info.append(f"Drawing: {connected} of {len(state.points)} dots connected")
            if state.path_end:
                info.append(f"Next segment from {state.path_end}")
            else:
                info.append("First segment: any two dots")
            if connected >= 2:
                info.append("Scores so far (provisional)")
        else:
            info.append(f"{len(faces)} face{'s' if len(faces) != 1 else ''}")
        if state.path:
            info.append("Path: " + "-".join(dots[i].name for i in state.path))
    if state.komi:
        info.append(f"Komi: {state.komi} point{'s' if state.komi != 1 else ''} to {names[1]}")
    last = state.last_move
    if last is not None:
        info.append(f"Last move: {state.format_move(last)}")
    for line in info:
        for part in wrap_text(line, SMALL, width):
            text((left, y), fit_text(part, SMALL, width)[0], SMALL, INK)
            y += _LINE
    y += 6
    if phase != "place":
        for seat, label in ((0, "odd faces"), (1, "even faces")):
            draw.rectangle([left, y + 4, left + 16, y + 20], fill=SEAT_LIGHT[seat], outline=SEAT_COLOURS[seat])
            owner = short_name(names[seat], SMALL, width - 24 - text_width(f"{label}: ", SMALL))
            text((left + 24, y), f"{label}: {owner}", SMALL, SEAT_COLOURS[seat])
            y += _LINE


def render(state: PolygonsState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes (646 x 450 px): :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: PolygonsState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a 646 x 450 ``P`` image on the board's fixed palette.

    Args:
        state: a Polygons & Dots state.
        names: display name per seat (two names).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        TypeError: ``state`` is not a Polygons & Dots state.
        ValueError: ``names`` does not hold two names.
    """
    if not isinstance(state, PolygonsState):
        raise TypeError("render needs a Polygons & Dots state")
    if len(names) != state.seats:
        raise ValueError(f"render needs {state.seats} names, got {len(names)}")
    image, draw = new_canvas(WIDTH, HEIGHT)
    frame = _Frame(state.size)
    faces = state.faces()
    outlines = _outlines(frame, faces)
    dots = state.dots
    _draw_faces(draw, faces, outlines, state.phase == "over")
    _draw_lattice(image, draw, frame)
    if state.phase == "place":
        _draw_blocked(draw, frame, state)
    _draw_segments(draw, frame, state)
    _draw_counts(image, faces, outlines)
    _draw_dots(image, draw, frame, state, dots)
    _draw_panel(image, draw, state, names, outcome, dots, faces)
    return to_palette(image, _PALETTE)
