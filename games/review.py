"""The review of a finished match: every move marked by the game value before and after it, for the player who moved.

Where a game can be solved (its :meth:`games.declaration.Game.exact_move`: Chopsticks always, the Grid Game of
Differences once few marks remain, Gröbner Nim where the exact search finishes within its budget) a move's marks
are exact: the value of the position before the move (the best the mover could get) and after it, with the moves
that kept the value when the one played did not. The terms are those of endgame tablebases and chess analysis:
a move *kept the win* or *held the draw*; it is the *best move*; it is an *inaccuracy* or a *mistake* (the same
result, fewer points or more turns) or a *blunder* (a worse result: it threw away a win, or turned a draw into a
loss).

Elsewhere the review compares the move with the ``hard`` computer player's choice and, where the game has one
(:meth:`games.declaration.Game.estimate`), the computer's evaluation of both: an estimate, labelled as such.

The *turning point* is the position before the decisive mistake: the last move that made the result worse for its
player (after it the result never changed again), else the worst mistake.

A review is one search per move, so it can be made piece by piece: :func:`review_piece` marks one move of a stored
match (what a worker process runs, one piece at a time, so that other work can come between two pieces), and
:func:`assemble` makes the review of the marks; :func:`review` does the same in one call, with the same result.

This module is pure Python: no I/O, no ``discord``, no storage. A review is bounded by a budget of work seconds
summed over its moves (:data:`REVIEW_SECONDS`); moves it did not reach are reported as not reviewed.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.declaration import Game
from games.state import State
from games.values import Estimate, GameValue, MoveValues
from i18n import Listed, Text, _, n_

REVIEW_SECONDS = 20.0
"""Seconds of work (summed over the moves marked) a review may spend before the moves left are reported as not
reviewed."""
ALTERNATIVES = 3
"""Most moves named as keeping the value when the move played did not."""

Severity = Literal[0, 1, 2, 3]
"""0: fine (best move, kept the win, the computer's choice); 1: inaccuracy; 2: mistake; 3: blunder."""
SEVERITY_NAMES: Mapping[int, str] = {1: "inaccuracy", 2: "mistake", 3: "blunder"}

_ESTIMATE_STEPS: Mapping[str, tuple[float, float]] = {"margin": (1.0, 3.0), "outcome": (0.2, 0.5)}
"""Estimated loss from which a move is an inaccuracy, and a mistake, per estimate kind (points; expected result)."""
_RESULT_ORDER = {"loss": 0, "draw": 1, "win": 2}


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One move of a review.

    Attributes:
        ply: the move's number, from 1.
        seat: the seat that played it.
        move: the move in the game's notation.
        basis: ``"exact"`` (a solver's values), ``"estimate"`` (the ``hard`` computer player's), ``"choice"`` (the
            computer's choice only: the game has no evaluation) or ``"none"`` (not reviewed: time ran out).
        before: exact value of the position before the move, for the mover (the best they could get).
        after: exact value after the move, for the mover.
        keeping: when the move lost value, up to :data:`ALTERNATIVES` moves (notation) that kept ``before``.
        hard_move: the ``hard`` computer player's choice (estimate and choice reviews).
        played_estimate: the estimate after the move played, for the mover.
        hard_estimate: the estimate after the computer's choice, for the mover.
        severity: see :data:`Severity`.
        verdict: the mark in words (``"kept the win"``, ``"blunder: threw away a forced win"``, ...).
    """

    ply: int
    seat: int
    move: str
    basis: Literal["exact", "estimate", "choice", "none"]
    severity: Severity
    verdict: Text
    before: GameValue | None = None
    after: GameValue | None = None
    keeping: tuple[str, ...] = ()
    hard_move: str | None = None
    played_estimate: Estimate | None = None
    hard_estimate: Estimate | None = None

    @property
    def exact(self) -> bool:
        """``True`` when the marks come from a solver."""
        return self.basis == "exact"

    def values_text(self) -> Text | str | None:
        """The values in a few characters: ``win → loss``, ``+3 → +1``, ``≈ +2.0 (computer's move ≈ +3.5)``;
        ``None`` when the move has none (not reviewed, or the computer's choice only)."""
        if self.before is not None and self.after is not None:
            return _("{before} → {after}", before=self.before.short(), after=self.after.short())
        if self.played_estimate is not None:
            if self.hard_estimate is None or self.hard_move == self.move:
                return self.played_estimate.short()
            return _("{played} (computer's move {computer})", played=self.played_estimate.short(),
                     computer=self.hard_estimate.short())
        return None

    def line(self, name: str) -> Text:
        """The move as one line for players: ``7. `LR` (alice): win → loss · blunder: threw away a forced win;
        `RR` kept the win`` (``name``: the mover's display name, already escaped for where it is shown)."""
        values = self.values_text()
        if values:
            return _("{ply}. `{move}` ({name}): {values} · {verdict}", ply=str(self.ply), move=self.move, name=name,
                     values=values, verdict=self.verdict)
        return _("{ply}. `{move}` ({name}): {verdict}", ply=str(self.ply), move=self.move, name=name,
                 verdict=self.verdict)


@dataclass(frozen=True, slots=True)
class Review:
    """The review of a match.

    Attributes:
        game: the game key.
        moves: one :class:`MoveReview` per move played, in order.
        turning_point: the 0-based index in ``moves`` of the decisive mistake (the board to show is the position
            before it: state number ``turning_point`` of the replay), or ``None`` when no move lost value.
        start_value: the exact value of the start for seat 0 (its best), when the first move was solved.
        out_of_time: the review's time budget ran out before every move was reviewed.
    """

    game: str
    moves: tuple[MoveReview, ...]
    turning_point: int | None
    start_value: GameValue | None
    out_of_time: bool

    @property
    def basis(self) -> Literal["exact", "estimate", "mixed", "none"]:
        """``"exact"`` when every reviewed move is exact, ``"estimate"`` when none is, else ``"mixed"``
        (``"none"`` when no move was reviewed)."""
        kinds = {move.exact for move in self.moves if move.basis != "none"}
        if not kinds:
            return "none"
        if kinds == {True}:
            return "exact"
        return "estimate" if kinds == {False} else "mixed"

    def counts(self, seat: int) -> dict[int, int]:
        """How many of ``seat``'s reviewed moves have each severity (``{0: 12, 1: 1, 3: 1}``)."""
        found: dict[int, int] = {}
        for move in self.moves:
            if move.seat == seat and move.basis != "none":
                found[move.severity] = found.get(move.severity, 0) + 1
        return found


# ------------------------------------------------------------------------------------------------ marks


def _keeping_text(before: GameValue) -> Text:
    if before.kind == "outcome":
        return {"win": _("kept the win"), "draw": _("held the draw")}.get(before.result or "", _("kept it"))
    if before.kind == "turns":
        return _("finished in {value}", value=before.describe())
    return _("kept {value}", value=before.describe()) if before.amount else _("held the draw")


def _with_alternatives(mark: Text, keeping: Sequence[str], before: GameValue) -> Text:
    """``mark``, then the moves that kept ``before`` (when there are any): ``…; `LL` or `RR` kept the win``."""
    if not keeping:
        return mark
    moves = Listed(tuple(f"`{move}`" for move in keeping), style="or")
    return _("{mark}; {moves} {kept}", mark=mark, moves=moves, kept=_keeping_text(before))


def exact_verdict(before: GameValue, after: GameValue, keeping: Sequence[str] = ()) -> tuple[Severity, Text]:
    """The severity and mark of a move from the mover's exact values ``before`` (their best) and ``after`` it;
    ``keeping`` names moves that kept ``before`` (shown when the move did not).

    Raises:
        ValueError: the two values are of different kinds.
    """
    if before.kind != after.kind:
        raise ValueError(f"values of kinds {before.kind} and {after.kind} cannot be compared")
    if after.rank >= before.rank:
        if before.kind == "outcome":
            return 0, {"win": _("kept the win"), "draw": _("held the draw")}.get(
                before.result or "", _("lost position: every move loses"))
        return 0, _("best move")
    was, now = before.result, after.result
    if was is not None and now is not None and _RESULT_ORDER[now] < _RESULT_ORDER[was]:
        what = {("win", "draw"): _("blunder: let a forced win slip to a draw"),
                ("win", "loss"): _("blunder: threw away a forced win"),
                ("draw", "loss"): _("blunder: turned a draw into a loss")}[(was, now)]
        return 3, _with_alternatives(what, keeping, before)
    lost = before.rank - after.rank
    severity: Severity = 2 if (lost >= 3 if before.kind == "margin" else lost >= 2) else 1
    if before.kind == "turns":
        mark = (n_("inaccuracy: {count} turn more than needed", "inaccuracy: {count} turns more than needed", lost)
                if severity == 1 else
                n_("mistake: {count} turn more than needed", "mistake: {count} turns more than needed", lost))
    else:
        mark = (n_("inaccuracy: gave away {count} point", "inaccuracy: gave away {count} points", lost)
                if severity == 1 else n_("mistake: gave away {count} point", "mistake: gave away {count} points", lost))
    return severity, _with_alternatives(mark, keeping, before)


def estimate_verdict(played: Estimate, hard: Estimate, hard_move: str, same: bool) -> tuple[Severity, Text]:
    """The severity and mark of a move from the estimates after it (``played``) and after the ``hard`` computer
    player's choice ``hard_move`` (``same``: the move played is that choice)."""
    if same:
        return 0, _("the computer's choice")
    lost = hard.amount - played.amount
    inaccuracy, mistake = _ESTIMATE_STEPS[played.kind]
    if lost < inaccuracy:
        return 0, _("as good as the computer's `{move}`", move=hard_move)
    if lost >= mistake:
        return 2, _("mistake: the computer prefers `{move}`", move=hard_move)
    return 1, _("inaccuracy: the computer prefers `{move}`", move=hard_move)


# ------------------------------------------------------------------------------------------------ review


def _exact_review(state: State[Any], move: Any, ply: int, values: MoveValues[Any]) -> MoveReview:
    seat = state.current_seat
    assert seat is not None  # a reviewed position is running
    before, after = values.before, values.after
    keeping = tuple(state.format_move(other) for other in values.keeping[:ALTERNATIVES]) \
        if after.rank < before.rank else ()
    severity, verdict = exact_verdict(before, after, keeping)
    return MoveReview(ply, seat, state.format_move(move), "exact", severity, verdict, before, after, keeping)


def _estimate_review(game: Game[Any, Any], state: State[Any], move: Any, ply: int, seed: str) -> MoveReview:
    seat = state.current_seat
    assert seat is not None  # a reviewed position is running
    notation = state.format_move(move)
    hard = game.computer_move(state, "hard", random.Random(f"{seed}:{ply}:move"))
    hard_notation = state.format_move(hard)
    same = hard == move or hard_notation == notation
    played = game.estimate(state.apply(move), seat, random.Random(f"{seed}:{ply}:estimate"))
    if played is None:
        if solves(game):
            verdict = (_("not solved; the computer's choice") if same else
                       _("not solved; the computer would play `{move}`", move=hard_notation))
        else:
            verdict = _("the computer's choice") if same else _("the computer would play `{move}`",
                                                                move=hard_notation)
        return MoveReview(ply, seat, notation, "choice", 0, verdict, hard_move=hard_notation)
    other = played if same else game.estimate(state.apply(hard), seat, random.Random(f"{seed}:{ply}:estimate"))
    assert other is not None  # a game that estimates one position estimates every one
    severity, verdict = estimate_verdict(played, other, hard_notation, same)
    return MoveReview(ply, seat, notation, "estimate", severity, verdict, hard_move=hard_notation,
                      played_estimate=played, hard_estimate=other)


def solves(game: Game[Any, Any]) -> bool:
    """Whether ``game`` has an exact solver for some positions (overrides one of the exact-value hooks)."""
    kind = type(game)
    return any(getattr(kind, name) is not getattr(Game, name)
               for name in ("exact_value", "exact_move_values", "exact_move"))


def _turning_point(moves: Sequence[MoveReview]) -> int | None:
    """The last exact move that made its player's result worse, else the most severe mistake (the earliest)."""
    for index in range(len(moves) - 1, -1, -1):
        move = moves[index]
        if move.exact and move.severity == 3:
            return index
    worst = max(range(len(moves)), key=lambda i: (moves[i].severity, -i), default=None)
    if worst is None or moves[worst].severity == 0:
        return None
    return worst


def mark_move(game: Game[Any, Any], state: State[Any], after: State[Any], ply: int, seed: str) -> MoveReview:
    """The marks of move ``ply``, which led from ``state`` to ``after``: exact where :meth:`Game.exact_move` solves
    it, else from the ``hard`` computer player (deterministic for ``seed``). One piece of a review.

    Raises:
        ValueError: ``after`` does not follow from a running ``state`` by its ``last_move``.
    """
    move = after.last_move
    if move is None or state.current_seat is None:
        raise ValueError(f"move {ply} does not follow from a running position")
    values = game.exact_move(state, move)
    if values is not None:
        return _exact_review(state, move, ply, values)
    return _estimate_review(game, state, move, ply, seed)


def not_reviewed(state: State[Any], after: State[Any], ply: int) -> MoveReview:
    """Move ``ply`` (from ``state`` to ``after``) marked as not reviewed: the review's time ran out before it.

    Raises:
        ValueError: as :func:`mark_move`.
    """
    move, seat = after.last_move, state.current_seat
    if move is None or seat is None:
        raise ValueError(f"move {ply} does not follow from a running position")
    return MoveReview(ply, seat, state.format_move(move), "none", 0, _("not reviewed (time ran out)"))


def assemble(game_key: str, marks: Sequence[MoveReview]) -> Review:
    """The review made of every move's marks (``marks``, in order, one per move): its turning point, the value of
    the start (from the first move, when it was solved for seat 0) and whether time ran out."""
    moves = tuple(marks)
    first = moves[0] if moves else None
    start_value = first.before if first is not None and first.exact and first.seat == 0 else None
    out_of_time = any(move.basis == "none" for move in moves)
    return Review(game_key, moves, _turning_point(moves), start_value, out_of_time)


def review(game: Game[Any, Any], states: Sequence[State[Any]], *, seconds: float = REVIEW_SECONDS,
           seed: str = "review", clock: Callable[[], float] = time.monotonic) -> Review:
    """Review the match whose replay is ``states`` (the start first, then the state after every move).

    Each move is marked by :func:`mark_move`, one after the other, while the work spent so far (``clock`` seconds,
    summed over the moves) is at most ``seconds``; the moves left then are marked not reviewed. Deterministic for
    ``seed`` while within ``seconds``. The same review made piece by piece (:func:`review_piece` for each move,
    then :func:`assemble`) is identical.

    Raises:
        ValueError: a state does not follow from the one before by its ``last_move``, or a position is over.
    """
    marks: list[MoveReview] = []
    spent = 0.0
    for ply, (state, after) in enumerate(itertools.pairwise(states), start=1):
        if spent > seconds:
            marks.append(not_reviewed(state, after, ply))
            continue
        began = clock()
        marks.append(mark_move(game, state, after, ply, seed))
        spent += clock() - began
    return assemble(game.key, marks)


REPLAYS_KEPT = 4
"""Replays of stored matches a process keeps for the next pieces of their reviews."""
_replays: OrderedDict[tuple[str, str, tuple[str, ...]], tuple[State[Any], ...]] = OrderedDict()


def _states(game_key: str, initial_state: Mapping[str, Any], notations: Sequence[str]) -> tuple[State[Any], ...]:
    """The states of a stored match, replayed once for all the pieces of its review that this process runs."""
    from games import GAMES

    key = (game_key, json.dumps(initial_state, sort_keys=True, default=str), tuple(notations))
    found = _replays.get(key)
    if found is None:
        game = GAMES[game_key]
        states: list[State[Any]] = [game.load(initial_state)]
        for notation in notations:
            states.append(states[-1].play(notation))
        found = _replays[key] = tuple(states)
        while len(_replays) > REPLAYS_KEPT:
            _replays.popitem(last=False)
    _replays.move_to_end(key)
    return found


def review_piece(game_key: str, initial_state: Mapping[str, Any], notations: Sequence[str], ply: int, *,
                 seed: str = "review") -> MoveReview:
    """The marks of move ``ply`` (from 1) of a stored match: its initial state (``to_dict()`` form) and its moves in
    notation. One piece of a review, what a worker process runs; the match's replay is kept for the next pieces.

    Raises:
        KeyError: no such game. IndexError: no move ``ply``. games.InvalidState, games.InvalidMove,
            games.IllegalMove: the match does not replay.
    """
    from games import GAMES

    if not 1 <= ply <= len(notations):
        raise IndexError(f"the match has no move {ply}")
    states = _states(game_key, initial_state, notations)
    return mark_move(GAMES[game_key], states[ply - 1], states[ply], ply, seed)


def review_rest(game_key: str, initial_state: Mapping[str, Any], notations: Sequence[str],
                first_ply: int) -> tuple[MoveReview, ...]:
    """The moves of a stored match from ``first_ply`` on, marked not reviewed (the review's time ran out).

    Raises:
        as :func:`review_piece`.
    """
    states = _states(game_key, initial_state, notations)
    return tuple(not_reviewed(states[ply - 1], states[ply], ply) for ply in range(first_ply, len(notations) + 1))


def review_notations(game_key: str, initial_state: Mapping[str, Any], notations: Sequence[str], *,
                     seconds: float = REVIEW_SECONDS, seed: str = "review") -> Review:
    """Review a stored match: its initial state (``to_dict()`` form) and its moves in notation (what a worker
    process runs; the result is picklable).

    Raises:
        KeyError: no such game. games.InvalidState, games.InvalidMove, games.IllegalMove: the match does not
            replay.
    """
    from games import GAMES

    game = GAMES[game_key]
    states: list[State[Any]] = [game.load(initial_state)]
    for notation in notations:
        states.append(states[-1].play(notation))
    return review(game, states, seconds=seconds, seed=seed)
