"""A tournament's queries: the tournament, its entrants, its rounds and their pairings (``tournaments``,
``tournament_entries``, ``tournament_rounds``, ``tournament_pairings``: games, forfeits and byes, each on its board
number). Its news is queued in the one outbox (:mod:`storage.queries.outbox`).

A round is paired exactly once: :meth:`TournamentWrites.insert_round` inserts the round's row, whose primary key
``(tournament_id, round)`` refuses a second one, inside the transaction that also holds the tournament's row
(:meth:`TournamentWrites.lock_tournament`). A board's match is an ordinary match (:mod:`storage.queries.matches`);
its result is read from the match and written to the pairing once (:meth:`TournamentWrites.set_board_result`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from storage.queries.base import Queries
from storage.records import (
    Shards,
    TournamentEntryRecord,
    TournamentPairingRecord,
    TournamentRecord,
    tournament_entry_from_row,
    tournament_from_row,
    tournament_pairing_from_row,
)

_TOURNAMENT_COLUMNS = (
    "id, guild_id, channel_id, name, game, variant, format, rounds, days_per_move, max_players, rated, organizer_id, "
    "organizer_name, status, current_round, starts_at, created_at, started_at, finished_at, version, engine"
)
_ENTRY_COLUMNS = ("tournament_id, user_id, display_name, number, rating, level, joined_at, joined_round, "
                  "withdrawn_round, withdrawn_reason, final_rank")
_PAIRING_COLUMNS = ("tournament_id, round, board, first_id, second_id, kind, match_id, first_points, second_points, "
                    "played")

TOURNAMENT_FIELDS: frozenset[str] = frozenset({
    "status", "current_round", "rounds", "started_at", "finished_at", "starts_at", "engine",
})
"""The columns :meth:`TournamentWrites.update_tournament` may set (the version is bumped by the update itself)."""
ENTRY_FIELDS: frozenset[str] = frozenset({
    "display_name", "number", "rating", "joined_round", "withdrawn_round", "withdrawn_reason", "final_rank",
})
"""The columns :meth:`TournamentWrites.update_entry` may set."""


class TournamentReads(Queries):
    """Reading tournaments, their entrants, rounds and pairings."""

    def get_tournament(self, tournament_id: int) -> TournamentRecord | None:
        """A tournament, or ``None``."""
        row = self._one(f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,))  # noqa: S608 - column lists are module constants; values are bound parameters
        return tournament_from_row(row) if row else None

    def tournaments_of_guild(self, guild_id: int, statuses: Sequence[str], limit: int,
                             offset: int = 0) -> tuple[int, list[TournamentRecord]]:
        """``(count, page)``: how many of ``guild_id``'s tournaments have one of ``statuses``, and ``limit`` of them
        after ``offset``, newest first (``tournaments_guild``)."""
        marks = ", ".join("?" for _ in statuses)
        count = self._one(f"SELECT COUNT(*) FROM tournaments WHERE guild_id = ? AND status IN ({marks})",  # noqa: S608 - placeholders only
                          (guild_id, *statuses))
        rows = self._all(f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE guild_id = ? AND status IN ({marks}) "  # noqa: S608 - module constants and placeholders
                         "ORDER BY id DESC LIMIT ? OFFSET ?", (guild_id, *statuses, limit, offset))
        return (int(count[0]) if count else 0), [tournament_from_row(row) for row in rows]

    def tournament_choices(self, guild_id: int, statuses: Sequence[str], needle: str = "",
                           limit: int = 25) -> list[tuple[int, str, str]]:
        """``(id, name, status)`` of ``guild_id``'s tournaments with one of ``statuses`` whose number or name contains
        ``needle`` (ASCII letters in any case), newest first, at most ``limit``."""
        marks = ", ".join("?" for _ in statuses)
        pattern = "%" + re.sub(r"([\\%_])", r"\\\1", needle) + "%"
        rows = self._all(
            f"SELECT id, name, status FROM tournaments WHERE guild_id = ? AND status IN ({marks}) AND "  # noqa: S608 - placeholders only
            f"('#' || id || ' ' || name) {self._dialect.like} ? ESCAPE '\\' ORDER BY id DESC LIMIT ?",
            (guild_id, *statuses, pattern, limit))
        return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]

    def tournament_entries(self, tournament_id: int) -> list[TournamentEntryRecord]:
        """A tournament's entrants by starting number."""
        rows = self._all(f"SELECT {_ENTRY_COLUMNS} FROM tournament_entries WHERE tournament_id = ? "  # noqa: S608 - module constants
                         "ORDER BY number, user_id", (tournament_id,))
        return [tournament_entry_from_row(row) for row in rows]

    def tournament_entry(self, tournament_id: int, user_id: int) -> TournamentEntryRecord | None:
        """One entrant, or ``None``."""
        row = self._one(f"SELECT {_ENTRY_COLUMNS} FROM tournament_entries WHERE tournament_id = ? AND user_id = ?",  # noqa: S608 - module constants
                        (tournament_id, user_id))
        return tournament_entry_from_row(row) if row else None

    def tournament_pairings(self, tournament_id: int,
                            round_number: int | None = None) -> list[TournamentPairingRecord]:
        """A tournament's pairings (of one round, or all), by round and board."""
        where = "" if round_number is None else " AND round = ?"
        params: tuple[int, ...] = (tournament_id,) if round_number is None else (tournament_id, round_number)
        rows = self._all(f"SELECT {_PAIRING_COLUMNS} FROM tournament_pairings WHERE tournament_id = ?{where} "  # noqa: S608 - module constants
                         "ORDER BY round, board", params)
        return [tournament_pairing_from_row(row) for row in rows]

    def tournament_pairing_of_match(self, match_id: int) -> TournamentPairingRecord | None:
        """The tournament pairing whose game is match ``match_id``, or ``None`` (``tournament_pairings_match``)."""
        row = self._one(f"SELECT {_PAIRING_COLUMNS} FROM tournament_pairings WHERE match_id = ?", (match_id,))  # noqa: S608 - module constants
        return tournament_pairing_from_row(row) if row else None

    def paired_rounds(self, tournament_id: int) -> list[tuple[int, str]]:
        """``(round, engine)`` of every paired round, in order."""
        rows = self._all("SELECT round, engine FROM tournament_rounds WHERE tournament_id = ? ORDER BY round",
                         (tournament_id,))
        return [(int(row[0]), str(row[1])) for row in rows]

    def boards_waiting(self, tournament_id: int, round_number: int) -> int:
        """Pairings of the round still without a result (``tournament_pairings_pending``)."""
        row = self._one("SELECT COUNT(*) FROM tournament_pairings WHERE tournament_id = ? AND round = ? "
                        "AND first_points IS NULL", (tournament_id, round_number))
        return int(row[0]) if row else 0

    def ended_unrecorded(self, tournament_id: int) -> list[int]:
        """Match ids of the tournament's games whose match is over but whose result is not recorded yet."""
        rows = self._all("SELECT g.match_id FROM tournament_pairings g JOIN matches m ON m.id = g.match_id "
                         "WHERE g.tournament_id = ? AND g.first_points IS NULL AND m.status != 'active' "
                         "ORDER BY g.round, g.board", (tournament_id,))
        return [int(row[0]) for row in rows]

    def member_tournaments(self, guild_id: int, user_id: int) -> tuple[int, int, int]:
        """``(finished, won, podiums)``: the finished tournaments of ``guild_id`` ``user_id`` played in, how many they
        won, and how many they ended in the first three places of (``tournament_entries_member``): those with a final
        rank, which a tournament in which no game was played gives nobody."""
        row = self._one(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN e.final_rank = 1 THEN 1 ELSE 0 END), 0), "
            "COALESCE(SUM(CASE WHEN e.final_rank <= 3 THEN 1 ELSE 0 END), 0) FROM tournament_entries e "
            "JOIN tournaments t ON t.id = e.tournament_id WHERE e.user_id = ? AND t.guild_id = ? "
            "AND t.status = 'finished' AND e.final_rank IS NOT NULL", (user_id, guild_id))
        return (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)


class DueTournamentReads(Queries):
    """What the tournaments' periodic sweep reads: the running tournaments, and the starts that are due."""

    def running_tournament_ids(self, shards: Shards | None = None) -> list[int]:
        """Ids of the running tournaments (with ``shards``, of their servers), oldest first."""
        where = "" if shards is None else f" AND {shards.where()}"
        rows = self._all(f"SELECT id FROM tournaments WHERE status = 'running'{where} ORDER BY id")  # noqa: S608 - module constants
        return [int(row[0]) for row in rows]

    def due_tournament_starts(self, now: float, shards: Shards | None = None) -> list[int]:
        """Ids of open tournaments whose start time has come at ``now`` (epoch seconds), earliest first
        (``tournaments_due``; with ``shards``, of their servers)."""
        where = "" if shards is None else f" AND {shards.where()}"
        rows = self._all(f"SELECT id FROM tournaments WHERE status = 'open' AND starts_at IS NOT NULL AND "  # noqa: S608 - module constants
                         f"starts_at <= ?{where} ORDER BY starts_at, id", (now,))
        return [int(row[0]) for row in rows]

    def next_tournament_start(self, shards: Shards | None = None) -> float | None:
        """The earliest time (epoch seconds) an open tournament is due to start by itself (with ``shards``, of their
        servers), or ``None``."""
        where = "" if shards is None else f" AND {shards.where()}"
        start = self._one(f"SELECT MIN(starts_at) FROM tournaments WHERE status = 'open' AND starts_at IS NOT NULL"  # noqa: S608 - module constants
                          f"{where}")
        return float(start[0]) if start and start[0] is not None else None


class TournamentWrites(TournamentReads):
    """Writing tournaments, entrants, rounds and pairings. Raising from the body rolls every write back."""

    def insert_tournament(self, *, guild_id: int, channel_id: int, name: str, game: str, variant: dict[str, Any],
                          fmt: str, rounds: int, days_per_move: int, max_players: int, rated: bool,
                          organizer_id: int, organizer_name: str, starts_at: float | None, now: float) -> int:
        """Insert an open tournament; return its id."""
        cursor = self._conn.execute(
            "INSERT INTO tournaments (guild_id, channel_id, name, game, variant, format, rounds, days_per_move, "
            "max_players, rated, organizer_id, organizer_name, status, starts_at, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?) RETURNING id",
            (guild_id, channel_id, name, game, json.dumps(variant), fmt, rounds, days_per_move, max_players,
             int(rated), organizer_id, organizer_name, starts_at, now))
        return int(cursor.fetchone()[0])

    def lock_tournament(self, tournament_id: int) -> TournamentRecord | None:
        """Load a tournament (or ``None``) and hold its row until the transaction ends (PostgreSQL's ``FOR
        UPDATE``; on SQLite the plain read, as ``BEGIN IMMEDIATE`` already holds every other writer off)."""
        row = self._one(f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?"  # noqa: S608 - module constants
                        f"{self._dialect.for_update('tournaments')}", (tournament_id,))
        return tournament_from_row(row) if row else None

    def update_tournament(self, tournament_id: int, expected_version: int, **fields: Any) -> bool:
        """Set ``fields`` (names from :data:`TOURNAMENT_FIELDS`) if the version is still ``expected_version``, and
        bump it; ``False`` (nothing changed) when it moved on.

        Raises:
            ValueError: a key is not an updatable column.
        """
        unknown = sorted(set(fields) - TOURNAMENT_FIELDS)
        if unknown:
            raise ValueError(f"not updatable tournament columns: {', '.join(unknown)}")
        assignments = "".join(f"{key} = ?, " for key in fields)  # keys are whitelisted above
        cursor = self._conn.execute(
            f"UPDATE tournaments SET {assignments}version = version + 1 WHERE id = ? AND version = ?",  # noqa: S608 - whitelisted column names
            (*fields.values(), tournament_id, expected_version))
        return cursor.rowcount == 1

    def insert_entry(self, entry: TournamentEntryRecord) -> None:
        """Enter a player.

        Raises:
            IntegrityError: the backend's: they are entered already.
        """
        self._conn.execute(
            f"INSERT INTO tournament_entries ({_ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",  # noqa: S608 - module constants
            (entry.tournament_id, entry.user_id, entry.display_name, entry.number, entry.rating, entry.level,
             entry.joined_at, entry.joined_round, entry.withdrawn_round, entry.withdrawn_reason, entry.final_rank))

    def delete_entry(self, tournament_id: int, user_id: int) -> bool:
        """Take an entrant out (before the start); ``False`` when they were not entered."""
        cursor = self._conn.execute("DELETE FROM tournament_entries WHERE tournament_id = ? AND user_id = ?",
                                    (tournament_id, user_id))
        return cursor.rowcount == 1

    def update_entry(self, tournament_id: int, user_id: int, **fields: Any) -> bool:
        """Set ``fields`` (names from :data:`ENTRY_FIELDS`) of an entrant; ``False`` when there is none.

        Raises:
            ValueError: a key is not an updatable column.
        """
        unknown = sorted(set(fields) - ENTRY_FIELDS)
        if unknown:
            raise ValueError(f"not updatable entry columns: {', '.join(unknown)}")
        assignments = ", ".join(f"{key} = ?" for key in fields)  # keys are whitelisted above
        cursor = self._conn.execute(
            f"UPDATE tournament_entries SET {assignments} WHERE tournament_id = ? AND user_id = ?",  # noqa: S608 - whitelisted column names
            (*fields.values(), tournament_id, user_id))
        return cursor.rowcount == 1

    def insert_round(self, tournament_id: int, round_number: int, engine: str, now: float) -> None:
        """Record that round ``round_number`` is paired (by ``engine``).

        Raises:
            IntegrityError: the backend's: that round is paired already (by this or another process).
        """
        self._conn.execute("INSERT INTO tournament_rounds (tournament_id, round, paired_at, engine) "
                           "VALUES (?, ?, ?, ?)", (tournament_id, round_number, now, engine))

    def insert_pairing(self, board: TournamentPairingRecord) -> None:
        """Store a pairing of a paired round (its round's row must exist)."""
        self._conn.execute(
            f"INSERT INTO tournament_pairings ({_PAIRING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",  # noqa: S608 - module constants
            (board.tournament_id, board.round, board.board, board.first_id, board.second_id, board.kind,
             board.match_id, board.first_points, board.second_points,
             None if board.played is None else int(board.played)))

    def set_board_result(self, tournament_id: int, round_number: int, board: int, first_points: float,
                         second_points: float | None, played: bool) -> bool:
        """Write a pairing's result once; ``False`` when it had one already."""
        cursor = self._conn.execute(
            "UPDATE tournament_pairings SET first_points = ?, second_points = ?, played = ? WHERE tournament_id = ? "
            "AND round = ? AND board = ? AND first_points IS NULL",
            (first_points, second_points, int(played), tournament_id, round_number, board))
        return cursor.rowcount == 1
