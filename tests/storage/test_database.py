"""Storage: migrations (and the upgrade of stored outcomes), pragmas, the append-only log, versioned updates,
the column whitelist, backups."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import sqlite3
from pathlib import Path

import psycopg
import pytest

from storage import Database, MemberPrefs, PremoveRecord, ReadTx, SeatRecord, StorageError, Tx
from storage.migrations import MIGRATIONS, SCHEMA_VERSION

pytestmark = pytest.mark.both_backends


async def _insert(db: Database, now: float = 100.0) -> int:
    def body(tx: Tx) -> int:
        return tx.insert_match(
            guild_id=1, channel_id=2, game="chopsticks", variant={"rollover": False}, state={"ply": 0},
            current_seat=0, days_per_move=3, deadline=now + 3 * 86400, rated=True, now=now,
            seats=[SeatRecord(0, 10, "alice"), SeatRecord(1, 11, "bob")],
        )

    return await db.write(body)


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
        match = await again.read(ReadTx.get_match, match_id)
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
    await db.write(Tx.append_move, match_id, 1, 0, "LR", 101.0)
    with pytest.raises(db.IntegrityError):
        await db.write(Tx.append_move, match_id, 1, 1, "RR", 102.0)
    # no query rewrites a move; the schema itself refuses it
    if db.backend == "sqlite":
        with (contextlib.closing(sqlite3.connect(db.path)) as raw,
              pytest.raises(sqlite3.IntegrityError, match="append-only")):
            raw.execute("UPDATE moves SET notation = 'RR' WHERE match_id = ?", (match_id,))
    else:
        with (psycopg.connect(db.path) as conn, pytest.raises(psycopg.IntegrityError, match="append-only")):
            conn.execute("UPDATE moves SET notation = 'RR' WHERE match_id = %s", (match_id,))
    moves = await db.read(ReadTx.get_moves, match_id)
    assert [(m.ply, m.notation) for m in moves] == [(1, "LR")]


async def test_versioned_update_and_rollback(db: Database) -> None:
    match_id = await _insert(db)
    def first(tx: Tx) -> None:
        assert tx.update_match(match_id, 0, ply=1, state={"ply": 1})
        assert not tx.update_match(match_id, 0, ply=2)  # stale version: no change

    def failing(tx: Tx) -> None:
        tx.update_match(match_id, 1, ply=5)
        raise RuntimeError("abort the transaction")

    await db.write(first)
    with pytest.raises(RuntimeError):
        await db.write(failing)
    match = await db.read(ReadTx.get_match, match_id)
    assert match is not None
    assert (match.version, match.ply, match.state) == (1, 1, {"ply": 1})


async def test_foreign_keys_enforced(db: Database) -> None:
    with pytest.raises(db.IntegrityError):
        await db.write(Tx.append_move, 999, 1, 0, "LR", 1.0)


async def test_settings_defaults_and_round_trip(db: Database) -> None:
    settings = await db.read(ReadTx.get_settings, 5)
    assert (settings.days_per_move, settings.use_threads, settings.max_active) == (3, True, 25)
    settings.days_per_move, settings.allowed_channels = 7, [42, 7]
    await db.write(Tx.put_settings, settings, 1.0)
    again = await db.read(ReadTx.get_settings, 5)
    assert (again.days_per_move, again.allowed_channels) == (7, [7, 42])


async def test_online_backup(db: Database, tmp_path: Path) -> None:
    match_id = await _insert(db)
    target = tmp_path / "copy" / "backup.db"
    if db.backend == "postgresql":  # the server's own tools back it up
        with pytest.raises(StorageError, match="pg_dump"):
            await db.backup(target)
        assert not target.exists()
        return
    await db.backup(target)
    copy = sqlite3.connect(target)
    try:
        assert copy.execute("SELECT game FROM matches WHERE id = ?", (match_id,)).fetchone() == ("chopsticks",)
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        copy.close()


async def test_update_match_sets_only_whitelisted_columns(db: Database) -> None:
    match_id = await _insert(db)
    for fields in ({"version": 7}, {"game": "differences"}, {"ply = 9, status": "finished"}):
        with pytest.raises(ValueError, match="not updatable"):
            await db.write(lambda tx, fields=fields: tx.update_match(match_id, 0, **fields))
    match = await db.read(ReadTx.get_match, match_id)
    assert match is not None
    assert (match.version, match.game, match.ply, match.status) == (0, "chopsticks", 0, "active")


FIXTURE = Path(__file__).parent / "data" / "schema1_matches.sql"

# match id -> (status, end_reason after the upgrade, winner, draw, loser, termination of the state's own outcome)
UPGRADED = {
    1: ("finished", "natural", 1, False, None, "natural"),  # both hands dead
    2: ("finished", "resigned", 1, False, 0, None),  # "Alice resigned"
    3: ("finished", "resigned", 0, False, 1, None),  # "Bob resigned resigned": the name ends like a reason
    4: ("finished", "out_of_time", 0, False, 1, None),  # "Bob resigned ran out of time"
    5: ("finished", "draw_agreed", None, True, None, None),
    6: ("finished", "repetition", None, True, None, "repetition"),
    7: ("finished", "move_limit", None, True, None, "move_limit"),  # 200 plies
    9: ("finished", "natural", None, False, None, "natural"),  # Gröbner Nim solitaire completed
    10: ("finished", "resigned", None, False, 0, None),  # solitaire: the only seat gave up
    11: ("finished", "out_of_time", None, False, 0, None),
    12: ("finished", "natural", None, True, None, None),  # Differences drawn on points
}


def _schema1_database(path: Path) -> None:
    """A database at schema 1 holding the fixture's real matches, as the code of that schema stored them."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.executescript(MIGRATIONS[0])
        conn.executescript(FIXTURE.read_text(encoding="utf-8"))
        conn.execute("PRAGMA user_version=1")
        conn.commit()


def _table_rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return [tuple(row) for row in conn.execute(sql)]


SCHEMA1_CHALLENGES = ("SELECT id, guild_id, channel_id, message_id, game, variant, challenger_id, challenger_name, "
                      "opponent_id, days_per_move, status, match_id, created_at, expires_at FROM challenges")
"""The challenges as the first schema had them (later migrations add columns)."""


async def test_upgrade_turns_prose_reasons_into_terminations(db_path: Path) -> None:
    _schema1_database(db_path)
    before = _table_rows(db_path, "SELECT id, status, version, ply, json(outcome), state FROM matches ORDER BY id")
    others = _table_rows(db_path, "SELECT * FROM moves ORDER BY match_id, ply") + _table_rows(
        db_path, "SELECT * FROM ratings ORDER BY user_id, game") + _table_rows(db_path, SCHEMA1_CHALLENGES)
    assert len(others) > 200  # the fixture's moves, ratings and challenges
    assert SCHEMA_VERSION >= 2
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        matches = {m.id: m for m in [await db.read(ReadTx.get_match, i) for i in range(1, 14)] if m is not None}
    finally:
        await db.close()
    assert len(matches) == 13
    old = {row[0]: row for row in before}
    for match_id, (status, termination, winner, draw, loser, state_termination) in UPGRADED.items():
        match = matches[match_id]
        old_outcome = json.loads(old[match_id][4])
        assert (match.status, match.end_reason) == (status, termination), match_id
        assert match.outcome == {"winner": winner, "draw": draw, "scores": old_outcome["scores"],
                                 "termination": termination, "loser": loser}, match_id
        assert type(match.outcome["draw"]) is bool
        state_outcome = match.state.get("outcome")
        if state_termination is None:
            assert state_outcome is None, match_id
        else:  # the rules core's own outcome inside the state gets the same shape
            assert state_outcome == {"winner": winner, "draw": draw, "scores": old_outcome["scores"],
                                     "termination": state_termination, "loser": None}, match_id
        # nothing else of the match changed
        old_state = json.loads(old[match_id][5])
        old_state.pop("outcome", None)
        new_state = dict(match.state)
        new_state.pop("outcome", None)
        assert new_state == old_state
        assert (match.version, match.ply) == old[match_id][2:4]
    aborted, active = matches[8], matches[13]
    assert (aborted.status, aborted.end_reason) == ("aborted", "aborted")
    assert aborted.outcome == {"winner": None, "draw": False, "scores": None, "termination": "aborted", "loser": None}
    assert (active.status, active.end_reason, active.outcome) == ("active", None, None)
    assert active.state == json.loads(old[13][5])
    assert others == _table_rows(db_path, "SELECT * FROM moves ORDER BY match_id, ply") + _table_rows(
        db_path, "SELECT * FROM ratings ORDER BY user_id, game") + _table_rows(db_path, SCHEMA1_CHALLENGES)


async def test_concurrent_openers_migrate_exactly_once(db_path: Path) -> None:
    # A second run of migration 2 would turn "resigned" into "natural" (it no longer ends in " resigned"), so
    # a double migration would show in the data.
    _schema1_database(db_path)
    opened = await asyncio.gather(*(Database.open(db_path) for _ in range(4)))
    try:
        reasons = [tuple(row) for row in await opened[0].fetchall("SELECT id, end_reason FROM matches ORDER BY id")]
        versions = [(await db.fetchone("PRAGMA user_version"))[0] for db in opened]
    finally:
        for db in opened:
            await db.close()
    assert versions == [SCHEMA_VERSION] * 4
    assert reasons[:4] == [(1, "natural"), (2, "resigned"), (3, "resigned"), (4, "out_of_time")]


async def test_an_open_that_finds_a_new_file_locked_tries_again(db_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    # Another process holds the write lock of a new file (still in rollback-journal mode, as it is before its first
    # opener switches it to WAL): SQLite then answers this opener's switch with "database is locked" at once,
    # without waiting (it would wait for a reader), which is how concurrent first opens failed.
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    caplog.set_level("INFO", logger="storage.sqlite")
    opening = asyncio.ensure_future(Database.open(db_path))
    try:
        for _ in range(2000):
            if any("busy while opening" in record.getMessage() for record in caplog.records):
                break
            assert not opening.done(), opening.exception()  # a refusal instead of a second try
            await asyncio.sleep(0.005)
        else:
            pytest.fail("the open neither tried again nor failed")
    finally:
        holder.rollback()
        holder.close()
    db = await opening
    try:
        assert (await db.fetchone("PRAGMA journal_mode"))[0] == "wal"
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
    finally:
        await db.close()


async def test_upgrade_from_schema_5_keeps_real_matches_and_stores_extra_time(db_path: Path) -> None:
    _schema1_database(db_path)
    with contextlib.closing(sqlite3.connect(db_path)) as conn:  # the fixture's matches as schema 5 holds them
        for number in range(1, 5):
            conn.executescript(MIGRATIONS[number])
        conn.execute("PRAGMA user_version=5")
        conn.commit()
    assert SCHEMA_VERSION >= 6
    before = _table_rows(db_path, "SELECT * FROM matches ORDER BY id")
    assert len(before) == 13
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        after = _table_rows(db_path, "SELECT * FROM matches ORDER BY id")
        assert [row[:len(before[0])] for row in after] == before  # every column kept; the new one is empty
        assert all(row[len(before[0])] is None for row in after)  # (later migrations add more columns after it)
        matches = [await db.read(ReadTx.get_match, i) for i in range(1, 14)]
        assert all(m is not None and m.damage is None and m.time_given is None for m in matches)
        active = matches[12]
        assert active is not None and active.status == "active" and active.times_given(1) == 0
        assert await db.write(Tx.update_match, active.id, active.version, time_given=[0, 2])
        given = await db.read(ReadTx.get_match, active.id)
        assert given is not None and given.time_given == [0, 2] and given.times_given(1) == 2
        assert given.version == active.version + 1
    finally:
        await db.close()


def _schema_database(path: Path, version: int, *statements: str) -> None:
    """The fixture's real matches as schema ``version`` holds them (migrations 2 to ``version`` applied by hand), plus
    ``statements``."""
    _schema1_database(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for number in range(1, version):
            conn.executescript(MIGRATIONS[number])
        for statement in statements:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version={int(version)}")
        conn.commit()


def _schema6_database(path: Path, *statements: str) -> None:
    """The fixture's real matches as schema 6 holds them, plus ``statements``."""
    _schema_database(path, 6, *statements)


async def test_upgrade_from_schema_6_keeps_real_matches_and_adds_vacations_and_preferences(db_path: Path) -> None:
    _schema6_database(db_path, "INSERT INTO guild_settings (guild_id, days_per_move, use_threads, allowed_channels, "
                      "max_active, rate_computer, updated_at) VALUES (1, 7, 0, '[5]', 10, 1, 1700000000.0)")
    assert SCHEMA_VERSION >= 7
    kept = ("SELECT * FROM matches ORDER BY id", "SELECT * FROM seats ORDER BY match_id, seat",
            "SELECT * FROM moves ORDER BY match_id, ply", "SELECT * FROM ratings ORDER BY user_id, game",
            "SELECT * FROM challenges ORDER BY id")
    before = [_table_rows(db_path, sql) for sql in kept]
    assert len(before[0]) == 13 and len(before[2]) > 100
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        after = [_table_rows(db_path, sql) for sql in kept]  # no column of theirs changed (9 and 13 add one each)
        assert [[row[:len(rows[0])] for row in found] for found, rows in zip(after, before, strict=True)] == before
        assert [len(found[0]) - len(rows[0]) for found, rows in zip(after, before, strict=True)] == [2, 0, 0, 0, 0]
        settings = await db.read(ReadTx.get_settings, 1)
        assert (settings.days_per_move, settings.use_threads, settings.allowed_channels, settings.max_active,
                settings.rate_computer, settings.vacation_days) == (7, False, [5], 10, True, 14)
        assert await db.fetchall("SELECT * FROM vacations") == []
        assert await db.fetchall("SELECT * FROM member_prefs") == []
        matches = [await db.read(ReadTx.get_match, i) for i in range(1, 14)]
        assert all(m is not None and m.damage is None for m in matches)
        for match, rows in zip(matches, [[r for r in before[1] if r[0] == i] for i in range(1, 14)], strict=True):
            assert match is not None
            assert [(s.seat, s.user_id, s.display_name, s.level) for s in match.seats] == [r[1:] for r in rows]
            assert all((s.pings, s.dm, s.away_until) == (True, False, None) for s in match.seats)

        # the upgraded rows take part in vacations and preferences at once
        active = matches[12]
        assert active is not None and active.status == "active" and active.deadline == 1700604800.0
        to_move = active.seats[active.current_seat or 0]
        now, ends_by = 1700500000.0, 1700500000.0 + 14 * 86400

        def go_away(tx: Tx) -> int:
            tx.insert_vacation(1, to_move.user_id, now, ends_by)
            tx.put_member_prefs(MemberPrefs(to_move.user_id, dm_turns=True, pings=False), now)
            return tx.shift_deadlines(1, to_move.user_id, ends_by - now, now)

        assert await db.write(go_away) == 1
        away = await db.read(ReadTx.get_match, active.id)
        assert away is not None and away.deadline == 1700604800.0 + 14 * 86400
        assert away.version == active.version  # the turn and position did not change: the board stays current
        seat = away.seats[active.current_seat or 0]
        assert (seat.away_until, seat.pings, seat.dm) == (ends_by, False, True)
        with pytest.raises(sqlite3.IntegrityError):  # one open vacation per member and server
            await db.write(Tx.insert_vacation, 1, to_move.user_id, now + 1, ends_by + 1)
    finally:
        await db.close()


async def test_upgrade_from_schema_6_keeps_real_matches_and_stores_conditional_moves(db_path: Path) -> None:
    _schema6_database(db_path)
    assert SCHEMA_VERSION >= 8
    tables = ("matches", "moves", "seats", "challenges", "ratings")
    before = {table: _table_rows(db_path, f"SELECT * FROM {table} ORDER BY rowid") for table in tables}  # noqa: S608 - fixed names
    assert len(before["matches"]) == 13 and len(before["moves"]) > 100
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        for table in tables:  # every row and column kept (a later migration may only add columns)
            after = _table_rows(db_path, f"SELECT * FROM {table} ORDER BY rowid")  # noqa: S608 - fixed names
            assert [row[:len(before[table][0])] for row in after] == before[table], table
        assert await db.fetchall("SELECT * FROM premoves") == []
        active = await db.read(ReadTx.get_match, 13)
        assert active is not None and active.status == "active" and active.current_seat is not None
        waiting = 1 - active.current_seat
        line = PremoveRecord(13, waiting, active.ply, "LL", "RR", "LR", "RL", 1.0)
        await db.write(Tx.put_premove, line)
        await db.write(Tx.put_premove, PremoveRecord(13, waiting, active.ply, "RR", "LL", None, None, 2.0))
        assert await db.read(ReadTx.premoves_of, 13, waiting) == [
            line, PremoveRecord(13, waiting, active.ply, "RR", "LL", None, None, 2.0)]
        with pytest.raises(db.IntegrityError):  # half a deeper pair is refused by the schema
            await db.write(Tx.put_premove, PremoveRecord(13, waiting, active.ply, "LR", "LL", "RR", None, 3.0))
        assert await db.write(Tx.delete_premoves, 13, waiting, "RR") == 1
        assert [p.if_move for p in await db.read(ReadTx.premoves_of, 13, waiting)] == ["LL"]
        assert await db.write(Tx.update_match, 13, active.version, status="aborted", current_seat=None)
        assert await db.read(ReadTx.premoves_of, 13, waiting) == []  # an ended match forgets its lines
        unchanged = await db.read(ReadTx.get_match, 12)
        assert unchanged is not None and unchanged.damage is None
    finally:
        await db.close()


def _schema8_database(path: Path, *statements: str) -> None:
    """The fixture's real matches as schema 8 holds them (migrations 2 to 8 applied by hand), plus ``statements``."""
    _schema1_database(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for number in range(1, 8):
            conn.executescript(MIGRATIONS[number])
        for statement in statements:
            conn.execute(statement)
        conn.execute("PRAGMA user_version=8")
        conn.commit()


async def test_upgrade_from_schema_8_keeps_real_matches_and_finds_computer_turns_and_board_sizes(
        db_path: Path) -> None:
    # the fixture's running match becomes one whose seat to move is the computer's, and a finished one gets a
    # computer seat too: only the first is a computer turn to resume
    _schema8_database(db_path, "UPDATE seats SET level = 'easy' WHERE match_id = 13 AND seat = "
                      "(SELECT current_seat FROM matches WHERE id = 13)",
                      "UPDATE seats SET level = 'hard' WHERE match_id = 1 AND seat = 1")
    assert SCHEMA_VERSION >= 9
    tables = ("matches", "moves", "seats", "challenges", "ratings", "premoves")
    before = {table: _table_rows(db_path, f"SELECT * FROM {table} ORDER BY rowid") for table in tables}  # noqa: S608 - fixed names
    sizes = _table_rows(db_path, "SELECT guild_id, game, COUNT(*), COUNT(best_vs_par) FROM ratings "
                        "GROUP BY guild_id, game ORDER BY guild_id, game")
    assert len(before["matches"]) == 13 and len(sizes) >= 2 and any(row[3] for row in sizes)
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        for table in tables:  # every row and column kept (a later migration may only add columns)
            after = _table_rows(db_path, f"SELECT * FROM {table} ORDER BY rowid")  # noqa: S608 - fixed names
            assert [row[:len(before[table][0])] for row in after] == before[table], table
        seats = {row[0]: row[1] for row in await db.fetchall("SELECT id, computer_seats FROM matches")}
        current = (await db.fetchone("SELECT current_seat FROM matches WHERE id = 13"))[0]
        assert seats == {**dict.fromkeys(range(1, 14), 0), 13: 1 << current, 1: 2}
        assert await db.read(ReadTx.computer_to_move) == [13]
        assert [tuple(row) for row in await db.fetchall(
            "SELECT guild_id, game, ranked, with_par FROM leaderboard_sizes ORDER BY guild_id, game")] == sizes

        # the sizes follow every later change of the ratings
        guild, game = sizes[0][0], sizes[0][1]
        rated = await db.read(ReadTx.ratings_of_game, guild, game)
        await db.write(Tx.put_rating, dataclasses.replace(rated[0], user_id=999, best_vs_par=None), 2.0)
        await db.write(Tx.put_rating, dataclasses.replace(rated[0], best_vs_par=3), 2.0)
        ranked, first, page = await db.read(lambda tx: tx.leaderboard_page(guild, game, solitaire=False, offset=0,
                                                                             limit=50))
        assert ranked == sizes[0][2] + 1 == len(page) and first == 0
        with_par = (await db.fetchone("SELECT with_par FROM leaderboard_sizes WHERE guild_id = ? AND game = ?",
                                      (guild, game)))[0]
        assert with_par == sizes[0][3] + (rated[0].best_vs_par is None)
    finally:
        await db.close()


async def test_upgrade_from_schema_8_keeps_pending_news_and_records_news_given_up(db_path: Path) -> None:
    _schema_database(db_path, 8,
                      "INSERT INTO outbox (match_id, kind, ply, attempts, next_at, created_at) "
                      "VALUES (13, 'reminder', 4, 0, 1700000100.0, 1700000000.0)",
                      "INSERT INTO outbox (match_id, kind, ply, attempts, next_at, created_at) "
                      "VALUES (1, 'result', 9, 2, 1700000200.0, 1700000000.0)")
    assert SCHEMA_VERSION >= 9
    kept = ("SELECT * FROM matches ORDER BY id", "SELECT * FROM challenges ORDER BY id")
    before = [_table_rows(db_path, sql) for sql in kept]
    guilds = {row[0]: row[1] for row in _table_rows(db_path, "SELECT id, guild_id FROM matches")}
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        after = [_table_rows(db_path, sql) for sql in kept]
        for kept_before, kept_after in zip(before, after, strict=True):  # every row kept (later migrations add columns)
            assert [row[:len(kept_before[0])] for row in kept_after] == kept_before
        # the news, in the one outbox of migration 13: its match as subject, its ply as step, its server
        assert _table_rows(db_path, "SELECT kind, subject_id, seq, guild_id, attempts, next_at, created_at "
                                    "FROM outbox ORDER BY id") == [
            ("reminder", 13, 4, guilds[13], 0, 1700000100.0, 1700000000.0),
            ("result", 1, 9, guilds[1], 2, 1700000200.0, 1700000000.0)]
        news = await db.read(ReadTx.due_outbox, 1700000300.0)
        assert [(n.kind, n.attempts, n.status, n.last_error) for n in news] == [
            ("reminder", 0, "pending", None), ("result", 2, "pending", None)]
        await db.write(Tx.outbox_given_up, news[1].id, "403 Forbidden (error code: 50001): Missing Access")
        assert [n.kind for n in await db.write(Tx.claim_outbox, 1700000300.0, 1700000600.0, 25)] == ["reminder"]
        assert await db.read(ReadTx.next_outbox) == 1700000600.0  # (the claimed reminder's lease; the result is out)
        [gave_up] = await db.read(ReadTx.outbox_of, 1, ["result"])
        assert (gave_up.status, gave_up.attempts, gave_up.last_error) == (
            "given_up", 3, "403 Forbidden (error code: 50001): Missing Access")
        indexes = {row[0] for row in await db.fetchall("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"outbox_next", "challenges_pair"} <= indexes
        assert await db.read(ReadTx.challenges_to, 1, 1, 2, 0.0) == []
    finally:
        await db.close()


async def test_upgrade_from_schema_12_puts_every_news_in_one_outbox_and_names_pairings(db_path: Path) -> None:
    """Migration 13: a tournament's pending news joins the match news in the one outbox, its boards become its
    pairings (a round robin's "rest" a bye worth nothing), and its games carry the rule that they are never
    aborted."""
    _schema_database(
        db_path, 12,
        "INSERT INTO tournaments (id, guild_id, channel_id, name, game, variant, format, rounds, days_per_move, "
        "max_players, rated, organizer_id, organizer_name, status, current_round, created_at) VALUES (7, 5, 6, "
        "'Cup', 'chopsticks', '{}', 'round_robin', 3, 3, 8, 1, 2, 'ann', 'running', 1, 1700000000.0)",
        "INSERT INTO tournament_rounds (tournament_id, round, paired_at, engine) VALUES (7, 1, 1700000000.0, 'berger')",
        "INSERT INTO tournament_games (tournament_id, round, board, first_id, second_id, kind, match_id) "
        "VALUES (7, 1, 1, 2, 3, 'game', 1)",
        "INSERT INTO tournament_games (tournament_id, round, board, first_id, second_id, kind, first_points, played) "
        "VALUES (7, 1, 2, 4, NULL, 'rest', 0.0, 0)",
        "INSERT INTO tournament_news (tournament_id, round, kind, attempts, next_at, created_at) "
        "VALUES (7, 1, 'round', 1, 1700000500.0, 1700000000.0)",
        "INSERT INTO outbox (match_id, kind, ply, attempts, next_at, created_at) "
        "VALUES (2, 'result', 3, 0, 1700000400.0, 1700000000.0)")
    db = await Database.open(db_path)
    try:
        news = await db.read(ReadTx.due_outbox, 1700001000.0)
        assert [(n.kind, n.subject_id, n.seq, n.guild_id, n.attempts, n.parts_done) for n in news] == [
            ("result", 2, 3, (await db.read(ReadTx.get_match, 2)).guild_id, 0, 0), ("round", 7, 1, 5, 1, 0)]
        pairings = await db.read(ReadTx.tournament_pairings, 7)
        assert [(p.board, p.kind, p.match_id, p.first_points) for p in pairings] == [(1, "game", 1, None),
                                                                                      (2, "bye", None, 0.0)]
        assert (await db.read(ReadTx.get_match, 1)).no_abort
        assert not (await db.read(ReadTx.get_match, 2)).no_abort
        tables = {row[0] for row in await db.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "tournament_games" not in tables and "tournament_news" not in tables
    finally:
        await db.close()


async def test_upgrade_from_schema_13_keeps_settings_and_adds_the_puzzle_tables(db_path: Path) -> None:
    _schema_database(db_path, 13, "INSERT INTO guild_settings (guild_id, days_per_move, updated_at) "
                                  "VALUES (5, 7, 1700000000.0)")
    db = await Database.open(db_path)
    try:
        settings = await db.read(ReadTx.get_settings, 5)
        assert (settings.days_per_move, settings.puzzle_channel_id, settings.puzzle_hour) == (7, None, 12)
        assert await db.read(ReadTx.puzzle_counts) == {}
    finally:
        await db.close()
