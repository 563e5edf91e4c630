"""Queries over the schema.

Each query is a synchronous function of a :class:`sqlite3.Connection` wrapped as a :class:`Query`: awaited
with an aiosqlite connection it runs in one round trip to that connection's thread; ``.sync`` runs it inside a
transaction body (see :meth:`storage.database.Database.run_write`). Write queries belong inside a write
transaction; reads take either connection. Records are plain dataclasses with JSON already decoded; nothing here
knows the games' rules.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

import aiosqlite

from storage.database import in_thread


@dataclass
class SeatRecord:
    """One seat of a match: a member (``level is None``) or the computer at ``level``."""

    seat: int
    user_id: int
    display_name: str
    level: str | None = None

    @property
    def is_computer(self) -> bool:
        """``True`` for a computer seat."""
        return self.level is not None


@dataclass
class MatchRecord:
    """A stored match. ``state``/``variant``/``initial_state``/``outcome`` are decoded JSON dicts."""

    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    game: str
    variant: dict[str, Any]
    initial_state: dict[str, Any]
    state: dict[str, Any]
    status: str
    version: int
    ply: int
    current_seat: int | None
    days_per_move: int
    deadline: float | None
    reminded: bool
    draw_offer_seat: int | None
    outcome: dict[str, Any] | None
    end_reason: str | None
    rated: bool
    created_at: float
    updated_at: float
    finished_at: float | None
    seats: list[SeatRecord] = field(default_factory=list)

    def seat_of(self, user_id: int) -> int | None:
        """Return the seat ``user_id`` holds (the first, if the same member holds two), else ``None``."""
        for seat in self.seats:
            if seat.user_id == user_id and not seat.is_computer:
                return seat.seat
        return None

    @property
    def post_channel_id(self) -> int:
        """Where the match's messages go: its thread if it has one, else its channel."""
        return self.thread_id or self.channel_id


@dataclass
class ChallengeRecord:
    """A stored challenge (``opponent_id is None`` = open to anyone)."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    game: str
    variant: dict[str, Any]
    challenger_id: int
    challenger_name: str
    opponent_id: int | None
    days_per_move: int
    status: str
    match_id: int | None
    created_at: float
    expires_at: float


@dataclass
class MoveRecord:
    """One entry of the append-only move log."""

    match_id: int
    ply: int
    seat: int
    notation: str
    created_at: float


@dataclass
class SettingsRecord:
    """A server's settings (defaults when the server never changed them)."""

    guild_id: int
    days_per_move: int = 3
    use_threads: bool = True
    allowed_channels: list[int] = field(default_factory=list)
    max_active: int = 25
    rate_computer: bool = False


@dataclass
class RatingRecord:
    """A player's rating and record in one server and game."""

    guild_id: int
    game: str
    user_id: int
    display_name: str
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int
    best_vs_par: int | None


Connection = aiosqlite.Connection

P = ParamSpec("P")
R = TypeVar("R")


class Query(Generic[P, R]):
    """A query function usable both ways: ``await query(aiosqlite_conn, ...)`` runs it in one round trip to the
    connection's thread, and ``query.sync(sqlite3_conn, ...)`` runs it directly (inside a transaction body that
    :meth:`storage.Database.run_write` already runs in that thread)."""

    def __init__(self, fn: Callable[Concatenate[sqlite3.Connection, P], R]) -> None:
        self.sync = fn
        functools.update_wrapper(self, fn)

    async def __call__(self, conn: aiosqlite.Connection, *args: P.args, **kwargs: P.kwargs) -> R:
        return await in_thread(conn, self.sync, *args, **kwargs)


def query(fn: Callable[Concatenate[sqlite3.Connection, P], R]) -> Query[P, R]:
    """Decorator turning a synchronous query on a :class:`sqlite3.Connection` into a :class:`Query`."""
    return Query(fn)

_MATCH_COLUMNS = (
    "id, guild_id, channel_id, thread_id, game, variant, initial_state, state, status, version, ply, "
    "current_seat, days_per_move, deadline, reminded, draw_offer_seat, outcome, end_reason, rated, created_at, "
    "updated_at, finished_at"
)


_SEATS_JSON = (
    "(SELECT json_group_array(json_array(seat, user_id, display_name, level)) FROM "
    "(SELECT seat, user_id, display_name, level FROM seats WHERE match_id = matches.id ORDER BY seat)) AS seats_json"
)
_MATCH_SELECT = f"SELECT {_MATCH_COLUMNS}, {_SEATS_JSON} FROM matches"
"""A match row with its seats in one query (one round trip to the database thread)."""


def _match_from_row(row: sqlite3.Row) -> MatchRecord:
    match = _match_row(row)
    if "seats_json" in row.keys():  # noqa: SIM118 - `in row` would search the values
        match.seats = [SeatRecord(seat, user_id, name, level) for seat, user_id, name, level in
                       json.loads(row["seats_json"])]
    return match


def _match_row(row: sqlite3.Row) -> MatchRecord:
    return MatchRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], thread_id=row["thread_id"],
        game=row["game"], variant=json.loads(row["variant"]), initial_state=json.loads(row["initial_state"]),
        state=json.loads(row["state"]), status=row["status"], version=row["version"], ply=row["ply"],
        current_seat=row["current_seat"], days_per_move=row["days_per_move"], deadline=row["deadline"],
        reminded=bool(row["reminded"]), draw_offer_seat=row["draw_offer_seat"],
        outcome=json.loads(row["outcome"]) if row["outcome"] else None, end_reason=row["end_reason"],
        rated=bool(row["rated"]), created_at=row["created_at"], updated_at=row["updated_at"],
        finished_at=row["finished_at"],
    )


def _all(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
    return conn.execute(sql, tuple(params)).fetchall()


def _one(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> sqlite3.Row | None:
    return conn.execute(sql, tuple(params)).fetchone()


# ---------------------------------------------------------------- matches


@query
def insert_match(
    conn: sqlite3.Connection, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any],
    state: dict[str, Any], current_seat: int | None, days_per_move: int, deadline: float | None,
    rated: bool, now: float, seats: Sequence[SeatRecord],
) -> int:
    """Insert an active match with its seats; return its id."""
    text = json.dumps(state, separators=(",", ":"))
    cursor = conn.execute(
        "INSERT INTO matches (guild_id, channel_id, game, variant, initial_state, state, status, current_seat, "
        "days_per_move, deadline, rated, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?)",
        (guild_id, channel_id, game, json.dumps(variant), text, text, current_seat, days_per_move, deadline,
         int(rated), now, now),
    )
    match_id = int(cursor.lastrowid or 0)
    conn.executemany(
        "INSERT INTO seats (match_id, seat, user_id, display_name, level) VALUES (?, ?, ?, ?, ?)",
        [(match_id, s.seat, s.user_id, s.display_name, s.level) for s in seats],
    )
    return match_id


@query
def get_match(conn: sqlite3.Connection, match_id: int) -> MatchRecord | None:
    """Load a match with its seats, or ``None``."""
    row = _one(conn, f"{_MATCH_SELECT} WHERE id = ?", (match_id,))
    return _match_from_row(row) if row is not None else None


@query
def get_seats(conn: sqlite3.Connection, match_id: int) -> list[SeatRecord]:
    """Return a match's seats in seat order."""
    rows = _all(conn, "SELECT seat, user_id, display_name, level FROM seats WHERE match_id = ? ORDER BY seat",
                      (match_id,))
    return [SeatRecord(r["seat"], r["user_id"], r["display_name"], r["level"]) for r in rows]


@query
def match_in_thread(conn: sqlite3.Connection, thread_id: int) -> MatchRecord | None:
    """Return the match whose thread is ``thread_id`` (newest first), or ``None``."""
    row = _one(conn, "SELECT id FROM matches WHERE thread_id = ? ORDER BY id DESC LIMIT 1", (thread_id,))
    return get_match.sync(conn, int(row["id"])) if row else None


@query
def update_match(conn: sqlite3.Connection, match_id: int, expected_version: int, **fields: Any) -> bool:
    """Update ``fields`` of a match if its version is still ``expected_version``; bump the version.

    JSON fields (``state``, ``outcome``) are encoded here. Returns ``False`` when the version moved on.
    """
    encoded = {
        key: (json.dumps(value, separators=(",", ":")) if key in ("state", "outcome") and value is not None
              else int(value) if isinstance(value, bool) else value)
        for key, value in fields.items()
    }
    assignments = ", ".join(f"{key} = ?" for key in encoded)
    sql = f"UPDATE matches SET {assignments}, version = version + 1 WHERE id = ? AND version = ?"
    cursor = conn.execute(sql, (*encoded.values(), match_id, expected_version))
    return cursor.rowcount == 1


@query
def set_thread(conn: sqlite3.Connection, match_id: int, thread_id: int | None) -> None:
    """Record the match's thread (does not bump the version: it is not part of the game)."""
    conn.execute("UPDATE matches SET thread_id = ? WHERE id = ?", (thread_id, match_id))


@query
def active_matches_of(conn: sqlite3.Connection, guild_id: int, user_id: int) -> list[MatchRecord]:
    """Return ``user_id``'s active matches in ``guild_id``, newest first."""
    rows = _all(
        conn,
        f"{_MATCH_SELECT} WHERE guild_id = ? AND status = 'active' AND id IN "
        "(SELECT match_id FROM seats WHERE user_id = ? AND level IS NULL) ORDER BY updated_at DESC",
        (guild_id, user_id),
    )
    return [_match_from_row(row) for row in rows]


@query
def count_active(conn: sqlite3.Connection, guild_id: int, user_id: int) -> int:
    """Number of ``user_id``'s active matches in ``guild_id``."""
    row = _one(
        conn,
        "SELECT COUNT(*) FROM matches m JOIN seats s ON s.match_id = m.id "
        "WHERE m.guild_id = ? AND m.status = 'active' AND s.user_id = ? AND s.level IS NULL",
        (guild_id, user_id),
    )
    return int(row[0]) if row else 0


@query
def due_matches(conn: sqlite3.Connection, now: float) -> list[MatchRecord]:
    """Active matches whose deadline passed or whose reminder (a third of the time left) is due."""
    rows = _all(
        conn,
        f"{_MATCH_SELECT} WHERE status = 'active' AND deadline IS NOT NULL AND "
        "(deadline <= ? OR (reminded = 0 AND deadline - ? <= days_per_move * 86400.0 / 3.0)) ORDER BY deadline",
        (now, now),
    )
    return [_match_from_row(row) for row in rows]


@query
def next_deadline(conn: sqlite3.Connection) -> float | None:
    """The earliest time at which a reminder or a forfeit falls due, or ``None``."""
    row = _one(
        conn,
        "SELECT MIN(CASE WHEN reminded = 0 THEN deadline - days_per_move * 86400.0 / 3.0 ELSE deadline END) "
        "FROM matches WHERE status = 'active' AND deadline IS NOT NULL",
    )
    return float(row[0]) if row and row[0] is not None else None


@query
def finished_matches(conn: sqlite3.Connection, guild_id: int, game: str) -> list[MatchRecord]:
    """Finished matches of a game in a server, oldest first."""
    rows = _all(conn, f"{_MATCH_SELECT} WHERE guild_id = ? AND game = ? AND "
                            "status = 'finished' ORDER BY finished_at", (guild_id, game))
    return [_match_from_row(row) for row in rows]


@query
def computer_to_move(conn: sqlite3.Connection) -> list[int]:
    """Active matches whose seat to move is the computer's (after a restart nobody else would move them)."""
    rows = _all(conn, "SELECT m.id FROM matches m JOIN seats s ON s.match_id = m.id AND s.seat = m.current_seat "
                            "WHERE m.status = 'active' AND s.level IS NOT NULL ORDER BY m.id")
    return [int(r[0]) for r in rows]


@query
def all_match_ids(conn: sqlite3.Connection) -> list[int]:
    """Every match id (for integrity checks and replays)."""
    return [int(r[0]) for r in _all(conn, "SELECT id FROM matches ORDER BY id")]


# ---------------------------------------------------------------- moves


@query
def append_move(conn: sqlite3.Connection, match_id: int, ply: int, seat: int, notation: str, now: float) -> None:
    """Append a move to the log (the primary key rejects a second move for the same ply)."""
    conn.execute(
        "INSERT INTO moves (match_id, ply, seat, notation, created_at) VALUES (?, ?, ?, ?, ?)",
        (match_id, ply, seat, notation, now),
    )


@query
def get_moves(conn: sqlite3.Connection, match_id: int) -> list[MoveRecord]:
    """Return the match's move log in ply order."""
    rows = _all(conn, "SELECT match_id, ply, seat, notation, created_at FROM moves WHERE match_id = ? "
                            "ORDER BY ply", (match_id,))
    return [MoveRecord(r["match_id"], r["ply"], r["seat"], r["notation"], r["created_at"]) for r in rows]


# ---------------------------------------------------------------- challenges

_CHALLENGE_COLUMNS = ("id, guild_id, channel_id, message_id, game, variant, challenger_id, challenger_name, "
                      "opponent_id, days_per_move, status, match_id, created_at, expires_at")


def _challenge_from_row(row: sqlite3.Row) -> ChallengeRecord:
    return ChallengeRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], message_id=row["message_id"],
        game=row["game"], variant=json.loads(row["variant"]), challenger_id=row["challenger_id"],
        challenger_name=row["challenger_name"], opponent_id=row["opponent_id"], days_per_move=row["days_per_move"],
        status=row["status"], match_id=row["match_id"], created_at=row["created_at"], expires_at=row["expires_at"],
    )


@query
def insert_challenge(
    conn: sqlite3.Connection, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], challenger_id: int,
    challenger_name: str, opponent_id: int | None, days_per_move: int, now: float, expires_at: float,
) -> int:
    """Insert an open challenge; return its id."""
    cursor = conn.execute(
        "INSERT INTO challenges (guild_id, channel_id, game, variant, challenger_id, challenger_name, opponent_id, "
        "days_per_move, status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)",
        (guild_id, channel_id, game, json.dumps(variant), challenger_id, challenger_name, opponent_id,
         days_per_move, now, expires_at),
    )
    return int(cursor.lastrowid or 0)


@query
def get_challenge(conn: sqlite3.Connection, challenge_id: int) -> ChallengeRecord | None:
    """Load a challenge or ``None``."""
    row = _one(conn, f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,))
    return _challenge_from_row(row) if row else None


@query
def close_challenge(conn: sqlite3.Connection, challenge_id: int, status: str, match_id: int | None = None) -> bool:
    """Move an open challenge to ``status``; ``False`` if it was no longer open."""
    cursor = conn.execute(
        "UPDATE challenges SET status = ?, match_id = ? WHERE id = ? AND status = 'open'",
        (status, match_id, challenge_id),
    )
    return cursor.rowcount == 1


@query
def set_challenge_message(conn: sqlite3.Connection, challenge_id: int, message_id: int) -> None:
    """Remember the message that carries the challenge's buttons."""
    conn.execute("UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id))


@query
def expired_challenges(conn: sqlite3.Connection, now: float) -> list[ChallengeRecord]:
    """Open challenges whose time ran out."""
    rows = _all(conn, f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND expires_at <= ?",
                      (now,))
    return [_challenge_from_row(row) for row in rows]


@query
def next_challenge_expiry(conn: sqlite3.Connection) -> float | None:
    """The earliest expiry of an open challenge, or ``None``."""
    row = _one(conn, "SELECT MIN(expires_at) FROM challenges WHERE status = 'open'")
    return float(row[0]) if row and row[0] is not None else None


# ---------------------------------------------------------------- settings


@query
def get_settings(conn: sqlite3.Connection, guild_id: int) -> SettingsRecord:
    """Return a server's settings (defaults if never set)."""
    row = _one(conn, "SELECT days_per_move, use_threads, allowed_channels, max_active, rate_computer "
                           "FROM guild_settings WHERE guild_id = ?", (guild_id,))
    if row is None:
        return SettingsRecord(guild_id)
    return SettingsRecord(guild_id, row["days_per_move"], bool(row["use_threads"]),
                          list(json.loads(row["allowed_channels"])), row["max_active"], bool(row["rate_computer"]))


@query
def put_settings(conn: sqlite3.Connection, settings: SettingsRecord, now: float) -> None:
    """Insert or replace a server's settings."""
    conn.execute(
        "INSERT INTO guild_settings (guild_id, days_per_move, use_threads, allowed_channels, max_active, "
        "rate_computer, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
        "days_per_move = excluded.days_per_move, use_threads = excluded.use_threads, "
        "allowed_channels = excluded.allowed_channels, max_active = excluded.max_active, "
        "rate_computer = excluded.rate_computer, updated_at = excluded.updated_at",
        (settings.guild_id, settings.days_per_move, int(settings.use_threads),
         json.dumps(sorted(settings.allowed_channels)), settings.max_active, int(settings.rate_computer), now),
    )


# ---------------------------------------------------------------- ratings


def _rating_from_row(row: sqlite3.Row) -> RatingRecord:
    return RatingRecord(row["guild_id"], row["game"], row["user_id"], row["display_name"], row["mu"], row["sigma"],
                        row["games"], row["wins"], row["losses"], row["draws"], row["best_vs_par"])


_RATING_COLUMNS = "guild_id, game, user_id, display_name, mu, sigma, games, wins, losses, draws, best_vs_par"


@query
def get_rating(conn: sqlite3.Connection, guild_id: int, game: str, user_id: int) -> RatingRecord | None:
    """A player's rating row, or ``None`` before their first finished match."""
    row = _one(conn, f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
                     (guild_id, game, user_id))
    return _rating_from_row(row) if row else None


@query
def put_rating(conn: sqlite3.Connection, rating: RatingRecord, now: float) -> None:
    """Insert or replace a rating row."""
    conn.execute(
        f"INSERT OR REPLACE INTO ratings ({_RATING_COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (rating.guild_id, rating.game, rating.user_id, rating.display_name, rating.mu, rating.sigma, rating.games,
         rating.wins, rating.losses, rating.draws, rating.best_vs_par, now),
    )


@query
def ratings_of_game(conn: sqlite3.Connection, guild_id: int, game: str) -> list[RatingRecord]:
    """All rating rows of a server and game (unsorted)."""
    rows = _all(conn, f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND game = ?",
                      (guild_id, game))
    return [_rating_from_row(row) for row in rows]


@query
def ratings_of_user(conn: sqlite3.Connection, guild_id: int, user_id: int) -> list[RatingRecord]:
    """A player's rating rows in a server, one per game played."""
    rows = _all(conn, f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY game",
                      (guild_id, user_id))
    return [_rating_from_row(row) for row in rows]


# ---------------------------------------------------------------- meta


@query
def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """Read a key of the ``meta`` table (e.g. the synced command-tree hash)."""
    row = _one(conn, "SELECT value FROM meta WHERE key = ?", (key,))
    return str(row["value"]) if row else None


@query
def put_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Write a key of the ``meta`` table."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
