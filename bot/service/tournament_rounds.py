"""A tournament's rounds run themselves, as lichess's ``SwissApi`` reacts to events: a game that ends is noted and,
when it was the last of its round, the next round is paired (or the tournament finished) at once
(:meth:`RoundService.settle_pending`, lila's ``finishGame``); tournaments are started at their start time
(:meth:`RoundService.sweep_starts`, lila's ``startPendingRounds``); a pairing lease a dead process left is taken up
when it runs out (:meth:`RoundService.retry_expired`); and a round that failed to pair is tried again with back-off,
its organizer told once it has failed for :data:`STALLED_AFTER` (:meth:`RoundService.retry_stalled`). The pairing and
the end themselves are :class:`bot.service.tournament_director.Director`'s.

No ``discord`` import. Every way a match ends tells :class:`bot.service.base.MatchEnds`, which this service listens
to (:meth:`RoundService.note_end`); the bot's tournament task runs the passes (:mod:`bot.exts.tournament`), woken by
the function it gives (``wake``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.service.base import MatchEnds
from bot.service.tournament_director import (
    LEASE_PREFIX,
    STALLED_NEWS,
    WAITING_NEWS,
    Director,
    Finished,
    Paired,
    begin,
)
from storage import Database, MatchRecord, ReadTx, Shards, Tx

log = logging.getLogger(__name__)

PENDING_CAP = 10_000
"""Ended matches noted and not yet looked at (:meth:`RoundService.note_end`) beyond which the notes are dropped and
the next :meth:`RoundService.settle_pending` sweeps every running tournament instead (a process that ends matches
without a tournament task to settle them, such as a script, never grows this without bound)."""
MAX_STEPS = 64
"""Rounds :meth:`RoundService.advance` settles in one call (a round with no game, all forfeits and byes, is over at
once and the next follows)."""
STALLED_RETRY_DELAYS: tuple[float, ...] = (15.0, 60.0, 300.0, 900.0)
"""Seconds before the 2nd, 3rd, 4th and every later attempt to pair a round whose pairing failed (a worker died, the
pairing ran past its budget)."""
STALLED_AFTER = 3600.0
"""Seconds a round may keep failing to pair before its organizer is told why (once per round)."""


@dataclass
class _Stalled:
    """A tournament whose pairing failed: since when, how often, when to try again, and why."""

    since: float
    attempts: int
    next_at: float
    error: str
    told: bool = False


class RoundService:
    """Tournament rounds over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        director: pairs rounds and finishes tournaments.
        ends: the match ends to listen to (:meth:`note_end`).
        wake: called when there is work for the tournament task (a game ended); it must return at once.
        shards: the Discord shards this process serves (``None``: all): its sweep and starts are of their servers
            only.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, director: Director, ends: MatchEnds,
                 wake: Callable[[], None] = lambda: None, shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.director = director
        self.shards = shards
        self._wake = wake
        self.pending: set[int] = set()
        """Ids of ended matches not looked at yet (:meth:`settle_pending`), at most :data:`PENDING_CAP`."""
        self._overflowed = False
        self.stalled: dict[int, _Stalled] = {}
        """Tournaments whose pairing failed, tried again with back-off (:meth:`retry_stalled`)."""
        ends.listen(self.note_end)

    def note_end(self, match: MatchRecord) -> None:
        """A match ended (:class:`bot.service.base.MatchEnds`): a tournament's game (the one kind that cannot be
        aborted) is noted for :meth:`settle_pending`, and the task that runs it woken; any other is not ours."""
        if not match.no_abort:
            return
        if len(self.pending) >= PENDING_CAP:
            self.pending.clear()
            self._overflowed = True
        self.pending.add(match.id)
        self._wake()

    async def settle_pending(self) -> list[int]:
        """Look at every match noted as ended: for a tournament's game, record its result and, when it was the last
        of its round, pair the next round (or finish the tournament). Returns the tournaments that advanced (a
        pairing that fails is left to :meth:`retry_stalled`)."""
        advanced = []
        if self._overflowed:  # notes were dropped: look at every running tournament instead
            self._overflowed = False
            advanced += await self.sweep()
        while self.pending:
            match_id = self.pending.pop()
            pairing = await self.db.read(ReadTx.tournament_pairing_of_match, match_id)
            if pairing is not None and await self.advance(pairing.tournament_id):
                advanced.append(pairing.tournament_id)
        return advanced

    async def advance(self, tournament_id: int) -> bool:
        """Record the results of the tournament's ended games and, while its current round is over, pair the next
        round or finish the tournament (a round with no game to play is over at once). ``True`` when a round was
        paired or the tournament finished here. A pairing that fails (a worker died, it ran past its budget) is
        logged and the tournament tried again with back-off (:meth:`retry_stalled`); never raises for it."""
        moved = False
        for _ in range(MAX_STEPS):
            try:
                step = await self.director.pair_next(tournament_id)
            except Exception as error:  # noqa: BLE001 - whatever failed, the round is tried again with back-off
                self._stall(tournament_id, error)
                return moved
            self.stalled.pop(tournament_id, None)
            if isinstance(step, Finished):
                return True
            if not isinstance(step, Paired):
                return moved
            moved = True
        return moved

    def _stall(self, tournament_id: int, error: Exception) -> None:
        now = self.clock()
        stalled = self.stalled.get(tournament_id) or _Stalled(now, 0, now, "")
        stalled.next_at = now + STALLED_RETRY_DELAYS[min(stalled.attempts, len(STALLED_RETRY_DELAYS) - 1)]
        stalled.attempts += 1
        stalled.error = f"{type(error).__name__}: {error}"[:300]
        self.stalled[tournament_id] = stalled
        log.error("tournament %s: its next round could not be paired (attempt %d); trying again at %.0f",
                  tournament_id, stalled.attempts, stalled.next_at, exc_info=error)

    async def retry_stalled(self) -> list[int]:
        """Try again the tournaments whose pairing failed and whose back-off is over; tell the organizer of one that
        has kept failing for :data:`STALLED_AFTER` (once). Returns those that advanced."""
        now = self.clock()
        advanced = []
        for tournament_id, stalled in sorted(self.stalled.items()):
            if stalled.next_at > now:
                continue
            if not stalled.told and now - stalled.since >= STALLED_AFTER:
                stalled.told = True
                await self.db.write(_queue_stalled, tournament_id, now)
            if await self.advance(tournament_id):
                advanced.append(tournament_id)
        return advanced

    def stalled_reason(self, tournament_id: int) -> str | None:
        """Why the tournament's round could not be paired, while it keeps failing; else ``None``."""
        stalled = self.stalled.get(tournament_id)
        return stalled.error if stalled is not None else None

    async def retry_expired(self) -> list[int]:
        """Advance the tournaments whose pairing lease ran out unreturned (a process died pairing them); returns those
        that advanced."""
        now = self.clock()
        advanced = []
        for name, until in await self.db.read(ReadTx.leases, LEASE_PREFIX):
            if until > now:
                continue
            tournament_id = int(name.removeprefix(LEASE_PREFIX).split(":", 1)[0])
            log.info("tournament %s: a pairing lease ran out unreturned (%s); pairing it here", tournament_id, name)
            await self.db.write(Tx.drop_lease, name)
            if await self.advance(tournament_id):
                advanced.append(tournament_id)
        return advanced

    async def sweep(self) -> list[int]:
        """Start the tournaments whose start time has come and settle every running one (a round a crash left
        unpaired, a result not yet recorded); of this process's servers. Returns the tournaments that moved on."""
        moved = await self.sweep_starts()
        for tournament_id in await self.db.read(ReadTx.running_tournament_ids, self.shards):
            if await self.advance(tournament_id):
                moved.append(tournament_id)
        return moved

    async def sweep_starts(self) -> list[int]:
        """Start the tournaments (of this process's servers) whose start time has come (:meth:`start_due`); returns
        those that started."""
        started = []
        for tournament_id in await self.db.read(ReadTx.due_tournament_starts, self.clock(), self.shards):
            if await self.start_due(tournament_id):
                started.append(tournament_id)
        return started

    async def start_due(self, tournament_id: int) -> bool:
        """Start a tournament whose start time has come (:func:`bot.service.tournament_director.begin`); with fewer
        than two players it stays open (its start time is cleared, and news says so). ``True`` when it started."""
        now = self.clock()

        def body(tx: Tx) -> bool:
            tournament = tx.lock_tournament(tournament_id)
            if tournament is None or tournament.status != "open" or tournament.starts_at is None:
                return False
            if len(tx.tournament_entries(tournament_id)) < 2:
                tx.update_tournament(tournament_id, tournament.version, starts_at=None)
                tx.add_outbox(WAITING_NEWS, tournament_id, tournament.guild_id, now)
                return False
            begin(tx, tournament, now)
            return True

        if not await self.db.write(body):
            return False
        await self.advance(tournament_id)
        return True

    async def next_work(self) -> float | None:
        """When the task next has something to do: a tournament's start time, a stalled pairing's next attempt, a
        pairing lease that runs out (of this process's servers' tournaments for the starts), or ``None``."""
        def body(tx: ReadTx) -> list[float]:
            start = tx.next_tournament_start(self.shards)
            return [t for t in (start, *(until for _, until in tx.leases(LEASE_PREFIX))) if t is not None]

        times = await self.db.read(body)
        times += [stalled.next_at for stalled in self.stalled.values()]
        return min(times) if times else None


def _queue_stalled(tx: Tx, tournament_id: int, now: float) -> None:
    tournament = tx.get_tournament(tournament_id)
    if tournament is not None and tournament.status == "running":
        tx.add_outbox(STALLED_NEWS, tournament_id, tournament.guild_id, now, seq=tournament.current_round + 1)


__all__ = ["MAX_STEPS", "PENDING_CAP", "STALLED_AFTER", "STALLED_RETRY_DELAYS", "RoundService"]
