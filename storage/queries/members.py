"""A member's queries: their preferences, the same in every server (``member_prefs``), and their vacations per server
(``vacations``). What a vacation does to the member's deadlines is a write of matches
(:meth:`storage.queries.matches.MatchWrites.shift_deadlines`)."""

from __future__ import annotations

from storage.queries.base import Queries, shard_where
from storage.records import MemberPrefs, Row, Shards, VacationRecord, vacation_from_row

_VACATION_COLUMNS = "id, guild_id, user_id, started_at, ends_by, ended_at, days"


def _prefs(user_id: int, row: Row | None) -> MemberPrefs:
    """A member's preferences from their row (the defaults without one)."""
    if row is None:
        return MemberPrefs(user_id)
    return MemberPrefs(user_id, bool(row["dm_turns"]), bool(row["pings"]), bool(row["puzzle_names"]))


class MemberReads(Queries):
    """Reading members' preferences and vacations."""

    def member_prefs(self, user_id: int) -> MemberPrefs:
        """A member's preferences (defaults if never set)."""
        row = self._one("SELECT dm_turns, pings, puzzle_names FROM member_prefs WHERE user_id = ?", (user_id,))
        return _prefs(user_id, row)

    def open_vacation(self, guild_id: int, user_id: int) -> VacationRecord | None:
        """The member's vacation in ``guild_id`` that has not been ended, or ``None`` (``vacations_open``)."""
        row = self._one(f"SELECT {_VACATION_COLUMNS} FROM vacations WHERE guild_id = ? AND user_id = ? "  # noqa: S608 - column lists are module constants; values are bound parameters
                        "AND ended_at IS NULL", (guild_id, user_id))
        return vacation_from_row(row) if row else None

    def get_vacation(self, vacation_id: int) -> VacationRecord | None:
        """A vacation by its id, or ``None``."""
        row = self._one(f"SELECT {_VACATION_COLUMNS} FROM vacations WHERE id = ?", (vacation_id,))  # noqa: S608 - module constants
        return vacation_from_row(row) if row else None

    def vacation_days_spent(self, guild_id: int, user_id: int, since: float, until: float) -> int:
        """Days the member's ended vacations in ``guild_id`` that started in ``[since, until)`` (epoch seconds) cost."""
        row = self._one("SELECT COALESCE(SUM(days), 0) FROM vacations WHERE guild_id = ? AND user_id = ? AND "
                        "started_at >= ? AND started_at < ? AND ended_at IS NOT NULL",
                        (guild_id, user_id, since, until))
        return int(row[0]) if row else 0

    def due_vacations(self, now: float, shards: Shards | None = None) -> list[VacationRecord]:
        """Open vacations whose allowance ran out at ``now`` (epoch seconds), the earliest first (``vacations_due``;
        with ``shards``, only those of their servers)."""
        rows = self._all(f"SELECT {_VACATION_COLUMNS} FROM vacations WHERE ended_at IS NULL AND ends_by <= ?"  # noqa: S608 - column lists are module constants; values are bound parameters
                         f"{shard_where(shards)} ORDER BY ends_by, id", (now,))
        return [vacation_from_row(row) for row in rows]

    def next_vacation_end(self) -> float | None:
        """When the next open vacation runs out (epoch seconds), or ``None``."""
        row = self._one("SELECT MIN(ends_by) FROM vacations WHERE ended_at IS NULL")
        return float(row[0]) if row and row[0] is not None else None


_MEMBER_LOCKS = 0x6E61
"""The first key of the advisory locks of :meth:`MemberWrites.lock_member` (the second is a hash of the member)."""
_MEMBER_NAME = "CAST(guild_id AS TEXT) || '/' || CAST(user_id AS TEXT)"
"""What names a member's lock: their server and their id (the hash of this text is the lock's second key)."""
_GIVEN_MEMBER = "SELECT CAST(? AS BIGINT) AS guild_id, CAST(? AS BIGINT) AS user_id"
_SEATED_MEMBERS = ("SELECT m.guild_id, s.user_id FROM seats s JOIN matches m ON m.id = s.match_id "
                   "WHERE s.match_id = ? AND s.level IS NULL")


class MemberWrites(MemberReads):
    """Writing members' preferences and vacations."""

    def lock_member(self, guild_id: int, user_id: int) -> None:
        """Hold ``user_id``'s deadlines in ``guild_id`` until the transaction ends: a vacation that starts or ends,
        a match that starts with the member to move and a move that may give them the turn
        (:meth:`lock_members_of`) take this lock before they read whether the member is away, so that of two such
        transactions in two processes the second sees what the first wrote (a match started meanwhile has no row to
        lock yet, and a vacation's transaction does not see it). PostgreSQL's advisory lock; nothing on SQLite,
        whose writers take turns."""
        if self._dialect.advisory_locks_sql:
            self._defer(self._dialect.advisory_locks_sql.format(name=_MEMBER_NAME, rows=_GIVEN_MEMBER),
                        (_MEMBER_LOCKS, guild_id, user_id))

    def lock_members_of(self, match_id: int, *, but: int | None = None) -> None:
        """:meth:`lock_member` for every member seated in ``match_id`` but ``but`` (the member moving now): the
        members a move or the computer's reply may give the turn to. Taken before the match's row
        (:meth:`storage.Tx.lock_match`), as a vacation takes its member's lock before the rows of their matches, so
        that a transaction waits for a member's lock only while it holds no match: the two never wait for each
        other in a ring. Nothing on SQLite."""
        if not self._dialect.advisory_locks_sql:
            return
        rows, params = _SEATED_MEMBERS, [_MEMBER_LOCKS, match_id]
        if but is not None:
            rows, params = f"{rows} AND s.user_id <> ?", [*params, but]
        self._defer(self._dialect.advisory_locks_sql.format(name=_MEMBER_NAME, rows=rows), params)

    def lock_member_prefs(self, user_id: int, now: float) -> MemberPrefs:
        """A member's preferences, held until the transaction ends (stored first as the defaults, at ``now``, when
        they never set any), so that two changes in two processes both count. Write them back with
        :meth:`put_member_prefs`."""
        self._defer("INSERT INTO member_prefs (user_id, updated_at) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
                    (user_id, now))
        row = self._one(f"SELECT dm_turns, pings, puzzle_names FROM member_prefs WHERE user_id = ?"  # noqa: S608 - dialect constants
                        f"{self._dialect.for_update('member_prefs')}", (user_id,))
        return _prefs(user_id, row)

    def put_member_prefs(self, prefs: MemberPrefs, now: float) -> None:
        """Insert or replace a member's preferences."""
        self._conn.execute(
            "INSERT INTO member_prefs (user_id, dm_turns, pings, puzzle_names, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET dm_turns = excluded.dm_turns, pings = excluded.pings, "
            "puzzle_names = excluded.puzzle_names, updated_at = excluded.updated_at",
            (prefs.user_id, int(prefs.dm_turns), int(prefs.pings), int(prefs.puzzle_names), now),
        )

    def insert_vacation(self, guild_id: int, user_id: int, started_at: float, ends_by: float) -> int:
        """Open a vacation; return its id.

        Raises:
            IntegrityError: the backend's: the member already has an open vacation in ``guild_id``.
        """
        cursor = self._conn.execute("INSERT INTO vacations (guild_id, user_id, started_at, ends_by) "
                                    "VALUES (?, ?, ?, ?) RETURNING id", (guild_id, user_id, started_at, ends_by))
        return int(cursor.fetchone()[0])

    def close_vacation(self, vacation_id: int, ended_at: float, days: int) -> bool:
        """End an open vacation at ``ended_at`` (epoch seconds), costing ``days``; ``False`` if it had ended."""
        cursor = self._conn.execute("UPDATE vacations SET ended_at = ?, days = ? WHERE id = ? AND ended_at IS NULL",
                                    (ended_at, days, vacation_id))
        return cursor.rowcount == 1
