"""The SQLite store on aiosqlite: connections, migrations and the write transaction.

One writer connection (guarded by an :class:`asyncio.Lock`, each write in ``BEGIN IMMEDIATE`` so that other
processes are locked out too) and one reader connection (WAL gives it a consistent snapshot without blocking
the writer). Foreign keys are on; ``synchronous`` is ``NORMAL`` under WAL unless told otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from storage.migrations import MIGRATIONS, SCHEMA_VERSION

log = logging.getLogger(__name__)

DEFAULT_PATH = "napkin.db"
"""Default database file, relative to the working directory (override with ``NAPKIN_DATABASE``)."""


T = TypeVar("T")


async def in_thread(conn: aiosqlite.Connection, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run ``fn(sqlite3_connection, *args, **kwargs)`` in ``conn``'s own thread, in one round trip.

    Waking the database thread costs far more than a small query on an idle machine, so a whole transaction
    body runs as one call. (aiosqlite has no public API for this; ``_execute`` is the queue its own methods use.)
    """
    return await conn._execute(lambda: fn(conn._conn, *args, **kwargs))


class StorageError(RuntimeError):
    """The database is unusable (newer schema than this code, integrity failure)."""


class Database:
    """An open Napkin Games database.

    Use :meth:`open` (or ``async with Database.open(path) as db``). ``path`` may be ``":memory:"`` only for a
    single connection test; the normal store is a file.
    """

    def __init__(self, path: str | os.PathLike[str], writer: aiosqlite.Connection, reader: aiosqlite.Connection,
                 synchronous: str) -> None:
        self.path = str(path)
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()
        self.synchronous = synchronous

    @classmethod
    async def open(cls, path: str | os.PathLike[str] = DEFAULT_PATH, *, synchronous: str = "NORMAL") -> Database:
        """Open (creating if needed) and migrate the database at ``path``.

        Args:
            path: file path of the SQLite database.
            synchronous: ``"NORMAL"`` (default, safe under WAL against application crashes) or ``"FULL"``.

        Raises:
            StorageError: the file has a newer schema than this code knows.
        """
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        writer = await _connect(path, synchronous)
        try:
            await _migrate(writer)
        except BaseException:
            await writer.close()
            raise
        reader = writer if str(path) == ":memory:" else await _connect(path, synchronous)
        return cls(path, writer, reader, synchronous)

    async def close(self) -> None:
        """Close both connections (idempotent)."""
        for connection in {id(self._writer): self._writer, id(self._reader): self._reader}.values():
            with contextlib.suppress(ValueError, sqlite3.ProgrammingError):
                await connection.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run a block in one ``BEGIN IMMEDIATE`` transaction; commit on success, roll back on any exception.

        Never ``await`` anything but this connection inside the block (no Discord calls).
        """
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                await self._writer.rollback()
                raise
            else:
                await self._writer.commit()

    async def run_write(self, body: Callable[..., T], *args: Any) -> T:
        """Run ``body(sqlite3_connection, *args)`` as one ``BEGIN IMMEDIATE`` transaction in the writer's thread.

        One round trip for the whole transaction; commits when ``body`` returns, rolls back (and re-raises) when it
        raises. ``body`` is plain synchronous code: it cannot await, so it cannot hold the transaction across a
        Discord call.
        """
        async with self._write_lock:
            return await in_thread(self._writer, _transaction, body, args)

    async def run_read(self, body: Callable[..., T], *args: Any) -> T:
        """Run ``body(sqlite3_connection, *args)`` on the reader connection's thread in one round trip."""
        return await in_thread(self._reader, body, *args)

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """Yield the reader connection (autocommit; each statement sees the latest committed data)."""
        yield self._reader

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        """Run a read query and return all rows."""
        async with self._reader.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        """Run a read query and return the first row or ``None``."""
        async with self._reader.execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def integrity_check(self) -> str:
        """Return the result of ``PRAGMA integrity_check`` (``"ok"`` when sound)."""
        row = await self.fetchone("PRAGMA integrity_check")
        return str(row[0]) if row else "no answer"

    async def backup(self, target: str | os.PathLike[str]) -> None:
        """Write an online, consistent copy of the database to ``target`` (SQLite's backup API)."""
        target_path = Path(target)
        target_path.parent.mkdir(parents=True, exist_ok=True)

        def _copy(source: sqlite3.Connection) -> None:
            destination = sqlite3.connect(target_path)
            try:
                source.backup(destination)
            finally:
                destination.close()

        async with self._write_lock:
            await self._reader._execute(_copy, self._reader._conn)


def _transaction(conn: sqlite3.Connection, body: Callable[..., T], args: tuple[Any, ...]) -> T:
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = body(conn, *args)
    except BaseException:
        conn.rollback()
        raise
    conn.commit()
    return result


async def _connect(path: str | os.PathLike[str], synchronous: str) -> aiosqlite.Connection:
    connection = await aiosqlite.connect(path, isolation_level=None, timeout=30.0)
    connection.row_factory = sqlite3.Row
    await connection.execute("PRAGMA journal_mode=WAL")
    await connection.execute("PRAGMA foreign_keys=ON")
    await connection.execute(f"PRAGMA synchronous={synchronous}")
    await connection.execute("PRAGMA busy_timeout=30000")
    return connection


async def _migrate(connection: aiosqlite.Connection) -> None:
    async with connection.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        raise StorageError(f"database schema {version} is newer than this code ({SCHEMA_VERSION})")
    for number in range(version, SCHEMA_VERSION):
        log.info("migrating database to schema %d", number + 1)
        await connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[number]):
                await connection.execute(statement)
            await connection.execute(f"PRAGMA user_version={number + 1}")
        except BaseException:
            await connection.rollback()
            raise
        await connection.commit()


def _statements(script: str) -> list[str]:
    """Split a migration script into complete statements (triggers keep their inner semicolons)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
