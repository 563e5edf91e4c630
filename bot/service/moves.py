"""Moves: a member's move (with the opponent's conditional reply in the same transaction), and the computer's
replies, searched off the event loop and applied like a member's.

No ``discord`` import. A move is one transaction body: the lock of every member it may give the turn is taken
(:meth:`storage.Tx.lock_members_of`, the lock a vacation and a match's start take: a vacation starting in another
process either comes first, and the move reads it, or waits for the move), the match is locked and re-read, its
version checked, the rules core validates and applies the move (:func:`apply_move`), and the conditional moves
service (:class:`bot.service.premoves.PremoveService`) is asked for the waiting seat's answer, which is applied right
after it. A move that comes after the mover's deadline ends the match instead (:func:`bot.service.finisher.time_is_up`).

Every move stored, and the time a member's took, is told to the service's :attr:`MoveService.observer` (the bot's
metrics: ``napkin_moves_total``, ``napkin_move_duration_seconds``).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

from bot.service import finisher
from bot.service.base import (
    MoveResult,
    check_active,
    deadline_for,
    quarantine,
    seat_of,
    write,
)
from bot.service.clock import CorrespondenceClock
from bot.service.computer import ComputerPool
from bot.service.computer_workers import ComputerStopped
from bot.service.errors import Damaged, NotYourTurn, Outdated, TimeRanOut
from bot.service.premoves import PremoveService
from bot.service.states import remember_state, sound_state
from games import RulesError, State
from i18n import _
from storage import Database, MatchRecord, PremoveRecord, ReadTx, Tx, compact_json

log = logging.getLogger(__name__)

Mover = Literal["member", "computer", "conditional"]
"""Who played a stored move: a member, the computer, or a member's conditional move (``/match premove``) played for
them."""


class MoveObserver(Protocol):
    """What the move service reports as it happens (the bot's metrics, :class:`bot.ops.metrics.Metrics`)."""

    def moved(self, game: str, by: Mover) -> None:
        """A move of ``game`` (its key) played ``by`` a member, the computer or a conditional move was stored."""

    def move_took(self, game: str, seconds: float) -> None:
        """A member's move of ``game`` was stored ``seconds`` after :meth:`MoveService.play` was called (the
        conditional reply stored with it included)."""


class _Unobserved:
    def moved(self, game: str, by: Mover) -> None:
        """Nobody watches."""

    def move_took(self, game: str, seconds: float) -> None:
        """Nobody watches."""


class MoveService:
    """Members' and the computer's moves over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        computer: where computer moves are searched (worker processes in the bot; a thread without workers).
        premoves: asked, after each member's move, for the opponent's conditional reply.

    A match a move ends is told to :class:`bot.service.base.MatchEnds` by its end (:mod:`bot.service.finisher`).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, computer: ComputerPool,
                 premoves: PremoveService) -> None:
        self.db = db
        self.clock = clock
        self.computer = computer
        self.premoves = premoves
        self.observer: MoveObserver = _Unobserved()
        """Told of every move stored, and of the time each member's move took."""

    async def play(self, match_id: int, guild_id: int, user_id: int, text: str,
                   expected_version: int | None = None) -> MoveResult:
        """Apply the move ``text`` (the game's notation) for ``user_id``.

        Args:
            expected_version: the match version the member saw (buttons carry it); ``None`` for typed
                commands, which act on the current position.

        In the same transaction, the opponent's conditional move (``/match premove``) answering this move is applied
        and returned in the result's ``chained`` moves, or their stored lines are discarded (the result's
        ``discarded``): :meth:`bot.service.premoves.PremoveService.next_move`.

        Raises:
            NotFound, NotAllowed (not seated), MatchOver, NotYourTurn, Outdated,
            TimeRanOut (the deadline had passed: the match ended instead, and the move was not played),
            games.InvalidMove / games.IllegalMove (the rules core's reason).
        """
        def body(tx: Tx) -> MoveResult | MatchRecord:
            tx.lock_members_of(match_id, but=user_id)  # whom this move may give the turn: a vacation waits, or came
            locked, lines = tx.lock_match_for_move(match_id)  # one round trip on PostgreSQL, with the BEGIN
            match = check_active(locked, match_id, guild_id)
            seat_of(match, user_id)
            if expected_version is not None and expected_version != match.version:
                raise Outdated(_("That board is out of date: the match has moved on. Use the buttons on the latest "
                                 "board."))
            before = sound_state(match)
            if not _seat_to_move(match, before, user_id):
                mover = match.seats[before.current_seat].display_name if before.current_seat is not None else "?"
                raise NotYourTurn(_("It is not your turn: {name} is to move.", name=mover))
            if CorrespondenceClock.of(match).out_of_time(now):  # the pass has not run yet: it is over anyway
                return finisher.time_is_up(tx, match, now, queue=False)  # the caller posts the result
            moved = apply_move(tx, match, before, before.current_seat or 0, text, now)
            return self._conditional_reply(tx, moved, lines, now)

        started = time.perf_counter()
        now = self.clock()
        result = await write(self.db, body, landed=lambda tx, result: _landed(tx, result, now))
        if not isinstance(result, MatchRecord):
            self.observer.move_took(result.match.game, time.perf_counter() - started)
            self.observer.moved(result.match.game, "member")
            for reply in result.chained:
                self.observer.moved(reply.match.game, "conditional")
        if isinstance(result, MatchRecord) and result.status == "aborted":
            raise TimeRanOut(_("Your time for a first move in match #{match} ran out before this move: the match is "
                               "aborted (it counts for nobody), and your move was not played.", match=str(match_id)),
                             result)
        if isinstance(result, MatchRecord):
            raise TimeRanOut(_("Your time in match #{match} ran out before this move: the match is forfeited on time, "
                               "and your move was not played.", match=str(match_id)), result)
        return result

    def _conditional_reply(self, tx: Tx, moved: MoveResult, lines: list[PremoveRecord], now: float) -> MoveResult:
        """Inside the transaction that stored ``moved``: ask the conditional moves service for the waiting seat's
        answer among ``lines`` (the match's lines, read with the match) and apply it (marked ``conditional``, added
        to ``moved.chained``); returns ``moved``."""
        line = self.premoves.next_move(tx, moved, lines)
        if line is None:
            return moved
        waiting = 1 - moved.seat
        try:
            reply = apply_move(tx, moved.match, moved.after, waiting, line.reply, now)
        except RulesError as error:  # checked when stored in this very position; never let it block this move
            log.error("match %s: the conditional reply %r of seat %s was refused: %s", moved.match.id, line.reply,
                      waiting, error)
            moved.discarded = waiting
            return moved
        reply.conditional = True
        moved.chained.append(reply)
        self.premoves.replied(tx, line, reply, now)
        return moved

    async def computer_replies(self, match_id: int) -> list[MoveResult]:
        """Let the computer move while a computer seat is to move; return the moves applied.

        The search runs in :attr:`computer` (worker processes in the bot); the move is then applied with a version
        check, so a resign or a forfeit that lands meanwhile wins and the computer's move is dropped. A move played at
        the ``easy`` level instead of a search (the bot overloaded) says so in its result's ``quick``. When the
        computer's workers stop meanwhile (the bot is stopping), the moves so far are returned: the computer's turn
        is resumed at the next start.
        """
        results: list[MoveResult] = []
        while True:
            match = await self.db.read(ReadTx.get_match, match_id)
            if match is None or match.status != "active" or match.current_seat is None:
                return results
            try:
                state = sound_state(match)
            except Damaged as error:
                await quarantine(self.db, match, error.reason)
                return results
            seat = match.seats[match.current_seat]
            if not seat.is_computer:
                return results
            seed = f"{match.id}:{match.ply}:{match.initial_state.get('seed', '')}"
            try:
                chosen = await self.computer.move(match.game, match.state, seat.level,  # type: ignore[arg-type]
                                                  seed, server=match.guild_id)
            except ComputerStopped:  # the bot is stopping: the computer's turn is resumed at the next start
                log.info("match %s: the computer's workers stopped before its move", match.id)
                return results
            text = chosen.notation

            def body(tx: Tx, version: int = match.version, before: State[Any] = state, seat: int = seat.seat,
                     text: str = text, now: float = self.clock()) -> MoveResult | None:
                tx.lock_members_of(match_id)  # the member it gives the turn, as a member's move does
                fresh = tx.lock_match(match_id)
                if fresh is None or fresh.version != version or fresh.status != "active":
                    return None
                return apply_move(tx, fresh, before, seat, text, now)

            result = await write(self.db, body, landed=_computer_landed)
            if result is None:
                return results
            result.quick = chosen.quick
            self.observer.moved(result.match.game, "computer")
            results.append(result)


def apply_move(tx: Tx, match: MatchRecord, before: State[Any], seat: int, text: str, now: float) -> MoveResult:
    """Validate and apply ``text`` for ``seat`` in ``before`` (the state of ``match``) and store the move at time
    ``now``: the move log, the new state, the next deadline, or, when the move ends the match, its end
    (:func:`bot.service.finisher.natural_end`: the result and the ratings, or an abort when the rules end a duel
    before every side has moved).

    Raises:
        games.RulesError: the rules core refuses the move. Outdated: another move landed first.
    """
    move = before.parse_move(text)
    after = before.apply(move)
    notation = before.format_move(move)
    tx.append_move(match.id, after.ply, seat, notation, now)
    fields: dict[str, Any] = {
        "state": after.to_dict(), "ply": after.ply, "current_seat": after.current_seat, "updated_at": now,
        "reminded": False, "draw_offer_seat": None,
    }
    if after.outcome is not None:
        fields.update(finisher.natural_end(tx, dataclasses.replace(match, **fields), after.outcome, now))
    else:
        fields["deadline"] = deadline_for(match, after.current_seat, now)
    stored = compact_json(fields["state"])  # encoded once: for the row, and as the state cache's key
    if not tx.update_match(match.id, match.version, **{**fields, "state": stored}):  # (a refusal undoes the ratings)
        raise Outdated(_("Another move landed first; look at the latest board."))
    updated = dataclasses.replace(match, **fields, version=match.version + 1)  # what was just written
    updated.stored_state = stored
    remember_state(match.game, after, stored)
    if after.outcome is not None:
        finisher.announce(tx, updated, now)
    return MoveResult(updated, before, after, seat, notation)


def _logged(tx: ReadTx, moved: MoveResult, now: float) -> bool:
    """``True`` when the move log holds ``moved`` as its body appended it at ``now``: its ply, seat and notation."""
    logged = tx.logged_move(moved.match.id, moved.after.ply)
    return logged is not None and (logged.seat, logged.notation, logged.created_at) == (moved.seat, moved.notation, now)


def _landed(tx: ReadTx, result: MoveResult | MatchRecord, now: float) -> bool:
    """Whether a member's move whose commit's answer was lost is stored: its move in the log (whatever came after
    it), or the match ended on time by it (the ``landed`` check of :func:`bot.service.base.write`)."""
    if isinstance(result, MoveResult):
        return _logged(tx, result, now)
    stored = tx.get_match(result.id)
    return stored is not None and (stored.status, stored.finished_at) == (result.status, result.finished_at)


def _computer_landed(tx: ReadTx, result: MoveResult | None) -> bool:
    """Whether the computer's move whose commit's answer was lost is stored (``None``, nothing to store, is not)."""
    return result is not None and _logged(tx, result, result.match.updated_at)


def _seat_to_move(match: MatchRecord, state: State[Any], user_id: int) -> bool:
    """``True`` when ``user_id`` holds the seat to move in ``state`` (a member's seat, not the computer's)."""
    seat = state.current_seat
    return seat is not None and match.seats[seat].user_id == user_id and not match.seats[seat].is_computer
