"""The deadline pass, the computer turns to resume, a member's match list and the leaderboards: the same answers as
the plain definitions, read along their indexes, so each costs what it returns (on
both backends: SQLite's ``EXPLAIN QUERY PLAN``, PostgreSQL's ``EXPLAIN`` with sequential scans priced out, since a
small test table would otherwise be scanned whole)."""
# ruff: noqa: S608  (queries built from the storage module's own constants, to check their plans)

from __future__ import annotations

import contextlib
import dataclasses
import random

import pytest

from bot.service import ratings
from storage import Database, RatingRecord, ReadTx, SeatRecord, Shards, Tx
from storage.queries.matches import _COMPUTER_TURN, _DUE_AT, _DUE_WHERE
from storage.queries.ratings import _PAR_ORDER, _RANK_ORDER, _reversed_order

pytestmark = pytest.mark.both_backends

DAY = 86400.0


async def _plan(db: Database, sql: str, *, bitmaps: bool = True) -> str:
    if db.backend == "sqlite":
        return " ".join(str(tuple(row)[-1]) for row in await db.fetchall("EXPLAIN QUERY PLAN " + sql))

    def explain(tx: ReadTx) -> str:
        tx._conn.execute("SET LOCAL enable_seqscan = off")
        if not bitmaps:
            tx._conn.execute("SET LOCAL enable_bitmapscan = off")
        return " ".join(str(row[0]) for row in tx._conn.execute("EXPLAIN " + sql).fetchall())

    return await db.read(explain)


def _reads_along(db: Database, plan: str, index: str) -> bool:
    """``True`` when ``plan`` reads ``index`` in the order asked (SQLite: no temporary B-tree; PostgreSQL: no Sort)."""
    if db.backend == "sqlite":
        return index in plan and "TEMP B-TREE" not in plan
    return f"using {index.split()[-1]}" in plan and "Sort" not in plan


def _rowid(db: Database) -> str:
    return "rowid" if db.backend == "sqlite" else "ctid"


async def test_due_matches_and_next_deadline_agree_with_their_definition(db: Database) -> None:
    rng = random.Random(3)
    now = 1_000_000.0

    def fill(tx: Tx) -> None:
        for number in range(400):
            days = rng.choice((0, 1, 3, 14))
            deadline = None if rng.random() < 0.2 else now + rng.uniform(-2, 15) * DAY
            match_id = tx.insert_match(guild_id=1, channel_id=2, game="chopsticks", variant={}, state={},
                                       current_seat=0, days_per_move=days, deadline=deadline, rated=True,
                                       now=number, seats=[SeatRecord(0, 5, "a"), SeatRecord(1, 6, "b")])
            changes: dict[str, object] = {"reminded": rng.random() < 0.5}
            if rng.random() < 0.2:
                changes["status"] = "finished"
            tx.update_match(match_id, 0, **changes)

    await db.write(fill)
    rows = await db.fetchall("SELECT id, status, deadline, reminded, days_per_move FROM matches")
    live = [r for r in rows if r["status"] == "active" and r["deadline"] is not None]

    def due_at(row: object) -> float:
        r: dict[str, float] = dict(row)  # type: ignore[call-overload]
        return r["deadline"] - r["days_per_move"] * DAY / 3 if not r["reminded"] else r["deadline"]

    expected = sorted((r for r in live if r["deadline"] <= now or
                       (not r["reminded"] and r["deadline"] - now <= r["days_per_move"] * DAY / 3)),
                      key=lambda r: (due_at(r), r["id"]))
    found = await db.read(ReadTx.due_match_ids, now)
    assert found == [r["id"] for r in expected] and 0 < len(found) < len(live)
    assert await db.read(ReadTx.next_deadline) == min(due_at(r) for r in live)
    for sql in (f"SELECT id FROM matches WHERE {_DUE_WHERE} AND {_DUE_AT} <= 5 ORDER BY {_DUE_AT}, id",
                f"SELECT {_DUE_AT} FROM matches WHERE {_DUE_WHERE} ORDER BY {_DUE_AT}, id LIMIT 1"):
        plan = await _plan(db, sql)
        assert _reads_along(db, plan, "INDEX matches_due"), plan


def _python_order(rows: list[RatingRecord], solitaire: bool) -> list[int]:
    """The leaderboard order defined in Python (what SQL must reproduce)."""
    if solitaire:
        kept = sorted((r for r in rows if r.best_vs_par is not None),
                      key=lambda r: (r.best_vs_par, -r.games, r.display_name, r.user_id))
    else:
        kept = sorted(rows, key=lambda r: (r.games < ratings.PROVISIONAL_GAMES, -ratings.display_rating(r.mu, r.sigma),
                                           -r.wins, r.display_name, r.user_id))
    return [r.user_id for r in kept]


async def test_leaderboard_pages_follow_the_ranking_in_every_tie(db: Database) -> None:
    rng = random.Random(8)
    rows = [RatingRecord(1, "chopsticks", user, rng.choice("abc") * rng.randint(1, 2), rng.choice((20.0, 24.9, 25.0)),
                         rng.choice((1.0, 2.0, 8.333)), rng.randint(0, 9), rng.randint(0, 3), 0, 0,
                         rng.choice((None, -1, 0, 2))) for user in range(300)]
    rows.append(RatingRecord(2, "chopsticks", 999, "other server", 40.0, 1.0, 9, 9, 0, 0, 0))

    def fill(tx: Tx) -> None:
        for row in rows:
            tx.put_rating(row, 1.0)

    await db.write(fill)
    mine = [r for r in rows if r.guild_id == 1]
    for solitaire in (False, True):
        expected = _python_order(mine, solitaire)
        shown: list[int] = []
        ranks: list[int] = []
        for page in range(1, 100):
            board = await db.read(ratings.leaderboard, 1, "chopsticks", solitaire=solitaire, page=page, rows=7)
            assert board.ranked == len(expected) and board.pages == -(-len(expected) // 7)
            if page > board.pages:
                assert board.page == board.pages  # a page past the last shows the last
                break
            shown += [s.user_id for s in board.standings]
            ranks += [s.rank for s in board.standings]
        assert shown == expected and ranks == list(range(1, len(expected) + 1))


async def test_stats_and_leaderboards_read_along_their_indexes(db: Database) -> None:
    rowid = _rowid(db)
    for sql, index in (
        (f"SELECT {rowid} FROM ratings WHERE guild_id = 1 AND game = 'x' ORDER BY {_RANK_ORDER} LIMIT 20 OFFSET 100",
         "COVERING INDEX ratings_rank"),
        (f"SELECT {rowid} FROM ratings WHERE guild_id = 1 AND game = 'x' ORDER BY {_reversed_order(_RANK_ORDER)} "
         "LIMIT 20 OFFSET 100", "COVERING INDEX ratings_rank"),
        (f"SELECT {rowid} FROM ratings WHERE guild_id = 1 AND game = 'x' AND best_vs_par IS NOT NULL "
         f"ORDER BY {_reversed_order(_PAR_ORDER)} LIMIT 20", "INDEX ratings_par"),
        (f"SELECT {rowid} FROM ratings WHERE guild_id = 1 AND game = 'x' AND best_vs_par IS NOT NULL "
         f"ORDER BY {_PAR_ORDER} LIMIT 20", "INDEX ratings_par"),
        ("SELECT * FROM ratings WHERE guild_id = 1 AND user_id = 2 ORDER BY game", "INDEX ratings_member"),
    ):
        plan = await _plan(db, sql)
        assert _reads_along(db, plan, index), plan


async def test_due_vacations_agree_with_their_definition_and_read_along_their_indexes(db: Database) -> None:
    rng = random.Random(5)
    now = 1_000_000.0

    def fill(tx: Tx) -> None:
        for user in range(300):
            started = now - rng.uniform(0, 20) * DAY
            vacation_id = tx.insert_vacation(rng.choice((1, 2)), user, started, started + rng.randint(1, 14) * DAY)
            if rng.random() < 0.3:
                tx.close_vacation(vacation_id, started + 3600, 1)

    await db.write(fill)
    rows = [dict(r) for r in await db.fetchall("SELECT id, ends_by, ended_at FROM vacations")]
    open_rows = [r for r in rows if r["ended_at"] is None]
    expected = sorted((r for r in open_rows if r["ends_by"] <= now), key=lambda r: (r["ends_by"], r["id"]))
    found = await db.read(ReadTx.due_vacations, now)
    assert [v.id for v in found] == [r["id"] for r in expected] and 0 < len(found) < len(open_rows)
    assert await db.read(ReadTx.next_vacation_end) == min(r["ends_by"] for r in open_rows)
    for sql, index in (
        ("SELECT id FROM vacations WHERE ended_at IS NULL AND ends_by <= 5 ORDER BY ends_by, id",
         "INDEX vacations_due"),
        ("SELECT ends_by FROM vacations WHERE ended_at IS NULL ORDER BY ends_by LIMIT 1", "INDEX vacations_due"),
    ):
        plan = await _plan(db, sql, bitmaps=False)  # (a table this small makes PostgreSQL prefer a bitmap and a sort)
        assert _reads_along(db, plan, index), plan
    plan = await _plan(db, "SELECT id FROM vacations WHERE guild_id = 1 AND user_id = 2 AND ended_at IS NULL",
                       bitmaps=False)  # a member's open vacation: either index of a member's vacations finds it
    assert any(_reads_along(db, plan, index) for index in ("INDEX vacations_open", "INDEX vacations_member")), plan


async def _analysed(db: Database) -> None:
    """PostgreSQL plans from its statistics of the tables just filled (SQLite has none to gather)."""
    if db.backend == "postgresql":
        await db.write(lambda tx: tx._conn.execute("ANALYZE"))


async def test_computer_turns_agree_with_their_definition_and_read_along_their_index(db: Database) -> None:
    rng = random.Random(11)

    def fill(tx: Tx) -> None:
        for number in range(300):
            computer = rng.choice((None, 0, 1))
            seats = [SeatRecord(seat, 5 + seat, "a", "easy" if seat == computer else None) for seat in (0, 1)]
            if rng.random() < 0.05:  # a computer match between two computers (the demo's)
                seats = [SeatRecord(seat, 0, "computer", "hard") for seat in (0, 1)]
            match_id = tx.insert_match(guild_id=1 + number % 3, channel_id=2, game="chopsticks", variant={},
                                       state={}, current_seat=rng.choice((0, 1)), days_per_move=3, deadline=None,
                                       rated=False, now=number, seats=seats)
            if rng.random() < 0.3:
                tx.update_match(match_id, 0, status=rng.choice(("finished", "aborted")), current_seat=None)

    await db.write(fill)
    await _analysed(db)
    expected = [int(row[0]) for row in await db.fetchall(
        "SELECT m.id FROM matches m JOIN seats s ON s.match_id = m.id AND s.seat = m.current_seat "
        "WHERE m.status = 'active' AND s.level IS NOT NULL ORDER BY m.id")]
    assert await db.read(ReadTx.computer_to_move) == expected and 0 < len(expected) < 300
    shards = Shards(3, (1,))
    assert await db.read(ReadTx.computer_to_move, shards) == [
        match_id for match_id in expected if shards.serves(int((await db.fetchone(
            "SELECT guild_id FROM matches WHERE id = ?", (match_id,)))[0]))]
    plan = await _plan(db, f"SELECT id FROM matches WHERE {_COMPUTER_TURN} ORDER BY id")
    assert _reads_along(db, plan, "INDEX matches_computer_turn"), plan


async def test_a_members_match_list_reads_their_seats_not_every_match(db: Database) -> None:
    def fill(tx: Tx) -> None:
        for number in range(2000):  # member 7 plays 20 of them; the others are other members'
            member = 7 if number % 100 == 0 else 100 + number % 500
            match_id = tx.insert_match(guild_id=1, channel_id=2, game="chopsticks", variant={}, state={},
                                       current_seat=0, days_per_move=3, deadline=None, rated=True, now=number,
                                       seats=[SeatRecord(0, member, "a"), SeatRecord(1, 1000 + number, "b")])
            if number % 200 == 0:
                tx.update_match(match_id, 0, status="finished", current_seat=None)

    await db.write(fill)
    await _analysed(db)
    page = await db.read(ReadTx.active_matches_of, 1, 7, 5, 5)
    assert [m.created_at for m in page] == [900.0, 700.0, 500.0, 300.0, 100.0]  # newest first, the 2nd page
    assert await db.read(ReadTx.count_active, 1, 7) == 10
    for sql in (
        "SELECT id FROM matches WHERE guild_id = 1 AND status = 'active' AND damage IS NULL AND id IN "
        "(SELECT match_id FROM seats WHERE user_id = 7 AND level IS NULL) ORDER BY updated_at DESC, id DESC "
        "LIMIT 5 OFFSET 5",
        "SELECT COUNT(*) FROM matches m JOIN seats s ON s.match_id = m.id WHERE m.guild_id = 1 AND "
        "m.status = 'active' AND s.user_id = 7 AND s.level IS NULL AND (1 = 0 OR m.damage IS NULL)",
    ):
        plan = await _plan(db, sql)
        assert "seats_user" in plan, plan  # from the member's seats, each match then found by its id ...
        if db.backend == "sqlite":  # ... never through every match (of the server)
            assert "SCAN" not in plan, plan
        else:
            assert "Seq Scan" not in plan and "matches_guild_status" not in plan, plan


async def test_board_sizes_follow_every_change_of_the_ratings(db: Database) -> None:
    rng = random.Random(4)
    rows = [RatingRecord(rng.choice((1, 2)), rng.choice(("chopsticks", "groebner_nim/solitaire")), user, "m", 25.0,
                         8.0, 1, 1, 0, 0, rng.choice((None, 0, 2))) for user in range(200)]

    def change(tx: Tx) -> None:
        for row in rows:
            tx.put_rating(row, 1.0)
        for row in rows[:60]:  # a result against par comes or goes, or stays
            tx.put_rating(dataclasses.replace(row, best_vs_par=rng.choice((None, -1, 3))), 2.0)
        tx._conn.execute("DELETE FROM ratings WHERE user_id < 10")
        with contextlib.suppress(ValueError), tx.savepoint("undone"):  # undone: counts nothing
            tx.put_rating(dataclasses.replace(rows[0], user_id=5000), 3.0)
            raise ValueError("rolled back")

    await db.write(change)
    expected = [tuple(row) for row in await db.fetchall(
        "SELECT guild_id, game, COUNT(*), COUNT(best_vs_par) FROM ratings GROUP BY guild_id, game "
        "ORDER BY guild_id, game")]
    assert [tuple(row) for row in await db.fetchall(
        "SELECT guild_id, game, ranked, with_par FROM leaderboard_sizes ORDER BY guild_id, game")] == expected
    assert len(expected) == 4 and all(row[2] > row[3] > 0 for row in expected)
    for guild, game, ranked, with_par in expected:
        for solitaire, size in ((False, ranked), (True, with_par)):
            board = await db.read(ratings.leaderboard, guild, game, solitaire=solitaire, page=10**6, rows=7)
            assert board.ranked == size and len(board.standings) == (size - 1) % 7 + 1
    plan = await _plan(db, "SELECT ranked FROM leaderboard_sizes WHERE guild_id = 1 AND game = 'x'")
    assert "leaderboard_sizes" in plan and "Seq Scan" not in plan and "SCAN leaderboard_sizes" not in plan, plan
