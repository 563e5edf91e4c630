"""What every aggregate's queries stand on: the connection of the body's transaction and its SQL dialect."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from storage.dialect import SQLITE, Dialect
from storage.records import Row, Shards


class Cursor(Protocol):
    """What a query returns (the part of DB-API's cursor the queries use)."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    @property
    def rowcount(self) -> int: ...


class Connection(Protocol):
    """A connection inside one transaction (:class:`sqlite3.Connection`, or the PostgreSQL backend's adapter),
    taking ``?`` (sequence) or ``:name`` (mapping) placeholders."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Cursor: ...


class Queries:
    """Queries over one connection inside a read (or write) body. Never kept after the body returns.

    Args:
        conn: the connection, inside the body's transaction, in the thread that runs the body.
        dialect: how the backend spells what the two do not share (:data:`storage.dialect.SQLITE` by default).
    """

    def __init__(self, conn: Connection, dialect: Dialect = SQLITE) -> None:
        self._conn = conn
        self._dialect = dialect
        self._defer: Callable[..., Cursor] = getattr(conn, "defer", conn.execute)
        """Send a statement whose answer is read later: PostgreSQL queues it in the connection's pipeline, to go
        with the next statement that is answered at once (one round trip for both; an error it meets is raised
        there); SQLite, with no round trips to save, runs it at once."""

    def _all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        rows: list[Row] = self._conn.execute(sql, tuple(params)).fetchall()
        return rows

    def _one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        row: Row | None = self._conn.execute(sql, tuple(params)).fetchone()
        return row


class Publisher(Queries):
    """Write queries that publish what their transaction did, told to the database's listeners once it commits
    (:mod:`storage.events`): the base of :class:`storage.Tx`."""

    def __init__(self, conn: Connection, dialect: Dialect = SQLITE) -> None:
        super().__init__(conn, dialect)
        self.published: list[object] = []
        """What this transaction published (:meth:`publish`), in order."""

    def publish(self, event: object) -> None:
        """Tell the database's listeners ``event`` once this transaction has committed: never if it rolls back, nor
        when it was published inside a savepoint block that raised (:meth:`storage.Tx.savepoint`)."""
        self.published.append(event)


def shard_where(shards: Shards | None, column: str = "guild_id") -> str:
    """`` AND`` :meth:`Shards.where`, or nothing for a process that serves every shard (``None``)."""
    return "" if shards is None else f" AND {shards.where(column)}"
