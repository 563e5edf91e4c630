"""Gröbner Nim board: the quarter-plane lattice with the sticks, the picked pairs and the score panel; and its alt
text.

Each stick is a segment between its two lattice points with a larger mark on its head and its number on a tag beside
the head. Start sticks are drawn in ink with square heads, added sticks in the colour of the seat that added them,
seat 0's heads filled discs and seat 1's rings (the same marks as before the players' names in the panel), so the
seats never differ by colour alone. The tags are placed by a :class:`renderers._common.Placer`, so that none covers
another tag, a stick's end or an axis label; a tag pushed away from its head is joined to it by a thin line. The
newest stick has a highlight halo and the numbers of the pair picked last sit on highlighted tags edged in ink. The
panel on the right lists the players with their points, or the turns and par in solitaire, whose turn it is or the
outcome, the last pair, once the game is over the reduced Gröbner basis written as polynomials, and the picked pairs.
The lattice is zoomed to the sticks: it runs from 0 to one more than the largest exponent on the board.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from games import Outcome
from games.groebner_nim import GroebnerNimState, Point, Stick, format_stick
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
    seat_label_lines,
    status_texts,
    text_box,
    text_width,
    to_png,
    wrap_text,
)
from renderers._common import status_line as common_status_line

WIDTH = 600
HEIGHT = 440
"""The board's least height in pixels (long names make it taller)."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 20 px, 13.3 px once Discord shows it 400 px wide."""
BOARD_LEFT = 40
BOARD_TOP = 30
BOARD_SIZE = 325
PANEL_LEFT = BOARD_LEFT + BOARD_SIZE + 24
START_INK = (70, 70, 70)
HALO = (250, 214, 120)
_LINE = SMALL + 3
_TITLE = 22
_PANEL_ROOM = WIDTH - PANEL_LEFT - 12
_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _grid_step(cell: float) -> int:
    """Smallest lattice step whose labels (``SMALL`` px) are at least 1.6 labels apart."""
    return next((step for step in _STEPS if step * cell >= 1.6 * SMALL), _STEPS[-1])


def extent(state: GroebnerNimState) -> int:
    """The lattice side the board shows: one more than the largest exponent of any stick (at least 3)."""
    return max(2, *(max(*stick.head, *stick.tail) for stick in state.sticks)) + 1


def monomial(point: Point) -> str:
    """``point`` as a monomial with superscript exponents: ``(3, 1)`` -> ``"x³y"``, ``(0, 0)`` -> ``"1"``."""
    a, b = point
    text = ("x" + (str(a).translate(_SUPERSCRIPT) if a > 1 else "") if a else "") + \
        ("y" + (str(b).translate(_SUPERSCRIPT) if b > 1 else "") if b else "")
    return text or "1"


def polynomial(stick: Stick) -> str:
    """``stick`` as a polynomial, head first: ``"x³y + y²"``."""
    return f"{monomial(stick.head)} + {monomial(stick.tail)}"


def _stick_colour(state: GroebnerNimState, index: int) -> tuple[int, int, int]:
    if index < state.start_count:
        return START_INK
    ply = state.added.index(index + 1)
    return SEAT_COLOURS[state.movers[ply] % len(SEAT_COLOURS)]


def status_line(state: GroebnerNimState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line (:func:`renderers._common.status_line`); a solitaire game completed says how it
    went against par instead."""
    shown = ended(state.outcome, outcome)
    if shown is not None and state.variant.mode == "solitaire" and shown.termination.value == "natural":
        par = state.par or 0
        verdict = _("Basis complete: under par") if state.ply < par else _("Basis complete: on par") \
            if state.ply == par else _("Basis complete: over par")
        if not state.par_exact:  # par is then only an upper bound: "on par" is all that can be said of equal
            verdict = _("Basis complete: within par") if state.ply <= par else _("Basis complete: over par")
        return verdict
    return common_status_line(state, names, outcome)


def render(state: GroebnerNimState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as PNG bytes (:data:`WIDTH` px wide): :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: GroebnerNimState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette, :data:`WIDTH` px wide and :data:`HEIGHT` px
    tall or taller when long names need it (the same for every board of the match).

    Args:
        state: a Gröbner Nim state.
        names: display name per seat (one name in solitaire; any text: drawn whole, wrapped).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        ValueError: ``len(names)`` differs from ``state.seats``.
    """
    if len(names) != state.seats:
        raise ValueError(f"expected {state.seats} name(s), got {len(names)}")
    names = names_for_alt(names)
    panel = _panel(state.variant.mode == "solitaire", tuple(names))
    image, draw = new_canvas(WIDTH, panel.height)
    placer = Placer((2, 2, PANEL_LEFT - 10, panel.height - 2), gap=2)
    _draw_board(image, draw, state, placer)
    _draw_panel(image, state, names, outcome, panel)
    # every colour drawn is in the palette, so the image stays exact while encoding three times faster
    return finish(image, _palette())


def _par(state: GroebnerNimState) -> str:
    """Solitaire par in words, in the language being spoken: ``par 3``, or ``par ≤ 5`` when the exact search did not
    finish (:meth:`games.groebner_nim.GroebnerNimState.par_text`)."""
    return (_("par {par}") if state.par_exact else _("par ≤ {par}")).format(par=state.par)


def _mode(state: GroebnerNimState) -> str:
    variant = state.variant
    return _("solitaire") if variant.mode == "solitaire" else (_("duel, bonus turn") if variant.bonus_turn
                                                               else _("duel"))


@dataclass(frozen=True)
class _Panel:
    status_lines: int
    height: int


@language_cache(maxsize=256)
def _panel(solitaire: bool, names: tuple[str, ...]) -> _Panel:
    """The panel's layout for these names: the status takes the lines its longest text needs; the board is tall
    enough for the players, the status, the last pair, a basis of five and a few picked pairs."""
    texts = status_texts("groebner_nim", names)
    if solitaire:
        texts += [_("Basis complete: within par")]
    status = lines_needed(texts, SMALL, _PANEL_ROOM)
    seats = sum(seat_label_lines(name, SMALL, _PANEL_ROOM, None if solitaire else "99") for name in names)
    heading = len(wrap_text(f"{_('duel, bonus turn')} · grevlex", SMALL, _PANEL_ROOM)) + \
        len(wrap_text(f"{ngettext('{count} turn', '{count} turns', 99).format(count=99)} · "
                      f"{_('par ≤ {par}').format(par=99)}", SMALL, _PANEL_ROOM))
    lines = heading + seats + status + 2 + 5 + 2  # the last pair and its stick, a basis of four and "… and 2 more"
    height = 8 + _TITLE + 6 + 4 + lines * _LINE + 6 + 6 + 6 + 10
    return _Panel(status, max(HEIGHT, height))


@functools.cache
def _palette() -> Image.Image:
    """A palette image with every colour the board uses and its anti-aliasing blends over each background."""
    inks = [INK, MUTED, GRID, START_INK, HALO, HIGHLIGHT, *SEAT_COLOURS, (255, 255, 255)]
    return fixed_palette(inks, [BACKGROUND, (255, 255, 255), HIGHLIGHT, HALO, SEAT_LIGHT[1]])


def _draw_board(image: Image.Image, draw: ImageDraw.ImageDraw, state: GroebnerNimState, placer: Placer) -> None:
    side = extent(state)
    cell = BOARD_SIZE / side
    left, bottom = BOARD_LEFT, BOARD_TOP + BOARD_SIZE

    def at(point: tuple[int, int]) -> tuple[float, float]:
        return (left + point[0] * cell, bottom - point[1] * cell)

    step = _grid_step(cell)
    for value in range(side + 1):
        x, y = left + value * cell, bottom - value * cell
        draw.line([(x, BOARD_TOP), (x, bottom)], fill=GRID, width=1)
        draw.line([(left, y), (left + BOARD_SIZE, y)], fill=GRID, width=1)
        if value % step == 0:
            for xy, anchor in (((x, bottom + 11), "mt"), ((left - 11, y), "rm")):
                draw_text(image, xy, str(value), SMALL, MUTED, anchor)
                placer.block(text_box(str(value), SMALL, xy, anchor))
    # axes: the quarter plane's two edges
    draw.line([(left, BOARD_TOP - 6), (left, bottom)], fill=INK, width=2)
    draw.line([(left, bottom), (left + BOARD_SIZE + 6, bottom)], fill=INK, width=2)
    for xy, label, anchor in (((left + BOARD_SIZE + 12, bottom - 4), "x", "lb"), ((left, BOARD_TOP - 12), "y", "mb")):
        draw_text(image, xy, label, SMALL, INK, anchor)
        placer.block(text_box(label, SMALL, xy, anchor))

    newest = len(state.sticks) - 1 if state.added and state.added[-1] is not None else None
    last = state.last_move
    picked = set(last.indices) if last is not None else set()
    head_r = max(5.0, min(9.0, cell * 0.25))
    tail_r = max(3.0, head_r * 0.55)
    width = max(2, min(5, round(cell * 0.1)))

    if newest is not None:
        hx, hy = at(state.sticks[newest].head)
        tx, ty = at(state.sticks[newest].tail)
        draw.line([(tx, ty), (hx, hy)], fill=HALO, width=width + 10)
        for x, y in ((hx, hy), (tx, ty)):
            r = head_r + 6
            draw.ellipse([x - r, y - r, x + r, y + r], fill=HALO, outline=INK)
    for index, stick in enumerate(state.sticks):
        colour = _stick_colour(state, index)
        hx, hy = at(stick.head)
        tx, ty = at(stick.tail)
        draw.line([(tx, ty), (hx, hy)], fill=colour, width=width + (1 if index == newest else 0))
        draw.ellipse([tx - tail_r, ty - tail_r, tx + tail_r, ty + tail_r], fill=colour)
        _head(draw, state, index, (hx, hy), head_r)
        for x, y, r in ((hx, hy, head_r), (tx, ty, tail_r)):
            placer.block_point(x, y, r)
            declare_point(x, y, r)
    # numbers last so that no segment covers them
    for index, stick in enumerate(state.sticks):
        _draw_number(image, state, index, stick, at, head_r, placer, highlighted=index in picked)


def _head(draw: ImageDraw.ImageDraw, state: GroebnerNimState, index: int, xy: tuple[float, float],
          radius: float) -> None:
    """A stick's head: a square for a start stick, else the mark of the seat that added it (disc or ring)."""
    x, y = xy
    if index < state.start_count:
        r = radius * 0.9
        draw.rectangle([x - r, y - r, x + r, y + r], fill=START_INK, outline=INK)
        return
    seat = state.movers[state.added.index(index + 1)] % 2
    draw_seat_mark(draw, seat, xy, radius)


def _draw_number(image: Image.Image, state: GroebnerNimState, index: int, stick: Stick,
                 at: Callable[[tuple[int, int]], tuple[float, float]],
                 head_r: float, placer: Placer, highlighted: bool) -> None:
    hx, hy = at(stick.head)
    tx, ty = at(stick.tail)
    text = str(index + 1)
    tag_w = round(text_width(text, SMALL)) + 10
    tag_h = SMALL + 6
    box = placer.place(tag_w + 1, tag_h + 1, around(hx, hy, head_r + 3, tag_w, tag_h, rings=10,
                                                    first=(hx - tx, hy - ty)))
    if box is None:  # the head's neighbourhood is full: the nearest free spot on the board, joined by a line
        box = placer.nearest(tag_w + 1, tag_h + 1, hx, hy)
    if box is None:  # no free spot left anywhere: beside the head, over whatever is there (never seen in the tests)
        box = (round(hx + head_r), round(hy - tag_h / 2), round(hx + head_r) + tag_w + 1,
               round(hy - tag_h / 2) + tag_h + 1)
    left, top = box[0], box[1]
    cx, cy = left + tag_w / 2, top + tag_h / 2
    if math.hypot(cx - hx, cy - hy) > head_r + 3 + max(tag_w, tag_h):  # pushed away: a thin line back to the head
        edge_x = min(max(hx, left), left + tag_w)
        edge_y = min(max(hy, top), top + tag_h)
        ImageDraw.Draw(image).line([(hx, hy), (edge_x, edge_y)], fill=MUTED, width=1)
    fill, outline = (HIGHLIGHT, INK) if highlighted else ((255, 255, 255), _stick_colour(state, index))
    tile, mask = _tag(tag_w, tag_h, fill, outline)
    image.paste(tile, (left, top), mask)
    draw_text(image, (cx, cy), text, SMALL, INK, "mm", plate=(left, top, left + tag_w + 1, top + tag_h + 1))


@functools.lru_cache(maxsize=256)
def _tag(width: int, height: int, fill: tuple[int, int, int],
         outline: tuple[int, int, int]) -> tuple[Image.Image, Image.Image]:
    """A stick number's tag, ``width`` x ``height`` pixels between its outer edges, drawn once per size and
    colours: its pixels and the ``1`` mask of the pixels it covers. Pillow draws a rounded rectangle at whole
    pixels (it rounds the corners of the box), so this tile pasted at the rounded corner is the same as drawing
    the tag there."""
    tile = Image.new("RGB", (width + 1, height + 1), fill)
    mask = Image.new("1", tile.size, 0)
    ImageDraw.Draw(tile).rounded_rectangle((0, 0, width, height), radius=6, fill=fill, outline=outline)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width, height), radius=6, fill=1, outline=1)
    return tile, mask


def _draw_panel(image: Image.Image, state: GroebnerNimState, names: Sequence[str], outcome: Outcome | None,
                panel: _Panel) -> None:
    x = PANEL_LEFT
    room = _PANEL_ROOM
    y = 8
    variant = state.variant
    draw_text(image, (x, y), *fit_text(_("Gröbner Nim"), _TITLE, room, min_size=SMALL), INK)
    y += _TITLE + 6
    solitaire = variant.mode == "solitaire"
    counter = f"{ngettext('{count} turn', '{count} turns', state.ply).format(count=state.ply)} · {_par(state)}" \
        if solitaire else move_count(state.ply)
    for part in wrap_text(f"{_mode(state)} · {variant.order}", SMALL, room) + wrap_text(counter, SMALL, room):
        draw_text(image, (x, y), part, SMALL, MUTED)
        y += _LINE
    y += 4

    for seat, name in enumerate(names):
        score = None if solitaire else str(state.scores[seat])
        y = draw_seat_label(image, seat, (x, y), name, SMALL, room, _LINE, score=score)
    shown = ended(state.outcome, outcome)
    colour = INK if shown is not None or solitaire or state.current_seat is None else SEAT_COLOURS[state.current_seat]
    top = y
    for part in wrap_text(status_line(state, names, outcome), SMALL, room):
        draw_text(image, (x, y), part, SMALL, colour)
        y += _LINE
    y = top + panel.status_lines * _LINE + 6

    last = state.last_move
    if last is not None:
        new = state.added[-1]
        draw_text(image, (x, y), _("Last pair {pair}").format(pair=last), SMALL, MUTED)
        y += _LINE
        result = f"+{new}: {polynomial(state.sticks[new - 1])}" if new is not None else _("reduced to zero")
        for part in wrap_text(result, SMALL, room):
            draw_text(image, (x, y), part, SMALL, INK)
            y += _LINE
        y += 6

    if state.is_over:
        y = _draw_basis(image, state, x, y)
    _draw_picked(image, state, x, y, panel.height)


def _draw_basis(image: Image.Image, state: GroebnerNimState, x: int, y: int) -> int:
    room = _PANEL_ROOM
    draw_text(image, (x, y), "Gröbner basis", SMALL, MUTED)
    y += _LINE
    basis = state.final_basis()
    shown = basis if len(basis) <= 5 else basis[:4]
    for stick in shown:
        draw_text(image, (x, y), fit_text(polynomial(stick), SMALL, room)[0], SMALL, INK)
        y += _LINE
    if len(basis) > len(shown):
        draw_text(image, (x, y), _("… and {count} more").format(count=len(basis) - len(shown)), SMALL, MUTED)
        y += _LINE
    return y + 6


def _draw_picked(image: Image.Image, state: GroebnerNimState, x: int, y: int, height: int) -> None:
    """The picked pairs, newest last, each after the mark of the seat that picked it (in a duel); as many of the
    newest as the room holds, after a line saying how many earlier ones are left out."""
    rows = max(0, (height - 10 - (y + _LINE)) // _LINE)
    texts = [f"{pair} +{new}" if new is not None else f"{pair} ·"
             for pair, new in zip(state.picked, state.added, strict=True)]
    solitaire = state.variant.mode == "solitaire"
    indent = 0 if solitaire else round(SMALL * 1.05)
    room = _PANEL_ROOM
    widest = max((text_width(text, SMALL) + indent for text in texts), default=0)
    columns = max(1, min(3, int(room // (widest + 12)))) if texts else 1
    column_width = room // columns
    capacity = rows * columns
    if rows <= 0:
        return
    draw_text(image, (x, y), _("Picked pairs ({count})").format(count=state.ply), SMALL, MUTED)
    y += _LINE
    entries = list(zip(texts, state.added, state.movers, strict=True))
    if len(entries) > capacity:
        hidden = len(entries) - (capacity - columns)
        entries = entries[hidden:]
        draw_text(image, (x, y), _("… {count} earlier").format(count=hidden), SMALL, MUTED)
        y += _LINE
    draw = ImageDraw.Draw(image)
    for n, (text, new, seat) in enumerate(entries):
        col, row = n % columns, n // columns
        left, top = x + col * column_width, y + row * _LINE
        colour = SEAT_COLOURS[0] if solitaire else SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        if not solitaire:
            draw_seat_mark(draw, seat, (left + SMALL * 0.42, top + SMALL * 0.55), SMALL * 0.36)
        draw_text(image, (left + indent, top), fit_text(text, SMALL, column_width - 4 - indent)[0], SMALL,
                  colour if new is not None else MUTED)


# ------------------------------------------------------------------------------------------------ alt text


def alt_text(state: GroebnerNimState, names: Sequence[str], *, outcome: Outcome | None = None,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The board in words for a screen reader (an attachment's description), at most ``limit`` characters.

    In order: the game, the mode, the monomial order and the move number; whose move it is or the result; the
    score (the turns and par in solitaire); the last pair and what it added; once over, the reduced Gröbner basis;
    every stick by number as a polynomial in the game's notation (``x^3*y + y^2``, head first), the start sticks
    first; the picked pairs in the order played (``1-2``) and what each added; while running, the pairs not picked
    yet. When it does not all fit, the pairs not picked go first, then the latest picked pairs, then the newest
    sticks, and the text says how many.

    Args:
        state: a Gröbner Nim state.
        names: display name per seat (one name in solitaire).
        outcome: the result when a player's action ended the match (else the state's own outcome).
        limit: the most characters (Discord's 1,024 by default).
    """
    names = names_for_alt(names)
    variant = state.variant
    solitaire = variant.mode == "solitaire"
    if solitaire:
        head = _("Gröbner Nim board, move {ply}: solitaire, {order} order.")
    elif variant.bonus_turn:
        head = _("Gröbner Nim board, move {ply}: duel with bonus turns, {order} order.")
    else:
        head = _("Gröbner Nim board, move {ply}: duel, {order} order.")
    parts = [sentence(head, order=variant.order, ply=state.ply)]
    shown = ended(state.outcome, outcome)
    if shown is not None:
        parts.append(sentence(_("{result}."), result=status_line(state, names, outcome)))
    else:
        parts.append(sentence(_("{name} to move."), name=names[state.current_seat or 0]))
    if solitaire:
        parts.append(sentence(_("Turns so far: {turns}; {par}."), turns=state.ply, par=_par(state)))
    else:
        parts.append(sentence(_("Score: {first} {first_score}, {second} {second_score}."), first=names[0],
                              second=names[1], first_score=state.scores[0], second_score=state.scores[1]))
    last = state.last_move
    if last is not None:
        mover = names[state.movers[-1] % len(names)]
        new = state.added[-1]
        parts.append(sentence(_("Last move: {name} picked {pair}, which added stick {number}: {stick}."), name=mover,
                              pair=last, number=new, stick=format_stick(state.sticks[new - 1])) if new is not None
                     else sentence(_("Last move: {name} picked {pair}, which reduced to zero."), name=mover,
                                   pair=last))
    else:
        parts.append(_("No pair has been picked yet."))
    parts.append(sentence(_("Sticks 1 to {count} are the start."), count=state.start_count))
    listings = [Listing(_("Sticks by number, head first: {items}."),
                        [f"{number}: {format_stick(stick)}" for number, stick in enumerate(state.sticks, start=1)],
                        plural_forms("{count} newer stick not listed.", "{count} newer sticks not listed."),
                        separator="; ")]
    picked = [sentence(_("{pair} added {number}"), pair=pair, number=new) if new is not None else
              sentence(_("{pair} reduced to zero"), pair=pair) for pair, new in zip(state.picked, state.added,
                                                                                   strict=True)]
    if picked:
        listings.append(Listing(_("Picked pairs in order: {items}."), picked,
                                plural_forms("{count} later pair not listed.", "{count} later pairs not listed."),
                                separator="; "))
    if state.is_over:  # the result of the game first: the basis is short (a handful of sticks)
        listings.insert(0, Listing(_("Reduced Gröbner basis: {items}."),
                                   [format_stick(stick) for stick in state.final_basis()],
                                   plural_forms("{count} more polynomial not listed.",
                                    "{count} more polynomials not listed."), separator="; "))
    else:
        listings.append(Listing(_("Pairs not picked yet: {items}."), [str(pair) for pair in state.unpicked_pairs()],
                                plural_forms("{count} more pair not listed.", "{count} more pairs not listed.")))
    return compose(parts, listings, limit)
