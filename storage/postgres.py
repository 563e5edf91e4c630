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
serialised within the process by an :class:`asyncio.Lock` as on SQLite; across processes the rows a body changes are
locked first (:meth:`storage.Tx.lock_match`: ``SELECT … FOR UPDATE``, then the row read by a second statement, which
sees what a writer that held the lock before committed) and a move's ``UPDATE … WHERE version = ?`` checks the
version. A read body runs in one ``REPEATABLE READ READ ONLY`` transaction, so it sees one consistent snapshot.
Migrations run under a transaction-level advisory lock, so of several processes opening an old database exactly one
migrates; the version is the one row of ``schema_version``.

Round trips: the connection is in psycopg's pipeline mode for the whole transaction. ``BEGIN`` goes to the server
with the body's first statement, a statement whose answer the body does not need yet is queued
(:meth:`_PgConnection.defer`) and goes with the next one, and the ``COMMIT`` is one round trip; so a member's move
is three (the lock, the match and its conditional moves; the move appended and the match updated; the commit),
against six with one statement a round trip.

Connections that die: a pooled connection the server ended while it sat idle (a restart, a failover,
``pg_terminate_backend``, an idle timeout) is found without a round trip when it is taken from the pool and
replaced (:func:`_alive`); a transaction whose connection drops before its commit was sent stored nothing and runs
once more on a fresh connection; one whose connection drops while the commit is on its way raises
:class:`storage.CommitUncertain`, for the caller to find out (a move looks for itself in the log). A URL may name
several servers (``postgresql://u@db1:5432,db2:5432/napkin?target_session_attrs=read-write``): libpq connects to
the first that answers and accepts writes, so after a failover new connections go to the new primary.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import select
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import ConnStatus, TransactionStatus
from psycopg.rows import RowMaker
from psycopg_pool import ConnectionPool, PoolTimeout

from storage.dialect import POSTGRESQL, pyformat
from storage.errors import CommitUncertain, ConnectionLost, StorageError
from storage.events import CommitEvents
from storage.migrations import POSTGRES_MIGRATIONS, SCHEMA_VERSION
from storage.queries.base import Cursor
from storage.records import PoolConnections
from storage.tx import ReadTx, Tx

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

_MIGRATION_LOCK = 0x6E61706B696E  # any constant; "napkin" in ASCII
"""The advisory lock key held while migrating."""

POOL_SIZE = 4
"""Connections kept per process (one writer at a time, the rest for reads)."""

CONNECTION_DEFAULTS: dict[str, Any] = {
    "connect_timeout": 10, "keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3,
    "tcp_user_timeout": 15_000,
}
"""libpq connection parameters used unless the URL sets them: a server that does not answer a new connection
within 10 s is given up (with several hosts in the URL, the next is tried), and a connection whose server vanished
without closing it (a failed machine, a failover) is found dead within about a minute when idle, or 15 s into a
statement, instead of the system's TCP timeouts of many minutes."""


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
    # the names straight from the result: ``cursor.description`` builds a column object (type, size…) per column
    # of every result, a sixth of a move's time in psycopg
    result = cursor.pgresult
    names = [] if result is None else [result.fname(index) for index in range(result.nfields)]
    positions = {name.decode() if name is not None else "": index for index, name in enumerate(names)}
    return functools.partial(PgRow, positions)


PgConnection = psycopg.Connection[PgRow]


class _PgConnection:
    """A psycopg connection that takes the queries of :mod:`storage.queries` as written (see
    :func:`storage.dialect.pyformat`).

    Inside a transaction of :class:`PostgresDatabase` the connection is in pipeline mode (``pipeline`` given): a
    statement run with :meth:`execute` is sent together with everything queued before it and answered before
    ``execute`` returns (one round trip), while :meth:`defer` only queues a statement, whose answer comes with the
    next :meth:`execute` (or the commit). Without ``pipeline`` (the transfer's connections) both run at once.
    """

    def __init__(self, conn: PgConnection, pipeline: psycopg.Pipeline | None = None) -> None:
        self._conn = conn
        self._pipeline = pipeline

    def _send(self, sql: str, parameters: Any) -> Cursor:
        if not parameters:
            return self._conn.execute(sql)
        named = isinstance(parameters, dict)
        return self._conn.execute(pyformat(sql, named), parameters if named else tuple(parameters))

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        cursor = self._send(sql, parameters)
        if self._pipeline is not None:
            self._pipeline.sync()
        return cursor

    def defer(self, sql: str, parameters: Any = (), /) -> Cursor:
        """Queue ``sql``; its cursor is answered by the next :meth:`execute` (an error too, raised there)."""
        return self._send(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Cursor:
        cursor = self._conn.cursor()
        cursor.executemany(pyformat(sql, False), [tuple(row) for row in parameters])
        if self._pipeline is not None:
            self._pipeline.sync()
        return cursor


class _Dropped(Exception):
    """The connection broke during a transaction; ``commit_sent`` says whether its ``COMMIT`` was on its way."""

    def __init__(self, commit_sent: bool) -> None:
        super().__init__("the database connection dropped")
        self.commit_sent = commit_sent


def _alive(conn: PgConnection) -> bool:
    """Whether an idle pooled connection still looks usable, without a round trip: a connection the server ended
    (``pg_terminate_backend``, a restart, an idle timeout) has its goodbye or the end of the stream waiting to be
    read, and an idle connection has nothing else to read."""
    if conn.closed or conn.broken:
        return False
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def _dropped(conn: PgConnection, error: psycopg.Error) -> bool:
    """Whether ``error`` means the connection is gone (the transaction on it with it), rather than that a statement
    failed: the connection broke or closed, the server is shutting the session down (SQLSTATE class 57P: an
    administrator's ``pg_terminate_backend``, a shutdown, a crash) or cannot be reached (08), or psycopg lost the
    connection's state (an operational error without a SQLSTATE: it reports no server's answer)."""
    if conn.broken or conn.closed or conn.pgconn.status == ConnStatus.BAD:
        return True
    for seen in (error, error.__context__):
        if isinstance(seen, psycopg.OperationalError) and (
                seen.sqlstate is None or seen.sqlstate.startswith(("57P", "08"))):
            return True
    return False


def _commit(conn: PgConnection) -> None:
    """Queue the ``COMMIT`` of the transaction open on ``conn`` (its pipeline sends it and waits for its answer)."""
    conn.execute("COMMIT")


def _abandon(conn: PgConnection, pipeline: psycopg.Pipeline) -> None:
    """Roll back the transaction of a body that raised, whatever its pipeline holds: a statement queued before the
    error may fail on its way and abort the pipeline once more, so the rollback is sent until it is answered (or
    the connection is gone)."""
    for _ in range(2):
        if conn.broken:
            return
        try:
            conn.execute("ROLLBACK")
            pipeline.sync()
            return
        except psycopg.Error:
            continue


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
        self.events = CommitEvents()
        """Who hears what committed transactions published (:mod:`storage.events`)."""
        self.synchronous = "FULL"

    @classmethod
    async def open(cls, url: str | os.PathLike[str], /, *, synchronous: str = "FULL",
                   password: str | None = None) -> PostgresDatabase:
        """Connect to the PostgreSQL database at ``url`` (``postgresql://user@host:port/name``, or several
        ``host:port`` pairs separated by commas: the first that answers is used, see :data:`CONNECTION_DEFAULTS`),
        migrate it and open a pool of :data:`POOL_SIZE` connections.

        Args:
            url: the database's URL.
            synchronous: SQLite's setting, accepted so that every backend opens alike and not used: how a commit
                reaches the disk is the server's (``synchronous_commit``).
            password: the password, passed to libpq as its own ``password`` parameter beside the URL (any character
                works; it overrides one in the URL); ``None``: the URL's, or libpq's ``PGPASSWORD`` or password file.

        Raises:
            StorageError: the server cannot be reached or refuses the login, or the database has a newer schema
                than this code — one line saying so.
        """
        target = os.fspath(url)

        def prepare() -> ConnectionPool[PgConnection]:
            try:
                given = conninfo_to_dict(target)
            except psycopg.Error:  # its message quotes the URL, password and all: not repeated
                raise StorageError("the PostgreSQL URL cannot be read (a password with characters a URL reserves "
                                   "belongs in NAPKIN_DATABASE_PASSWORD, not in the URL)") from None
            options = {key: value for key, value in CONNECTION_DEFAULTS.items() if key not in given}
            if password is not None:
                options["password"] = password
            try:
                with psycopg.connect(target, autocommit=True, **options) as conn:
                    _migrate(conn)
            except psycopg.Error as error:
                raise StorageError(f"the PostgreSQL database cannot be opened ({str(error).strip()})") from error
            pool = ConnectionPool(target, min_size=1, max_size=POOL_SIZE, open=False, name="napkin",
                                  connection_class=PgConnection,
                                  kwargs={"autocommit": True, "row_factory": _row_factory, **options})
            pool.open(wait=True, timeout=30)
            return pool

        return cls(target, await asyncio.to_thread(prepare))

    async def close(self) -> None:
        """Close the pool (idempotent)."""
        await asyncio.to_thread(self._pool.close)

    def connections(self) -> PoolConnections:
        """The pool's connections lent out and idle, and the requests waiting for one (psycopg_pool's
        :meth:`~psycopg_pool.ConnectionPool.get_stats`, read in memory)."""
        stats = self._pool.get_stats()
        idle = stats.get("pool_available", 0)
        return PoolConnections(in_use=max(0, stats.get("pool_size", 0) - idle), idle=idle,
                               waiting=stats.get("requests_waiting", 0))

    async def __aenter__(self) -> PostgresDatabase:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def write(self, body: Callable[Concatenate[Tx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(tx, *args, **kwargs)`` in one transaction on a pooled connection in a worker thread.

        Commits when ``body`` returns and returns its result; rolls back and re-raises when it raises. When the
        connection drops before the commit is sent (the server restarted or ended the session), nothing was stored
        and the body runs once more on a fresh connection; so a body may run twice, and must change nothing outside
        its transaction but through what it returns.

        Raises:
            psycopg.Error: from the database (e.g. ``IntegrityError``), after rolling back.
            ConnectionLost: the connection dropped before the commit, twice (nothing stored).
            CommitUncertain: the connection dropped while the commit was on its way (stored or not: the caller
                reads what the body would have left behind).
        """
        ran: list[Tx] = []

        def run(conn: _PgConnection) -> T:
            tx = Tx(conn, POSTGRESQL)
            ran[:] = [tx]  # the run that committed is the last
            return body(tx, *args, **kwargs)

        async with self._write_lock:
            result = await asyncio.to_thread(self._retrying, run, "BEGIN", _commit)
        self.events.deliver(ran[-1].published)
        return result

    async def read(self, body: Callable[Concatenate[ReadTx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(read_tx, *args, **kwargs)`` over one consistent snapshot (``REPEATABLE READ READ ONLY``),
        once more on a fresh connection when the connection drops under it."""
        return await asyncio.to_thread(self._snapshot, lambda conn: body(ReadTx(conn, POSTGRESQL), *args, **kwargs))

    def _snapshot(self, run: Callable[[_PgConnection], T]) -> T:
        return self._retrying(run, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", _end_snapshot)

    def _retrying(self, run: Callable[[_PgConnection], T], begin: str, end: Callable[[PgConnection], None]) -> T:
        """:meth:`_transaction`, once more on a fresh connection when the first dropped before its end was sent."""
        try:
            return self._transaction(run, begin, end)
        except _Dropped as dropped:
            if dropped.commit_sent and end is _commit:
                raise CommitUncertain(_UNCERTAIN) from dropped.__cause__
            log.warning("the database connection dropped (%s); running the transaction again on a fresh one",
                        str(dropped.__cause__).strip())
        with contextlib.suppress(psycopg.Error, PoolTimeout):
            self._pool.check()  # the others are likely gone too (a restart): check them once, a round trip each
        try:
            return self._transaction(run, begin, end)
        except _Dropped as dropped:
            if dropped.commit_sent and end is _commit:
                raise CommitUncertain(_UNCERTAIN) from dropped.__cause__
            raise ConnectionLost(f"the database connection dropped twice ({str(dropped.__cause__).strip()})") \
                from dropped.__cause__

    def _transaction(self, run: Callable[[_PgConnection], T], begin: str, end: Callable[[PgConnection], None]) -> T:
        """Run ``run`` between ``begin`` and ``end`` (the commit, or the rollback of a read) on a live pooled
        connection in pipeline mode: ``begin`` goes with the body's first statement, ``end`` is one round trip.

        Raises:
            _Dropped: the connection broke (whether ``end`` was on its way is said).
        """
        with self._connection() as conn:
            ending = False
            try:
                with conn.pipeline() as pipeline:
                    conn.execute(begin)
                    try:
                        result = run(_PgConnection(conn, pipeline))
                    except BaseException:
                        _abandon(conn, pipeline)
                        raise
                    ending = True
                    end(conn)
                return result
            except psycopg.Error as error:
                if _dropped(conn, error):
                    conn.close()  # the pool replaces it
                    raise _Dropped(ending) from error
                raise
            finally:
                if not conn.closed and conn.info.transaction_status != TransactionStatus.IDLE:
                    with contextlib.suppress(psycopg.Error):  # a queued statement failed with the commit
                        conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def _connection(self) -> Iterator[PgConnection]:
        """A pooled connection that looks alive (:func:`_alive`): one the server ended while it sat in the pool is
        closed (the pool replaces it) and the next is taken, at no round trip, so that after a restart the first
        statements do not each find a dead connection.

        Raises:
            ConnectionLost: no connection could be had within the pool's timeout (the server is down).
        """
        try:
            for _ in range(POOL_SIZE):
                conn = self._pool.getconn()
                if _alive(conn):
                    break
                conn.close()
                self._pool.putconn(conn)
            else:
                conn = self._pool.getconn()  # every one was dead: a fresh one, as the pool makes them
        except PoolTimeout as error:
            raise ConnectionLost(f"no connection to the database could be had ({error})") from error
        try:
            yield conn
        finally:
            self._pool.putconn(conn)

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        """Run one read-only statement (``?`` placeholders) and return all rows (for diagnostics and tests)."""
        return await asyncio.to_thread(self._snapshot, lambda conn: conn.execute(sql, params).fetchall())

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> Any:
        """Run one read-only statement and return the first row or ``None`` (for diagnostics and tests)."""
        return await asyncio.to_thread(self._snapshot, lambda conn: conn.execute(sql, params).fetchone())

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


_UNCERTAIN = "the database connection dropped while a commit was on its way: it may or may not be stored"


def _end_snapshot(conn: PgConnection) -> None:
    conn.execute("ROLLBACK")


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
