"""The PostgreSQL backend: chosen by the database setting, the same schema as SQLite from the same numbered
migrations, migrated once, and the queries whose spelling differs per backend answering alike."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

import psycopg
import pytest

from storage import Database, ReadTx, SeatRecord, StorageError, Tx
from storage.dialect import pyformat
from storage.migrations import MIGRATIONS, POSTGRES_MIGRATIONS, SCHEMA_VERSION

pytestmark = pytest.mark.both_backends


def _sqlite_schema(path: Path) -> tuple[dict[str, list[str]], set[str]]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        columns = {table: [row[1] for row in conn.execute(f"PRAGMA table_info({table})")] for table in tables}
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' "
                                                  "AND name NOT LIKE 'sqlite_autoindex%'")}
    return columns, indexes


def _postgres_schema(url: str) -> tuple[dict[str, list[str]], set[str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                            "WHERE table_schema = 'public' ORDER BY table_name, ordinal_position").fetchall()
        columns: dict[str, list[str]] = {}
        for table, column in rows:
            columns.setdefault(table, []).append(column)
        indexes = {row[0] for row in conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'public' "
                                                  "AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'")}
    columns.pop("schema_version")  # PostgreSQL's counterpart of PRAGMA user_version
    return columns, indexes


async def test_both_backends_build_the_same_schema(db_path: Path, postgres_url: str) -> None:
    assert len(MIGRATIONS) == len(POSTGRES_MIGRATIONS) == SCHEMA_VERSION
    for target in (db_path, postgres_url):
        await (await Database.open(target)).close()
    sqlite_columns, sqlite_indexes = _sqlite_schema(db_path)
    postgres_columns, postgres_indexes = _postgres_schema(postgres_url)
    assert postgres_columns == sqlite_columns
    assert postgres_indexes == sqlite_indexes
    assert {"matches_due", "ratings_rank", "ratings_par", "outbox_next"} <= postgres_indexes


async def test_a_postgres_database_reopens_with_its_data_and_version(postgres_url: str) -> None:
    db = await Database.open(postgres_url)
    try:
        assert db.backend == "postgresql"
        match_id = await db.write(lambda tx: tx.insert_match(
            guild_id=1, channel_id=2, game="chopsticks", variant={}, state={"ply": 0}, current_seat=0,
            days_per_move=3, deadline=None, rated=True, now=1.0, seats=[SeatRecord(0, 10, "alice")]))
    finally:
        await db.close()
    again = await Database.open(postgres_url)
    try:
        match = await again.read(ReadTx.get_match, match_id)
        assert match is not None and [s.display_name for s in match.seats] == ["alice"]
        assert (await again.fetchone("SELECT version FROM schema_version"))[0] == SCHEMA_VERSION
        assert await again.integrity_check() == "ok"
    finally:
        await again.close()


async def test_a_newer_postgres_schema_is_refused(postgres_url: str) -> None:
    await (await Database.open(postgres_url)).close()
    with psycopg.connect(postgres_url) as conn:
        conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StorageError, match="newer"):
        await Database.open(postgres_url)


async def test_concurrent_postgres_openers_migrate_exactly_once(postgres_url: str) -> None:
    opened = await asyncio.gather(*(Database.open(postgres_url) for _ in range(4)))
    try:
        versions = await opened[0].fetchall("SELECT version FROM schema_version")
        assert [tuple(row) for row in versions] == [(SCHEMA_VERSION,)]
        for db in opened:
            await db.write(Tx.put_meta, "probe", "1")
    finally:
        for db in opened:
            await db.close()


async def test_an_unreachable_server_is_refused_in_one_line(postgres_url: str) -> None:
    closed = postgres_url.rsplit("/", 1)[0].rsplit(":", 1)[0] + ":1/napkin"
    with pytest.raises(StorageError, match="PostgreSQL database cannot be opened"):
        await Database.open(closed)


async def test_a_sqlite_url_opens_that_file(tmp_path: Path) -> None:
    target = tmp_path / "by-url.db"
    db = await Database.open(f"sqlite:///{target}")
    try:
        assert db.backend == "sqlite" and target.exists() and db.path == str(target)
    finally:
        await db.close()


def test_placeholders_are_rewritten_outside_casts() -> None:
    assert pyformat("SELECT a FROM t WHERE b = ? AND c LIKE ?", False) == "SELECT a FROM t WHERE b = %s AND c LIKE %s"
    assert pyformat("SELECT :x, y::text, '100%' WHERE z = :long_name", True) == (
        "SELECT %(x)s, y::text, '100%%' WHERE z = %(long_name)s")


async def test_match_labels_filter_ignores_case_and_name_opponents(db: Database) -> None:
    def fill(tx: Tx) -> list[int]:
        return [tx.insert_match(guild_id=1, channel_id=2, game=game, variant={}, state={}, current_seat=seat,
                                days_per_move=3, deadline=None, rated=True, now=float(number),
                                seats=[SeatRecord(0, 10, "alice"), SeatRecord(1, 11, "Bob")])
                for number, (game, seat) in enumerate((("chopsticks", 0), ("nim", 1), ("chopsticks", 1)))]

    first, second, third = await db.write(fill)
    titles = {"chopsticks": "Chopsticks", "nim": "Gröbner Nim"}
    assert await db.read(ReadTx.match_choices, 1, 10, titles) == [
        (third, f"#{third} Chopsticks vs Bob (waiting)"), (second, f"#{second} Gröbner Nim vs Bob (waiting)"),
        (first, f"#{first} Chopsticks vs Bob (your move)")]
    assert [label for _, label in await db.read(ReadTx.match_choices, 1, 10, titles, "CHOP")] == [
        f"#{third} Chopsticks vs Bob (waiting)", f"#{first} Chopsticks vs Bob (your move)"]
    assert await db.read(ReadTx.match_choices, 1, 11, titles, "100%") == []
    assert [m.id for m in await db.read(ReadTx.active_matches_of, 1, 11)] == [third, second, first]
    assert [m.id for m in await db.read(ReadTx.active_matches_of, 1, 11, 1, 1)] == [second]
