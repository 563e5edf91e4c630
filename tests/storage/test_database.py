"""Storage: migrations, pragmas, the append-only log, versioned updates, backups."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage import Database, SeatRecord, StorageError, repo
from storage.migrations import SCHEMA_VERSION


async def _insert(db: Database, now: float = 100.0) -> int:
    async with db.write() as conn:
        return await repo.insert_match(
            conn, guild_id=1, channel_id=2, game="chopsticks", variant={"rollover": False}, state={"ply": 0},
            current_seat=0, days_per_move=3, deadline=now + 3 * 86400, rated=True, now=now,
            seats=[SeatRecord(0, 10, "alice"), SeatRecord(1, 11, "bob")],
        )


async def test_migrations_pragmas_and_reopen(db_path: Path) -> None:
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        assert (await db.fetchone("PRAGMA journal_mode"))[0] == "wal"
        assert (await db.fetchone("PRAGMA foreign_keys"))[0] == 1
        match_id = await _insert(db)
    finally:
        await db.close()
    again = await Database.open(db_path)  # reopening runs no migration twice and keeps the data
    try:
        match = await repo.get_match(again._reader, match_id)
        assert match is not None
        assert [s.display_name for s in match.seats] == ["alice", "bob"]
        assert await again.integrity_check() == "ok"
    finally:
        await again.close()


async def test_newer_schema_is_refused(db_path: Path) -> None:
    connection = sqlite3.connect(db_path)
    connection.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(StorageError, match="newer"):
        await Database.open(db_path)


async def test_moves_are_append_only_and_unique_per_ply(db: Database) -> None:
    match_id = await _insert(db)
    async with db.write() as conn:
        await repo.append_move(conn, match_id, 1, 0, "LR", 101.0)
    with pytest.raises(sqlite3.IntegrityError):
        async with db.write() as conn:
            await repo.append_move(conn, match_id, 1, 1, "RR", 102.0)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        async with db.write() as conn:
            await conn.execute("UPDATE moves SET notation = 'RR' WHERE match_id = ?", (match_id,))
    moves = await repo.get_moves(db._reader, match_id)
    assert [(m.ply, m.notation) for m in moves] == [(1, "LR")]


async def test_versioned_update_and_rollback(db: Database) -> None:
    match_id = await _insert(db)
    async with db.write() as conn:
        assert await repo.update_match(conn, match_id, 0, ply=1, state={"ply": 1})
        assert not await repo.update_match(conn, match_id, 0, ply=2)  # stale version: no change
    with pytest.raises(RuntimeError):
        async with db.write() as conn:
            await repo.update_match(conn, match_id, 1, ply=5)
            raise RuntimeError("abort the transaction")
    match = await repo.get_match(db._reader, match_id)
    assert match is not None
    assert (match.version, match.ply, match.state) == (1, 1, {"ply": 1})


async def test_foreign_keys_enforced(db: Database) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        async with db.write() as conn:
            await repo.append_move(conn, 999, 1, 0, "LR", 1.0)


async def test_settings_defaults_and_round_trip(db: Database) -> None:
    settings = await repo.get_settings(db._reader, 5)
    assert (settings.days_per_move, settings.use_threads, settings.max_active) == (3, True, 25)
    settings.days_per_move, settings.allowed_channels = 7, [42, 7]
    async with db.write() as conn:
        await repo.put_settings(conn, settings, 1.0)
    again = await repo.get_settings(db._reader, 5)
    assert (again.days_per_move, again.allowed_channels) == (7, [7, 42])


async def test_online_backup(db: Database, tmp_path: Path) -> None:
    match_id = await _insert(db)
    target = tmp_path / "copy" / "backup.db"
    await db.backup(target)
    copy = sqlite3.connect(target)
    try:
        assert copy.execute("SELECT game FROM matches WHERE id = ?", (match_id,)).fetchone() == ("chopsticks",)
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        copy.close()
