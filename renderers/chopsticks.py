"""Chopsticks board: both players' names and hands, the last move marked, whose turn or the outcome.

Seat 0 sits in the upper row, seat 1 in the lower row; each row shows that player's left hand on the left
and right hand on the right, fingers up, with the count in the palm. A live hand shows its extended fingers
in the seat colour; a dead hand is a grey fist crossed out. The last move is drawn in the highlight colour:
an arrow from the tapping hand to the tapped hand (a curved arrow for a self-tap) or, for a split, both
hands outlined with the old and new counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from games import Outcome, Termination
from games.chopsticks import FINGERS, ChopsticksState, Hands, SelfTap, Split, Tap, Variant
from renderers._common import (
    BACKGROUND,
    DEAD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    SEAT_COLOURS,
    SEAT_LIGHT,
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
)

WIDTH, HEIGHT = 720, 560
"""Image size in pixels."""
ROW_TOP = (58, 288)
"""Top y in pixels of seat 0's and seat 1's row."""
_ROW_HEIGHT = 190
HAND_X = (410, 590)
"""Centre x in pixels of each seat's left and right hand."""
NAME_X = 24
NAME_MAX_WIDTH = 300
SMALL = min_text_px(WIDTH)
"""The smallest font on this board: 20 px, 11 px once Discord shows it 400 px wide."""
_HAND_NAMES = ("left", "right")
_FINGER_W, _FINGER_GAP = 16, 6
_PALM_HALF_W = 46
_DEAD_FILL = (225, 225, 225)


def _palette() -> Image.Image:
    """A fixed palette: every colour the board uses plus blends of each ink over each fill (text edges)."""
    inks = [*SEAT_COLOURS, INK, MUTED, DEAD, HIGHLIGHT]
    fills = [BACKGROUND, *SEAT_LIGHT, _DEAD_FILL, HIGHLIGHT, GRID]
    return fixed_palette(inks, fills, (0.2, 0.4, 0.6, 0.8))


_PALETTE = _palette()


def _text(image: Image.Image, xy: tuple[float, float], text: str, size: int, fill: tuple[int, int, int],
          anchor: str = "lm") -> None:
    draw_text(image, xy, text, size, fill, anchor)



def hand_top(seat: int) -> int:
    """The y in pixels where ``seat``'s extended fingertips start (folded fingers start 48 px lower)."""
    return ROW_TOP[seat] + 18


def _palm_box(seat: int, hand: int) -> tuple[int, int, int, int]:
    cx, top = HAND_X[hand], hand_top(seat)
    return cx - _PALM_HALF_W, top + 66, cx + _PALM_HALF_W, top + 132


def _hand_box(seat: int, hand: int) -> tuple[int, int, int, int]:
    cx, top = HAND_X[hand], hand_top(seat)
    return cx - 66, top - 8, cx + 66, top + 164


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
    size = 40
    centre = ((palm[0] + palm[2]) / 2, (palm[1] + palm[3]) / 2)
    _text(image, centre, number, size, DEAD if dead else colour, "mm")
    label = f"{_HAND_NAMES[hand]} (dead)" if dead else _HAND_NAMES[hand]
    _text(image, (cx, palm[3] + 16), label, SMALL, DEAD if dead else INK, "mm")
    if dead:
        x0, y0, x1, y1 = cx - 52, top + 2, cx + 52, palm[3]
        draw.line((x0, y0, x1, y1), fill=DEAD, width=6)
        draw.line((x0, y1, x1, y0), fill=DEAD, width=6)


def _arrow(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float], width: int = 7) -> None:
    """Draw a straight arrow in the highlight colour, head at ``end``."""
    (x0, y0), (x1, y1) = start, end
    length = max(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5, 1.0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head = 22
    base = (x1 - ux * head, y1 - uy * head)
    draw.line((x0, y0, *base), fill=HIGHLIGHT, width=width)
    draw.polygon([(x1, y1), (base[0] - uy * 13, base[1] + ux * 13), (base[0] + uy * 13, base[1] - ux * 13)],
                 fill=HIGHLIGHT, outline=INK)


def _draw_last_move(draw: ImageDraw.ImageDraw, state: ChopsticksState) -> None:
    """Outline the hands the last move involved (thick: the hand that changed; thin: the tapping hand)."""
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return
    seat = state.positions[-2][1]
    other = 1 - seat
    if isinstance(move, Tap):
        draw.rounded_rectangle(_hand_box(seat, move.hand), radius=14, outline=HIGHLIGHT, width=3)
        draw.rounded_rectangle(_hand_box(other, move.target), radius=14, outline=HIGHLIGHT, width=6)
    elif isinstance(move, SelfTap):
        draw.rounded_rectangle(_hand_box(seat, move.hand), radius=14, outline=HIGHLIGHT, width=3)
        draw.rounded_rectangle(_hand_box(seat, 1 - move.hand), radius=14, outline=HIGHLIGHT, width=6)
    elif isinstance(move, Split):
        for hand in (0, 1):
            draw.rounded_rectangle(_hand_box(seat, hand), radius=14, outline=HIGHLIGHT, width=6)


def _draw_last_move_arrow(image: Image.Image, draw: ImageDraw.ImageDraw, state: ChopsticksState) -> None:
    """Draw the arrow of the last move over the hands."""
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return
    seat = state.positions[-2][1]
    if isinstance(move, Tap):
        # The arrow crosses the gap between the rows, from the tapping hand towards the tapped one.
        start_x, end_x = HAND_X[move.hand], HAND_X[move.target]
        below_row_0, above_row_1 = _palm_box(0, 0)[3] + 28, hand_top(1) - 4
        if seat == 0:
            _arrow(draw, (start_x, below_row_0), (end_x, above_row_1))
        else:
            _arrow(draw, (start_x, above_row_1), (end_x, below_row_0))
    elif isinstance(move, SelfTap):
        top = hand_top(seat) - 14
        left, right = HAND_X
        box = (left, top - 20, right, top + 20)
        draw.arc(box, start=180, end=360, fill=HIGHLIGHT, width=7)
        tip_x = right if move.hand == 0 else left
        _arrow(draw, (tip_x, top - 2), (tip_x, top + 16), width=7)
    elif isinstance(move, Split):
        old, new = previous[seat], state.hands[seat]
        text = f"split {old[0]} {old[1]} → {new[0]} {new[1]}"
        x, y = NAME_X, ROW_TOP[seat] + 160
        width = text_width(text, SMALL)
        draw.rounded_rectangle((x - 6, y - 15, x + width + 6, y + 15), radius=8, fill=HIGHLIGHT, outline=INK)
        _text(image, (x, y), text, SMALL, INK)


def _variant_text(variant: Variant) -> str:
    parts = ["rollover" if variant.rollover else "cutoff", "self-taps" if variant.self_taps else "no self-taps",
             {"transfer": "transfer splits", "even": "even splits", "none": "no splits"}[variant.splits]]
    if variant.splits == "transfer":
        if variant.suicide:
            parts.append("suicide splits")
        if variant.swaps:
            parts.append("swaps")
    return "Chopsticks · " + ", ".join(parts)


def _describe_move(state: ChopsticksState, names: Sequence[str]) -> str:
    move, previous = state.last_move, state.previous_hands
    if move is None or previous is None:
        return "No move yet."
    seat = state.positions[-2][1]
    other = 1 - seat
    notation = state.format_move(move)
    if isinstance(move, Tap):
        before, after = previous[other][move.target], state.hands[other][move.target]
        result = "dead" if after == 0 else str(after)
        detail = f"{_HAND_NAMES[move.hand]} taps their {_HAND_NAMES[move.target]}: {before} → {result}"
    elif isinstance(move, SelfTap):
        target = 1 - move.hand
        before, after = previous[seat][target], state.hands[seat][target]
        result = "dead" if after == 0 else str(after)
        detail = f"own {_HAND_NAMES[move.hand]} taps own {_HAND_NAMES[target]}: {before} → {result}"
    else:
        detail = f"{previous[seat][0]} {previous[seat][1]} → {move.left} {move.right}"
    return f"Last move: {names[seat]} {notation} ({detail})"


def _seat_tag(outcome: Outcome, seat: int) -> str:
    """What a finished match says beside ``seat``'s name."""
    if outcome.termination is Termination.ABORTED:
        return "aborted"
    if outcome.winner == seat:
        return "WINS"
    if outcome.loser == seat:
        return "resigned" if outcome.termination is Termination.RESIGNED else "out of time"
    return "both hands dead" if outcome.winner is not None else "draw"


def _draw_seat(image: Image.Image, draw: ImageDraw.ImageDraw, state: ChopsticksState, names: Sequence[str],
               seat: int, outcome: Outcome | None) -> None:
    top = ROW_TOP[seat]
    colour, light = SEAT_COLOURS[seat], SEAT_LIGHT[seat]
    to_move = outcome is None and state.current_seat == seat
    panel_fill = light if to_move else BACKGROUND
    draw.rounded_rectangle((12, top, WIDTH - 12, top + _ROW_HEIGHT), radius=18, fill=panel_fill,
                           outline=colour if to_move else GRID, width=3 if to_move else 2)
    name, size = fit_text(short_name(names[seat], 30, NAME_MAX_WIDTH), 30, NAME_MAX_WIDTH, min_size=SMALL)
    _text(image, (NAME_X, top + 40), name, size, colour)
    role = "first player" if seat == 0 else "second player"
    _text(image, (NAME_X, top + 76), role, SMALL, MUTED)
    if outcome is not None:
        tag = _seat_tag(outcome, seat)
        tag_colour = colour if outcome.winner == seat else (DEAD if outcome.winner is not None else INK)
    else:
        tag, tag_colour = ("TO MOVE", colour) if to_move else ("waiting", MUTED)
    _text(image, (NAME_X, top + 120), tag, 26, tag_colour)
    hands: Hands = state.hands[seat]
    for hand in (0, 1):
        _draw_hand(image, draw, seat, hand, hands[hand])


def _short_names(names: Sequence[str]) -> list[str]:
    return [short_name(name, SMALL, 200) for name in names]


def status_line(state: ChopsticksState, names: Sequence[str], outcome: Outcome | None = None) -> str:
    """The board's status line: whose move it is, or the result (``outcome`` when given, else the state's).

    Names are drawn shortened (see :func:`renderers._common.short_name`).
    """
    names = _short_names(names)
    shown = ended(state.outcome, outcome)
    if shown is not None:
        return outcome_text(state.game, names, shown)
    status = f"{names[state.seat_to_move]} to move"
    if state.repetitions() == 2:
        status += " · position seen twice; a third time draws"
    return status


def render(state: ChopsticksState, names: Sequence[str], *, outcome: Outcome | None = None) -> bytes:
    """Render ``state`` as a 720 x 560 PNG (bytes): :func:`draw_board` encoded."""
    return to_png(draw_board(state, names, outcome=outcome))


def draw_board(state: ChopsticksState, names: Sequence[str], *, outcome: Outcome | None = None) -> Image.Image:
    """Draw ``state`` as a 720 x 560 ``P`` image on the board's fixed palette, with ``names[seat]`` in each seat's
    colour.

    Args:
        state: a Chopsticks state.
        names: display name per seat (two names).
        outcome: the result to show when a player's action ended the match (else the state's own outcome).

    Raises:
        ValueError: ``names`` does not hold exactly two names, or ``state`` is not a Chopsticks state.
    """
    if not isinstance(state, ChopsticksState):
        raise ValueError("the Chopsticks renderer needs a Chopsticks state")
    if len(names) != 2:
        raise ValueError(f"Chopsticks needs two names, got {len(names)}")
    shown = ended(state.outcome, outcome)
    image, draw = new_canvas(WIDTH, HEIGHT)
    counter = move_count(state.ply)
    title = fit_text(_variant_text(state.variant), SMALL, WIDTH - 2 * NAME_X - text_width(counter, SMALL) - 16)[0]
    _text(image, (NAME_X, 26), title, SMALL, INK)
    _text(image, (WIDTH - 24, 26), counter, SMALL, MUTED, "rm")
    for seat in (0, 1):
        _draw_seat(image, draw, state, names, seat, shown)
    _draw_last_move(draw, state)
    _draw_last_move_arrow(image, draw, state)
    status = status_line(state, names, outcome)
    if shown is not None:
        colour = INK if shown.winner is None else SEAT_COLOURS[shown.winner]
    else:
        colour = SEAT_COLOURS[state.seat_to_move]
    status, size = fit_text(status, 22, WIDTH - 48, min_size=SMALL)
    _text(image, (NAME_X, HEIGHT - 54), status, size, colour)
    last, size = fit_text(_describe_move(state, _short_names(names)), SMALL, WIDTH - 48)
    _text(image, (NAME_X, HEIGHT - 24), last, size, INK)
    # The board uses few colours: mapping it onto a fixed palette keeps the PNG small and fast to encode.
    return to_palette(image, _PALETTE)
