"""Chopsticks board: both players' names and hands, the last move marked, whose turn or the outcome; and its alt text.

Seat 0 sits in the upper row, seat 1 in the lower row; each row shows that player's left hand on the left
and right hand on the right, fingers up, with the count in the palm. A live hand shows its extended fingers
in the seat colour; a dead hand is a grey fist crossed out. Each row names its player after the seat's mark (a
filled disc, a ring) and says "first player" or "second player", so the rows never differ by colour alone. The last
move is drawn in the highlight colour with an ink edge: an arrow from the tapping hand to the tapped hand (a curved
arrow for a self-tap) or, for a split, both hands framed. Under the rows the status (whose move, or the result) and
the last move are written out, wrapped, never cut.

:func:`alt_text` says the same in words: whose turn or the result, the last move, and both players' hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from games import Outcome, Termination
from games.chopsticks import FINGERS, ChopsticksState, Hands, SelfTap, Split, Tap, Variant
from i18n import N_
from renderers._alt import ALT_TEXT_LIMIT, _, compose, names_for_alt, sentence
from renderers._common import (
    BACKGROUND,
    DEAD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    SEAT_LIGHT,
    draw_seat_label,
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
    status_texts,
    to_png,
    wrap_text,
)
from renderers._common import status_line as common_status_line

WIDTH = 720
"""Image width in pixels; the height is :func:`image_height` (the same for every board of a match)."""
ROW_TOP = (84, 314)
"""Top y in pixels of seat 0's and seat 1's row."""
_ROW_HEIGHT = 190
HAND_X = (410, 590)
"""Centre x in pixels of each seat's left and right hand."""
NAME_X = 24
NAME_MAX_WIDTH = 304
"""Width in pixels of the column of a row's name (its mark included); a long name wraps, over at most four lines."""
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 24 px, 13.3 px once Discord shows it 400 px wide."""
NAME_SIZE = 28
_LINE = SMALL + 6
_BOTTOM_TOP = ROW_TOP[1] + _ROW_HEIGHT + 14
_HAND_NAMES = (N_("left"), N_("right"))
_DEAD_HAND_NAMES = (N_("left (dead)"), N_("right (dead)"))
_FINGER_W, _FINGER_GAP = 16, 6
_LABEL_BELOW = 25
"""How far below a palm the middle of its hand's name is (below the frame of :func:`_hand_box`)."""
_PALM_HALF_W = 46
_DEAD_FILL = (225, 225, 225)


def _palette() -> Image.Image:
    """A fixed palette: every colour the board uses plus blends of each ink over each fill (text edges)."""
    inks = [*SEAT_COLOURS, INK, MUTED, DEAD, HIGHLIGHT]
    fills = [BACKGROUND, *SEAT_LIGHT, _DEAD_FILL, HIGHLIGHT, GRID]
    return fixed_palette(inks, fills)


_PALETTE = _palette()


def _text(image: Image.Image, xy: tuple[float, float], text: str, size: int, fill: tuple[int, int, int],
          anchor: str = "lm") -> None:
    draw_text(image, xy, text, size, fill, anchor)


@dataclass(frozen=True)
class _Layout:
    """Where the bottom lines go: how many lines the status and the last move may take (the most any board of the
    match needs, so that every board of it has the same size)."""

    status_lines: int
    last_lines: int

    @property
    def height(self) -> int:
        return _BOTTOM_TOP + (self.status_lines + self.last_lines) * _LINE + 12


@language_cache(maxsize=256)
def _layout(names: tuple[str, str]) -> _Layout:
    room = WIDTH - 2 * NAME_X
    statuses = [*status_texts("chopsticks", names),
                *(f"{_('{name} to move').format(name=name)} · {_(_REPEATED)}" for name in names)]
    lasts = [_(template).format(name=name, notation="self LR", before=4, after=_("dead"))
             for name in names for template in (*_LAST_TAPS.values(), *_LAST_SELF_TAPS.values())]
    return _Layout(lines_needed(statuses, SMALL, room), lines_needed(lasts, SMALL, room))


def image_height(names: Sequence[str]) -> int:
    """The board's height in pixels for players ``names`` (two): room for the longest status and last-move lines
    their names make."""
    return _layout((names[0], names[1])).height


def hand_top(seat: int) -> int:
    """The y in pixels where ``seat``'s extended fingertips start (folded fingers start 48 px lower)."""
    return ROW_TOP[seat] + 18


def _palm_box(seat: int, hand: int) -> tuple[int, int, int, int]:
    cx, top = HAND_X[hand], hand_top(seat)
    return cx - _PALM_HALF_W, top + 66, cx + _PALM_HALF_W, top + 132


def _hand_box(seat: int, hand: int) -> tuple[int, int, int, int]:
    """The frame of a hand the last move involved: its fingers and palm, above its name (a name in some languages
    is wider than the hand)."""
    cx, top = HAND_X[hand], hand_top(seat)
    return cx - 66, top - 8, cx + 66, top + 142


def _draw_hand(image: Image.Image, draw: ImageDraw.ImageDraw, seat: int, hand: int, count: int) -> None:
    """Draw one hand: ``count`` extended fingers (index finger first), the others folded; 0 = dead."""
    cx, top = HAND_X[hand], hand_top(seat)
    colour, light = SEAT_COLOURS[seat], SEAT_LIGHT[seat]
    dead = count == 0
    fill, edge = (_DEAD_FILL, DEAD) if dead else (light, colour)
    # Seen from the back with fingers up, the left hand's thumb and index finger are on its right side.
    slots = [cx - 41 + i * (_FINGER_W + _FINGER_GAP) for i in range(FINGERS - 1)]
    order = slots[::-1] if hand == 0 else slots
    for rank, x in enumerate(order):
        if rank < count:
            draw.rounded_rectangle((x, top, x + _FINGER_W, top + 80), radius=8, fill=colour, outline=INK, width=1)
        else:
            draw.rounded_rectangle((x, top + 48, x + _FINGER_W, top + 80), radius=8, fill=fill, outline=edge,
                                   width=2)
    thumb_x = cx + _PALM_HALF_W - 6 if hand == 0 else cx - _PALM_HALF_W - 18
    draw.rounded_rectangle((thumb_x, top + 80, thumb_x + 24, top + 104), radius=10, fill=fill, outline=edge,
                           width=2)
    palm = _palm_box(seat, hand)
    draw.rounded_rectangle(palm, radius=16, fill=fill, outline=edge, width=3)
    number = str(count)
    centre = ((palm[0] + palm[2]) / 2, (palm[1] + palm[3]) / 2)
    _text(image, centre, number, 40, DEAD if dead else colour, "mm")
    label = _(_DEAD_HAND_NAMES[hand] if dead else _HAND_NAMES[hand])
    _text(image, (cx, palm[3] + _LABEL_BELOW), label, SMALL, DEAD if dead else INK, "mm")
    if dead:
        x0, y0, x1, y1 = cx - 52, top + 2, cx + 52, palm[3]
        draw.line((x0, y0, x1, y1), fill=DEAD, width=6)
        draw.line((x0, y1, x1, y0), fill=DEAD, width=6)


def _frame(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], width: int) -> None:
    """A highlight frame ``width`` pixels wide around ``box``, edged in ink on both sides (it shows by its shape
    and its edges, not by its colour alone)."""
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=14, outline=INK, width=width + 2)
    draw.rounded_rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), radius=13, outline=HIGHLIGHT, width=width)


def _arrow(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float], width: int = 7) -> None:
    """Draw a straight arrow in the highlight colour edged in ink, head at ``end``."""
    (x0, y0), (x1, y1) = start, end
    length = max(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5, 1.0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head = 22
    base = (x1 - ux * head, y1 - uy * head)
    draw.line((x0, y0, *base), fill=INK, width=width + 2)
    draw.line((x0, y0, *base), fill=HIGHLIGHT, width=width)
    draw.polygon([(x1, y1), (base[0] - uy * 13, base[1] + ux * 13), (base[0] + uy * 13, base[1] - ux * 13)],
                 fill=HIGHLIGHT, outline=INK)


def _draw_last_move(draw: ImageDraw.ImageDraw, state: ChopsticksState) -> None:
    """Frame the hands the last move involved (thick: the hand that changed; thin: the tapping hand)."""
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return
    seat = state.positions[-2][1]
    other = 1 - seat
    if isinstance(move, Tap):
        _frame(draw, _hand_box(seat, move.hand), 3)
        _frame(draw, _hand_box(other, move.target), 6)
    elif isinstance(move, SelfTap):
        _frame(draw, _hand_box(seat, move.hand), 3)
        _frame(draw, _hand_box(seat, 1 - move.hand), 6)
    elif isinstance(move, Split):
        for hand in (0, 1):
            _frame(draw, _hand_box(seat, hand), 6)


def _draw_last_move_arrow(draw: ImageDraw.ImageDraw, state: ChopsticksState) -> None:
    """Draw the arrow of the last move over the hands (a split has none: both its hands are framed)."""
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return
    seat = state.positions[-2][1]
    if isinstance(move, Tap):
        # The arrow crosses the gap between the rows, from the tapping hand towards the tapped one.
        start_x, end_x = HAND_X[move.hand], HAND_X[move.target]
        below_row_0, above_row_1 = _palm_box(0, 0)[3] + _LABEL_BELOW + SMALL // 2 + 6, hand_top(1) - 4
        if seat == 0:
            _arrow(draw, (start_x, below_row_0), (end_x, above_row_1))
        else:
            _arrow(draw, (start_x, above_row_1), (end_x, below_row_0))
    elif isinstance(move, SelfTap):
        top = hand_top(seat) - 14
        left, right = HAND_X
        box = (left, top - 20, right, top + 20)
        draw.arc((box[0] - 1, box[1] - 1, box[2] + 1, box[3] + 1), start=180, end=360, fill=INK, width=9)
        draw.arc(box, start=180, end=360, fill=HIGHLIGHT, width=7)
        tip_x = right if move.hand == 0 else left
        _arrow(draw, (tip_x, top - 2), (tip_x, top + 16), width=7)


_RULE_WORDS = {"cutoff": N_("no rollover"), "rollover": N_("rollover"), "self-taps": N_("self-taps"),
               "no self-taps": N_("no self-taps"), "transfer": N_("transfer splits"), "even": N_("even splits"),
               "none": N_("no splits"), "suicide": N_("suicide splits"), "swaps": N_("swaps")}
"""The words of each rule variant (a list of terms, for the board's rules line and the alt text)."""


def _rules(variant: Variant) -> str:
    parts = [_RULE_WORDS["rollover" if variant.rollover else "cutoff"],
             _RULE_WORDS["self-taps" if variant.self_taps else "no self-taps"], _RULE_WORDS[variant.splits]]
    if variant.splits == "transfer":
        if variant.suicide:
            parts.append(_RULE_WORDS["suicide"])
        if variant.swaps:
            parts.append(_RULE_WORDS["swaps"])
    return ", ".join(_(part) for part in parts)


_LAST_TAPS = {
    (0, 0): N_("Last move: {name} {notation} (left taps their left: {before} → {after})"),
    (0, 1): N_("Last move: {name} {notation} (left taps their right: {before} → {after})"),
    (1, 0): N_("Last move: {name} {notation} (right taps their left: {before} → {after})"),
    (1, 1): N_("Last move: {name} {notation} (right taps their right: {before} → {after})"),
}
"""The last move's line for a tap, by (tapping hand, tapped hand): whole sentences, so that each language orders its
words itself."""
_LAST_SELF_TAPS = {
    0: N_("Last move: {name} {notation} (own left taps own right: {before} → {after})"),
    1: N_("Last move: {name} {notation} (own right taps own left: {before} → {after})"),
}
_LAST_SPLIT = N_("Last move: {name} {notation} ({left} {right} → {new_left} {new_right})")


def _describe_move(state: ChopsticksState, names: Sequence[str]) -> str:
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return _("No move yet.")
    seat = state.positions[-2][1]
    other = 1 - seat
    notation = state.format_move(move)
    dead = _("dead")
    if isinstance(move, Tap):
        before, after = previous[other][move.target], state.hands[other][move.target]
        return _(_LAST_TAPS[(move.hand, move.target)]).format(name=names[seat], notation=notation, before=before,
                                                         after=dead if after == 0 else after)
    if isinstance(move, SelfTap):
        target = 1 - move.hand
        before, after = previous[seat][target], state.hands[seat][target]
        return _(_LAST_SELF_TAPS[move.hand]).format(name=names[seat], notation=notation, before=before,
                                               after=dead if after == 0 else after)
    return _(_LAST_SPLIT).format(name=names[seat], notation=notation, left=previous[seat][0], right=previous[seat][1],
                            new_left=move.left, new_right=move.right)


def _seat_tag(outcome: Outcome, seat: int) -> str:
    """What a finished match says beside ``seat``'s name."""
    if outcome.termination is Termination.ABORTED:
        return _("aborted")
    if outcome.winner == seat:
        return _("WINS")
    if outcome.loser == seat:
        return _("resigned") if outcome.termination is Termination.RESIGNED else _("out of time")
    return _("both hands dead") if outcome.winner is not None else _("draw")


def _draw_seat(image: Image.Image, draw: ImageDraw.ImageDraw, state: ChopsticksState, names: Sequence[str],
               seat: int, outcome: Outcome | None) -> None:
    top = ROW_TOP[seat]
    colour, light = SEAT_COLOURS[seat], SEAT_LIGHT[seat]
    to_move = outcome is None and state.current_seat == seat
    panel_fill = light if to_move else BACKGROUND
    draw.rounded_rectangle((12, top, WIDTH - 12, top + _ROW_HEIGHT), radius=18, fill=panel_fill,
                           outline=colour if to_move else GRID, width=3 if to_move else 2)
    size = NAME_SIZE if len(wrap_text(names[seat], NAME_SIZE, NAME_MAX_WIDTH - NAME_SIZE)) <= 3 else SMALL
    y = draw_seat_label(image, seat, (NAME_X, top + 14), names[seat], size, NAME_MAX_WIDTH, size + 3)
    role = _("first player") if seat == 0 else _("second player")
    _text(image, (NAME_X, y + 2), role, SMALL, MUTED, "la")
    if outcome is not None:
        tag = _seat_tag(outcome, seat)
        tag_colour = colour if outcome.winner == seat else (DEAD if outcome.winner is not None else INK)
    else:
        tag, tag_colour = (_("TO MOVE"), colour) if to_move else (_("waiting"), MUTED)
    _text(image, (NAME_X, y + 34), tag, 26, tag_colour, "la")
    hands: Hands = state.hands[seat]
    for hand in (0, 1):
        _draw_hand(image, draw, seat, hand, hands[hand])


_REPEATED = N_("position seen twice; a third time draws")


def status_line(state: ChopsticksState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line (:func:`renderers._common.status_line`), with a warning while the next repetition of
    the position would draw."""
    line = common_status_line(state, names, outcome)
    if ended(state.outcome, outcome) is None and state.repetitions() == 2:
        line += f" · {_(_REPEATED)}"
    return line


def render(state: ChopsticksState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as a PNG (bytes), :data:`WIDTH` x :func:`image_height` pixels: :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: ChopsticksState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a ``P`` image on the board's fixed palette, :data:`WIDTH` x :func:`image_height` pixels,
    with ``names[seat]`` in each seat's colour after its mark.

    Args:
        state: a Chopsticks state.
        names: display name per seat (two names, any text: drawn whole, wrapped).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        ValueError: ``names`` does not hold exactly two names, or ``state`` is not a Chopsticks state.
    """
    if not isinstance(state, ChopsticksState):
        raise ValueError("the Chopsticks renderer needs a Chopsticks state")
    if len(names) != 2:
        raise ValueError(f"Chopsticks needs two names, got {len(names)}")
    names = names_for_alt(names)
    layout = _layout((names[0], names[1]))
    shown = ended(state.outcome, outcome)
    image, draw = new_canvas(WIDTH, layout.height)
    _text(image, (NAME_X, 12), _("Chopsticks"), 28, INK, "la")
    _text(image, (WIDTH - 24, 14), move_count(state.ply), SMALL, MUTED, "ra")
    rules = fit_text(_rules(state.variant), SMALL, WIDTH - 2 * NAME_X)[0]
    _text(image, (NAME_X, 50), rules, SMALL, MUTED, "la")
    for seat in (0, 1):
        _draw_seat(image, draw, state, names, seat, shown)
    _draw_last_move(draw, state)
    _draw_last_move_arrow(draw, state)
    if shown is not None:
        colour = INK if shown.winner is None else SEAT_COLOURS[shown.winner]
    else:
        colour = SEAT_COLOURS[state.seat_to_move]
    y = _BOTTOM_TOP
    room = WIDTH - 2 * NAME_X
    for part in wrap_text(status_line(state, names, outcome), SMALL, room):
        _text(image, (NAME_X, y), part, SMALL, colour, "la")
        y += _LINE
    for part in wrap_text(_describe_move(state, names), SMALL, room):
        _text(image, (NAME_X, y), part, SMALL, INK, "la")
        y += _LINE
    # The board uses few colours: mapping it onto a fixed palette keeps the PNG small and fast to encode.
    return finish(image, _PALETTE)


# ------------------------------------------------------------------------------------------------ alt text

_TAPS = {
    (0, 0): N_("{name}'s left hand tapped {other}'s left hand: {before} became {after}."),
    (0, 1): N_("{name}'s left hand tapped {other}'s right hand: {before} became {after}."),
    (1, 0): N_("{name}'s right hand tapped {other}'s left hand: {before} became {after}."),
    (1, 1): N_("{name}'s right hand tapped {other}'s right hand: {before} became {after}."),
}
_SELF_TAPS = {
    0: N_("{name}'s left hand tapped their own right hand: {before} became {after}."),
    1: N_("{name}'s right hand tapped their own left hand: {before} became {after}."),
}


def _alt_last_move(state: ChopsticksState, names: Sequence[str]) -> list[str]:
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return [_("No move has been played yet.")]
    seat = state.positions[-2][1]
    other = 1 - seat
    played = sentence(_("Last move: {name} played {move}."), name=names[seat], move=state.format_move(move))
    if isinstance(move, Tap):
        detail = sentence(_(_TAPS[(move.hand, move.target)]), name=names[seat], other=names[other],
                          before=previous[other][move.target], after=state.hands[other][move.target])
    elif isinstance(move, SelfTap):
        target = 1 - move.hand
        detail = sentence(_(_SELF_TAPS[move.hand]), name=names[seat], before=previous[seat][target],
                          after=state.hands[seat][target])
    else:
        detail = sentence(_("{name} split {old_left} {old_right} into {left} {right}."), name=names[seat],
                          old_left=previous[seat][0], old_right=previous[seat][1], left=move.left, right=move.right)
    return [played, detail]


def alt_text(state: ChopsticksState, names: Sequence[str], *, outcome: Outcome | None = None,
             limit: int = ALT_TEXT_LIMIT) -> str:
    """The board in words for a screen reader (an attachment's description), at most ``limit`` characters.

    In order: the game, the move number and the rules; whose move it is or the result (and a warning after a
    second repetition); the last move in notation and what it did; each player's hands, left then right (a hand
    at 0 is dead). All of it fits in 1,024 characters with names of up to 32, so nothing is ever left out.

    Args:
        state: a Chopsticks state.
        names: display name per seat (two names).
        outcome: the result when a player's action ended the match (else the state's own outcome).
        limit: the most characters (Discord's 1,024 by default).
    """
    names = names_for_alt(names)
    shown = ended(state.outcome, outcome)
    parts = [sentence(_("Chopsticks board, move {ply}. Rules: {rules}."), ply=state.ply, rules=_rules(state.variant))]
    if shown is not None:
        parts.append(sentence(_("{result}."), result=outcome_text(state.game, names, shown)))
    else:
        parts.append(sentence(_("{name} to move."), name=names[state.seat_to_move]))
        if state.repetitions() == 2:
            parts.append(_("This position has occurred twice; a third time draws."))
    parts.extend(_alt_last_move(state, names))
    for seat in (0, 1):
        left, right = state.hands[seat]
        parts.append(sentence(_("{name}: left hand {left}, right hand {right}."), name=names[seat], left=left,
                              right=right))
    if 0 in state.hands[0] + state.hands[1]:
        parts.append(_("A hand at 0 is dead."))
    return compose(parts, limit=limit)
