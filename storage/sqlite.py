"""The SQLite store (the default): connections, migrations and the one transaction style on a file.

:meth:`storage.Database.open` opens one for a path or a ``sqlite:///path`` setting. A body (see
:mod:`storage.database`) runs, in one round trip, in the thread that owns the connection: waking that thread costs
far more than a small query on an idle machine, so a whole move (load, check, append, update, ratings) is one call.

One writer connection (guarded by an :class:`asyncio.Lock`, each write in ``BEGIN IMMEDIATE`` so that other
processes are locked out too) and one reader connection (each read body in one ``BEGIN`` … ``ROLLBACK``, so
under WAL it sees one consistent snapshot without blocking the writer). Foreign keys are on; ``synchronous`` is
``NORMAL`` under WAL unless told otherwise.

aiosqlite supplies the connection threads. It has no public call for "run this function with the
:class:`sqlite3.Connection` in the connection's thread", which the body style needs; :func:`_in_thread` is the
one place that uses its private ``_execute`` queue and ``_conn`` property, so ``pyproject.toml`` pins aiosqlite
to the minor version the tests ran on (0.22). Raise that pin only after the test suite passes on the new
version.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar, Concatenate, Literal, ParamSpec, TypeVar

import aiosqlite

from storage.dialect import SQLITE
from storage.errors import StorageError
from storage.events import CommitEvents
from storage.migrations import MIGRATIONS, SCHEMA_VERSION
from storage.tx import ReadTx, Tx

log = logging.getLogger(__name__)

DEFAULT_PATH = "napkin.db"
"""Default database file, relative to the working directory (override with ``NAPKIN_DATABASE``)."""

T = TypeVar("T")
P = ParamSpec("P")

Synchronous = Literal["NORMAL", "FULL"]

OPEN_PATIENCE = 30.0
"""Seconds :meth:`SqliteDatabase.open` keeps trying while the file is busy (as long as a write waits for the lock)."""

SQLITE_URL = "sqlite:///"
"""A database setting that starts so names the SQLite file after it (``sqlite:////srv/napkin.db`` is absolute)."""


async def _in_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn(sqlite3_connection)`` in ``conn``'s own thread, in one round trip (see the module docstring for
    why this is the only use of aiosqlite's private API)."""
    raw: sqlite3.Connection = conn._conn
    queue: Callable[..., Awaitable[T]] = conn._execute
    return await queue(fn, raw)


class SqliteDatabase:
    """An open Napkin Games database in a SQLite file (a :class:`storage.Database`), opened by
    :meth:`storage.Database.open` (or this class's :meth:`open`). ``path`` may be ``":memory:"`` only for a single
    connection test; the normal store is a file.
    """

    IntegrityError: ClassVar[type[Exception]] = sqlite3.IntegrityError
    """What a write raises when a constraint refuses it (a logged ply again, a missing match), per backend."""
    backend: ClassVar[str] = "sqlite"
    """``"sqlite"`` or ``"postgresql"``."""
    TransientError: ClassVar[tuple[type[Exception], ...]] = ()
    """What a statement raises when it lost a race with another process's transaction and may simply be tried
    again later (a deadlock the server broke): none on SQLite, whose writers take turns."""

    def __init__(self, path: str | os.PathLike[str], writer: aiosqlite.Connection, reader: aiosqlite.Connection,
                 synchronous: Synchronous) -> None:
        self.path = str(path)
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()
        self.synchronous = synchronous
        self.events = CommitEvents()
        """Who hears what committed transactions published (:mod:`storage.events`)."""

    @classmethod
    async def open(cls, path: str | os.PathLike[str] = DEFAULT_PATH, /, *,
                   synchronous: Synchronous = "NORMAL", password: str | None = None) -> SqliteDatabase:
        """Open (creating if needed) and migrate the database at ``path``.

        While the file is busy ("database is locked": another process is opening, migrating or writing it at that
        moment, which SQLite may report at once, without waiting, when two connections switch a new file to WAL
        together), the open is tried again, with pauses from 1 ms growing to 100 ms, for up to
        :data:`OPEN_PATIENCE` seconds.

        Args:
            path: file path of the SQLite database, or ``sqlite:///`` and that path.
            synchronous: ``"NORMAL"`` (default, safe under WAL against application crashes) or ``"FULL"``.
            password: accepted so that every backend opens alike; a SQLite file has none, so it must be ``None``.

        Raises:
            ValueError: ``synchronous`` is neither, or a ``password`` is given.
            StorageError: the file has a newer schema than this code knows, is not a SQLite database (or is
                damaged beyond opening), or cannot be written (a read-only file or folder) — one line saying so.
        """
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        if password is not None:
            raise ValueError("a password is for a PostgreSQL database, not a SQLite file")
        target = os.fspath(path)
        if target.startswith(SQLITE_URL):
            path = target[len(SQLITE_URL):]
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + OPEN_PATIENCE
        pause = 0.001
        while True:
            try:
                writer, reader = await _open_connections(path, synchronous)
                break
            except sqlite3.OperationalError as error:
                if not _busy(error) or time.monotonic() + pause > deadline:
                    raise StorageError(_refusal(path, error)) from error
                log.info("the database %s is busy while opening (%s); trying again", path, error)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.1)
            except sqlite3.DatabaseError as error:  # read-only, unreadable, not a database
                raise StorageError(_refusal(path, error)) from error
        return cls(path, writer, reader, synchronous)

    async def close(self) -> None:
        """Close both connections (idempotent)."""
        for connection in {id(self._writer): self._writer, id(self._reader): self._reader}.values():
            with contextlib.suppress(ValueError, sqlite3.ProgrammingError):
                await connection.close()

    def connections(self) -> None:
        """``None``: no connection pool (one writer and one reader connection)."""
        return None

    async def __aenter__(self) -> SqliteDatabase:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def write(self, body: Callable[Concatenate[Tx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(tx, *args, **kwargs)`` as one ``BEGIN IMMEDIATE`` transaction in the writer's thread.

        Commits when ``body`` returns and returns its result; rolls back and re-raises when it raises (so a
        refused action changes nothing stored). Writes are serialised within the process by a lock and across
        processes by SQLite's write lock (waiting up to 30 s).

        Raises:
            sqlite3.Error: from the database (e.g. ``IntegrityError``, ``OperationalError``), after rolling back.
        """
        def transaction(conn: sqlite3.Connection) -> tuple[T, list[object]]:
            conn.execute("BEGIN IMMEDIATE")
            tx = Tx(conn, SQLITE)
            try:
                result = body(tx, *args, **kwargs)
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
            return result, tx.published

        async with self._write_lock:
            result, published = await _in_thread(self._writer, transaction)
        self.events.deliver(published)
        return result

    async def read(self, body: Callable[Concatenate[ReadTx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(read_tx, *args, **kwargs)`` on the reader's thread over one consistent snapshot; return its
        result. Usually ``body`` is a query itself: ``await db.read(ReadTx.get_match, match_id)``."""
        def snapshot(conn: sqlite3.Connection) -> T:
            conn.execute("BEGIN")
            try:
                return body(ReadTx(conn, SQLITE), *args, **kwargs)
            finally:
                conn.rollback()

        return await _in_thread(self._reader, snapshot)

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        """Run one read-only statement and return all rows (for diagnostics and tests; the bot uses queries)."""
        return await _in_thread(self._reader, lambda conn: list(conn.execute(sql, params).fetchall()))

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        """Run one read-only statement and return the first row or ``None`` (for diagnostics and tests)."""
        def first(conn: sqlite3.Connection) -> sqlite3.Row | None:
            row: sqlite3.Row | None = conn.execute(sql, params).fetchone()
            return row

        return await _in_thread(self._reader, first)

    async def integrity_check(self) -> str:
        """Return the result of ``PRAGMA integrity_check`` (``"ok"`` when sound)."""
        row = await self.fetchone("PRAGMA integrity_check")
        return str(row[0]) if row else "no answer"

    async def backup(self, target: str | os.PathLike[str]) -> None:
        """Write an online, consistent copy of the database to ``target`` (SQLite's backup API)."""
        target_path = Path(target)
        target_path.parent.mkdir(parents=True, exist_ok=True)

        def copy(source: sqlite3.Connection) -> None:
            with contextlib.closing(sqlite3.connect(target_path)) as destination:
                source.backup(destination)

        async with self._write_lock:
            await _in_thread(self._reader, copy)


def _busy(error: sqlite3.OperationalError) -> bool:
    """``True`` for "database is locked" (``SQLITE_BUSY`` or ``SQLITE_LOCKED``)."""
    return getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or \
        "database is locked" in str(error)


async def _open_connections(path: str | os.PathLike[str],
                            synchronous: Synchronous) -> tuple[aiosqlite.Connection, aiosqlite.Connection]:
    """The writer (the database migrated and found writable) and the reader connections of ``path``; nothing left
    open when it raises."""
    writer = await _connect(path, synchronous)
    try:
        await _in_thread(writer, _migrate)
        await _in_thread(writer, _check_writable)
        reader = writer if str(path) == ":memory:" else await _connect(path, synchronous)
    except BaseException:
        await writer.close()
        raise
    return writer, reader


async def _connect(path: str | os.PathLike[str], synchronous: Synchronous) -> aiosqlite.Connection:
    connection = await aiosqlite.connect(os.fspath(path), isolation_level=None, timeout=30.0)
    connection.row_factory = sqlite3.Row

    def configure(conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("PRAGMA busy_timeout=30000")

    try:
        await _in_thread(connection, configure)
    except BaseException:
        await connection.close()
        raise
    return connection


def _refusal(path: str | os.PathLike[str], error: sqlite3.DatabaseError) -> str:
    """One line saying why the database at ``path`` cannot be used."""
    text = str(error)
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return f"it cannot be written ({text}); check the permissions of {os.fspath(path)} and its folder"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return (f"it is not a SQLite database or is damaged ({text}); restore a backup (napkin backup makes one) "
                "or set NAPKIN_DATABASE to another file")
    return f"it cannot be opened ({text})"


def _check_writable(conn: sqlite3.Connection) -> None:
    """Refuse a database this process can read but not write (a read-only file, folder or mount), before any
    member's move would fail on it: one write, rolled back.

    Raises:
        sqlite3.OperationalError: "attempt to write a readonly database" (or another reason it cannot write).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('write_probe', '1')")
    finally:
        conn.rollback()


def _user_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0]) if row else 0


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring the schema to :data:`SCHEMA_VERSION` in one ``BEGIN IMMEDIATE`` transaction.

    The version is read again inside the transaction, so of several processes opening an old database at once
    exactly one migrates and the others find it done (SQLite's DDL and ``PRAGMA user_version`` are
    transactional).

    Raises:
        StorageError: the database has a newer schema than this code.
    """
    if _user_version(conn) == SCHEMA_VERSION:  # the common case: no write lock needed
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _user_version(conn)
        if version > SCHEMA_VERSION:
            raise StorageError(f"database schema {version} is newer than this code ({SCHEMA_VERSION})")
        for number in range(version, SCHEMA_VERSION):
            log.info("migrating database to schema %d", number + 1)
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        conn.rollback()
        raise
    conn.commit()


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
