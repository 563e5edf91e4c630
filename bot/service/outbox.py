"""What the bot still owes Discord after a failure or a crash: news to deliver (reminders and final boards, the
outbox, retried with back-off) and computer turns to resume (each under a lease, so one process resumes it).

No ``discord`` import. Several processes may share the database: news is claimed for a while by the process that
delivers it, and a computer turn is claimed before it is resumed; work a dead process held is claimed again once its
claim runs out.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from storage import Database, MatchRecord, OutboxRecord, ReadTx, Shards, Tx

NEWS_RETRY_DELAYS: tuple[float, ...] = (30.0, 120.0, 600.0, 3600.0)
"""Seconds before the 2nd, 3rd, 4th and every later attempt to deliver news (a reminder, a result)."""
NEWS_REFUSED_TRIES = 3
"""Attempts after which news Discord refuses for good (no access to the match's channel: 403 Missing Access or
Missing Permissions) is given up: kept in the outbox as given up, with what Discord said, and never tried again
(its players are told once). News whose channel is gone (404) is given up at its first refusal. A transient failure
(429, 5xx, the network) is retried as long as it takes (:data:`NEWS_RETRY_DELAYS`)."""
NEWS_LEASE = 300.0
"""Seconds a process holds the news it claimed for delivery (:meth:`OutboxService.claim`); news a process claimed
and never settled (it died) is claimed again after this."""
NEWS_BATCH = 25
"""News claimed per transaction."""
COMPUTER_TURN_LEASE = 120.0
"""Seconds a process holds a computer turn it resumes (:meth:`ComputerTurnService.claim`): longer than a computer
move may take (:data:`bot.service.computer.MOVE_BUDGET`) with its board posted."""


class OutboxService:
    """The outbox of news (reminders and results) over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        shards: the Discord shards this process serves, when several processes share the database: it then delivers
            only their servers' news. ``None`` (the default): every server's.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards

    async def queue_result(self, match: MatchRecord) -> None:
        """Queue the final board of a finished ``match`` whose post just failed, for the outbox to deliver (first
        retried after :data:`NEWS_RETRY_DELAYS`' first delay)."""
        now = self.clock()
        await self.db.write(Tx.add_outbox, match.id, "result", match.ply, now, now + NEWS_RETRY_DELAYS[0])

    async def due(self) -> list[OutboxRecord]:
        """News due for (another) delivery attempt now, oldest first (with :attr:`shards`, of this process's
        servers; read only: :meth:`claim` is what a delivering process uses)."""
        return await self.db.read(ReadTx.due_outbox, self.clock(), self.shards)

    async def claim(self, limit: int = NEWS_BATCH) -> list[OutboxRecord]:
        """Claim up to ``limit`` news due now (with :attr:`shards`, of this process's servers) for this process to
        deliver, oldest first: no other process delivers them for :data:`NEWS_LEASE` seconds. Settle each with
        :meth:`done` or :meth:`failed`; news left unsettled (the process died) is claimed again after the lease
        (:meth:`storage.Tx.claim_outbox`)."""
        now = self.clock()
        return await self.db.write(Tx.claim_outbox, now, now + NEWS_LEASE, limit, self.shards)

    async def done(self, news: OutboxRecord) -> None:
        """Forget ``news``: delivered, no longer true (the match moved on), or its channel is gone."""
        await self.db.write(Tx.outbox_delivered, news.id)

    async def give_up(self, news: OutboxRecord, error: str) -> None:
        """Keep ``news`` as given up (Discord refused it for good; ``error``: what it said, up to 300 characters): it is
        never claimed again."""
        await self.db.write(Tx.outbox_given_up, news.id, error[:300])

    async def of_match(self, match_id: int) -> list[OutboxRecord]:
        """The news of ``match_id`` still kept, pending or given up, oldest first."""
        return await self.db.read(ReadTx.outbox_of, match_id)

    async def failed(self, news: OutboxRecord) -> float:
        """Count a failed delivery of ``news``; return the epoch time of the next attempt
        (:data:`NEWS_RETRY_DELAYS`)."""
        next_at = self.clock() + NEWS_RETRY_DELAYS[min(news.attempts, len(NEWS_RETRY_DELAYS) - 1)]
        await self.db.write(Tx.outbox_retry, news.id, next_at)
        return next_at


class ComputerTurnService:
    """Computer turns to resume (a crash between a member's move and the computer's reply) over a
    :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        shards: the shards this process serves (``None``: all): it resumes only their servers' matches.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards

    async def waiting(self) -> list[int]:
        """Ids of active matches waiting for the computer; with :attr:`shards`, of this process's servers."""
        return await self.db.read(ReadTx.computer_to_move, self.shards)

    async def claim(self, match_id: int) -> bool:
        """Claim the resuming of the computer's turn in ``match_id`` for :data:`COMPUTER_TURN_LEASE` seconds;
        ``False`` when another process holds it. Give it back with :meth:`release`."""
        now = self.clock()
        return await self.db.write(Tx.take_lease, f"computer-turn:{match_id}", now, now + COMPUTER_TURN_LEASE)

    async def release(self, match_id: int) -> None:
        """Give back a claim of :meth:`claim`."""
        await self.db.write(Tx.drop_lease, f"computer-turn:{match_id}")
