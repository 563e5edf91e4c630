"""Persistence on aiosqlite: schema migrations, matches, the append-only move log, challenges, ratings, settings.

Nothing here imports ``games``, ``renderers`` or ``discord``; states are stored as the games' JSON dicts.
"""

from storage.database import DEFAULT_PATH, Database, StorageError
from storage.repo import ChallengeRecord, MatchRecord, MoveRecord, RatingRecord, SeatRecord, SettingsRecord

__all__ = [
    "DEFAULT_PATH",
    "ChallengeRecord",
    "Database",
    "MatchRecord",
    "MoveRecord",
    "RatingRecord",
    "SeatRecord",
    "SettingsRecord",
    "StorageError",
]
