"""The outbox's queries (``outbox``): news (a reminder, a result) the bot still has to deliver, claimed by one process
at a time; and the leases (rows ``lease:<name>`` of ``meta``) by which processes share other work, such as the
computer's turns. Both are how several processes divide work, so they sit together."""

from __future__ import annotations

from storage.queries.base import Queries
from storage.records import OutboxRecord, Shards, outbox_from_row

_OUTBOX_COLUMNS = "id, match_id, kind, ply, attempts, next_at, created_at, status, last_error"


class OutboxReads(Queries):
    """Reading the outbox (news given up is kept, but never due)."""

    def outbox_of(self, match_id: int) -> list[OutboxRecord]:
        """Every news of ``match_id`` still kept (pending or given up), oldest first."""
        rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE match_id = ? ORDER BY id", (match_id,))  # noqa: S608 - module constants
        return [outbox_from_row(row) for row in rows]

    def due_outbox(self, now: float, shards: Shards | None = None) -> list[OutboxRecord]:
        """News whose next attempt is due at ``now`` (epoch seconds), oldest first (with ``shards``, only news of
        their servers' matches)."""
        if shards is None:
            rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND next_at <= ? "  # noqa: S608 - column lists are module constants; values are bound parameters
                             "ORDER BY next_at, id", (now,))
        else:
            rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND next_at <= ? AND "  # noqa: S608 - module constants
                             "match_id IN "
                             f"(SELECT id FROM matches WHERE {shards.where()}) ORDER BY next_at, id", (now,))
        return [outbox_from_row(row) for row in rows]

    def next_outbox(self, shards: Shards | None = None) -> float | None:
        """When the next news delivery is due (epoch seconds), or ``None`` when the outbox is empty (with ``shards``,
        of news of their servers' matches)."""
        if shards is None:
            row = self._one("SELECT MIN(next_at) FROM outbox WHERE status = 'pending'")
        else:
            row = self._one(f"SELECT MIN(next_at) FROM outbox WHERE status = 'pending' AND match_id IN "  # noqa: S608 - module constants
                            f"(SELECT id FROM matches WHERE {shards.where()})")
        return float(row[0]) if row and row[0] is not None else None


class OutboxWrites(OutboxReads):
    """Queuing, claiming and settling news; taking and giving back leases."""

    def add_outbox(self, match_id: int, kind: str, ply: int, now: float, next_at: float | None = None) -> None:
        """Queue news (``"reminder"`` or ``"result"``) of ``match_id`` at ``ply`` (once per kind and ply), first
        tried at ``next_at`` (default ``now``, epoch seconds)."""
        self._conn.execute("INSERT INTO outbox (match_id, kind, ply, next_at, created_at) "
                           "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           (match_id, kind, ply, now if next_at is None else next_at, now))

    def claim_outbox(self, now: float, until: float, limit: int, shards: Shards | None = None) -> list[OutboxRecord]:
        """Claim up to ``limit`` news due at ``now`` (epoch seconds), oldest first, for this transaction's process
        to deliver: their next attempt moves to ``until`` (a lease), so no other process takes them meanwhile, and
        a process that dies before it delivered them leaves them to whoever claims them after ``until``. News
        another transaction is claiming is skipped, not waited for. With ``shards``, only news of their servers'
        matches. Returns the news as they were before the claim (``attempts`` and ``next_at`` unchanged)."""
        shard_filter = "" if shards is None else f" AND match_id IN (SELECT id FROM matches WHERE {shards.where()})"  # noqa: S608 - module text
        locked = self._dialect.skip_locked("outbox")
        rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE status = 'pending' AND next_at <= ?"  # noqa: S608 - module constants
                         f"{shard_filter} ORDER BY next_at, id LIMIT ?{locked}", (now, limit))
        claimed = [outbox_from_row(row) for row in rows]
        if claimed:
            self._conn.executemany("UPDATE outbox SET next_at = ? WHERE id = ?", [(until, news.id) for news in claimed])
        return claimed

    def outbox_delivered(self, outbox_id: int) -> None:
        """Forget news that was delivered (or can never be: the match moved on, the channel is gone)."""
        self._conn.execute("DELETE FROM outbox WHERE id = ?", (outbox_id,))

    def outbox_retry(self, outbox_id: int, next_at: float) -> None:
        """Count a failed attempt and try again at ``next_at`` (epoch seconds)."""
        self._conn.execute("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", (next_at, outbox_id))

    def outbox_given_up(self, outbox_id: int, error: str) -> None:
        """Keep news Discord refused for good as given up (counting the last attempt), with what Discord said; it is
        never claimed again."""
        self._conn.execute("UPDATE outbox SET status = 'given_up', attempts = attempts + 1, last_error = ? "
                           "WHERE id = ?", (error, outbox_id))

    def take_lease(self, name: str, now: float, until: float) -> bool:
        """Take the lease ``name`` until ``until`` (epoch seconds) if nobody holds it at ``now``; ``True`` when this
        transaction took it. Of several processes asking at once exactly one gets it (a concurrent taker waits for
        the first to commit, then finds the lease held). Leases are rows ``lease:<name>`` of ``meta``; a process
        that dies holding one leaves it to expire."""
        cursor = self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value "
            "WHERE CAST(meta.value AS DOUBLE PRECISION) <= ?", (f"lease:{name}", repr(float(until)), now))
        return cursor.rowcount == 1

    def drop_lease(self, name: str) -> None:
        """Give the lease ``name`` back (taken with :meth:`take_lease`)."""
        self._conn.execute("DELETE FROM meta WHERE key = ?", (f"lease:{name}",))
