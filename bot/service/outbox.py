"""The one outbox: every news the bot posts later — a match's final board and reminder, a tournament's round, final
standings and "waiting" notice, an expired challenge, a vacation's end — queued by the transaction that decides it
(``tx.add_outbox``), then claimed, posted and settled here the same way whatever its kind, as python-discord's one
scheduling base and lichess's one scheduler line per job.

No ``discord`` import. The delivery extension (:mod:`bot.exts.outbox`) claims what is due and posts each news through
the poster its feature registered for its kind; this service owns when and how often: a claim holds news for
:data:`NEWS_LEASE` seconds (a process that dies with it leaves it to the next claim), a transient failure is tried
again after :data:`NEWS_RETRY_DELAYS`, and news Discord refuses for good is given up after :data:`NEWS_REFUSED_TRIES`
attempts (at once when its channel is gone) and kept as given up. A multi-message news notes each message posted
(:meth:`OutboxService.progress`), so a retry posts only the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from storage import Database, OutboxRecord, ReadTx, Shards, Tx

NEWS_RETRY_DELAYS: tuple[float, ...] = (30.0, 120.0, 600.0, 3600.0)
"""Seconds before the 2nd, 3rd, 4th and every later attempt to post news Discord failed to take for now (429, 5xx,
the network)."""
NEWS_REFUSED_TRIES = 3
"""Attempts after which news Discord refuses for good (no access to its channel: 403 Missing Access or Missing
Permissions) is given up: kept as given up, with what Discord said, never tried again; the players or the organizer
are told where they can be. News whose channel is gone (404) is given up at its first refusal."""
NEWS_LEASE = 300.0
"""Seconds a process holds the news it claimed (:meth:`OutboxService.claim`); news a process claimed and never settled
(it died) is claimed again after this."""
NEWS_BATCH = 25
"""News claimed per transaction."""


class OutboxService:
    """The outbox over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        shards: the Discord shards this process serves, when several processes share the database: it then posts
            only their servers' news. ``None`` (the default): every server's.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards

    async def queue(self, kind: str, subject_id: int, guild_id: int, *, seq: int = 0, delay: float = 0.0) -> None:
        """Queue news of ``kind`` about ``subject_id`` at step ``seq`` for server ``guild_id``, due ``delay``
        seconds from now (once per kind, subject and step). Transaction bodies queue with ``tx.add_outbox`` in the
        transaction that decides the news; this is for news decided outside one (a post that just failed)."""
        now = self.clock()
        await self.db.write(Tx.add_outbox, kind, subject_id, guild_id, now, seq=seq, next_at=now + delay)

    async def due(self) -> list[OutboxRecord]:
        """News due now, oldest first (with :attr:`shards`, of this process's servers; read only: :meth:`claim` is
        what a posting process uses)."""
        return await self.db.read(ReadTx.due_outbox, self.clock(), self.shards)

    async def next_due(self) -> float | None:
        """When the next news is due (a claim's lease included), or ``None`` (with :attr:`shards`, of this process's
        servers)."""
        return await self.db.read(ReadTx.next_outbox, self.shards)

    async def claim(self, limit: int = NEWS_BATCH) -> list[OutboxRecord]:
        """Claim up to ``limit`` news due now (with :attr:`shards`, of this process's servers) for this process to
        post, oldest first: no other process posts them for :data:`NEWS_LEASE` seconds. Settle each with
        :meth:`done`, :meth:`failed` or :meth:`give_up`; news left unsettled (the process died) is claimed again
        after the lease."""
        now = self.clock()
        return await self.db.write(Tx.claim_outbox, now, now + NEWS_LEASE, limit, self.shards)

    async def progress(self, news: OutboxRecord, parts_done: int) -> None:
        """Note that the first ``parts_done`` messages of ``news`` are posted (a retry starts after them)."""
        await self.db.write(Tx.outbox_progress, news.id, parts_done)

    async def done(self, news: OutboxRecord) -> None:
        """Forget ``news``: posted, no longer true, or its subject is gone."""
        await self.db.write(Tx.outbox_delivered, news.id)

    async def failed(self, news: OutboxRecord, error: str = "") -> float:
        """Count a failed attempt to post ``news`` (``error``: what Discord said); return the epoch time of the next
        (:data:`NEWS_RETRY_DELAYS`)."""
        next_at = self.clock() + NEWS_RETRY_DELAYS[min(news.attempts, len(NEWS_RETRY_DELAYS) - 1)]
        await self.db.write(Tx.outbox_retry, news.id, next_at, error[:300] or None)
        return next_at

    async def give_up(self, news: OutboxRecord, error: str) -> None:
        """Keep ``news`` as given up (Discord refused it for good; ``error``: what it said, up to 300 characters): it
        is never claimed again."""
        await self.db.write(Tx.outbox_given_up, news.id, error[:300])

    async def of_subject(self, subject_id: int, kinds: Sequence[str]) -> list[OutboxRecord]:
        """The news of one of ``kinds`` about ``subject_id`` still kept, pending or given up, oldest first."""
        return await self.db.read(ReadTx.outbox_of, subject_id, kinds)


def refused_for_good(news: OutboxRecord, *, gone: bool) -> bool:
    """Whether news Discord refused (no access to its channel; ``gone``: the channel does not exist) is given up
    now rather than tried again: at once when its channel is gone, else at its :data:`NEWS_REFUSED_TRIES` th
    attempt."""
    return gone or news.attempts + 1 >= NEWS_REFUSED_TRIES
