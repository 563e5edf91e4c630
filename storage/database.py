"""The database the bot holds, whatever the backend: :class:`Database`, and :meth:`Database.open`, which chooses the
backend by the database setting.

A path or a ``sqlite:///path`` setting opens a :class:`storage.sqlite.SqliteDatabase` (the default); a
``postgresql://`` (or ``postgres://``) URL opens a :class:`storage.postgres.PostgresDatabase`. The two are siblings:
the same methods and the same queries (:mod:`storage.tx`), and neither imports the other or this module, which is
why :class:`Database` is a :class:`typing.Protocol` that both meet rather than a base class they derive from. Every
access is a plain synchronous *body* that receives a :class:`~storage.tx.ReadTx` (reads) or a
:class:`~storage.tx.Tx` (writes) and runs in one transaction, in one round trip:

.. code-block:: python

    match = await db.read(ReadTx.get_match, match_id)

    def body(tx: Tx) -> int:
        ...  # queries as tx's methods; raise to roll back
    match_id = await db.write(body)

A body cannot await, so it cannot hold a transaction open across a Discord call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar, Concatenate, ParamSpec, Protocol, TypeVar

from storage.events import CommitEvents
from storage.records import PoolConnections
from storage.sqlite import SqliteDatabase, Synchronous
from storage.tx import ReadTx, Tx

T = TypeVar("T")
P = ParamSpec("P")

POSTGRES_URLS = ("postgresql://", "postgres://")
"""Database settings that start so name a PostgreSQL database."""


class Database(Protocol):
    """An open Napkin Games database, on SQLite or on PostgreSQL.

    Use :meth:`open` (or ``async with await Database.open(setting) as db``).
    """

    IntegrityError: ClassVar[type[Exception]]
    """What a write raises when a constraint refuses it (a logged ply again, a missing match), per backend."""
    backend: ClassVar[str]
    """``"sqlite"`` or ``"postgresql"``."""
    TransientError: ClassVar[tuple[type[Exception], ...]]
    """What a statement raises when it lost a race with another process's transaction and may simply be tried
    again later (a deadlock the server broke): none on SQLite, whose writers take turns."""
    events: CommitEvents
    """Who hears what committed transactions published (:meth:`storage.Tx.publish`, :mod:`storage.events`)."""

    @property
    def path(self) -> str:
        """The database setting it was opened with (the SQLite file, or the PostgreSQL URL)."""
        ...

    @property
    def synchronous(self) -> str:
        """How a commit reaches the disk: SQLite's ``"NORMAL"`` or ``"FULL"``; ``"FULL"`` on PostgreSQL."""
        ...

    @staticmethod
    async def open(target: str | os.PathLike[str], /, *, synchronous: Synchronous = "NORMAL",
                   password: str | None = None) -> Database:
        """Open (creating if needed) and migrate the database that ``target`` names, on the backend it names.

        Args:
            target: the path of a SQLite file, or ``sqlite:///`` and that path; or a ``postgresql://`` URL.
            synchronous: SQLite's ``"NORMAL"`` (default, safe under WAL against application crashes) or ``"FULL"``
                (does not apply to PostgreSQL).
            password: PostgreSQL's password, given to libpq as its ``password`` parameter (never pasted into the
                URL, so any character works); ``None``: the URL's, or libpq's own sources (``PGPASSWORD``, the
                password file).

        Raises:
            ValueError: ``synchronous`` is neither, or a ``password`` for a SQLite file.
            StorageError: the database cannot be opened or written, is not one of ours or is damaged beyond
                opening, or has a newer schema than this code knows — one line saying so.
        """
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        if os.fspath(target).startswith(POSTGRES_URLS):
            from storage.postgres import PostgresDatabase  # psycopg is needed only by this backend

            return await PostgresDatabase.open(target, synchronous=synchronous, password=password)
        return await SqliteDatabase.open(target, synchronous=synchronous, password=password)

    async def close(self) -> None:
        """Close every connection (idempotent)."""
        ...

    def connections(self) -> PoolConnections | None:
        """The connection pool now, read in memory (no round trip): PostgreSQL's; ``None`` on SQLite, whose two
        connections (one writer, one reader) are not pooled."""
        ...

    async def __aenter__(self) -> Database: ...

    async def __aexit__(self, *exc_info: object) -> None: ...

    async def write(self, body: Callable[Concatenate[Tx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(tx, *args, **kwargs)`` as one write transaction; return its result.

        Commits when ``body`` returns; rolls back and re-raises when it raises (so a refused action changes nothing
        stored). Writes are serialised within the process; across processes, as the backend does.

        Raises:
            Exception: the backend's database errors (e.g. :attr:`IntegrityError`), after rolling back.
        """
        ...

    async def read(self, body: Callable[Concatenate[ReadTx, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``body(read_tx, *args, **kwargs)`` over one consistent snapshot; return its result. Usually ``body``
        is a query itself: ``await db.read(ReadTx.get_match, match_id)``."""
        ...

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        """Run one read-only statement (``?`` placeholders) and return all rows (for diagnostics and tests; the bot
        uses queries)."""
        ...

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> Any:
        """Run one read-only statement and return the first row or ``None`` (for diagnostics and tests)."""
        ...

    async def integrity_check(self) -> str:
        """``"ok"`` when the database is sound, else what is wrong."""
        ...

    async def backup(self, target: str | os.PathLike[str]) -> None:
        """Write an online, consistent copy of the database to the file ``target``.

        Raises:
            StorageError: the backend is backed up with its own tools instead (PostgreSQL's ``pg_dump``).
        """
        ...
