"""The deadline pass: reminders when a third of the time is left, matches forfeited (or aborted, when a side never
moved) at their deadline, and challenges expired; and when the next pass is due.

No ``discord`` import: the pass decides and stores; what it has to say — reminders, final boards, expired challenges
— is queued in the outbox (:mod:`bot.service.outbox`) in the transaction that decides it, and posted from there
(:mod:`bot.exts.outbox`). Each pass, with what it did and how long it took, is told to
:attr:`DeadlineService.observer` (the bot's metrics).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.service import finisher
from bot.service.base import update
from bot.service.clock import CorrespondenceClock
from bot.service.errors import Damaged, Outdated
from bot.service.states import sound_state
from storage import ChallengeRecord, Database, MatchRecord, ReadTx, Shards, Tx

log = logging.getLogger(__name__)

REMINDER_NEWS = "reminder"
"""The outbox kind of a reminder that a third of the time is left: its subject is the match, its step the ply."""
CHALLENGE_EXPIRED_NEWS = "challenge_expired"
"""The outbox kind of a challenge that expired unanswered: its subject is the challenge."""
DUE_BATCH = 25
"""Due matches (or expired challenges) settled per transaction by :meth:`DeadlineService.process_due`."""
PASS_LOCK_WAIT_MS = 200
"""How long (milliseconds) the deadline pass waits for a row another transaction holds before leaving that match to
the next pass (PostgreSQL; on SQLite nothing is ever held by another transaction)."""


@dataclass
class DueWork:
    """What the deadline task did in one pass."""

    reminded: list[MatchRecord] = field(default_factory=list)
    forfeited: list[MatchRecord] = field(default_factory=list)
    aborted: list[MatchRecord] = field(default_factory=list)
    """Matches called off at their deadline because a side never made its first move (not forfeited:
    :func:`bot.service.finisher.time_is_up`)."""
    expired: list[ChallengeRecord] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    """Ids of due matches found damaged (marked, left out of the pass)."""


class DeadlineObserver(Protocol):
    """What the deadline pass reports (the bot's metrics, :class:`bot.ops.metrics.Metrics`)."""

    def passed(self, seconds: float, work: DueWork) -> None:
        """A deadline pass did ``work`` in ``seconds``."""


class _Unobserved:
    def passed(self, seconds: float, work: DueWork) -> None:
        """Nobody watches."""


class DeadlineService:
    """The deadline pass over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        shards: the Discord shards this process serves, when several processes share the database: the pass then
            takes only their servers' work. ``None`` (the default): every server's.

    The matches the pass ends are told to :class:`bot.service.base.MatchEnds` by their end
    (:mod:`bot.service.finisher`).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards
        self.observer: DeadlineObserver = _Unobserved()
        """Told of every pass that ends, with what it did and how long it took."""

    async def process_due(self) -> DueWork:
        """Queue due reminders (and mark them), forfeit matches past their deadline and expire old challenges.

        A match past its deadline in which a side never made its first move is aborted instead of forfeited (it
        counts for nobody, following lichess: a game is aborted, not lost on time, while either side has not made its
        first move), unless it may not be aborted (a tournament's game): :mod:`bot.service.finisher`.

        What the pass has to say is queued in the outbox. The due matches are found along an index (only they are
        read; with :attr:`shards`, only those of this process's servers), then settled :data:`DUE_BATCH` to a
        transaction, each claimed inside it (:meth:`storage.Tx.claim_match`: re-read and held, or skipped while
        another process holds it) and settled in a savepoint, so that of several processes running the pass at once
        exactly one acts on each match, and a match that cannot be settled now (its version moved on, or the server
        broke a deadlock between two passes over rating rows) is left for the next pass without undoing the rest of
        the batch; a row another transaction holds for longer than :data:`PASS_LOCK_WAIT_MS` is given up the same
        way. Members' actions queued meanwhile take their turn between two batches, so a burst of due matches never
        holds them up for long. A challenge is expired by the one transaction that closes it while it is still open.
        """
        started = time.perf_counter()
        now = self.clock()
        work = DueWork()
        shards = self.shards

        def due(tx: ReadTx) -> tuple[list[int], list[ChallengeRecord]]:
            return tx.due_match_ids(now, shards), tx.expired_challenges(now, shards)

        later: tuple[type[Exception], ...] = (Outdated, *self.db.TransientError)

        def settle_batch(tx: Tx, match_ids: Sequence[int]) -> DueWork:
            # passes of several processes settling matches of the same players in one batch each could wait for
            # each other's rating rows in a ring: give such a match up at once and leave it for the next pass,
            # rather than wait for the server to find the deadlock
            tx.wait_briefly_for_locks(PASS_LOCK_WAIT_MS)
            done = DueWork()  # what this transaction did (a body may run twice: see storage.Database.write)
            for match_id in match_ids:
                settled = DueWork()
                try:
                    with tx.savepoint("due_match"):
                        _settle_due(tx, match_id, now, settled)
                except later as error:
                    log.info("match %s could not be settled now (%s); the next pass looks again", match_id,
                             type(error).__name__)
                    continue
                _merge(done, settled)
            return done

        def expire_batch(tx: Tx, batch: Sequence[ChallengeRecord]) -> list[ChallengeRecord]:
            expired = []
            for challenge in batch:
                if tx.close_challenge(challenge.id, "expired"):
                    tx.add_outbox(CHALLENGE_EXPIRED_NEWS, challenge.id, challenge.guild_id, now)
                    expired.append(dataclasses.replace(challenge, status="expired"))
            return expired

        match_ids, challenges = await self.db.read(due)
        for start in range(0, len(match_ids), DUE_BATCH):
            _merge(work, await self.db.write(settle_batch, match_ids[start:start + DUE_BATCH]))
        for start in range(0, len(challenges), DUE_BATCH):
            work.expired += await self.db.write(expire_batch, challenges[start:start + DUE_BATCH])
        self.observer.passed(time.perf_counter() - started, work)
        return work

    async def next_wakeup(self) -> float | None:
        """The earliest time something falls due (reminder, forfeit, challenge expiry, a vacation's end; with
        :attr:`shards`, for this process's servers), or ``None``."""
        def earliest(tx: ReadTx) -> float | None:
            times = [t for t in (tx.next_deadline(self.shards), tx.next_challenge_expiry(self.shards),
                                 tx.next_vacation_end()) if t is not None]
            return min(times) if times else None

        return await self.db.read(earliest)


def _merge(work: DueWork, done: DueWork) -> None:
    """Add what ``done`` did to ``work``."""
    for name in ("reminded", "forfeited", "aborted", "expired", "quarantined"):
        getattr(work, name).extend(getattr(done, name))


def _settle_due(tx: Tx, match_id: int, now: float, work: DueWork) -> None:
    """Act on due match ``match_id`` at ``now`` inside ``tx``: claim it, then forfeit or abort it at its deadline,
    or mark and queue its reminder, recording what was done in ``work`` (nothing when it is no longer due, or
    another process holds it).

    Raises:
        Outdated: the match's version moved on (the caller's savepoint undoes this match alone).
    """
    # the row's condition is checked again here, in the transaction that acts on it: a move that
    # committed since the pass read its list gave a fresh clock (no forfeit, no early reminder)
    fresh = tx.claim_match(match_id)  # None also while another process settles it (or a move holds it)
    if fresh is None or fresh.status != "active" or fresh.deadline is None:
        return
    try:
        sound_state(fresh)
    except Damaged as error:
        log.error("match %s is damaged and quarantined: %s", match_id, error.reason)
        tx.quarantine_match(match_id, error.reason)
        work.quarantined.append(match_id)
        return
    clock = CorrespondenceClock.of(fresh)
    if clock.out_of_time(now):
        ended = finisher.time_is_up(tx, fresh, now)
        (work.aborted if ended.status == "aborted" else work.forfeited).append(ended)
    elif not fresh.reminded and clock.reminder_due(now):
        update(tx, fresh, reminded=True)
        tx.add_outbox(REMINDER_NEWS, fresh.id, fresh.guild_id, now, seq=fresh.ply)  # posted (and retried) from there
        fresh.reminded = True
        fresh.version += 1
        work.reminded.append(fresh)
