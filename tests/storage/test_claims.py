"""Claiming work in the database, on both backends: shard filters, leases, the outbox claim, savepoints, rating rows
held while a result is written, and (PostgreSQL) rows another transaction holds being skipped, not waited for."""

from __future__ import annotations

import psycopg
import pytest

from bot.service.vacations import VacationService
from storage import Database, RatingRecord, ReadTx, SeatRecord, Shards, Tx

pytestmark = pytest.mark.both_backends

NOW = 1_700_000_000.0


async def _match(db: Database, guild_id: int = 7 << 22) -> int:
    def body(tx: Tx) -> int:
        return tx.insert_match(guild_id=guild_id, channel_id=1, game="chopsticks", variant={}, state={"n": 1},
                               current_seat=0, days_per_move=1, deadline=NOW, rated=True, now=NOW,
                               seats=[SeatRecord(0, 1, "a"), SeatRecord(1, 2, "b")])

    return await db.write(body)


async def test_the_shard_filter_in_sql_agrees_with_discords_formula(db: Database) -> None:
    shards = Shards(4, (1, 3))
    guilds = [n << 22 | n * 977 for n in range(12)] + [1_234_567_890_123_456_789]
    found = []
    for guild in guilds:
        row = await db.fetchone(f"SELECT {shards.where('x')} FROM (SELECT CAST(? AS BIGINT) AS x) AS t", (guild,))  # noqa: S608 - the filter's own text
        found.append(bool(row[0]))
    assert found == [shards.serves(guild) for guild in guilds]
    assert found.count(True) not in (0, len(guilds))


def test_shards_refuse_bad_sets() -> None:
    for count, ids, reason in [(0, (0,), "at least 1"), (4, (), "at least one"), (4, (1, 1), "twice"),
                               (4, (4,), "shard 4 is outside 0-3")]:
        with pytest.raises(ValueError, match=reason):
            Shards(count, ids)


async def test_a_lease_goes_to_one_taker_until_it_runs_out_or_is_dropped(db: Database) -> None:
    assert await db.write(Tx.take_lease, "job", NOW, NOW + 60) is True
    assert await db.write(Tx.take_lease, "job", NOW + 30, NOW + 90) is False
    assert await db.write(Tx.take_lease, "other", NOW + 30, NOW + 90) is True
    assert await db.write(Tx.take_lease, "job", NOW + 60, NOW + 120) is True  # ran out at NOW + 60
    await db.write(Tx.drop_lease, "job")
    assert await db.write(Tx.take_lease, "job", NOW + 61, NOW + 121) is True


async def test_claimed_news_is_nobody_elses_until_the_claim_runs_out(db: Database) -> None:
    match_id = await _match(db)
    await db.write(Tx.add_outbox, "reminder", match_id, 7 << 22, NOW)
    await db.write(Tx.add_outbox, "result", match_id, 7 << 22, NOW + 5, seq=1)
    claimed = await db.write(Tx.claim_outbox, NOW + 10, NOW + 310, 1)
    assert [(n.kind, n.attempts, n.next_at) for n in claimed] == [("reminder", 0, NOW)]  # oldest first, one asked
    assert [n.kind for n in await db.write(Tx.claim_outbox, NOW + 10, NOW + 310, 25)] == ["result"]
    assert await db.write(Tx.claim_outbox, NOW + 300, NOW + 600, 25) == []
    assert sorted(n.kind for n in await db.write(Tx.claim_outbox, NOW + 310, NOW + 610, 25)) == ["reminder", "result"]
    assert await db.write(Tx.claim_outbox, NOW + 10_000, NOW + 10_300, 25, Shards(2, (0,))) == []  # shard 1's
    assert len(await db.write(Tx.claim_outbox, NOW + 10_000, NOW + 10_300, 25, Shards(2, (1,)))) == 2


async def test_a_savepoint_undoes_only_its_own_writes_and_what_it_published(db: Database) -> None:
    heard: list[object] = []
    db.events.subscribe(heard.append)

    def body(tx: Tx) -> None:
        tx.put_meta("kept", "1")
        tx.publish("kept")
        with pytest.raises(RuntimeError), tx.savepoint("inner"):
            tx.put_meta("undone", "1")
            tx.publish("undone")
            raise RuntimeError("refused")
        tx.put_meta("after", "1")

    await db.write(body)
    assert [await db.read(ReadTx.get_meta, key) for key in ("kept", "undone", "after")] == ["1", None, "1"]
    assert heard == ["kept"]  # told after the commit; what the savepoint undid, never


async def test_what_a_body_publishes_is_heard_only_once_it_committed(db: Database) -> None:
    heard: list[object] = []
    db.events.subscribe(heard.append)

    def refused(tx: Tx) -> None:
        tx.publish("refused")
        raise RuntimeError("refused")

    with pytest.raises(RuntimeError):
        await db.write(refused)
    assert heard == []

    def body(tx: Tx) -> str:
        tx.publish("done")
        assert heard == []  # not while the transaction is open
        return "ok"

    assert await db.write(body) == "ok" and heard == ["done"]


async def test_a_rating_row_is_created_when_missing_and_read_as_stored_otherwise(db: Database) -> None:
    fresh = RatingRecord(9, "chopsticks", 1, "a", 25.0, 8.3, 0, 0, 0, 0, None)
    assert await db.write(Tx.lock_rating, fresh, NOW) == fresh
    await db.write(Tx.put_rating, RatingRecord(9, "chopsticks", 1, "a", 27.0, 7.0, 1, 1, 0, 0, None), NOW)
    held = await db.write(Tx.lock_rating, fresh, NOW)
    assert (held.mu, held.games, held.wins) == (27.0, 1, 1)


async def test_rows_held_by_another_transaction_are_skipped_not_waited_for(db: Database) -> None:
    if db.backend != "postgresql":
        pytest.skip("SQLite has one writer at a time: no row is ever held by another transaction")
    match_id = await _match(db)
    await db.write(Tx.add_outbox, "reminder", match_id, 7 << 22, NOW)
    with psycopg.connect(db.path) as other:  # another process's transaction holds the match and its news
        other.execute("SELECT id FROM matches WHERE id = %s FOR UPDATE", (match_id,))
        other.execute("SELECT id FROM outbox FOR UPDATE")
        assert await db.write(Tx.claim_match, match_id) is None
        assert await db.write(Tx.claim_outbox, NOW, NOW + 300, 25) == []
        other.rollback()
    claimed = await db.write(Tx.claim_match, match_id)
    assert claimed is not None and claimed.id == match_id
    assert len(await db.write(Tx.claim_outbox, NOW, NOW + 300, 25)) == 1


async def test_a_pass_gives_up_on_a_rating_row_held_elsewhere_instead_of_waiting(db: Database) -> None:
    if db.backend != "postgresql":
        pytest.skip("SQLite has one writer at a time: no row is ever held by another transaction")
    fresh = RatingRecord(9, "chopsticks", 1, "a", 25.0, 8.3, 0, 0, 0, 0, None)
    await db.write(Tx.lock_rating, fresh, NOW)

    def patient(tx: Tx) -> RatingRecord:
        tx.wait_briefly_for_locks(100)
        return tx.lock_rating(fresh, NOW)

    with psycopg.connect(db.path) as other:  # another process's pass holds the member's rating row
        other.execute("SELECT user_id FROM ratings FOR UPDATE")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            await db.write(patient)
        other.rollback()
    assert (await db.write(patient)).user_id == 1  # free again: taken at once


async def test_a_due_vacation_is_closed_once_by_the_pass_of_its_shard(db: Database) -> None:
    shards = Shards(2, (0,))
    mine, theirs = 2 << 22, 3 << 22  # shards 0 and 1
    for guild in (mine, theirs):
        await db.write(Tx.insert_vacation, guild, 5, NOW - 86400, NOW)
    assert [v.guild_id for v in await db.read(ReadTx.due_vacations, NOW, shards)] == [mine]
    assert {v.guild_id for v in await db.read(ReadTx.due_vacations, NOW)} == {mine, theirs}
    first = VacationService(db, clock=lambda: NOW + 1, shards=shards)
    second = VacationService(db, clock=lambda: NOW + 1, shards=shards)  # another process serving the same shard
    [closed] = await first.end_due()
    assert (closed.guild_id, closed.ended_at, closed.days) == (mine, NOW, 1)
    assert await second.end_due() == []  # already closed: its member is told once
    [other] = await VacationService(db, clock=lambda: NOW + 1, shards=Shards(2, (1,))).end_due()
    assert other.guild_id == theirs
