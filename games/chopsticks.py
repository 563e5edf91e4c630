"""Chopsticks, the hand game, with its rule variants, a retrograde-analysis solver and the computer player.

The rules follow ``seeds/chopsticks.md`` (our summary of the Wikipedia article "Chopsticks (hand game)",
Wikipedia contributors, CC BY-SA) with the decisions of the design document, section 1. Each seat has two
hands, ``(left, right)``, each holding 0-4 fingers; 0 is a dead hand. Seat 0 moves first. A move is one of

* a tap on the opponent, ``LL``, ``LR``, ``RL``, ``RR`` (:class:`Tap`: the mover's hand, then the tapped
  opponent hand);
* a self-tap, ``self LR`` or ``self RL`` (:class:`SelfTap`: the mover's left taps their right, or the reverse);
* a split, ``split A B`` (:class:`Split`: the mover's new left and right counts).

A tapped hand adds the tapping hand's count; reaching 5 or more kills it (cutoff), or with the ``rollover``
variant exactly 5 kills it and more wraps round by -5. A player with two dead hands loses. The third
occurrence of a position (the same hands per seat, left and right as held, and the same seat to move) is a
draw, and so is a game reaching 200 plies.

This module is pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, TypeAlias

from games.base import (
    DemoMatch,
    Game,
    GameValue,
    IllegalMove,
    InvalidMove,
    InvalidState,
    InvalidVariant,
    Level,
    MoveCommand,
    MoveParam,
    Option,
    Outcome,
    State,
    Termination,
    check_options,
    stored_outcome_agrees,
)

FINGERS = 5
"""A hand that reaches this many fingers dies; live hands hold 1 to ``FINGERS - 1``."""
MAX_PLIES = 200
"""A game reaching this many plies is drawn."""
REPETITIONS = 3
"""The occurrence of a position that draws the game."""
MEDIUM_PERFECT = 0.7
"""Probability that the ``medium`` computer plays the perfect move rather than a random legal one."""
START_HANDS: tuple[tuple[int, int], tuple[int, int]] = ((1, 1), (1, 1))
"""Every seat starts with one finger on each hand."""

SplitRule = Literal["transfer", "even", "none"]
SPLIT_RULES: tuple[SplitRule, ...] = ("transfer", "even", "none")
OPTIONS: tuple[Option, ...] = (
    Option("rollover", "Exactly 5 kills a hand; more wraps around (-5)", False, "bool"),
    Option("self_taps", "May a hand tap your own other hand?", True, "bool"),
    Option("splits", "Transfers between your hands: any, even halves only, or none", "transfer", "choice",
           choices=SPLIT_RULES),
    Option("suicide", "May a split empty one hand?", False, "bool"),
    Option("swaps", "May a split just swap your hands?", False, "bool"),
)
"""The variant options (see :class:`Variant`)."""

Hands: TypeAlias = tuple[int, int]
"""One seat's hands as ``(left, right)`` finger counts, each 0-4."""
Position: TypeAlias = tuple[tuple[Hands, Hands], int]
"""``(hands per seat, seat to move)``: what the repetition rule compares."""

_HAND_NAMES = ("left", "right")
_LETTERS = "LR"


# --------------------------------------------------------------------------------------------- variant


@dataclass(frozen=True, slots=True)
class Variant:
    """The rule set of a match (every field is a variant option; defaults are the design document's).

    Attributes:
        rollover: ``False`` (cutoff): a hand reaching 5 or more dies. ``True``: exactly 5 dies, more wraps by -5.
        self_taps: a player may tap their own other hand (which may kill it).
        splits: ``"transfer"`` redistributes the mover's total over both hands; ``"even"`` lets only a single
            live hand with an even count split into two equal halves; ``"none"`` forbids splits.
        suicide: a transfer split may leave a hand empty (e.g. ``[2, 1] -> [3, 0]``).
        swaps: a transfer split may merely swap the hands (``[3, 1] -> [1, 3]``), in effect passing.

    ``suicide`` and ``swaps`` only change transfer splits: even splits always end at two equal live hands.
    """

    rollover: bool = False
    self_taps: bool = True
    splits: SplitRule = "transfer"
    suicide: bool = False
    swaps: bool = False

    @classmethod
    def from_mapping(cls, options: Variant | Mapping[str, Any] | None = None) -> Variant:
        """Build a variant from a dict of options (checked by :data:`OPTIONS`); missing ones take their defaults.

        Raises:
            InvalidVariant: an option is unknown, a boolean option is not ``true``/``false``, or ``splits`` is
                not one of ``transfer``, ``even``, ``none``.
        """
        if isinstance(options, Variant):
            return options
        full = check_options(OPTIONS, options)
        return cls(rollover=full["rollover"], self_taps=full["self_taps"], splits=full["splits"],
                   suicide=full["suicide"], swaps=full["swaps"])

    def to_dict(self) -> dict[str, Any]:
        """Return every option as a JSON-safe dict (``{"rollover": False, ..., "splits": "transfer"}``)."""
        return {
            "rollover": self.rollover,
            "self_taps": self.self_taps,
            "splits": self.splits,
            "suicide": self.suicide,
            "swaps": self.swaps,
        }

    @classmethod
    def every(cls) -> tuple[Variant, ...]:
        """Return all 48 combinations of the options."""
        return tuple(
            cls(rollover=r, self_taps=t, splits=s, suicide=u, swaps=w)
            for r, t, s, u, w in itertools.product((False, True), (True, False), SPLIT_RULES, (False, True),
                                                   (False, True))
        )


# ------------------------------------------------------------------------------------------------ moves


@dataclass(frozen=True, slots=True)
class Tap:
    """The mover's ``hand`` taps the opponent's ``target`` hand (0 = left, 1 = right). Notation ``LR`` etc."""

    hand: int
    target: int


@dataclass(frozen=True, slots=True)
class SelfTap:
    """The mover's ``hand`` taps their own other hand (0 = left taps right). Notation ``self LR``/``self RL``."""

    hand: int


@dataclass(frozen=True, slots=True)
class Split:
    """The mover redistributes their fingers to ``left`` and ``right`` (each 0-4). Notation ``split 1 3``."""

    left: int
    right: int


Move: TypeAlias = Tap | SelfTap | Split

_TAP_RE = re.compile(r"\s*(self\s*)?([lr])\s*([lr])\s*", re.IGNORECASE)
_SPLIT_RE = re.compile(r"\s*split\s*(\d+)\s*[\s,]\s*(\d+)\s*", re.IGNORECASE)
_NOTATION_HELP = (
    "Write a tap as LL, LR, RL or RR (your hand, then your opponent's hand), a self-tap as self LR or self RL, "
    "or a split as split A B (your new left and right counts)."
)


def parse_move(text: str) -> Move:
    """Parse Chopsticks notation (case-insensitive, extra spaces allowed) into a move.

    Raises:
        InvalidMove: ``text`` is not a move: not a tap, self-tap or split, a hand tapping itself
            (``self LL``), or a split count outside 0-4.
    """
    if not isinstance(text, str):
        raise InvalidMove(f"A move must be text. {_NOTATION_HELP}")
    match = _TAP_RE.fullmatch(text)
    if match:
        hand, target = (_LETTERS.index(letter.upper()) for letter in match.group(2, 3))
        if match.group(1) is None:
            return Tap(hand, target)
        if hand == target:
            raise InvalidMove("A hand cannot tap itself: a self-tap is self LR or self RL.")
        return SelfTap(hand)
    match = _SPLIT_RE.fullmatch(text)
    if match:
        left, right = (int(group) for group in match.group(1, 2))
        if left >= FINGERS or right >= FINGERS:
            raise InvalidMove(f"A hand holds 0 to {FINGERS - 1} fingers, so split {left} {right} is impossible.")
        return Split(left, right)
    raise InvalidMove(f"{text.strip()!r} is not a Chopsticks move. {_NOTATION_HELP}")


def format_move(move: Move) -> str:
    """Return the canonical notation of ``move`` (``LR``, ``self RL``, ``split 1 3``).

    Raises:
        InvalidMove: ``move`` is not a Chopsticks move.
    """
    if isinstance(move, Tap) and move.hand in (0, 1) and move.target in (0, 1):
        return _LETTERS[move.hand] + _LETTERS[move.target]
    if isinstance(move, SelfTap) and move.hand in (0, 1):
        return f"self {_LETTERS[move.hand]}{_LETTERS[1 - move.hand]}"
    if isinstance(move, Split) and 0 <= move.left < FINGERS and 0 <= move.right < FINGERS:
        return f"split {move.left} {move.right}"
    raise InvalidMove(f"{move!r} is not a Chopsticks move.")


# ------------------------------------------------------------------------------------------------ rules


def tap_result(tapped: int, tapping: int, rollover: bool) -> int:
    """Return the tapped hand's new count (0 = dead) after a hand of ``tapping`` fingers taps it.

    Cutoff: 5 or more dies. Rollover: exactly 5 dies, more wraps by -5 (4 tapped by 2 becomes 1).
    """
    total = tapped + tapping
    if total < FINGERS:
        return total
    if rollover and total > FINGERS:
        return total - FINGERS
    return 0


def split_targets(mine: Hands, variant: Variant) -> list[Hands]:
    """Return every ``(left, right)`` the mover holding ``mine`` may split to, left count ascending."""
    left, right = mine
    total = left + right
    if variant.splits == "none" or total == 0:
        return []
    if variant.splits == "even":
        if (left == 0) != (right == 0) and total % 2 == 0:
            return [(total // 2, total // 2)]
        return []
    lowest = 0 if variant.suicide else 1
    targets = []
    for new_left in range(max(lowest, total - FINGERS + 1), min(FINGERS - 1, total - lowest) + 1):
        target = (new_left, total - new_left)
        if target == mine or (not variant.swaps and target == (right, left)):
            continue
        targets.append(target)
    return targets


def successors(mine: Hands, theirs: Hands, variant: Variant) -> list[tuple[Move, Hands, Hands]]:
    """Return ``(move, mover's new hands, opponent's new hands)`` for every legal move, in the stable order
    taps (``LL, LR, RL, RR``), self-taps (``self LR, self RL``), splits (left count ascending).

    ``mine``/``theirs`` are the mover's and the opponent's ``(left, right)``; both must have a live hand.
    """
    moves: list[tuple[Move, Hands, Hands]] = []
    for hand in (0, 1):
        if not mine[hand]:
            continue
        for target in (0, 1):
            if theirs[target]:
                count = tap_result(theirs[target], mine[hand], variant.rollover)
                new_theirs = (count, theirs[1]) if target == 0 else (theirs[0], count)
                moves.append((Tap(hand, target), mine, new_theirs))
    if variant.self_taps and mine[0] and mine[1]:
        moves.append((SelfTap(0), (mine[0], tap_result(mine[1], mine[0], variant.rollover)), theirs))
        moves.append((SelfTap(1), (tap_result(mine[0], mine[1], variant.rollover), mine[1]), theirs))
    for split in split_targets(mine, variant):
        moves.append((Split(*split), split, theirs))
    return moves


def _why_illegal(move: Move, mine: Hands, variant: Variant) -> str:
    """Explain in a sentence why the self-tap or split ``move`` is not legal for a mover holding ``mine``."""
    left, right = mine
    if isinstance(move, SelfTap) and not variant.self_taps:
        return "Self-taps are off in this match."
    if isinstance(move, SelfTap):
        name, other = _HAND_NAMES[move.hand], _HAND_NAMES[1 - move.hand]
        if not mine[move.hand]:
            return f"Your {name} hand is dead, so it cannot tap."
        return f"Your {other} hand is dead, so it cannot be tapped."
    if isinstance(move, Split):
        total, new_total = left + right, move.left + move.right
        if variant.splits == "none":
            return "Splits are off in this match."
        if variant.splits == "even":
            if (left == 0) == (right == 0) or total % 2:
                return (f"Only a single live hand with an even count may split (into two equal halves); "
                        f"you hold {left} {right}.")
            return f"An even split of your {total} fingers must make {total // 2} {total // 2}."
        if new_total != total:
            return f"A split must keep your total of {total} fingers ({left} + {right}), not make {new_total}."
        if (move.left, move.right) == mine:
            return f"A split must change your hands; you already hold {left} {right}."
        if (move.right, move.left) == mine:
            return "A split must change your counts, not just swap your hands (swaps are off in this match)."
        return "A split must leave both hands alive (suicide splits are off in this match)."
    return "That move is not legal here."


def _why_tap_illegal(move: Tap, mine: Hands, theirs: Hands) -> str:
    """Explain in a sentence why the tap ``move`` is not legal (a dead tapping or tapped hand)."""
    if not mine[move.hand]:
        return f"Your {_HAND_NAMES[move.hand]} hand is dead, so it cannot tap."
    return f"Your opponent's {_HAND_NAMES[move.target]} hand is dead, so it cannot be tapped."


def _check_hands(value: Any, what: str) -> tuple[Hands, Hands]:
    """Validate a JSON-ish ``[[l, r], [l, r]]`` and return it as tuples (raises :class:`InvalidState`)."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise InvalidState(f"The {what} must be two seats of [left, right] finger counts.")
    seats = []
    for seat, hands in enumerate(value):
        if not isinstance(hands, Sequence) or isinstance(hands, str) or len(hands) != 2:
            raise InvalidState(f"The {what} of seat {seat} must be [left, right] finger counts.")
        for count in hands:
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count < FINGERS:
                raise InvalidState(
                    f"The {what} of seat {seat} hold {list(hands)}, but a hand holds 0 to {FINGERS - 1} fingers."
                )
        seats.append((hands[0], hands[1]))
    return seats[0], seats[1]


# ------------------------------------------------------------------------------------------------ state


@dataclass(frozen=True, slots=True)
class ChopsticksState(State[Move]):
    """An immutable Chopsticks position with its history (for the repetition rule and the replay).

    Build one with :meth:`start` (or ``GAME.new_state``) and advance it with :meth:`apply`.

    Attributes:
        variant: the match's rule set.
        hands: per seat ``(left, right)`` finger counts, 0-4 (0 = dead).
        seat_to_move: the seat whose turn it is; after the game ends, the seat that would have moved
            (``current_seat`` is then ``None``).
        moves: every move played, in order.
        positions: every position so far, the start first (``len(positions) == len(moves) + 1``).
        result: the outcome once the game is over.
    """

    game: ClassVar[str] = "chopsticks"

    variant: Variant
    hands: tuple[Hands, Hands]
    seat_to_move: int
    moves: tuple[Move, ...]
    positions: tuple[Position, ...]
    result: Outcome | None

    @classmethod
    def start(cls, variant: Variant | Mapping[str, Any] | None = None,
              hands: Sequence[Sequence[int]] = START_HANDS, seat: int = 0) -> ChopsticksState:
        """Return a start position: by default ``[1, 1], [1, 1]`` with seat 0 to move.

        ``hands`` and ``seat`` give a hand-made start (puzzles, the rules example, tests).

        Raises:
            InvalidVariant: see :meth:`Variant.from_mapping`.
            InvalidState: a count is outside 0-4, a seat already has two dead hands, or ``seat`` is not 0 or 1.
        """
        rules = Variant.from_mapping(variant)
        start_hands = _check_hands(hands, "start hands")
        if any(seat_hands == (0, 0) for seat_hands in start_hands):
            raise InvalidState("Both players need a live hand at the start.")
        if seat not in (0, 1) or isinstance(seat, bool):
            raise InvalidState(f"The seat to move must be 0 or 1, not {seat!r}.")
        return cls(rules, start_hands, seat, (), ((start_hands, seat),), None)

    # -- the State interface

    @property
    def current_seat(self) -> int | None:
        """The seat to move, or ``None`` once the game is over."""
        return None if self.result is not None else self.seat_to_move

    @property
    def ply(self) -> int:
        """Number of moves played since the start position."""
        return len(self.moves)

    @property
    def last_move(self) -> Move | None:
        """The move that produced this position, or ``None`` at the start."""
        return self.moves[-1] if self.moves else None

    @property
    def outcome(self) -> Outcome | None:
        """The outcome once over: a win (``"both hands dead"``) or a draw (``"third repetition"``, ``"200 plies"``)."""
        return self.result

    @property
    def scores(self) -> None:
        """Chopsticks keeps no score."""
        return None

    @property
    def position(self) -> Position:
        """``(hands, seat_to_move)``: the key of the repetition rule and of :meth:`Solution.evaluate`."""
        return self.hands, self.seat_to_move

    @property
    def previous_hands(self) -> tuple[Hands, Hands] | None:
        """The hands before the last move (for highlighting what changed), or ``None`` at the start."""
        return self.positions[-2][0] if len(self.positions) > 1 else None

    def repetitions(self) -> int:
        """How many times the current position has occurred so far (1 the first time)."""
        return self.positions.count(self.position)

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move, in the order of :func:`successors`; empty once over."""
        if self.result is not None:
            return []
        seat = self.seat_to_move
        return [move for move, _, _ in successors(self.hands[seat], self.hands[1 - seat], self.variant)]

    def parse_move(self, text: str) -> Move:
        """Parse notation (see :func:`parse_move`); raises :class:`InvalidMove`."""
        return parse_move(text)

    def format_move(self, move: Move) -> str:
        """Return the canonical notation (see :func:`format_move`)."""
        return format_move(move)

    def apply(self, move: Move) -> ChopsticksState:
        """Return the position after ``move`` by the seat to move.

        Raises:
            IllegalMove: the game is over, or the move is not legal here (the message says why and lists
                the legal moves).
        """
        if self.result is not None:
            raise IllegalMove(f"The game is over ({GAME.describe_end(self.result)}); no more moves can be played.")
        if not isinstance(move, Tap | SelfTap | Split):
            raise IllegalMove(f"{move!r} is not a Chopsticks move.")
        seat = self.seat_to_move
        mine, theirs = self.hands[seat], self.hands[1 - seat]
        options = {option: (new_mine, new_theirs) for option, new_mine, new_theirs in
                   successors(mine, theirs, self.variant)}
        if move not in options:
            if isinstance(move, Tap):
                reason = _why_tap_illegal(move, mine, theirs)
            else:
                reason = _why_illegal(move, mine, self.variant)
            raise IllegalMove(f"{reason} Legal moves: {', '.join(format_move(option) for option in options)}.")
        new_mine, new_theirs = options[move]
        hands = (new_mine, new_theirs) if seat == 0 else (new_theirs, new_mine)
        position = (hands, 1 - seat)
        positions = (*self.positions, position)
        result = None
        if new_theirs == (0, 0):
            result = Outcome(winner=seat, draw=False, scores=None, termination=Termination.NATURAL)
        elif positions.count(position) >= REPETITIONS:
            result = Outcome(winner=None, draw=True, scores=None, termination=Termination.REPETITION)
        elif len(positions) - 1 >= MAX_PLIES:
            result = Outcome(winner=None, draw=True, scores=None, termination=Termination.MOVE_LIMIT)
        return ChopsticksState(self.variant, hands, 1 - seat, (*self.moves, move), positions, result)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict::

            {"game": "chopsticks", "variant": {...}, "start": {"hands": [[1, 1], [1, 1]], "seat": 0},
             "moves": ["LR", "split 2 1", ...], "ply": 2, "last_move": "split 2 1",
             "hands": [[1, 2], [2, 1]], "current_seat": 0, "outcome": null}

        ``start`` and ``moves`` are what :meth:`from_dict` replays; the other fields must agree with the replay.
        """
        start_hands, start_seat = self.positions[0]
        return {
            "game": self.game,
            "variant": self.variant.to_dict(),
            "start": {"hands": [list(hands) for hands in start_hands], "seat": start_seat},
            "moves": [format_move(move) for move in self.moves],
            "ply": self.ply,
            "last_move": format_move(self.moves[-1]) if self.moves else None,
            "hands": [list(hands) for hands in self.hands],
            "current_seat": self.current_seat,
            "outcome": self.result.to_dict() if self.result is not None else None,
        }

    required_keys: ClassVar[tuple[str, ...]] = (
        "game", "variant", "start", "moves", "ply", "last_move", "hands", "current_seat", "outcome")

    @classmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> ChopsticksState:
        """Rebuild a state from :meth:`to_dict` output by replaying its moves from its start (the frame is
        :meth:`State.from_dict`). A stored outcome written before outcomes had a termination (with a ``reason``)
        is accepted when its winner and draw agree with the replay.

        Raises:
            InvalidState: a field is missing or malformed, the variant is invalid, a move is malformed or
                illegal (including a move after the end), or the stored hands, ply, last move, seat to move
                or outcome disagree with the replay (e.g. a finished game that still names a mover).
        """
        try:
            variant = Variant.from_mapping(data["variant"])
        except InvalidVariant as error:
            raise InvalidState(f"Invalid variant: {error}") from error
        start = data["start"]
        if not isinstance(start, Mapping) or "hands" not in start or "seat" not in start:
            raise InvalidState("The start must give hands and seat.")
        state = cls.start(variant, _check_hands(start["hands"], "start hands"), start["seat"])
        moves = data["moves"]
        if not isinstance(moves, Sequence) or isinstance(moves, str):
            raise InvalidState("The moves must be a list of moves in Chopsticks notation.")
        for number, text in enumerate(moves, start=1):
            try:
                state = state.apply(parse_move(text))
            except (InvalidMove, IllegalMove) as error:
                raise InvalidState(f"Move {number} ({text!r}) cannot be replayed: {error}") from error
        expected = state.to_dict()
        if not stored_outcome_agrees(data["outcome"], state.result):
            raise InvalidState(
                f"The stored outcome {data['outcome']!r} disagrees with the moves, which give {expected['outcome']!r}."
            )
        for name in ("ply", "last_move", "current_seat"):
            if data[name] != expected[name]:
                raise InvalidState(
                    f"The stored {name} {data[name]!r} disagrees with the moves, which give {expected[name]!r}."
                )
        hands = _check_hands(data["hands"], "hands")
        if hands != state.hands:
            raise InvalidState(
                f"The stored hands {[list(h) for h in hands]} disagree with the moves, which give "
                f"{expected['hands']}."
            )
        return state


# ----------------------------------------------------------------------------------------------- solver

Value = Literal["win", "loss", "draw"]
_WIN, _LOSS, _DRAW = 1, -1, 0
_VALUE_NAMES: dict[int, Value] = {_WIN: "win", _LOSS: "loss", _DRAW: "draw"}
_HANDS: tuple[Hands, ...] = tuple((left, right) for left in range(FINGERS) for right in range(FINGERS))


class Evaluation(NamedTuple):
    """The game-graph value of a position for the seat to move, and the plies to the end under perfect play
    (winner: fastest win; loser: slowest loss); ``distance`` is ``None`` for a draw."""

    value: Value
    distance: int | None


def _index(mine: Hands, theirs: Hands) -> int:
    return ((mine[0] * FINGERS + mine[1]) * FINGERS + theirs[0]) * FINGERS + theirs[1]


@dataclass(frozen=True, slots=True)
class Solution:
    """Every position of one rule set solved by retrograde analysis.

    Positions are seen from the seat to move: ``mine`` (the mover's ``(left, right)``) against ``theirs``.
    Positions on cycles that neither side can force its way out of are draws; the repetition and 200-ply
    rules are not part of the value. Positions where the opponent already has two dead hands are not
    positions of the game and are not solved.
    """

    variant: Variant
    values: tuple[int | None, ...]
    distances: tuple[int, ...]

    def lookup(self, mine: Hands, theirs: Hands) -> Evaluation:
        """Return the value for the mover holding ``mine`` against ``theirs``.

        Raises:
            KeyError: a count is outside 0-4, or ``theirs`` is ``(0, 0)`` (the game already ended).
        """
        if not all(0 <= count < FINGERS for count in (*mine, *theirs)):
            raise KeyError(f"hands {mine}, {theirs} are outside 0-{FINGERS - 1}")
        index = _index((mine[0], mine[1]), (theirs[0], theirs[1]))
        code = self.values[index]
        if code is None:
            raise KeyError(f"{theirs} has two dead hands: the game is already over")
        return Evaluation(_VALUE_NAMES[code], None if code == _DRAW else self.distances[index])

    def evaluate(self, hands: Sequence[Hands], seat: int) -> Evaluation:
        """Return the value for ``seat`` to move in ``hands`` (per seat ``(left, right)``)."""
        mine, theirs = hands[seat], hands[1 - seat]
        return self.lookup((mine[0], mine[1]), (theirs[0], theirs[1]))

    def items(self) -> Iterator[tuple[Hands, Hands, Evaluation]]:
        """Yield ``(mine, theirs, evaluation)`` for every solved position (mover's view)."""
        for mine in _HANDS:
            for theirs in _HANDS:
                if theirs != (0, 0):
                    yield mine, theirs, self.lookup(mine, theirs)


def solve_uncached(variant: Variant) -> Solution:
    """Solve ``variant`` afresh, without the cache (benchmarks; everything else calls :func:`solve`).

    Retrograde analysis over the 600 mover-relative positions: positions where the mover has two dead hands
    are lost in 0 plies; working backwards in order of distance, a position with a lost child is won (fastest
    win), a position whose children are all won is lost (slowest loss); whatever is left is drawn.
    """
    size = FINGERS**4
    values: list[int | None] = [None] * size
    distances = [0] * size
    remaining = [0] * size
    parents: list[list[int]] = [[] for _ in range(size)]
    queue: deque[int] = deque()
    unknown = _DRAW + 2  # placeholder code for "not yet known"
    for mine in _HANDS:
        for theirs in _HANDS:
            if theirs == (0, 0):
                continue
            index = _index(mine, theirs)
            if mine == (0, 0):
                values[index] = _LOSS
                queue.append(index)
                continue
            values[index] = unknown
            children = {_index(new_theirs, new_mine) for _, new_mine, new_theirs in successors(mine, theirs, variant)}
            remaining[index] = len(children)
            for child in children:
                parents[child].append(index)
    while queue:
        child = queue.popleft()
        distance = distances[child] + 1
        if values[child] == _LOSS:
            for parent in parents[child]:
                if values[parent] == unknown:
                    values[parent] = _WIN
                    distances[parent] = distance
                    queue.append(parent)
        else:
            for parent in parents[child]:
                if values[parent] == unknown:
                    remaining[parent] -= 1
                    if not remaining[parent]:
                        values[parent] = _LOSS
                        distances[parent] = distance
                        queue.append(parent)
    final = tuple(_DRAW if value == unknown else value for value in values)
    return Solution(variant, final, tuple(distances))


@functools.lru_cache(maxsize=64)
def _solve_cached(variant: Variant) -> Solution:
    return solve_uncached(variant)


def solve(variant: Variant | Mapping[str, Any] | None = None) -> Solution:
    """Solve every position of the rule set ``variant`` by retrograde analysis (cached per rule set).

    Raises:
        InvalidVariant: see :meth:`Variant.from_mapping`.
    """
    return _solve_cached(Variant.from_mapping(variant))


# --------------------------------------------------------------------------------------------- computer


def ranked_moves(state: ChopsticksState) -> list[tuple[Move, tuple[int, int]]]:
    """Return each legal move with a rank for the mover, best first (higher is better).

    The rank is ``(category, tie-break)``: 3 = a win (immediate or by the solver; the fewer plies the
    better), 2 = a drawn position that keeps the game going, 1 = a move that ends the game drawn by
    repetition or the ply limit, 0 = a loss (the more plies the better).
    """
    solution = solve(state.variant)
    ranked = []
    for move in state.legal_moves():
        child = state.apply(move)
        outcome = child.outcome
        if outcome is not None and outcome.winner is not None:
            rank = (3, -1)
        elif outcome is not None:
            rank = (1, 0)
        else:
            value, distance = solution.evaluate(child.hands, child.seat_to_move)
            if value == "loss":
                rank = (3, -(distance or 0) - 1)
            elif value == "draw":
                rank = (2, 0)
            else:
                rank = (0, (distance or 0) + 1)
        ranked.append((move, rank))
    ranked.sort(key=lambda item: item[1], reverse=True)
    return ranked


def best_moves(state: ChopsticksState) -> list[Move]:
    """Return every move of the best rank in :func:`ranked_moves` (empty once the game is over)."""
    ranked = ranked_moves(state)
    return [move for move, rank in ranked if rank == ranked[0][1]]


# ------------------------------------------------------------------------------------------------- game


def _legal_notations(state: ChopsticksState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/chopsticks move notation``: every legal move's notation (none once the game is over)."""
    return [format_move(move) for move in state.legal_moves()]


class Chopsticks(Game[ChopsticksState, Move]):
    """The Chopsticks game: variants, start position and the computer player (rules: ``seeds/chopsticks.md``)."""

    key: ClassVar[str] = "chopsticks"
    title: ClassVar[str] = "Chopsticks"
    command: ClassVar[str] = "chopsticks"
    source: ClassVar[str] = 'Wikipedia contributors, "Chopsticks (hand game)" (CC BY-SA)'
    natural_end: ClassVar[str] = "both hands are dead"
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = ChopsticksState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("move", "Play a move by notation: LR, self LR, split 1 3", (
            MoveParam("notation", "LR = your left taps their right; self LR; split 1 3 = new left 1, right 3",
                      suggest=_legal_notations),
        ), assemble=lambda options: options["notation"]),
    )
    demo: ClassVar[tuple[DemoMatch, ...]] = (
        DemoMatch("default rules", {}, ("hard", "medium")),
        DemoMatch("rollover, no self-taps", {"rollover": True, "self_taps": False}, ("medium", "hard")),
    )

    def new_state(self, variant: Mapping[str, Any] | None = None,
                  rng: random.Random | None = None) -> ChopsticksState:
        """Return the start position ``[1, 1], [1, 1]``, seat 0 to move (``rng`` is unused).

        Raises:
            InvalidVariant: an option is unknown or has a value outside its legal values.
        """
        return ChopsticksState.start(Variant.from_mapping(variant))

    def choose_move(self, state: ChopsticksState, level: Level, rng: random.Random) -> Move:
        """Choose a move: ``easy`` uniformly at random, ``hard`` perfectly (a random one of
        :func:`best_moves`), ``medium`` the hard move with probability 0.7, else a random legal move.
        (:meth:`Game.computer_move` checks the state, the level and that the game is running.)
        """
        legal = state.legal_moves()
        if level == "easy":
            return rng.choice(legal)
        if level == "medium" and rng.random() >= MEDIUM_PERFECT:
            return rng.choice(legal)
        return rng.choice(best_moves(state))

    def exact_value(self, state: ChopsticksState, seat: int) -> GameValue:
        """The value of ``state`` for ``seat`` (kind ``"outcome"``): a finished game's result, else the retrograde
        solution of the variant (:func:`solve`, the game graph's value with cycles as draws), with ``distance`` the
        plies to the end under perfect play.

        The 200-ply rule is applied: a win or loss whose perfect play would end after ply 200 is a draw. Earlier
        repetitions are not (the solver's value, as the ``hard`` player uses it): the winning side's fastest line
        never repeats a position of its own, so only a line through a position already seen twice before could
        differ.
        """
        outcome = state.result
        if outcome is not None:
            amount = 0 if outcome.winner is None else 1 if outcome.winner == seat else -1
            return GameValue("outcome", amount, 0)
        evaluation = solve(state.variant).evaluate(state.hands, state.seat_to_move)
        distance = evaluation.distance
        if distance is None or state.ply + distance > MAX_PLIES:
            return GameValue("outcome", 0, None)
        amount = 1 if evaluation.value == "win" else -1
        return GameValue("outcome", amount if seat == state.seat_to_move else -amount, distance)


GAME = Chopsticks()
"""The registry entry for ``chopsticks``."""
