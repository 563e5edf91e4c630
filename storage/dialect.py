"""The SQL that SQLite and PostgreSQL spell differently, in one place.

The queries of :mod:`storage.queries` are written in the subset both share (``?`` and ``:name`` placeholders,
``INSERT … ON CONFLICT``, ``RETURNING``); where the two differ, a query asks its transaction's :class:`Dialect`
(:data:`SQLITE` or :data:`POSTGRESQL`, handed in by the backend). :func:`pyformat` turns the shared placeholders
into psycopg's. Nothing here runs SQL.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Dialect:
    """One backend's spelling of what the queries cannot write the same way in both."""

    name: str
    """``"sqlite"`` or ``"postgresql"`` (the backend's ``Database.backend``)."""
    string_agg: str
    """The aggregate that joins strings with a separator: ``name(expression, separator)``."""
    rowid: str
    """A column naming one physical row of a table."""
    like: str
    """Pattern matching that ignores the case of ASCII letters."""
    negative_limit: bool
    """A negative ``LIMIT`` means none (SQLite reads ``-1`` so); else ``NULL`` does (PostgreSQL)."""
    json_rows_sql: str
    """A scalar subquery giving rows as one JSON array of arrays, as text (``[]`` for none); see :meth:`json_rows`."""
    for_update_sql: str
    """Appended to a write body's read of rows it is about to change, to lock them until the transaction ends
    (``{table}`` filled in). Empty on SQLite, whose ``BEGIN IMMEDIATE`` already serialises writers."""
    skip_locked_sql: str
    """Appended to a read that claims work: rows another transaction holds are skipped, not waited for. Empty on
    SQLite (one writer at a time: nothing is ever held by another)."""
    lock_timeout_sql: str
    """The statement that makes the rest of a transaction give up on a held row after ``{milliseconds}``; empty on
    SQLite (no row is ever held by another transaction)."""
    advisory_locks_sql: str
    """The statement that holds, until the transaction ends, one lock (for what has no row to lock yet) per distinct
    ``{name}`` (a text expression over the columns of the query ``{rows}``), each named by two 32-bit integers: the
    statement's first parameter and a hash of the name. They are taken one after the other in the order of their
    hashes, so that two such statements never wait for each other in a ring. Empty on SQLite (one writer at a
    time)."""

    def limit(self, limit: int) -> int | None:
        """A ``LIMIT`` parameter: a negative ``limit`` means none."""
        return limit if limit >= 0 or self.negative_limit else None

    def for_update(self, table: str) -> str:
        """:attr:`for_update_sql` for ``table``."""
        return self.for_update_sql.format(table=table)

    def skip_locked(self, table: str) -> str:
        """:attr:`skip_locked_sql` for ``table``."""
        return self.skip_locked_sql.format(table=table)

    def json_rows(self, *, values: str, names: str, source: str, order: str) -> str:
        """The rows of ``SELECT values source ORDER BY order`` as one JSON array of arrays (a scalar subquery giving
        text); ``names`` are the output names of ``values``, in order."""
        return self.json_rows_sql.format(values=values, names=names, source=source, order=order)


SQLITE = Dialect(
    name="sqlite",
    string_agg="group_concat",
    rowid="rowid",
    like="LIKE",
    negative_limit=True,
    json_rows_sql="(SELECT json_group_array(json_array({names})) FROM (SELECT {values} {source} ORDER BY {order}))",
    for_update_sql="",
    skip_locked_sql="",
    lock_timeout_sql="",
    advisory_locks_sql="",
)

POSTGRESQL = Dialect(
    name="postgresql",
    string_agg="string_agg",
    rowid="ctid",
    like="ILIKE",
    negative_limit=False,
    json_rows_sql="(SELECT CAST(coalesce(json_agg(json_build_array({values}) ORDER BY {order}), '[]') AS TEXT) "
                  "{source})",
    for_update_sql=" FOR UPDATE OF {table}",
    skip_locked_sql=" FOR UPDATE OF {table} SKIP LOCKED",
    lock_timeout_sql="SET LOCAL lock_timeout = '{milliseconds}ms'",
    advisory_locks_sql="SELECT pg_advisory_xact_lock(?, locked.key) FROM (SELECT DISTINCT hashtext({name}) AS key "
                       "FROM ({rows}) AS listed) AS locked ORDER BY locked.key",
)


@functools.lru_cache(maxsize=1024)
def pyformat(sql: str, named: bool) -> str:
    """``sql`` with the queries' placeholders (``?``, or ``:name`` when ``named``) in psycopg's style (``%s``,
    ``%(name)s``); a literal ``%`` doubled. The queries keep ``?`` and ``:`` out of their string literals."""
    text = sql.replace("%", "%%")
    if named:
        return re.sub(r"(?<![:\w]):([A-Za-z_]\w*)", r"%(\1)s", text)
    return text.replace("?", "%s")
