"""Persistence on SQLite (the default, aiosqlite's connection threads) or PostgreSQL: schema migrations, matches, the
append-only move log, challenges, ratings, settings, tournaments, seasons and puzzles.

One transaction style: ``await db.read(body, ...)`` and ``await db.write(body, ...)`` run a synchronous body
that receives a :class:`ReadTx` or :class:`Tx` (the queries as methods) in the database thread, in one round
trip. Nothing here imports ``games``, ``renderers``, ``bot`` or ``discord``; states are stored as the games' JSON
dicts.
"""

from storage.database import Database
from storage.errors import CommitUncertain, ConnectionLost, StorageError
from storage.events import NewsQueued
from storage.puzzle_records import DailyPuzzleRecord, PuzzleAttemptRecord, PuzzlePlayerRecord, PuzzleRecord
from storage.queries.ratings import PROVISIONAL_GAMES
from storage.records import (
    ChallengeRecord,
    MatchRecord,
    MemberPrefs,
    MoveRecord,
    OutboxRecord,
    PoolConnections,
    PremoveRecord,
    RatingRecord,
    SeasonRecord,
    SeatRecord,
    SettingsRecord,
    Shards,
    TournamentEntryRecord,
    TournamentPairingRecord,
    TournamentRecord,
    VacationRecord,
    compact_json,
)
from storage.sqlite import DEFAULT_PATH
from storage.tx import ReadTx, Tx

__all__ = [
    "DEFAULT_PATH",
    "PROVISIONAL_GAMES",
    "ChallengeRecord",
    "CommitUncertain",
    "ConnectionLost",
    "DailyPuzzleRecord",
    "Database",
    "MatchRecord",
    "MemberPrefs",
    "MoveRecord",
    "NewsQueued",
    "OutboxRecord",
    "PoolConnections",
    "PremoveRecord",
    "PuzzleAttemptRecord",
    "PuzzlePlayerRecord",
    "PuzzleRecord",
    "RatingRecord",
    "ReadTx",
    "SeasonRecord",
    "SeatRecord",
    "SettingsRecord",
    "Shards",
    "StorageError",
    "TournamentEntryRecord",
    "TournamentPairingRecord",
    "TournamentRecord",
    "Tx",
    "VacationRecord",
    "compact_json",
]
