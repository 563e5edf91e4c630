"""A match's queries: the match with its seats, its append-only move log and its conditional moves (``matches``,
``seats``, ``moves``, ``premoves``), the rows one move reads and changes together, and the deadlines read from them.

Seats are read with each match in the same query, with each member's preferences and open vacation in the match's
server (``member_prefs``, ``vacations``: read here, written by :mod:`storage.queries.members`). Moving a vacationing
member's deadlines (:meth:`MatchWrites.shift_deadlines`) is here too, as it changes matches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from storage.dialect import POSTGRESQL, SQLITE, Dialect
from storage.queries.base import Cursor, Queries, shard_where
from storage.records import (
    MatchRecord,
    MoveRecord,
    PremoveRecord,
    Row,
    SeatRecord,
    Shards,
    compact_json,
    match_from_row,
    move_from_row,
    premove_from_row,
)

MATCH_FIELDS: frozenset[str] = frozenset({
    "state", "status", "ply", "current_seat", "deadline", "reminded", "draw_offer_seat", "outcome", "end_reason",
    "updated_at", "finished_at", "rating_changes", "time_given", "rated",
})
"""The columns :meth:`MatchWrites.update_match` may set (the version is bumped by the update itself)."""

_JSON_FIELDS = frozenset({"state", "outcome", "rating_changes", "time_given"})

_MATCH_COLUMNS = (
    "id, guild_id, channel_id, thread_id, game, variant, initial_state, state, status, version, ply, "
    "current_seat, days_per_move, deadline, reminded, draw_offer_seat, outcome, end_reason, rated, created_at, "
    "updated_at, finished_at, rating_changes, damage, time_given, no_abort"
)
_SEAT_VALUES = "s.seat, s.user_id, s.display_name, s.level, p.pings, p.dm_turns, v.ends_by"
"""Per seat: the seat, the member, their preferences (``NULL`` when never set) and their open vacation's end in the
match's server (``NULL`` when not on vacation)."""
_SEAT_NAMES = "seat, user_id, display_name, level, pings, dm_turns, ends_by"
_SEATS_FROM = (
    "FROM seats s LEFT JOIN member_prefs p ON p.user_id = s.user_id "
    "LEFT JOIN vacations v ON v.guild_id = matches.guild_id AND v.user_id = s.user_id AND v.ended_at IS NULL "
    "WHERE s.match_id = matches.id"
)


def _match_select_in(dialect: Dialect) -> str:
    seats = dialect.json_rows(values=_SEAT_VALUES, names=_SEAT_NAMES, source=_SEATS_FROM, order="s.seat")
    return f"SELECT {_MATCH_COLUMNS}, {seats} AS seats_json FROM matches"  # noqa: S608 - module constants


_MATCH_SELECTS = {dialect: _match_select_in(dialect) for dialect in (SQLITE, POSTGRESQL)}
"""Per dialect: a match row with its seats in one query."""

_PREMOVE_COLUMNS = "match_id, seat, ply, if_move, reply, then_if, then_reply, created_at"

_DUE_AT = "CASE WHEN reminded = 0 THEN deadline - days_per_move * 86400.0 / 3.0 ELSE deadline END"
"""When something next falls due for an active match with a deadline (epoch seconds): its reminder while it was not
sent, else its forfeit. The expression of the ``matches_due`` index (migration 4): queries must use it verbatim,
with :data:`_DUE_WHERE`, for SQLite to use the index."""
_DUE_WHERE = "status = 'active' AND deadline IS NOT NULL"
_COMPUTER_TURN = "status = 'active' AND (computer_seats >> current_seat) & 1 = 1"
"""An active match whose seat to move is the computer's: the condition of the ``matches_computer_turn`` partial index
(migration 9), to be used verbatim for SQLite to read along it."""


_json = compact_json


class MatchReads(Queries):
    """Reading matches with their seats: one match, a member's lists and counts, rated results, a row as stored."""

    @property
    def _match_select(self) -> str:
        """A match row with its seats (the seats' JSON aggregate is spelt per dialect)."""
        return _MATCH_SELECTS[self._dialect]

    def get_match(self, match_id: int) -> MatchRecord | None:
        """Load a match with its seats, or ``None``."""
        row = self._one(f"{self._match_select} WHERE id = ?", (match_id,))
        return match_from_row(row) if row is not None else None

    def match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """Return the one match whose thread is ``thread_id``, or ``None`` when none is, or when more than one
        row names it (then nothing can say which match is meant, and the member names it)."""
        rows = self._all(f"{self._match_select} WHERE thread_id = ? LIMIT 2", (thread_id,))
        return match_from_row(rows[0]) if len(rows) == 1 else None

    def active_matches_of(self, guild_id: int, user_id: int, limit: int = -1, offset: int = 0) -> list[MatchRecord]:
        """Return ``user_id``'s active matches in ``guild_id`` that are not quarantined as damaged, most recently
        active first: all of them, or the ``limit`` after the first ``offset``."""
        rows = self._all(
            f"{self._match_select} WHERE guild_id = ? AND status = 'active' AND damage IS NULL AND id IN "  # noqa: S608 - column lists are module constants; values are bound parameters
            "(SELECT match_id FROM seats WHERE user_id = ? AND level IS NULL) ORDER BY updated_at DESC, id DESC "
            "LIMIT ? OFFSET ?",
            (guild_id, user_id, self._dialect.limit(limit), offset),
        )
        return [match_from_row(row) for row in rows]

    def active_matches_anywhere(self, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in every server that are not quarantined, most recently active first (along
        ``seats_user``)."""
        rows = self._all(
            f"{self._match_select} WHERE status = 'active' AND damage IS NULL AND id IN "  # noqa: S608 - column lists are module constants; values are bound parameters
            "(SELECT match_id FROM seats WHERE user_id = ? AND level IS NULL) ORDER BY updated_at DESC, id DESC",
            (user_id,),
        )
        return [match_from_row(row) for row in rows]

    def match_choices(self, guild_id: int, user_id: int, titles: Mapping[str, str], needle: str = "",
                      limit: int = 25) -> list[tuple[int, str]]:
        """The labels of ``user_id``'s active matches in ``guild_id`` of the games in ``titles`` (game key to title),
        most recently active first, at most ``limit``, built and filtered in SQL without decoding a state.

        Returns ``(match id, label)`` pairs; a label reads ``"#12 Chopsticks vs bob (your move)"`` (``waiting``
        when another seat is to move, ``solo`` without opponents), cut to 100 characters, and contains ``needle``
        (ASCII letters in any case).
        """
        if not titles:
            return []
        params: dict[str, object] = {"user": user_id, "guild": guild_id, "limit": limit,
                                     "needle": "%" + re.sub(r"([\\%_])", r"\\\1", needle) + "%"}
        cases = []
        for index, (key, title) in enumerate(titles.items()):
            params[f"key{index}"], params[f"title{index}"] = key, title
            cases.append(f"WHEN :key{index} THEN :title{index}")
        label = (
            f"substr('#' || m.id || ' ' || (CASE m.game {' '.join(cases)} END) || ' vs ' || "  # noqa: S608 - module text and placeholders only
            f"coalesce((SELECT {self._dialect.string_agg}(display_name, ', ') FROM (SELECT display_name FROM seats o "
            "WHERE o.match_id = m.id AND o.user_id != :user ORDER BY o.seat) AS opponents), 'solo') || ' (' || "
            "(CASE WHEN (SELECT t.user_id FROM seats t WHERE t.match_id = m.id AND t.seat = m.current_seat) = :user "
            "THEN 'your move' ELSE 'waiting' END) || ')', 1, 100)"
        )
        keys = ", ".join(f":key{index}" for index in range(len(titles)))
        rows = self._conn.execute(
            f"SELECT id, label FROM (SELECT m.id, m.updated_at, {label} AS label FROM matches m "  # noqa: S608 - module text and placeholders only
            f"WHERE m.guild_id = :guild AND m.status = 'active' AND m.game IN ({keys}) "
            "AND m.id IN (SELECT match_id FROM seats WHERE user_id = :user AND level IS NULL)) AS labelled "
            f"WHERE label {self._dialect.like} :needle ESCAPE '\\' ORDER BY updated_at DESC, id DESC LIMIT :limit",
            params,
        ).fetchall()
        return [(int(row[0]), str(row[1])) for row in rows]

    def count_active(self, guild_id: int, user_id: int, *, sound_only: bool = False) -> int:
        """Number of ``user_id``'s active matches in ``guild_id`` (with ``sound_only``, those not quarantined)."""
        row = self._one(
            "SELECT COUNT(*) FROM matches m JOIN seats s ON s.match_id = m.id "
            "WHERE m.guild_id = ? AND m.status = 'active' AND s.user_id = ? AND s.level IS NULL "
            "AND (? = 0 OR m.damage IS NULL)",
            (guild_id, user_id, int(sound_only)),
        )
        return int(row[0]) if row else 0

    def rated_results_between(self, guild_id: int, user_id: int, other_id: int, since: float) -> int:
        """Number of rated matches between members ``user_id`` and ``other_id`` in ``guild_id`` finished after
        ``since`` (epoch seconds), every game together (along ``seats_user``)."""
        row = self._one(
            "SELECT COUNT(*) FROM seats a JOIN seats b ON b.match_id = a.match_id AND b.user_id = ? "
            "JOIN matches m ON m.id = a.match_id WHERE a.user_id = ? AND m.guild_id = ? AND m.status = 'finished' "
            "AND m.rated = 1 AND m.finished_at > ? AND a.level IS NULL AND b.level IS NULL",
            (other_id, user_id, guild_id, since),
        )
        return int(row[0]) if row else 0

    def rated_duels_of(self, guild_id: int, user_id: int, limit: int) -> list[tuple[str, int, str, int, str]]:
        """``user_id``'s newest ``limit`` rated duels against members in ``guild_id``, finished: ``(game, their seat,
        outcome JSON, the opponent's id, the opponent's name)``, newest first (along ``seats_user``)."""
        rows = self._all(
            "SELECT m.game, a.seat, m.outcome, b.user_id, b.display_name FROM seats a "
            "JOIN seats b ON b.match_id = a.match_id AND b.seat <> a.seat JOIN matches m ON m.id = a.match_id "
            "WHERE a.user_id = ? AND m.guild_id = ? AND m.status = 'finished' AND m.rated = 1 AND a.level IS NULL "
            "AND b.level IS NULL AND b.user_id <> a.user_id ORDER BY m.finished_at DESC, m.id DESC LIMIT ?",
            (user_id, guild_id, self._dialect.limit(limit)),
        )
        return [(str(r[0]), int(r[1]), str(r[2]), int(r[3]), str(r[4])) for r in rows]

    def damaged_matches_of(self, guild_id: int, user_id: int) -> list[int]:
        """Ids of ``user_id``'s quarantined matches in ``guild_id`` that were active when found damaged."""
        rows = self._all("SELECT m.id FROM matches m JOIN seats s ON s.match_id = m.id WHERE m.guild_id = ? AND "
                         "m.status = 'active' AND m.damage IS NOT NULL AND s.user_id = ? AND s.level IS NULL "
                         "ORDER BY m.id", (guild_id, user_id))
        return [int(r[0]) for r in rows]

    def raw_match(self, match_id: int) -> dict[str, Any] | None:
        """A match row exactly as stored (JSON columns as text), with ``seats`` and ``moves`` as lists of rows,
        for an admin to inspect (also a damaged row); ``None`` if there is none."""
        row = self._one("SELECT * FROM matches WHERE id = ?", (match_id,))
        if row is None:
            return None
        found = dict(row)
        found["seats"] = [dict(r) for r in self._all("SELECT * FROM seats WHERE match_id = ? ORDER BY seat",
                                                     (match_id,))]
        found["moves"] = [dict(r) for r in self._all("SELECT * FROM moves WHERE match_id = ? ORDER BY ply",
                                                     (match_id,))]
        return found

    def all_match_ids(self) -> list[int]:
        """Every match id, ascending (for integrity checks and replays)."""
        return [int(r[0]) for r in self._all("SELECT id FROM matches ORDER BY id")]

class DueMatchReads(Queries):
    """What the periodic passes read of the matches: the deadlines and reminders due, and the computer's turns, each
    from its index however many matches are active."""

    def due_match_ids(self, now: float, shards: Shards | None = None) -> list[int]:
        """Ids of the active matches whose deadline passed or whose reminder (a third of the time left) is due at
        ``now`` (epoch seconds), the earliest due first; with ``shards``, only matches of their servers. Reads only
        the due entries of an index (``matches_due``), however many matches are active."""
        rows = self._all(f"SELECT id FROM matches WHERE {_DUE_WHERE} AND {_DUE_AT} <= ?{shard_where(shards)} "  # noqa: S608 - module constants
                         f"ORDER BY {_DUE_AT}, id", (now,))
        return [int(row[0]) for row in rows]

    def next_deadline(self, shards: Shards | None = None) -> float | None:
        """The earliest time (epoch seconds) at which a reminder or a forfeit falls due, or ``None`` (the first
        entry of the ``matches_due`` index; with ``shards``, the first of their servers')."""
        row = self._one(f"SELECT {_DUE_AT} FROM matches WHERE {_DUE_WHERE}{shard_where(shards)} "  # noqa: S608 - module constants
                        f"ORDER BY {_DUE_AT}, id LIMIT 1")
        return float(row[0]) if row and row[0] is not None else None

    def computer_to_move(self, shards: Shards | None = None) -> list[int]:
        """Active matches whose seat to move is the computer's (after a restart nobody else would move them); with
        ``shards``, only matches of their servers. Reads only those entries of an index (``matches_computer_turn``),
        however many matches there are."""
        rows = self._all(f"SELECT id FROM matches WHERE {_COMPUTER_TURN}{shard_where(shards)} ORDER BY id")  # noqa: S608 - module constants
        return [int(r[0]) for r in rows]


class MoveLogReads(Queries):
    """A match's append-only move log and its conditional moves."""

    def get_moves(self, match_id: int) -> list[MoveRecord]:
        """Return the match's move log in ply order."""
        rows = self._all("SELECT match_id, ply, seat, notation, created_at FROM moves WHERE match_id = ? "
                         "ORDER BY ply", (match_id,))
        return [move_from_row(row) for row in rows]

    def logged_move(self, match_id: int, ply: int) -> MoveRecord | None:
        """The move logged at ``ply`` of ``match_id``, or ``None``."""
        row = self._one("SELECT match_id, ply, seat, notation, created_at FROM moves WHERE match_id = ? AND ply = ?",
                        (match_id, ply))
        return move_from_row(row) if row is not None else None

    def premoves_of(self, match_id: int, seat: int) -> list[PremoveRecord]:
        """``seat``'s conditional-move lines in ``match_id``, in the order they were stored."""
        rows = self._all(f"SELECT {_PREMOVE_COLUMNS} FROM premoves WHERE match_id = ? AND seat = ? "  # noqa: S608 - module constants
                         "ORDER BY created_at, if_move", (match_id, seat))
        return [premove_from_row(row) for row in rows]


class MatchWrites(MatchReads):
    """Writing matches, their move logs and conditional moves. Raising from the body rolls every write back."""

    def insert_match(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], state: dict[str, Any],
        current_seat: int | None, days_per_move: int, deadline: float | None, rated: bool, now: float,
        seats: Sequence[SeatRecord], no_abort: bool = False,
    ) -> int:
        """Insert an active match (``state`` is also its initial state) with its seats; return its id. ``no_abort``:
        the match can never be aborted (a tournament's game: it ends with a result, whoever moved)."""
        text = _json(state)
        cursor = self._conn.execute(
            "INSERT INTO matches (guild_id, channel_id, game, variant, initial_state, state, status, current_seat, "
            "days_per_move, deadline, rated, created_at, updated_at, computer_seats, no_abort) "
            "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (guild_id, channel_id, game, json.dumps(variant), text, text, current_seat, days_per_move, deadline,
             int(rated), now, now, sum(1 << s.seat for s in seats if s.level is not None), int(no_abort)),
        )
        match_id = int(cursor.fetchone()[0])
        self._conn.executemany(
            "INSERT INTO seats (match_id, seat, user_id, display_name, level) VALUES (?, ?, ?, ?, ?)",
            [(match_id, s.seat, s.user_id, s.name, s.level) for s in seats],
        )
        return match_id

    def update_match(self, match_id: int, expected_version: int, **fields: Any) -> bool:
        """Set ``fields`` of a match if its version is still ``expected_version``, and bump the version.

        Keys are column names from :data:`MATCH_FIELDS`; ``state`` and ``outcome`` are JSON-encoded here (a JSON
        column given as text is taken as encoded already: :func:`storage.records.compact_json`), booleans stored as
        0/1. Returns ``False`` (and changes nothing) when the version moved on. Setting a status
        other than ``"active"`` (the match ended) also deletes the match's conditional moves.

        Raises:
            ValueError: a key is not an updatable column.
        """
        unknown = sorted(set(fields) - MATCH_FIELDS)
        if unknown:
            raise ValueError(f"not updatable match columns: {', '.join(unknown)}")
        encoded = {
            key: (_json(value) if key in _JSON_FIELDS and value is not None and not isinstance(value, str)
                  else int(value) if isinstance(value, bool) else value)
            for key, value in fields.items()
        }
        assignments = "".join(f"{key} = ?, " for key in encoded)  # keys are whitelisted above
        cursor = self._conn.execute(
            f"UPDATE matches SET {assignments}version = version + 1 WHERE id = ? AND version = ?",  # noqa: S608 - column lists are module constants; values are bound parameters
            (*encoded.values(), match_id, expected_version),
        )
        if cursor.rowcount != 1:
            return False
        if fields.get("status", "active") != "active":  # an ended match forgets every conditional move stored in it
            self._defer("DELETE FROM premoves WHERE match_id = ?", (match_id,))
        return True

    def _hold(self, match_id: int, clause: str) -> Cursor | None:
        """Queue the lock of ``match_id``'s row (``clause``: the dialect's ``FOR UPDATE`` or ``… SKIP LOCKED``); its
        cursor has the id once held, no row when there is no such match (or it was skipped). ``None`` on SQLite,
        where ``BEGIN IMMEDIATE`` already holds every other writer off.

        The row is then read by a statement of its own: in PostgreSQL's ``READ COMMITTED`` each statement sees what
        committed before it started, so the read that follows the lock sees everything a writer that held the lock
        before committed (its vacations and conditional moves too), where one ``SELECT … FOR UPDATE`` would give
        the locked row with the rest as it was before waiting."""
        if not clause:
            return None
        return self._defer(f"SELECT id FROM matches WHERE id = ?{clause}", (match_id,))  # noqa: S608 - dialect constants

    def _held(self, lock: Cursor | None, row: Row | None) -> MatchRecord | None:
        if row is None or (lock is not None and lock.fetchone() is None):
            return None
        return match_from_row(row)

    def lock_match(self, match_id: int) -> MatchRecord | None:
        """Load a match (or ``None``) and hold its row until the transaction ends: a concurrent writer of the same
        match in another process waits for this transaction, then reads what it wrote (PostgreSQL's ``FOR
        UPDATE``, in the same round trip as the read; on SQLite the plain read, as ``BEGIN IMMEDIATE`` already holds
        every other writer off)."""
        lock = self._hold(match_id, self._dialect.for_update("matches"))
        return self._held(lock, self._one(f"{self._match_select} WHERE id = ?", (match_id,)))

    def lock_match_for_move(self, match_id: int) -> tuple[MatchRecord | None, list[PremoveRecord]]:
        """:meth:`lock_match`, with every conditional-move line stored in the match (by seat, then as
        :meth:`premoves_of` orders them) read in the same round trip: what a move needs before it writes."""
        lock = self._hold(match_id, self._dialect.for_update("matches"))
        lines = self._defer(f"SELECT {_PREMOVE_COLUMNS} FROM premoves WHERE match_id = ? "  # noqa: S608 - module constants
                            "ORDER BY seat, created_at, if_move", (match_id,))
        match = self._held(lock, self._one(f"{self._match_select} WHERE id = ?", (match_id,)))
        return match, [premove_from_row(row) for row in lines.fetchall()]

    def claim_match(self, match_id: int) -> MatchRecord | None:
        """Load a match and hold its row until the transaction ends, unless another transaction holds it: then
        ``None`` at once, as for a match that does not exist (PostgreSQL's ``FOR UPDATE SKIP LOCKED``; on SQLite the
        plain read). The deadline pass claims each due match so, so that of several processes exactly one acts on
        it and none waits for another."""
        lock = self._hold(match_id, self._dialect.skip_locked("matches"))
        return self._held(lock, self._one(f"{self._match_select} WHERE id = ?", (match_id,)))

    def lock_active_matches_of(self, guild_id: int, user_id: int) -> list[int]:
        """Hold the row of every active match of ``guild_id`` in which ``user_id`` has a seat, in id order (so two
        such bodies never wait for each other in a ring), until the transaction ends; return their ids. A change to
        the member's deadlines (a vacation that starts or ends) takes them first, so that a move of the same matches
        in another process either comes before it (and the change sees the turn it gave) or after it (and the move
        sees the vacation). On SQLite the plain read."""
        rows = self._all("SELECT id FROM matches WHERE guild_id = ? AND status = 'active' AND id IN "  # noqa: S608 - dialect constants
                         "(SELECT match_id FROM seats WHERE user_id = ? AND level IS NULL) ORDER BY id"
                         f"{self._dialect.for_update('matches')}", (guild_id, user_id))
        return [int(row[0]) for row in rows]

    def quarantine_match(self, match_id: int, reason: str) -> None:
        """Mark a match damaged with ``reason`` and take it out of the deadline pass (its deadline is cleared);
        its status and data are kept as found, for an admin to inspect."""
        self._conn.execute("UPDATE matches SET damage = ?, deadline = NULL, version = version + 1 WHERE id = ?",
                           (reason, match_id))

    def set_thread(self, match_id: int, thread_id: int | None) -> None:
        """Record the match's thread (does not bump the version: it is not part of the game)."""
        self._conn.execute("UPDATE matches SET thread_id = ? WHERE id = ?", (thread_id, match_id))

    def append_move(self, match_id: int, ply: int, seat: int, notation: str, now: float) -> None:
        """Append a move to the log (on PostgreSQL sent with the next statement, :meth:`update_match` in a move).

        Raises:
            IntegrityError: the backend's (``Database.IntegrityError``): the ply is already logged, or there is no
                such match (on PostgreSQL raised by the next statement, in the same body).
        """
        self._defer(  # answered with the match's update that follows it (one round trip on PostgreSQL)
            "INSERT INTO moves (match_id, ply, seat, notation, created_at) VALUES (?, ?, ?, ?, ?)",
            (match_id, ply, seat, notation, now),
        )

    def put_premove(self, line: PremoveRecord) -> None:
        """Store a conditional-move line, replacing the seat's line for the same expected move in that match."""
        self._conn.execute(
            "INSERT INTO premoves (match_id, seat, ply, if_move, reply, then_if, then_reply, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (match_id, seat, if_move) DO UPDATE SET ply = excluded.ply, "
            "reply = excluded.reply, then_if = excluded.then_if, then_reply = excluded.then_reply, "
            "created_at = excluded.created_at",
            (line.match_id, line.seat, line.ply, line.if_move, line.reply, line.then_if, line.then_reply,
             line.created_at),
        )

    def delete_premoves(self, match_id: int, seat: int | None = None, if_move: str | None = None) -> int:
        """Delete conditional-move lines of ``match_id``: all, ``seat``'s, or ``seat``'s line for ``if_move``;
        returns how many."""
        sql = "DELETE FROM premoves WHERE match_id = ?"
        params: list[object] = [match_id]
        if seat is not None:
            sql += " AND seat = ?"
            params.append(seat)
            if if_move is not None:
                sql += " AND if_move = ?"
                params.append(if_move)
        return int(self._conn.execute(sql, params).rowcount)

    def shift_deadlines(self, guild_id: int, user_id: int, seconds: float, after: float) -> int:
        """Move by ``seconds`` the deadline of every sound active match in ``guild_id`` in which ``user_id`` holds the
        seat to move and whose deadline is later than ``after`` (epoch seconds); return how many moved. The version
        is not bumped (the position and the turn are unchanged, so the buttons of the current board stay valid)."""
        cursor = self._conn.execute(
            "UPDATE matches SET deadline = deadline + ? WHERE guild_id = ? AND status = 'active' AND damage IS NULL "
            "AND deadline IS NOT NULL AND deadline > ? AND id IN (SELECT s.match_id FROM seats s WHERE s.user_id = ? "
            "AND s.level IS NULL AND s.seat = matches.current_seat)",
            (seconds, guild_id, after, user_id),
        )
        return cursor.rowcount
