"""The PostgreSQL store: the same transaction style and queries as the SQLite store, on a shared server.

Selected by a ``postgresql://`` (or ``postgres://``) database setting; :meth:`storage.Database.open` hands such a
URL to :meth:`PostgresDatabase.open`. Everything else keeps working as on SQLite:

.. code-block:: python

    match = await db.read(ReadTx.get_match, match_id)
    match_id = await db.write(body)  # body(tx: Tx) -> int, synchronous

The driver is psycopg 3 with psycopg_pool. Its synchronous connections fit the body style as they are: a body is
plain synchronous code (it cannot await, so it cannot hold a transaction open across a Discord call), and here it
runs in a worker thread (:func:`asyncio.to_thread`) with a connection taken from a
:class:`psycopg_pool.ConnectionPool` for exactly that body. An asyncio driver (asyncpg, psycopg's async
connections) would need every query method to become a coroutine, that is a second copy of :mod:`storage.queries`;
psycopg 3 also keeps DB-API's shape (``execute``/``fetchone``/``rowcount``), so the queries of
:class:`storage.tx.ReadTx` and :class:`storage.tx.Tx` run unchanged through :class:`_PgConnection`, which only
turns ``?`` and ``:name`` placeholders into psycopg's ``%s`` and ``%(name)s`` (:func:`storage.dialect.pyformat`), with
:data:`storage.dialect.POSTGRESQL` for the few spellings that differ.

Transactions: a write body runs in one ``BEGIN`` … ``COMMIT`` (``READ COMMITTED``; rolled back when the body raises),
serialised within the process by an :class:`asyncio.Lock` as on SQLite; across processes a move is guarded by the
match's version check (``UPDATE … WHERE version = ?`` waits for a concurrent writer of the row and then finds the
version moved on). A read body runs in one ``REPEATABLE READ READ ONLY`` transaction, so it sees one consistent
snapshot. Migrations run under a transaction-level advisory lock, so of several processes opening an old database
exactly one migrates; the version is the one row of ``schema_version``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg.rows import RowMaker
from psycopg_pool import ConnectionPool

from storage.dialect import POSTGRESQL, pyformat
from storage.errors import StorageError
from storage.migrations import POSTGRES_MIGRATIONS, SCHEMA_VERSION
from storage.queries.base import Cursor
from storage.tx import ReadTx, Tx

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

_MIGRATION_LOCK = 0x6E61706B696E  # any constant; "napkin" in ASCII
"""The advisory lock key held while migrating."""

POOL_SIZE = 4
"""Connections kept per process (one writer at a time, the rest for reads)."""


class PgRow:
    """A result row, by column position or name, like :class:`sqlite3.Row` (``dict(row)`` works too)."""

    __slots__ = ("_positions", "_values")

    def __init__(self, positions: dict[str, int], values: Sequence[Any]) -> None:
        self._positions = positions
        self._values = values

    def __getitem__(self, key: int | str, /) -> Any:
        return self._values[self._positions[key] if isinstance(key, str) else key]

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self._positions)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        return tuple(self._values) == (tuple(other) if isinstance(other, PgRow | tuple) else other)

    def __hash__(self) -> int:
        return hash(tuple(self._values))

    def __repr__(self) -> str:
        return f"PgRow({dict(zip(self._positions, self._values, strict=True))!r})"


def _row_factory(cursor: psycopg.Cursor[Any]) -> RowMaker[PgRow]:
    positions = {column.name: index for index, column in enumerate(cursor.description or ())}
    return functools.partial(PgRow, positions)


PgConnection = psycopg.Connection[PgRow]


class _PgConnection:
    """A psycopg connection that takes the queries of :mod:`storage.queries` as written (see
    :func:`storage.dialect.pyformat`)."""

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        if not parameters:
            return self._conn.execute(sql)
        named = isinstance(parameters, dict)
        return self._conn.execute(pyformat(sql, named), parameters if named else tuple(parameters))

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Cursor:
        cursor = self._conn.cursor()
        cursor.executemany(pyformat(sql, False), [tuple(row) for row in parameters])
        return cursor


class PostgresDatabase:
    """An open Napkin Games database on a PostgreSQL server (a :class:`storage.Database`; use
    :meth:`storage.Database.open` with its URL)."""

    IntegrityError: ClassVar[type[Exception]] = psycopg.IntegrityError
    backend: ClassVar[str] = "postgresql"
    TransientError: ClassVar[tuple[type[Exception], ...]] = (
        psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure, psycopg.errors.LockNotAvailable)

    def __init__(self, url: str, pool: ConnectionPool[PgConnection]) -> None:
        self.path = url
        self._pool = pool
        self._write_lock = asyncio.Lock()
        self.synchronous = "FULL"

    @classmethod
    async def open(cls, url: str | os.PathLike[str], /, *, synchronous: str = "FULL") -> PostgresDatabase:
        """Connect to the PostgreSQL database at ``url`` (``postgresql://user@host:port/name``), migrate it and open
        a pool of :data:`POOL_SIZE` connections.

        Args:
            url: the database's URL.
            synchronous: SQLite's setting, accepted so that every backend opens alike and not used: how a commit
                reaches the disk is the server's (``synchronous_commit``).

        Raises:
            StorageError: the server cannot be reached or refuses the login, or the database has a newer schema
                than this code — one line saying so.
        """
        target = os.fspath(url)

        def prepare() -> ConnectionPool[PgConnection]:
            try:
                with psycopg.connect(target, autocommit=True, connect_timeout=10) as conn:
                    _migrate(conn)
            except psycopg.Error as error:
                raise StorageError(f"the PostgreSQL database cannot be opened ({str(error).strip()})") from error
            pool = ConnectionPool(target, min_size=1, max_size=POOL_SIZE, open=False, name="napkin",
                                  connection_class=PgConnection,
                                  kwargs={"autocommit": True, "row_factory": _row_factory})
            pool.open(wait=True, timeout=30)
            return pool

        return cls(target, await asyncio.to_thread(prepare))

    async def close(self) -> None:
        """Close the pool (idempotent)."""
        await asyncio.to_thread(self._pool.close)

    async def __aenter__(self) -> PostgresDatabase:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def write(self, body: Callable[Concatenate[Tx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(tx, *args, **kwargs)`` in one transaction on a pooled connection in a worker thread.

        Commits when ``body`` returns and returns its result; rolls back and re-raises when it raises.

        Raises:
            psycopg.Error: from the database (e.g. ``IntegrityError``), after rolling back.
        """
        def transaction() -> T:
            with self._pool.connection() as conn, conn.transaction():
                return body(Tx(_PgConnection(conn), POSTGRESQL), *args, **kwargs)

        async with self._write_lock:
            return await asyncio.to_thread(transaction)

    async def read(self, body: Callable[Concatenate[ReadTx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(read_tx, *args, **kwargs)`` over one consistent snapshot (``REPEATABLE READ READ ONLY``)."""
        return await asyncio.to_thread(self._snapshot, lambda conn: body(ReadTx(_PgConnection(conn), POSTGRESQL), *args,
                                                                         **kwargs))

    def _snapshot(self, fn: Callable[[PgConnection], T]) -> T:
        with self._pool.connection() as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                return fn(conn)
            finally:
                conn.execute("ROLLBACK")

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        """Run one read-only statement (``?`` placeholders) and return all rows (for diagnostics and tests)."""
        return await asyncio.to_thread(self._snapshot, lambda conn: _PgConnection(conn).execute(sql, params)
                                       .fetchall())

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> Any:
        """Run one read-only statement and return the first row or ``None`` (for diagnostics and tests)."""
        return await asyncio.to_thread(self._snapshot, lambda conn: _PgConnection(conn).execute(sql, params)
                                       .fetchone())

    async def integrity_check(self) -> str:
        """``"ok"`` when the schema is at this code's version and the move log's append-only trigger is in place,
        else what is wrong (PostgreSQL checks its own pages; ``pg_amcheck`` checks them on demand)."""
        version = await self.fetchone("SELECT version FROM schema_version")
        if version is None or version[0] != SCHEMA_VERSION:
            return f"schema version {version[0] if version else 'missing'}, expected {SCHEMA_VERSION}"
        trigger = await self.fetchone("SELECT 1 FROM pg_trigger WHERE tgname = 'moves_append_only_update'")
        return "ok" if trigger else "the append-only trigger on moves is missing"

    async def backup(self, target: object) -> None:
        """Not done here: a PostgreSQL database is backed up with ``pg_dump`` (or the server's own backups).

        Raises:
            StorageError: always, saying so.
        """
        raise StorageError("a PostgreSQL database is backed up with pg_dump (for example "
                           "pg_dump --format=custom --file=napkin.dump DATABASE_URL), not napkin backup")


def _migrate(conn: psycopg.Connection[Any]) -> None:
    """Bring the schema to :data:`SCHEMA_VERSION` in one transaction, under an advisory lock.

    Raises:
        StorageError: the database has a newer schema than this code.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        if row is None:
            conn.execute("INSERT INTO schema_version (version) VALUES (0)")
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise StorageError(f"database schema {version} is newer than this code ({SCHEMA_VERSION})")
        for number in range(version, SCHEMA_VERSION):
            log.info("migrating database to schema %d", number + 1)
            if POSTGRES_MIGRATIONS[number].strip():
                conn.execute(POSTGRES_MIGRATIONS[number])
        conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))
