"""Schema migrations: one numbered list, a text per backend.

``MIGRATIONS[i]`` (SQLite, :mod:`storage.migrations.sqlite`) and ``POSTGRES_MIGRATIONS[i]`` (PostgreSQL,
:mod:`storage.migrations.postgres`) bring a database from version ``i`` to ``i + 1`` and give the same tables,
columns, constraints and indexes in each dialect. Never edit a released migration; append to both lists. SQLite
keeps the version in ``PRAGMA user_version``, PostgreSQL in the one-row table ``schema_version``. Times are UNIX epoch
seconds (UTC; SQLite ``REAL``, PostgreSQL ``DOUBLE PRECISION``); ids of Discord objects are snowflakes (``INTEGER`` /
``BIGINT``); JSON is ``TEXT``; flags are 0/1 integers. :meth:`storage.Database.open` applies the pending ones in one
transaction.
"""

from __future__ import annotations

from storage.migrations.postgres import POSTGRES_MIGRATIONS
from storage.migrations.sqlite import MIGRATIONS

if len(POSTGRES_MIGRATIONS) != len(MIGRATIONS):  # pragma: no cover - a module that fails to import says so at once
    raise RuntimeError("every migration needs its SQLite and its PostgreSQL text")

SCHEMA_VERSION = len(MIGRATIONS)

DERIVED_TABLES = frozenset({"leaderboard_sizes"})
"""Tables whose rows the database derives from others by triggers (so a copy of the data leaves them out: they
follow the rows copied)."""

__all__ = ["DERIVED_TABLES", "MIGRATIONS", "POSTGRES_MIGRATIONS", "SCHEMA_VERSION"]
