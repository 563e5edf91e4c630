"""The rules of Chopsticks, the hand game, with its rule variants.

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

This module is the rules core of the game (variant, moves and notation, state); it imports nothing of the game's
computer (:mod:`games.chopsticks.computer`, the retrograde solver and the players) or its declaration
(:mod:`games.chopsticks.game`). Pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.options import Option, check_options
from games.outcome import TERMINATION_PHRASES, Outcome, Termination, stored_outcome_agrees
from games.state import State
from i18n import N_, Text, _

FINGERS = 5
"""A hand that reaches this many fingers dies; live hands hold 1 to ``FINGERS - 1``."""
MAX_PLIES = 200
"""A game reaching this many plies is drawn."""
REPETITIONS = 3
"""The occurrence of a position that draws the game."""
NATURAL_END = N_("both hands are dead")
"""How the game's own end reads in a sentence (a seat with two dead hands has lost)."""
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
_NOTATION_HELP = N_(
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
        raise InvalidMove(f"A move must be text. {_NOTATION_HELP}")  # never a member's: a caller's mistake
    match = _TAP_RE.fullmatch(text)
    if match:
        hand, target = (_LETTERS.index(letter.upper()) for letter in match.group(2, 3))
        if match.group(1) is None:
            return Tap(hand, target)
        if hand == target:
            raise InvalidMove(_("A hand cannot tap itself: a self-tap is self LR or self RL."))
        return SelfTap(hand)
    match = _SPLIT_RE.fullmatch(text)
    if match:
        left, right = (int(group) for group in match.group(1, 2))
        if left >= FINGERS or right >= FINGERS:
            raise InvalidMove(_("A hand holds 0 to {most} fingers, so split {left} {right} is impossible.",
                                most=FINGERS - 1, left=left, right=right))
        return Split(left, right)
    raise InvalidMove(_("{move} is not a Chopsticks move. {help}", move=repr(text.strip()), help=_(_NOTATION_HELP)))


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
    raise InvalidMove(f"{move!r} is not a Chopsticks move.")  # never a member's: only moves made in code


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


_DEAD_TAPPER = (N_("Your left hand is dead, so it cannot tap. Legal moves: {moves}."),
                N_("Your right hand is dead, so it cannot tap. Legal moves: {moves}."))
_DEAD_OWN_TARGET = (N_("Your left hand is dead, so it cannot be tapped. Legal moves: {moves}."),
                    N_("Your right hand is dead, so it cannot be tapped. Legal moves: {moves}."))
_DEAD_TARGET = (N_("Your opponent's left hand is dead, so it cannot be tapped. Legal moves: {moves}."),
                N_("Your opponent's right hand is dead, so it cannot be tapped. Legal moves: {moves}."))


def _why_illegal(move: Move, mine: Hands, variant: Variant, moves: str) -> Text:
    """Explain in a sentence why the self-tap or split ``move`` is not legal for a mover holding ``mine``, then list
    the legal ``moves``."""
    left, right = mine
    if isinstance(move, SelfTap) and not variant.self_taps:
        return _("Self-taps are off in this match. Legal moves: {moves}.", moves=moves)
    if isinstance(move, SelfTap):
        if not mine[move.hand]:
            return _(_DEAD_TAPPER[move.hand], moves=moves)
        return _(_DEAD_OWN_TARGET[1 - move.hand], moves=moves)
    if isinstance(move, Split):
        total, new_total = left + right, move.left + move.right
        if variant.splits == "none":
            return _("Splits are off in this match. Legal moves: {moves}.", moves=moves)
        if variant.splits == "even":
            if (left == 0) == (right == 0) or total % 2:
                return _("Only a single live hand with an even count may split (into two equal halves); you hold "
                         "{left} {right}. Legal moves: {moves}.", left=left, right=right, moves=moves)
            return _("An even split of your {total} fingers must make {half} {half}. Legal moves: {moves}.",
                     total=total, half=total // 2, moves=moves)
        if new_total != total:
            return _("A split must keep your total of {total} fingers ({left} + {right}), not make {new_total}. "
                     "Legal moves: {moves}.", total=total, left=left, right=right, new_total=new_total, moves=moves)
        if (move.left, move.right) == mine:
            return _("A split must change your hands; you already hold {left} {right}. Legal moves: {moves}.",
                     left=left, right=right, moves=moves)
        if (move.right, move.left) == mine:
            return _("A split must change your counts, not just swap your hands (swaps are off in this match). "
                     "Legal moves: {moves}.", moves=moves)
        return _("A split must leave both hands alive (suicide splits are off in this match). Legal moves: {moves}.",
                 moves=moves)
    return _("That move is not legal here. Legal moves: {moves}.", moves=moves)


def _why_tap_illegal(move: Tap, mine: Hands, theirs: Hands, moves: str) -> Text:
    """Explain in a sentence why the tap ``move`` is not legal (a dead tapping or tapped hand), then list the legal
    ``moves``."""
    if not mine[move.hand]:
        return _(_DEAD_TAPPER[move.hand], moves=moves)
    return _(_DEAD_TARGET[move.target], moves=moves)


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

    Build one with :meth:`start` (or ``games.chopsticks.GAME.new_state``) and advance it with :meth:`apply`.

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
            termination = self.result.termination
            why = NATURAL_END if termination is Termination.NATURAL else TERMINATION_PHRASES[termination]
            raise IllegalMove(_("The game is over ({why}); no more moves can be played.", why=_(why)))
        if not isinstance(move, Tap | SelfTap | Split):
            raise IllegalMove(f"{move!r} is not a Chopsticks move.")  # never a member's: parse_move makes only moves
        seat = self.seat_to_move
        mine, theirs = self.hands[seat], self.hands[1 - seat]
        options = {option: (new_mine, new_theirs) for option, new_mine, new_theirs in
                   successors(mine, theirs, self.variant)}
        if move not in options:
            moves = ", ".join(format_move(option) for option in options)
            if isinstance(move, Tap):
                raise IllegalMove(_why_tap_illegal(move, mine, theirs, moves))
            raise IllegalMove(_why_illegal(move, mine, self.variant, moves))
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
