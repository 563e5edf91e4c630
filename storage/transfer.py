"""Copying a whole database from one backend to the other (``napkin migrate-db FROM TO``), and reading every row of
every table (for the copy's checks and for tests).

A location is a SQLite file (a path or ``sqlite:///path``) or a ``postgresql://`` URL. :func:`transfer` copies every
table of the schema, found in the database's own catalogue (so tables added by later migrations are copied without
edits here), parents before children by their foreign keys, in one transaction on the target, keeping every id; on
PostgreSQL the identity columns then continue after the largest copied id. A table the database derives by triggers
(:data:`storage.migrations.DERIVED_TABLES`) is left out: its triggers fill it from the rows copied. Before committing
it compares the row count of every table in the target with the source's (read in one snapshot); any failure rolls
the whole copy back.
After committing it hands every copied match with its move log to a check (the CLI's replays the log with the
service's rules) and reports the matches that fail it: such a match was damaged in the source too, so it is copied
as it is and reported, not fatal.

The source is only read: a SQLite source at an older schema is copied with SQLite's backup API into a temporary
file, which is upgraded and copied from (the source file stays as it is); a PostgreSQL source must be at this code's
schema. The target must be empty: a missing SQLite file, an empty PostgreSQL database, or a database at this code's
schema without a single row.
"""

from __future__ import annotations

import asyncio
import contextlib
import graphlib
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from storage.database import POSTGRES_URLS, Database
from storage.dialect import POSTGRESQL, SQLITE
from storage.errors import StorageError
from storage.migrations import DERIVED_TABLES, SCHEMA_VERSION
from storage.queries.base import Connection
from storage.records import MatchRecord, MoveRecord
from storage.sqlite import SQLITE_URL
from storage.tx import ReadTx

if TYPE_CHECKING:
    import psycopg

BATCH = 2000
"""Rows read and written per round trip."""
VERSION_TABLE = "schema_version"
"""PostgreSQL's one-row table holding the schema version (SQLite keeps it in ``PRAGMA user_version``): not data."""

Backend = Literal["sqlite", "postgresql"]
MatchCheck = Callable[[MatchRecord, list[MoveRecord]], "str | None"]
"""Says why a copied match does not replay to its stored state, or ``None`` when it does."""


class TransferRefused(StorageError):
    """The copy was not started: a location is missing, not a Napkin Games database, at another schema, the same
    database twice, or the target holds data. Nothing was changed."""


class TransferFailed(StorageError):
    """The copy failed and its transaction was rolled back: the target is as empty as before."""


@dataclass(frozen=True)
class Location:
    """Where a database is: ``backend`` and ``target`` (the file path, or the URL)."""

    backend: Backend
    target: str

    @classmethod
    def parse(cls, text: str | os.PathLike[str]) -> Location:
        """A database setting (a path, ``sqlite:///path`` or ``postgresql://…``) as a location."""
        value = os.fspath(text)
        if value.startswith(POSTGRES_URLS):
            return cls("postgresql", value)
        return cls("sqlite", value.removeprefix(SQLITE_URL))

    def __str__(self) -> str:
        return self.target

    def same_as(self, other: Location) -> bool:
        """``True`` when both name the same database (the same file, or the same server, port and database)."""
        if self.backend != other.backend:
            return False
        if self.backend == "sqlite":
            return Path(self.target).resolve() == Path(other.target).resolve()
        from psycopg.conninfo import conninfo_to_dict

        def key(url: str) -> tuple[str, str, str]:
            info = conninfo_to_dict(url)
            return (str(info.get("host") or "localhost"), str(info.get("port") or "5432"),
                    str(info.get("dbname") or info.get("user") or ""))

        return key(self.target) == key(other.target)


@dataclass
class TransferReport:
    """What :func:`transfer` did.

    Attributes:
        tables: rows copied per table, in the order copied (every table of the schema, also the empty ones).
        matches: how many copied matches were checked against their move logs.
        problems: match id → why it does not replay to its stored state (copied as found).
        upgraded_from: the source's schema when it was older (upgraded in a temporary copy), else ``None``.
        seconds: wall-clock time of the whole transfer.
    """

    tables: dict[str, int] = field(default_factory=dict)
    matches: int = 0
    problems: dict[int, str] = field(default_factory=dict)
    upgraded_from: int | None = None
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        """Rows copied in all."""
        return sum(self.tables.values())


@dataclass(frozen=True)
class _Table:
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    parents: frozenset[str]
    identity: tuple[str, ...]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# ---------------------------------------------------------------- connections


def _sqlite_connect(path: str, *, read_only: bool) -> sqlite3.Connection:
    if read_only:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    else:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        conn.execute("PRAGMA foreign_keys=ON")
    conn.row_factory = sqlite3.Row
    return conn


def _pg_connect(url: str) -> psycopg.Connection[Any]:
    import psycopg

    from storage.postgres import _row_factory

    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10,  # transactions begin explicitly
                               row_factory=_row_factory)
    except psycopg.Error as error:
        raise TransferRefused(f"{printable(url)} cannot be opened ({str(error).strip()})") from error


def printable(url: str) -> str:
    """``url`` without its password, to print (a SQLite location as given)."""
    if not url.startswith(POSTGRES_URLS):
        return url
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - a URL psycopg cannot parse is shown without what may be its password
        scheme, _, rest = url.partition("://")
        userinfo, at, host = rest.rpartition("@")
        return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}" if at and ":" in userinfo else url
    if "password" not in info:
        return url
    return url.replace(str(info["password"]), "***")


@contextlib.contextmanager
def _open(location: Location, *, read_only: bool) -> Iterator[Any]:
    """A raw connection to ``location`` (sqlite3's, or psycopg's with :class:`storage.postgres.PgRow` rows)."""
    conn = _sqlite_connect(location.target, read_only=read_only) if location.backend == "sqlite" else _pg_connect(
        location.target)
    try:
        yield conn
    finally:
        conn.close()


def _query(backend: Backend, conn: Any) -> Connection:
    """``conn`` taking the queries of :mod:`storage.queries` (``?`` placeholders)."""
    if backend == "sqlite":
        return conn  # type: ignore[no-any-return]
    from storage.postgres import _PgConnection

    return _PgConnection(conn)


def _read_tx(backend: Backend, conn: Any) -> ReadTx:
    return ReadTx(_query(backend, conn), SQLITE if backend == "sqlite" else POSTGRESQL)


# ---------------------------------------------------------------- the catalogue


def _schema_version(backend: Backend, conn: Any) -> int | None:
    """The schema version, ``0`` for an empty database (no tables), ``None`` for one with tables but no version
    (not ours)."""
    if backend == "sqlite":
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version == 0 and conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone():
            return None
        return version
    names = [row[0] for row in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()").fetchall()]
    if VERSION_TABLE not in names:
        return 0 if not names else None
    row = conn.execute(f"SELECT version FROM {VERSION_TABLE}").fetchone()  # noqa: S608 - a module constant
    return int(row[0]) if row else None


def tables_of(backend: Backend, conn: Any) -> list[str]:
    """The data tables of the database on the raw connection ``conn``, parents before the tables that refer to them
    (ties by name), read from its catalogue."""
    return [table.name for table in _catalogue(backend, conn)]


def _catalogue(backend: Backend, conn: Any) -> list[_Table]:
    tables: dict[str, _Table] = {}
    if backend == "sqlite":
        names = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for name in names:
            info = conn.execute(f"PRAGMA table_info({_quote(name)})").fetchall()
            key = tuple(row[1] for row in sorted((row for row in info if row[5]), key=lambda row: row[5]))
            parents = frozenset(row[2] for row in conn.execute(f"PRAGMA foreign_key_list({_quote(name)})"))
            tables[name] = _Table(name, tuple(row[1] for row in info), key, parents, ())
    else:
        names = [row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "AND table_type = 'BASE TABLE'").fetchall() if row[0] != VERSION_TABLE]
        for name in names:
            info = conn.execute("SELECT column_name, is_identity FROM information_schema.columns "
                                "WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
                                (name,)).fetchall()
            key = tuple(row[0] for row in conn.execute(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
                "ORDER BY array_position(i.indkey::int2[], a.attnum)", (_quote(name),)).fetchall())
            parents = frozenset(row[0] for row in conn.execute(
                "SELECT c.relname FROM pg_constraint f JOIN pg_class c ON c.oid = f.confrelid "
                "WHERE f.contype = 'f' AND f.conrelid = %s::regclass", (_quote(name),)).fetchall())
            tables[name] = _Table(name, tuple(row[0] for row in info), key, parents,
                                  tuple(row[0] for row in info if row[1] == "YES"))
    graph = graphlib.TopologicalSorter({name: tables[name].parents & set(tables) - {name} for name in tables})
    graph.prepare()
    ordered: list[_Table] = []
    while graph.is_active():
        ready = sorted(graph.get_ready())
        ordered.extend(tables[name] for name in ready)
        graph.done(*ready)
    return ordered


def _select(table: _Table) -> str:
    order = ", ".join(map(_quote, table.key or table.columns))
    return f"SELECT {', '.join(map(_quote, table.columns))} FROM {_quote(table.name)} ORDER BY {order}"  # noqa: S608 - names from the catalogue


def _counts(conn: Any, tables: list[_Table]) -> dict[str, int]:
    return {table.name: int(conn.execute(f"SELECT COUNT(*) FROM {_quote(table.name)}").fetchone()[0])  # noqa: S608 - names from the catalogue
            for table in tables}


def _existing(location: str | os.PathLike[str]) -> Location:
    """``location`` parsed; raises TransferRefused when it names a SQLite file that does not exist."""
    place = Location.parse(location)
    if place.backend == "sqlite" and not Path(place.target).is_file():
        raise TransferRefused(f"there is no database at {place}")
    return place


def table_selects(location: str | os.PathLike[str]) -> dict[str, str]:
    """For every data table at ``location``, in copy order, the ``SELECT`` of all its rows in primary-key order
    (runs on either backend; for a caller that reads the rows repeatedly through its own connection).

    Raises:
        TransferRefused: there is no database at ``location``.
    """
    place = _existing(location)
    with _open(place, read_only=True) as conn:
        return {table.name: _select(table) for table in _catalogue(place.backend, conn)}


def read_rows(location: str | os.PathLike[str]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every data table at ``location`` (read-only, one snapshot), by table in copy order, each
    table's rows in primary-key order. For checks and tests; it holds everything in memory.

    Raises:
        TransferRefused: there is no database at ``location``.
    """
    place = _existing(location)
    with _open(place, read_only=True) as conn:
        _begin_snapshot(place.backend, conn)
        try:
            return {table.name: [tuple(row) for row in conn.execute(_select(table)).fetchall()]
                    for table in _catalogue(place.backend, conn)}
        finally:
            conn.rollback()


def _begin_snapshot(backend: Backend, conn: Any) -> None:
    if backend == "sqlite":
        conn.execute("BEGIN")
    else:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")


# ---------------------------------------------------------------- checks before copying


def _check_source(source: Location) -> int:
    """The source's schema version, after refusing a missing database, one that is not ours or a newer one (and an
    older PostgreSQL one)."""
    if source.backend == "sqlite" and not Path(source.target).is_file():
        raise TransferRefused(f"there is no database at {source}")
    try:
        with _open(source, read_only=True) as conn:
            version = _schema_version(source.backend, conn)
    except sqlite3.DatabaseError as error:
        raise TransferRefused(f"{source} is not a SQLite database or cannot be read ({error})") from error
    shown = printable(str(source))
    if not version:
        raise TransferRefused(f"{shown} holds no Napkin Games database")
    if version > SCHEMA_VERSION:
        raise TransferRefused(f"{shown} has schema {version}, newer than this code ({SCHEMA_VERSION}); "
                              "run migrate-db with the version of Napkin Games that wrote it")
    if version < SCHEMA_VERSION and source.backend == "postgresql":
        raise TransferRefused(f"{shown} has schema {version} and this code expects {SCHEMA_VERSION}: start the bot "
                              "on it once with this version (napkin run upgrades it), then run migrate-db again")
    return version


def _check_target(target: Location) -> bool:
    """Refuse a target that holds anything; ``True`` when it is a SQLite file that does not exist yet."""
    shown = printable(str(target))
    if target.backend == "sqlite" and not Path(target.target).exists():
        return True
    try:
        with _open(target, read_only=True) as conn:
            version = _schema_version(target.backend, conn)
            if version is None:
                raise TransferRefused(f"{shown} holds tables of something else; migrate-db copies only into an "
                                      "empty database")
            if version == 0:
                return False
            if version != SCHEMA_VERSION:
                raise TransferRefused(f"{shown} has schema {version}, not this code's {SCHEMA_VERSION}; migrate-db "
                                      "copies only into an empty database")
            _refuse_rows(shown, _counts(conn, _catalogue(target.backend, conn)))
    except sqlite3.DatabaseError as error:
        raise TransferRefused(f"{target} is not a SQLite database or cannot be read ({error})") from error
    return False


def _refuse_rows(shown: str, counts: dict[str, int]) -> None:
    held = {name: count for name, count in counts.items() if count}
    if held:
        listed = ", ".join(f"{count} in {name}" for name, count in held.items())
        raise TransferRefused(f"{shown} already holds data (rows: {listed}); migrate-db copies only into an empty "
                              "database")


# ---------------------------------------------------------------- the copy


def _copy(source: Location, target: Location, report: TransferReport) -> None:
    """Copy every table in one target transaction (see the module docstring)."""
    with _open(source, read_only=True) as src, _open(target, read_only=False) as dst:
        _begin_snapshot(source.backend, src)
        # a derived table follows the rows copied into the others (its triggers), so it is not copied itself
        tables = [table for table in _catalogue(source.backend, src) if table.name not in DERIVED_TABLES]
        target_tables = {table.name: table for table in _catalogue(target.backend, dst)
                         if table.name not in DERIVED_TABLES}
        differ = sorted({t.name for t in tables} ^ set(target_tables)) or sorted(
            t.name for t in tables if set(t.columns) != set(target_tables[t.name].columns))
        if differ:
            raise TransferRefused(f"the two databases' tables differ ({', '.join(differ)}); both must be at schema "
                                  f"{SCHEMA_VERSION}")
        expected = _counts(src, tables)
        if target.backend == "sqlite":
            dst.execute("BEGIN IMMEDIATE")
        else:
            dst.execute("BEGIN")
            dst.execute(f"LOCK TABLE {', '.join(_quote(t.name) for t in tables)} IN SHARE ROW EXCLUSIVE MODE")
        try:
            _refuse_rows(printable(str(target)), _counts(dst, tables))  # written to since the first look
            for table in tables:
                try:
                    report.tables[table.name] = _copy_table(src, dst, target.backend, table)
                except Exception as error:  # either driver's: said in one line, with the table
                    reason = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
                    raise TransferFailed(f"copying {table.name}: {reason}") from error
            if target.backend == "postgresql":
                for table in tables:
                    for column in target_tables[table.name].identity:
                        dst.execute(f"SELECT setval(pg_get_serial_sequence(%s, %s), "  # noqa: S608 - names from the catalogue
                                    f"COALESCE(MAX({_quote(column)}), 1), MAX({_quote(column)}) IS NOT NULL) "
                                    f"FROM {_quote(table.name)}", (_quote(table.name), column))
            found = _counts(dst, tables)
            wrong = [f"{name}: {expected[name]} in the source, {found[name]} copied"
                     for name in expected if found[name] != expected[name] or report.tables[name] != expected[name]]
            if wrong:
                raise TransferFailed("the row counts differ after the copy (" + "; ".join(wrong) + ")")
        except BaseException:
            dst.rollback()
            raise
        dst.commit()
        src.rollback()


def _copy_table(src: Any, dst: Any, backend: Backend, table: _Table) -> int:
    # a PostgreSQL source is read through a server-side cursor, so that a large table never sits in memory whole
    with contextlib.closing(src.cursor(name="napkin_transfer") if hasattr(src, "pgconn") else src.cursor()) as cursor:
        cursor.execute(_select(table))
        return _write_rows(cursor, dst, backend, table)


def _write_rows(cursor: Any, dst: Any, backend: Backend, table: _Table) -> int:
    copied = 0
    columns = ", ".join(map(_quote, table.columns))
    if backend == "postgresql":
        with dst.cursor().copy(f"COPY {_quote(table.name)} ({columns}) FROM STDIN") as copy:
            while batch := cursor.fetchmany(BATCH):
                for row in batch:
                    copy.write_row(tuple(row))
                copied += len(batch)
        return copied
    insert = f"INSERT INTO {_quote(table.name)} ({columns}) VALUES ({', '.join('?' * len(table.columns))})"  # noqa: S608 - names from the catalogue
    while batch := cursor.fetchmany(BATCH):
        dst.executemany(insert, [tuple(row) for row in batch])
        copied += len(batch)
    return copied


def _check_matches(target: Location, check: MatchCheck, report: TransferReport) -> None:
    with _open(target, read_only=True) as conn:
        _begin_snapshot(target.backend, conn)
        try:
            tx = _read_tx(target.backend, conn)
            for match_id in tx.all_match_ids():
                match = tx.get_match(match_id)
                if match is None:  # pragma: no cover - the snapshot holds it
                    continue
                report.matches += 1
                try:
                    problem = check(match, tx.get_moves(match_id))
                except Exception as error:  # noqa: BLE001 - a check that fails on a damaged row reports it
                    problem = f"{type(error).__name__}: {str(error)[:160]}"
                if problem is not None:
                    report.problems[match_id] = problem
        finally:
            conn.rollback()


def _remove_sqlite(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)


async def transfer(source: str | os.PathLike[str], target: str | os.PathLike[str], *,
                   check: MatchCheck | None = None) -> TransferReport:
    """Copy the database at ``source`` into the empty database at ``target`` and verify the copy.

    Args:
        source: a SQLite file (path or ``sqlite:///path``) or a ``postgresql://`` URL; only read.
        target: the same kinds; a SQLite file that does not exist yet is created (and removed again if the copy
            fails), a PostgreSQL database must exist and be empty.
        check: called with every copied match and its move log after the copy; returns why the match does not
            replay to its stored state, or ``None``.

    Returns:
        What was copied and checked (:class:`TransferReport`).

    Raises:
        TransferRefused: nothing was started (see the class); nothing changed.
        TransferFailed: a table could not be copied (a value the target refuses) or its row count differs after
            the copy; rolled back, and a SQLite file created for it removed.
        StorageError: the target cannot be opened or migrated.
    """
    started = time.perf_counter()
    origin, destination = Location.parse(source), Location.parse(target)
    if origin.same_as(destination):
        raise TransferRefused(f"{printable(str(origin))} is both the source and the target")
    report = TransferReport()
    version = await asyncio.to_thread(_check_source, origin)
    created = await asyncio.to_thread(_check_target, destination)
    scratch: Path | None = None
    try:
        if version < SCHEMA_VERSION:  # a SQLite source: upgrade a copy of it, never the file itself
            scratch = Path(tempfile.mkdtemp(prefix="napkin-migrate-"))
            upgraded = scratch / "source.db"

            def backup() -> None:
                with contextlib.closing(_sqlite_connect(origin.target, read_only=True)) as conn, \
                        contextlib.closing(sqlite3.connect(upgraded)) as copy:
                    conn.backup(copy)

            await asyncio.to_thread(backup)
            await (await Database.open(upgraded)).close()
            report.upgraded_from, origin = version, Location("sqlite", str(upgraded))
        try:
            await (await Database.open(destination.target)).close()  # creates or migrates the empty target
            await asyncio.to_thread(_copy, origin, destination, report)
        except BaseException:
            if created and destination.backend == "sqlite":
                _remove_sqlite(destination.target)
            raise
        if check is not None:
            await asyncio.to_thread(_check_matches, destination, check, report)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    report.seconds = time.perf_counter() - started
    return report
