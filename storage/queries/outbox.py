"""The outbox's queries (``outbox``): every news the bot still has to post — a match's result and reminder, a
tournament's round, final standings and "waiting", an expired challenge, a vacation's end — one table, claimed by one
process at a time; and the leases (rows ``lease:<name>`` of ``meta``) by which processes share other work, such as
a round's pairing and the computer's turns. Both are how several processes divide work, so they sit together.

News is queued once per kind, subject and step (``UNIQUE (kind, subject_id, seq)``), by the transaction that decides
it, and counts the messages of a multi-message news already posted (``parts_done``), so a retry posts each message
once.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.events import NewsQueued
from storage.queries.base import Publisher, Queries
from storage.records import OutboxRecord, Shards, outbox_from_row

_OUTBOX_COLUMNS = "id, kind, subject_id, seq, guild_id, parts_done, attempts, next_at, created_at, status, last_error"


def _of_shards(shards: Shards | None) -> str:
    """`` AND`` the news's server is on ``shards`` (nothing for every shard)."""
    return "" if shards is None else f" AND {shards.where()}"


class OutboxReads(Queries):
    """Reading the outbox (news given up is kept, but never due) and the leases."""

    def outbox_of(self, subject_id: int, kinds: Sequence[str]) -> list[OutboxRecord]:
        """Every news of one of ``kinds`` about ``subject_id`` still kept (pending or given up), oldest first
        (``outbox_subject``)."""
        marks = ", ".join("?" for _ in kinds)
        rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE kind IN ({marks}) AND subject_id = ? "  # noqa: S608 - module constants and placeholders
                         "ORDER BY id", (*kinds, subject_id))
        return [outbox_from_row(row) for row in rows]

    def due_outbox(self, now: float, shards: Shards | None = None) -> list[OutboxRecord]:
        """News whose next attempt is due at ``now`` (epoch seconds), oldest first (with ``shards``, only news of
        their servers)."""
        rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND next_at <= ?"  # noqa: S608 - module constants; values are bound parameters
                         f"{_of_shards(shards)} ORDER BY next_at, id", (now,))
        return [outbox_from_row(row) for row in rows]

    def next_outbox(self, shards: Shards | None = None) -> float | None:
        """When the next news is due (epoch seconds: a claim's lease counts, so news a dead process held is due when
        its lease runs out), or ``None`` when the outbox is empty (with ``shards``, of news of their servers)."""
        row = self._one(f"SELECT MIN(next_at) FROM outbox WHERE status = 'pending'{_of_shards(shards)}")  # noqa: S608 - module constants
        return float(row[0]) if row and row[0] is not None else None

    def leases(self, prefix: str) -> list[tuple[str, float]]:
        """``(name, until)`` of every lease whose name starts with ``prefix`` (held or run out: a lease is deleted
        when given back, so one still here at its time was left by a process that died)."""
        pattern = "lease:" + prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._all("SELECT key, value FROM meta WHERE key LIKE ? ESCAPE '\\' ORDER BY key", (pattern,))
        return [(str(row[0]).removeprefix("lease:"), float(row[1])) for row in rows]


class OutboxWrites(OutboxReads, Publisher):
    """Queuing, claiming and settling news; taking and giving back leases."""

    def add_outbox(self, kind: str, subject_id: int, guild_id: int, now: float, *, seq: int = 0,
                   next_at: float | None = None) -> None:
        """Queue news of ``kind`` about ``subject_id`` (a match, tournament, challenge or vacation: the kind says
        which) at step ``seq``, posted in server ``guild_id``, once per kind, subject and step; first tried at
        ``next_at`` (default ``now``, epoch seconds)."""
        due = now if next_at is None else next_at
        self._conn.execute("INSERT INTO outbox (kind, subject_id, seq, guild_id, next_at, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           (kind, subject_id, seq, guild_id, due, now))
        self.publish(NewsQueued(kind, due))  # the delivery task hears of it once this commits

    def claim_outbox(self, now: float, until: float, limit: int, shards: Shards | None = None) -> list[OutboxRecord]:
        """Claim up to ``limit`` news due at ``now`` (epoch seconds), oldest first, for this transaction's process
        to post: their next attempt moves to ``until`` (a lease), so no other process takes them meanwhile, and a
        process that dies before it settled them leaves them to whoever claims them after ``until``. News another
        transaction is claiming is skipped, not waited for. With ``shards``, only news of their servers. Returns the
        news as they were before the claim (``attempts`` and ``next_at`` unchanged)."""
        locked = self._dialect.skip_locked("outbox")
        rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND next_at <= ?"  # noqa: S608 - module constants
                         f"{_of_shards(shards)} ORDER BY next_at, id LIMIT ?{locked}", (now, limit))
        claimed = [outbox_from_row(row) for row in rows]
        if claimed:
            self._conn.executemany("UPDATE outbox SET next_at = ? WHERE id = ?", [(until, news.id) for news in claimed])
        return claimed

    def outbox_progress(self, outbox_id: int, parts_done: int) -> None:
        """Note that the first ``parts_done`` messages of a multi-message news are posted."""
        self._conn.execute("UPDATE outbox SET parts_done = ? WHERE id = ? AND parts_done < ?",
                           (parts_done, outbox_id, parts_done))

    def outbox_delivered(self, outbox_id: int) -> None:
        """Forget news that was posted (or can never be: no longer true, its channel or subject gone)."""
        self._conn.execute("DELETE FROM outbox WHERE id = ?", (outbox_id,))

    def outbox_retry(self, outbox_id: int, next_at: float, error: str | None = None) -> None:
        """Count a failed attempt (``error``: what Discord said) and try again at ``next_at`` (epoch seconds)."""
        self._conn.execute("UPDATE outbox SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE id = ?",
                           (next_at, error, outbox_id))

    def outbox_given_up(self, outbox_id: int, error: str) -> None:
        """Keep news Discord refused for good as given up (counting the last attempt), with what Discord said; it is
        never claimed again."""
        self._conn.execute("UPDATE outbox SET status = 'given_up', attempts = attempts + 1, last_error = ? "
                           "WHERE id = ?", (error, outbox_id))

    def take_lease(self, name: str, now: float, until: float) -> bool:
        """Take the lease ``name`` until ``until`` (epoch seconds) if nobody holds it at ``now``; ``True`` when this
        transaction took it. Of several processes asking at once exactly one gets it (a concurrent taker waits for
        the first to commit, then finds the lease held). Leases are rows ``lease:<name>`` of ``meta``; a process
        that dies holding one leaves it to expire (:meth:`leases` finds it)."""
        cursor = self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value "
            "WHERE CAST(meta.value AS DOUBLE PRECISION) <= ?", (f"lease:{name}", repr(float(until)), now))
        return cursor.rowcount == 1

    def drop_lease(self, name: str) -> None:
        """Give the lease ``name`` back (taken with :meth:`take_lease`)."""
        self._conn.execute("DELETE FROM meta WHERE key = ?", (f"lease:{name}",))
