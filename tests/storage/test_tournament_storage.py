"""Storage of tournaments and seasons: the upgrade that adds them keeps every stored row, a round is stored once
(its primary key), a board's result is written once, news is claimed by one process at a time, and a member's season
record adds up."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from storage import (
    Database,
    ReadTx,
    SeasonRecord,
    SeatRecord,
    SettingsRecord,
    TournamentEntryRecord,
    TournamentPairingRecord,
    Tx,
)
from storage.migrations import MIGRATIONS, SCHEMA_VERSION
from storage.queries.ratings import _RANK_ORDER
from storage.queries.seasons import _SEASON_ORDER
from tests.storage.test_database import _schema1_database, _table_rows
from tests.storage.test_indexed_queries import _plan, _reads_along, _rowid

pytestmark = pytest.mark.both_backends

TOURNAMENTS_MIGRATION = next(number for number, text in enumerate(MIGRATIONS) if "CREATE TABLE tournaments" in text)
"""The index of the migration that adds tournaments (the schema before it is this number)."""


def _schema_before_tournaments(path: Path) -> None:
    """The fixture's real matches as the schema just before tournaments holds them (every earlier migration applied
    by hand), with a server's settings."""
    _schema1_database(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for number in range(1, TOURNAMENTS_MIGRATION):
            conn.executescript(MIGRATIONS[number])
        conn.execute("INSERT INTO guild_settings (guild_id, days_per_move, use_threads, allowed_channels, max_active, "
                     "rate_computer, vacation_days, updated_at) VALUES (1, 7, 0, '[5]', 10, 1, 20, 1700000000.0)")
        conn.execute(f"PRAGMA user_version={TOURNAMENTS_MIGRATION}")
        conn.commit()


async def test_upgrade_keeps_real_matches_and_adds_tournaments_and_seasons(db_path: Path) -> None:
    _schema_before_tournaments(db_path)
    tables = ("matches", "moves", "seats", "challenges", "ratings", "premoves", "vacations", "member_prefs")
    before = {table: _table_rows(db_path, f"SELECT * FROM {table} ORDER BY rowid") for table in tables}  # noqa: S608 - fixed names
    assert len(before["matches"]) == 13 and len(before["moves"]) > 100
    db = await Database.open(db_path)
    try:
        assert (await db.fetchone("PRAGMA user_version"))[0] == SCHEMA_VERSION
        for table in tables:  # every row and column kept (the migration only adds tables and one column)
            after = _table_rows(db_path, f"SELECT * FROM {table} ORDER BY rowid")  # noqa: S608 - fixed names
            assert [row[:len(before[table][0])] for row in after] == before[table] if before[table] else not after
        settings = await db.read(ReadTx.get_settings, 1)
        assert (settings.days_per_move, settings.allowed_channels, settings.vacation_days, settings.seasons) == \
            (7, [5], 20, "off")
        for table in ("tournaments", "tournament_entries", "tournament_rounds", "tournament_pairings",
                      "season_records"):
            assert await db.fetchall(f"SELECT * FROM {table}") == []  # noqa: S608 - fixed names
        # an upgraded match becomes a tournament's game at once
        tournament_id = await db.write(_tournament)
        await db.write(Tx.insert_round, tournament_id, 1, "dutch", 5.0)
        await db.write(Tx.insert_pairing, TournamentPairingRecord(tournament_id, 1, 1, 10, 11, "game", match_id=13))
        board = await db.read(ReadTx.tournament_pairing_of_match, 13)
        assert board is not None and (board.tournament_id, board.round, board.first_points) == (tournament_id, 1, None)
        assert await db.read(ReadTx.tournament_pairing_of_match, 12) is None
    finally:
        await db.close()


def _tournament(tx: Tx, guild_id: int = 1, status_open: bool = True) -> int:
    return tx.insert_tournament(guild_id=guild_id, channel_id=2, name="Cup", game="chopsticks", variant={},
                                fmt="swiss", rounds=3, days_per_move=3, max_players=16, rated=True, organizer_id=10,
                                organizer_name="alice", starts_at=None, now=1.0)


async def _match(db: Database, a: int = 10, b: int = 11) -> int:
    def body(tx: Tx) -> int:
        return tx.insert_match(guild_id=1, channel_id=2, game="chopsticks", variant={}, state={"ply": 0},
                               current_seat=0, days_per_move=3, deadline=1e9, rated=True, now=1.0,
                               seats=[SeatRecord(0, a, "a"), SeatRecord(1, b, "b")])

    return await db.write(body)


async def test_a_round_is_stored_once_and_a_result_written_once(db: Database) -> None:
    tournament_id = await db.write(_tournament)
    for number, user in enumerate((10, 11, 12), start=1):
        await db.write(Tx.insert_entry, TournamentEntryRecord(tournament_id, user, f"m{user}", number, joined_at=1.0))
    with pytest.raises(db.IntegrityError):  # entered twice
        await db.write(Tx.insert_entry, TournamentEntryRecord(tournament_id, 10, "again", 4, joined_at=1.0))
    match_id = await _match(db)
    await db.write(Tx.insert_round, tournament_id, 1, "dutch", 2.0)
    with pytest.raises(db.IntegrityError):  # the primary key pairs a round once, whoever comes second
        await db.write(Tx.insert_round, tournament_id, 1, "dutch", 3.0)
    await db.write(Tx.insert_pairing, TournamentPairingRecord(tournament_id, 1, 1, 10, 11, "game", match_id=match_id))
    await db.write(Tx.insert_pairing, TournamentPairingRecord(tournament_id, 1, 2, 12, None, "bye", first_points=1.0,
                                                         played=False))
    with pytest.raises(db.IntegrityError):  # a game names its match; a bye has no opponent
        await db.write(Tx.insert_pairing, TournamentPairingRecord(tournament_id, 1, 3, 12, 10, "game"))
    with pytest.raises(db.IntegrityError):  # a board belongs to a paired round
        await db.write(Tx.insert_pairing, TournamentPairingRecord(tournament_id, 2, 1, 12, None, "bye",
                                                                  first_points=1.0))
    assert await db.read(ReadTx.boards_waiting, tournament_id, 1) == 1
    assert await db.read(ReadTx.ended_unrecorded, tournament_id) == []
    assert await db.write(Tx.update_match, match_id, 0, status="finished", current_seat=None)
    assert await db.read(ReadTx.ended_unrecorded, tournament_id) == [match_id]
    assert await db.write(Tx.set_board_result, tournament_id, 1, 1, 1.0, 0.0, True)
    assert not await db.write(Tx.set_board_result, tournament_id, 1, 1, 0.0, 1.0, True)  # written once
    boards = await db.read(ReadTx.tournament_pairings, tournament_id, 1)
    assert [(b.first_points, b.second_points, b.played) for b in boards] == [(1.0, 0.0, True), (1.0, None, False)]
    assert await db.read(ReadTx.boards_waiting, tournament_id, 1) == 0
    assert await db.read(ReadTx.paired_rounds, tournament_id) == [(1, "dutch")]


async def test_tournament_updates_are_versioned_and_whitelisted(db: Database) -> None:
    tournament_id = await db.write(_tournament)
    assert await db.write(Tx.update_tournament, tournament_id, 0, status="running", current_round=1)
    assert not await db.write(Tx.update_tournament, tournament_id, 0, status="finished")  # the version moved on
    with pytest.raises(ValueError, match="guild_id"):
        await db.write(Tx.update_tournament, tournament_id, 1, guild_id=2)
    with pytest.raises(ValueError, match="level"):
        await db.write(Tx.update_entry, tournament_id, 10, level="hard")
    stored = await db.read(ReadTx.get_tournament, tournament_id)
    assert stored is not None and (stored.status, stored.current_round, stored.version) == ("running", 1, 1)
    assert await db.read(ReadTx.running_tournament_ids) == [tournament_id]
    count, page = await db.read(ReadTx.tournaments_of_guild, 1, ("running",), 10)
    assert count == 1 and [t.id for t in page] == [tournament_id]
    assert await db.read(ReadTx.tournament_choices, 1, ("running",), "cu") == [(tournament_id, "Cup", "running")]
    assert await db.read(ReadTx.tournament_choices, 2, ("running",), "") == []  # another server's: none


async def test_news_is_claimed_by_one_process_at_a_time(db: Database) -> None:
    tournament_id = await db.write(_tournament)
    await db.write(Tx.add_outbox, "round", tournament_id, 1, 10.0, seq=1)
    await db.write(Tx.add_outbox, "round", tournament_id, 1, 11.0, seq=1)  # once per kind, subject and step
    claimed = await db.write(Tx.claim_outbox, 20.0, 320.0, 10, None)
    assert [(n.kind, n.subject_id, n.seq) for n in claimed] == [("round", tournament_id, 1)]
    assert await db.write(Tx.claim_outbox, 21.0, 321.0, 10, None) == []  # held until 320
    assert await db.read(ReadTx.next_outbox) == 320.0
    await db.write(Tx.outbox_progress, claimed[0].id, 1)  # its first message posted
    await db.write(Tx.outbox_retry, claimed[0].id, 400.0, "503 Service Unavailable")
    again = await db.write(Tx.claim_outbox, 400.0, 700.0, 10, None)
    assert [(n.attempts, n.parts_done, n.last_error) for n in again] == [(1, 1, "503 Service Unavailable")]
    await db.write(Tx.outbox_delivered, again[0].id)
    assert await db.read(ReadTx.next_outbox) is None


async def test_season_records_add_up_and_rank(db: Database) -> None:
    await db.write(Tx.put_settings, SettingsRecord(1, seasons="monthly"), 1.0)
    assert (await db.read(ReadTx.get_settings, 1)).seasons == "monthly"
    for record in (SeasonRecord(1, "chopsticks", "2025-03", 10, "alice", 30.0, 5.0, False, 1, 1, 0, 0),
                   SeasonRecord(1, "chopsticks", "2025-03", 10, "alice", 31.0, 4.9, False, 1, 0, 0, 1),
                   SeasonRecord(1, "chopsticks", "2025-03", 11, "bob", 20.0, 5.0, False, 1, 0, 1, 0),
                   SeasonRecord(1, "chopsticks", "2025-03", 12, "carol", 40.0, 8.0, True, 1, 1, 0, 0),
                   SeasonRecord(1, "chopsticks", "2025-04", 11, "bob", 22.0, 5.0, False, 1, 1, 0, 0)):
        await db.write(Tx.add_to_season, record, 2.0)
    ranked, offset, rows = await db.read(ReadTx.season_page, 1, "chopsticks", "2025-03", established_only=True,
                                         offset=0, limit=10)
    assert (ranked, offset) == (2, 0)
    assert [(r.display_name, r.games, r.wins, r.draws, r.mu) for r in rows] == [("alice", 2, 1, 1, 31.0),
                                                                                 ("bob", 1, 0, 0, 20.0)]
    ranked, _, rows = await db.read(ReadTx.season_page, 1, "chopsticks", "2025-03", established_only=False,
                                    offset=0, limit=10)
    assert ranked == 3 and rows[-1].display_name == "carol"  # provisional: after the established ones
    assert await db.read(ReadTx.seasons_of, 1, "chopsticks") == ["2025-04", "2025-03"]


async def test_the_established_leaderboard_and_a_season_read_along_their_indexes(db: Database) -> None:
    rowid = _rowid(db)
    established = (f"SELECT {rowid} FROM ratings WHERE guild_id = 1 AND game = 'x' AND games >= 5 AND "  # noqa: S608 - test text
                   "sigma * sigma + 0.000001 * (1800000000.0 - updated_at) <= 56.25 "
                   f"ORDER BY {_RANK_ORDER} LIMIT 20 OFFSET 100")
    plan = await _plan(db, established)
    assert _reads_along(db, plan, "COVERING INDEX ratings_rank_recent"), plan
    season = ("SELECT user_id FROM season_records WHERE guild_id = 1 AND game = 'x' AND season = '2025-03' "  # noqa: S608 - test text
              f"AND provisional = 0 ORDER BY {_SEASON_ORDER} LIMIT 20")
    plan = await _plan(db, season)
    assert _reads_along(db, plan, "INDEX season_rank"), plan
