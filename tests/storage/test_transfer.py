"""``napkin migrate-db``: a server's data copied from SQLite into PostgreSQL and back, row for row, with its checks
(row counts, every match's log replayed) and its refusals, which change nothing; ``napkin backup`` and ``napkin
inspect`` on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bot import cli
from bot.service import Player, Services, load_state
from bot.service.vacations import VacationService
from games import GAMES
from storage import (
    Database,
    PuzzlePlayerRecord,
    PuzzleRecord,
    ReadTx,
    SeasonRecord,
    TournamentEntryRecord,
    TournamentPairingRecord,
    Tx,
)
from storage.migrations import MIGRATIONS, SCHEMA_VERSION
from storage.transfer import TransferFailed, TransferRefused, read_rows, transfer
from tests.postgres_cluster import Cluster, fresh_database
from tests.reliability._support import Clock, legal_texts, service_match

pytestmark = pytest.mark.slow  # the PostgreSQL runs: every test here starts a real PostgreSQL server

GUILD = 7
ALICE, BOB, CAROL = Player(11, "alice"), Player(12, "bob"), Player(13, "carol")
TABLES = {"guild_settings", "matches", "seats", "moves", "challenges", "ratings", "meta", "outbox", "vacations",
          "member_prefs", "premoves", "tournaments", "tournament_entries", "tournament_rounds", "tournament_pairings",
          "season_records", "puzzles", "puzzle_players", "puzzle_attempts", "daily_puzzles", "seen_locales"}
DERIVED = {"leaderboard_sizes"}
"""Kept by the database's triggers from the ratings: not copied, yet the same on the other side."""


async def _play_some(services: Services, match_id: int, plies: int) -> None:
    for _ in range(plies):
        match = await services.reading.get_match(match_id)
        if match.status != "active":
            return
        mover = match.seats[match.current_seat]
        await services.moves.play(match_id, GUILD, mover.user_id, legal_texts(load_state(match), 1)[0])


async def _server(path: Path) -> dict[str, int]:
    """A server's database: for every game a running match, a resigned one and a computer duel played to its end;
    open, declined and cancelled challenges; ratings and a season's records; reminders and results in the outbox;
    settings and meta; a vacation under way and one ended, a member's preferences and a conditional move; a Swiss
    tournament in its first round, its news still to post.
    Returns a few of its match ids by role."""
    clock = Clock()
    db = await Database.open(path)
    roles: dict[str, int] = {}
    try:
        services = Services(db, computer_id=99, clock=clock)
        await services.settings.update(GUILD, days_per_move=2, max_active=50)
        for game in GAMES:
            running = await service_match(services, game, GUILD, (ALICE, BOB), days=1)
            await _play_some(services, running.id, 3)
            resigned = await service_match(services, game, GUILD, (BOB, CAROL), days=3)
            await _play_some(services, resigned.id, 2)
            ended = await services.endings.resign(resigned.id, GUILD, CAROL.user_id)
            await services.outbox.queue("result", ended.id, GUILD, seq=ended.ply)
            duel = await services.challenges.start_computer_duel(guild_id=GUILD, channel_id=1, game=game, variant={},
                                                                 levels=("easy", "easy"), seed=5)
            await services.moves.computer_replies(duel.id)
            roles.setdefault("running", running.id)
            roles.setdefault("duel", duel.id)
        await services.challenges.create(guild_id=GUILD, channel_id=1, game="chopsticks", variant={},
                                         challenger=ALICE, opponent=CAROL, days_per_move=1)
        declined = await services.challenges.create(guild_id=GUILD, channel_id=1, game="napkin_chess", variant={},
                                                    challenger=CAROL, opponent=ALICE, days_per_move=1)
        await services.challenges.decline(declined.id, GUILD, ALICE)
        await db.write(_tournament, roles["running"])
        await db.write(_puzzles)
        clock.now += 0.7 * 86400  # the one-day matches are past their reminder time
        work = await services.deadlines.process_due()
        assert work.reminded
        await db.write(Tx.put_meta, "command_tree", "abc")
        await db.write(Tx.put_seen_locale, "guild", GUILD, "fr", clock.now)  # the languages Discord reported
        await db.write(Tx.put_seen_locale, "member", BOB.user_id, "pt-BR", clock.now)
        vacations = VacationService(db, clock=clock)
        await vacations.start(GUILD, CAROL.user_id)
        await vacations.end(GUILD, CAROL.user_id)
        await vacations.start(GUILD, BOB.user_id)
        await vacations.set_prefs(ALICE.user_id, dm_turns=True, pings=False)
        waiting = await services.reading.get_match(roles["running"])
        mover = waiting.seats[waiting.current_seat or 0]
        state = load_state(waiting)
        expected = legal_texts(state)[-1]  # not the move the tests play on in the copies
        assert expected != legal_texts(state, 1)[0]
        await services.premoves.store(waiting.id, GUILD, waiting.seats[1 - mover.seat].user_id, expected,
                                      legal_texts(state.play(expected), 1)[0])
    finally:
        await db.close()
    return roles


def _tournament(tx: Tx, match_id: int) -> None:
    """A Swiss in its first round, on ``match_id`` (alice and bob; carol has the bye), its news still to post; and the
    season records of a rated result."""
    tournament_id = tx.insert_tournament(guild_id=GUILD, channel_id=1, name="Cup", game="chopsticks", variant={},
                                         fmt="swiss", rounds=2, days_per_move=1, max_players=8, rated=True,
                                         organizer_id=ALICE.user_id, organizer_name=ALICE.name, starts_at=None,
                                         now=1.0)
    for number, player in enumerate((ALICE, BOB, CAROL), start=1):
        tx.insert_entry(TournamentEntryRecord(tournament_id, player.user_id, player.name, number, 1000, None, 1.0))
    tx.insert_round(tournament_id, 1, "dutch", 2.0)
    tx.insert_pairing(TournamentPairingRecord(tournament_id, 1, 1, ALICE.user_id, BOB.user_id, "game", match_id))
    tx.insert_pairing(TournamentPairingRecord(tournament_id, 1, 2, CAROL.user_id, None, "bye", first_points=1.0,
                                              played=False))
    assert tx.update_tournament(tournament_id, 0, status="running", current_round=1, started_at=2.0)
    tx.add_outbox("round", tournament_id, GUILD, 2.0, seq=1)
    tx.add_to_season(SeasonRecord(GUILD, "chopsticks", "2025-03", CAROL.user_id, CAROL.name, 26.0, 8.0, True, 1, 1,
                                  0, 0), 3.0)


def _puzzles(tx: Tx) -> None:
    """A puzzle retired and one served, alice's puzzle rating and her attempt, the server's daily puzzle and bob's
    attempt at it."""
    tx.put_puzzle(PuzzleRecord("chopsticks-0123456789", "chopsticks", '{"id":"chopsticks-0123456789"}', "d", 1250.0,
                               350.0, 0.06), 4.0)
    tx.put_puzzle(PuzzleRecord("polygons-0123456789", "polygons", '{"id":"polygons-0123456789"}', "d", 1700.0, 350.0,
                               0.06), 4.0)
    tx.retire_puzzle("polygons-0123456789", "the proof no longer holds", 5.0)
    tx.put_puzzle_player(tx.lock_puzzle_player(PuzzlePlayerRecord(ALICE.user_id, 1500.0, 350.0, 0.06, updated_at=4.0)))
    attempt = tx.add_attempt(ALICE.user_id, "chopsticks-0123456789", ALICE.name, 4.0)
    tx.update_attempt(attempt.id, progress=1, tries=1, answer="LL", solved=True, finished=True, rating_before=1500.0,
                      rating_after=1570.5, finished_at=6.0)
    daily = tx.add_daily(GUILD, "1970-01-01", "chopsticks-0123456789", 1, 4.0, 86404.0)
    assert daily is not None
    tx.add_attempt(BOB.user_id, "chopsticks-0123456789", BOB.name, 7.0, daily_id=daily.id, guild_id=GUILD)


@pytest.fixture(scope="module")
def server_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The server's SQLite database, built once for the module (tests copy it)."""
    path = tmp_path_factory.mktemp("server") / "server.db"
    roles = asyncio.run(_server(path))
    return path, roles


@pytest.fixture
def server(server_file: tuple[Path, dict[str, int]], tmp_path: Path) -> Path:
    """A copy of the server's database of this test's own."""
    path = tmp_path / "napkin.db"
    with contextlib.closing(sqlite3.connect(server_file[0])) as source, \
            contextlib.closing(sqlite3.connect(path)) as copy:
        source.backup(copy)
    return path


@pytest.fixture
def second_url(postgres_cluster: Cluster) -> Iterator[str]:
    """Another fresh PostgreSQL database."""
    yield from fresh_database(postgres_cluster)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _unordered(rows: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    return {table: sorted(found, key=repr) for table, found in rows.items()}


async def test_a_server_goes_to_postgresql_and_back_row_for_row(server: Path, postgres_url: str,
                                                                tmp_path: Path) -> None:
    original = read_rows(server)
    assert set(original) == TABLES | DERIVED
    assert all(original[table] for table in TABLES | DERIVED), {t: len(r) for t, r in original.items()}
    assert {row[4] for row in original["matches"]} == set(GAMES)  # every game ...
    assert {row[8] for row in original["matches"]} == {"active", "finished"}  # ... running and finished
    assert {row[1] for row in original["outbox"]} == {"reminder", "result", "round"}  # the one outbox: every kind
    assert {row[10] for row in original["challenges"]} >= {"open", "accepted", "declined"}
    matches = len(original["matches"])

    there = await transfer(server, postgres_url, check=cli._replay_problem)
    assert there.tables == {table: len(rows) for table, rows in original.items() if table in TABLES}
    assert (there.matches, there.problems, there.upgraded_from) == (matches, {}, None)
    assert _unordered(read_rows(postgres_url)) == _unordered(original)

    back_path = tmp_path / "back" / "napkin.db"
    back = await transfer(postgres_url, f"sqlite:///{back_path}", check=cli._replay_problem)
    assert back.tables == there.tables and (back.matches, back.problems) == (matches, {})
    assert read_rows(back_path) == original  # identical, row for row, in key order

    # the copy is a working database: ids go on after the copied ones, and a running match goes on
    for location in (postgres_url, back_path):
        db = await Database.open(location)
        try:
            services = Services(db, computer_id=99, clock=Clock(Clock().now + 0.7 * 86400))
            fresh = await service_match(services, "chopsticks", GUILD, (ALICE, CAROL))
            assert fresh.id == max(row[0] for row in original["matches"]) + 1
            running = await services.reading.get_match(min(row[0] for row in original["matches"] if row[8] == "active"))
            await _play_some(services, running.id, 1)
            assert (await services.reading.get_match(running.id)).ply == running.ply + 1
            await db.write(Tx.add_outbox, "result", fresh.id, GUILD, 1.0)
        finally:
            await db.close()


def test_the_command_prints_a_summary_and_refuses_a_target_holding_data(server: Path, postgres_url: str,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    before = _digest(server)
    assert cli.main(["migrate-db", str(server), postgres_url]) == 0
    out = capsys.readouterr().out
    rows = sum(len(found) for table, found in read_rows(server).items() if table in TABLES)
    matches = len(read_rows(server)["matches"])
    assert f"{rows} rows in {len(TABLES)} tables" in out and "row count checked" in out
    assert f"replayed {matches} matches: every move log gives its stored state" in out
    assert _digest(server) == before  # the source is only read

    copied = read_rows(postgres_url)
    assert cli.main(["migrate-db", str(server), postgres_url]) == 2  # the target now holds data
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "already holds data" in err and "nothing was changed" in err
    assert read_rows(postgres_url) == copied


async def test_refusals_change_nothing(server: Path, postgres_url: str, tmp_path: Path) -> None:
    before = _digest(server)
    missing = tmp_path / "typo.db"
    new = tmp_path / "new.db"
    with pytest.raises(TransferRefused, match="no database at"):
        await transfer(missing, new)
    assert not missing.exists() and not new.exists()
    with pytest.raises(TransferRefused, match="both the source and the target"):
        await transfer(server, f"sqlite:///{server}")
    with pytest.raises(TransferRefused, match="both the source and the target"):
        await transfer(postgres_url, postgres_url.replace("postgresql://", "postgres://") + "?application_name=x")
    assert _digest(server) == before

    # a SQLite target with one row, and a PostgreSQL one at this schema with one row
    target = tmp_path / "busy.db"
    for location in (target, postgres_url):
        db = await Database.open(location)
        try:
            await db.write(Tx.put_meta, "mine", "1")
        finally:
            await db.close()
        held = read_rows(location)
        with pytest.raises(TransferRefused, match="already holds data"):
            await transfer(server, location)
        assert read_rows(location) == held
    # a file that is not a database, as source and as target
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database\n" * 100)
    for source, destination in ((junk, tmp_path / "other.db"), (server, junk)):
        with pytest.raises(TransferRefused, match="not a SQLite database"):
            await transfer(source, destination)
    assert junk.read_bytes() == b"not a database\n" * 100 and not (tmp_path / "other.db").exists()
    assert _digest(server) == before


async def test_a_failed_copy_is_rolled_back(server: Path, postgres_url: str, capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    with contextlib.closing(sqlite3.connect(server)) as conn, conn:  # a value PostgreSQL's integer column refuses
        conn.execute("UPDATE ratings SET games = 'many' WHERE rowid = (SELECT MAX(rowid) FROM ratings)")
    with pytest.raises(TransferFailed, match="copying ratings: invalid input syntax for type integer"):
        await transfer(server, postgres_url)
    assert all(not rows for rows in read_rows(postgres_url).values())  # migrated, and still empty
    assert set(read_rows(postgres_url)) == TABLES | DERIVED
    assert await asyncio.to_thread(cli.main, ["migrate-db", str(server), postgres_url]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rolled back" in err
    assert all(not rows for rows in read_rows(postgres_url).values())

    # the other way: a copy into a new SQLite file that fails leaves no file behind
    with psycopg.connect(postgres_url) as conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('a', 'x'), ('b', 'y')")
        conn.execute("ALTER TABLE meta DROP CONSTRAINT meta_pkey")
        conn.execute("UPDATE meta SET key = 'a'")  # two rows with one key, which SQLite's primary key refuses
    with pytest.raises(TransferFailed, match="copying meta: UNIQUE constraint failed"):
        await transfer(postgres_url, tmp_path / "new.db")
    assert not [name for name in ("new.db", "new.db-wal", "new.db-shm") if (tmp_path / name).exists()]


async def test_verification_reports_a_tampered_state_and_a_damaged_row(
        server: Path, server_file: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    roles = server_file[1]
    running, duel = roles["running"], roles["duel"]
    with contextlib.closing(sqlite3.connect(server)) as conn, conn:
        # the running match's stored position put back to its start: a sound state, but not its log's
        conn.execute("UPDATE matches SET state = initial_state WHERE id = ?", (running,))
        conn.execute("UPDATE matches SET state = '{\"broken' WHERE id = ?", (duel,))
    target = tmp_path / "copy.db"
    report = await transfer(server, target, check=cli._replay_problem)
    assert set(report.problems) == {running, duel}
    assert "another state than the stored one" in report.problems[running]
    assert report.problems[duel].startswith("damaged:")
    assert report.tables["matches"] == len(read_rows(server)["matches"])  # copied as found, not fatal
    assert read_rows(target) == read_rows(server)


async def test_an_older_sqlite_source_is_upgraded_in_a_copy(tmp_path: Path, postgres_url: str) -> None:
    fixture = Path(__file__).parent / "data" / "schema1_matches.sql"
    source = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(source)) as conn:
        conn.executescript(MIGRATIONS[0])
        conn.executescript(fixture.read_text(encoding="utf-8"))
        for number in range(1, 5):
            conn.executescript(MIGRATIONS[number])
        conn.execute("PRAGMA user_version=5")
        conn.commit()
    assert SCHEMA_VERSION > 5
    before = _digest(source)
    report = await transfer(source, postgres_url, check=cli._replay_problem)
    assert report.upgraded_from == 5 and report.tables["matches"] == 13
    assert _digest(source) == before
    with contextlib.closing(sqlite3.connect(source)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (5,)
    db = await Database.open(postgres_url)
    try:
        assert len(await db.read(ReadTx.all_match_ids)) == 13
    finally:
        await db.close()


async def test_a_newer_source_is_refused(server: Path, tmp_path: Path) -> None:
    with contextlib.closing(sqlite3.connect(server)) as conn:
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(TransferRefused, match="newer than this code"):
        await transfer(server, tmp_path / "new.db")
    assert not (tmp_path / "new.db").exists()


# ---------------------------------------------------------------- backup and inspect on PostgreSQL


def test_backup_of_postgresql_runs_pg_dump_and_restores(server: Path, postgres_url: str, second_url: str,
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["migrate-db", str(server), postgres_url]) == 0
    dump = tmp_path / "napkin.dump"
    assert cli.main(["backup", str(dump), "--database", postgres_url]) == 0
    assert dump.read_bytes().startswith(b"PGDMP")  # pg_dump's custom format
    assert "pg_restore" in capsys.readouterr().out
    restore = shutil.which("pg_restore")
    assert restore is not None
    import subprocess
    subprocess.run([restore, "--no-owner", f"--dbname={second_url}", str(dump)], check=True, capture_output=True)
    assert read_rows(second_url) == read_rows(postgres_url)

    size = dump.stat().st_size
    assert cli.main(["backup", str(dump), "--database", postgres_url]) == 2  # an existing file is never replaced
    assert "already exists" in capsys.readouterr().err and dump.stat().st_size == size


def test_backup_without_pg_dump_says_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    url = "postgresql://napkin:secret@db.example:5432/napkin"
    assert cli.main(["backup", str(tmp_path / "napkin.dump"), "--database", url]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"pg_dump --format=custom --file={tmp_path / 'napkin.dump'}" in err and "secret" not in err
    assert not (tmp_path / "napkin.dump").exists()


def test_backup_of_an_unreachable_postgresql_fails_in_one_line(tmp_path: Path, postgres_cluster: Cluster,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    url = postgres_cluster.url("no_such_database")
    assert cli.main(["backup", str(tmp_path / "napkin.dump"), "--database", url]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pg_dump failed" in err and "no_such_database" in err
    assert not (tmp_path / "napkin.dump").exists()


def test_inspect_reads_a_match_on_postgresql(server: Path, server_file: tuple[Path, dict[str, int]],
                                             postgres_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["migrate-db", str(server), postgres_url]) == 0
    capsys.readouterr()
    running = server_file[1]["running"]
    assert cli.main(["inspect", str(running), "--database", postgres_url]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == running and shown["status"] == "active"
    assert [seat["display_name"] for seat in shown["seats"]] == ["alice", "bob"]
    assert [move["ply"] for move in shown["moves"]] == list(range(1, shown["ply"] + 1)) and shown["ply"] == 3
    assert cli.main(["inspect", "999999", "--database", postgres_url]) == 2
    assert "no match #999999" in capsys.readouterr().err
