"""Storage of puzzles (migration 14, storage/queries/puzzles.py), on both backends: a puzzle stored once by id and
written again only when its record changed; the nearest puzzles a member never attempted; retired puzzles never
served; one attempt per member, puzzle and daily puzzle; a server's daily puzzle once a day; the monthly table."""

from __future__ import annotations

import pytest

from storage import Database, PuzzlePlayerRecord, PuzzleRecord, ReadTx, Tx

pytestmark = pytest.mark.both_backends

NOW = 1_765_000_000.0


def _puzzle(ident: str, rating: float, game: str = "chopsticks", digest: str = "d1") -> PuzzleRecord:
    return PuzzleRecord(ident, game, f'{{"id":"{ident}"}}', digest, rating, 350.0, 0.06)


async def test_a_puzzle_is_stored_once_and_written_again_only_when_its_record_changed(db: Database) -> None:
    assert await db.write(Tx.put_puzzle, _puzzle("chopsticks-a", 1200), NOW)
    assert not await db.write(Tx.put_puzzle, _puzzle("chopsticks-a", 1900), NOW)  # same digest: nothing written
    await db.write(Tx.put_puzzle_rating, "chopsticks-a", 1250.0, 300.0, 0.059)
    await db.write(Tx.retire_puzzle, "chopsticks-a", "the proof no longer holds", NOW)
    retired = await db.read(ReadTx.get_puzzle, "chopsticks-a")
    assert retired is not None and retired.retired_at == NOW and retired.retired_why == "the proof no longer holds"
    assert await db.write(Tx.put_puzzle, _puzzle("chopsticks-a", 1900, digest="d2"), NOW)  # a new record
    again = await db.read(ReadTx.get_puzzle, "chopsticks-a")
    assert again is not None and again.digest == "d2" and again.retired_at is None
    assert (again.rating, again.deviation, again.plays) == (1250.0, 300.0, 1)  # its rating is kept
    assert await db.read(ReadTx.puzzle_digests) == {"chopsticks-a": "d2"}


async def test_the_nearest_puzzles_skip_retired_and_attempted_ones(db: Database) -> None:
    for ident, rating, game in (("c-1", 1000, "chopsticks"), ("c-2", 1480, "chopsticks"), ("c-3", 1530, "chopsticks"),
                                ("c-4", 2000, "chopsticks"), ("p-1", 1500, "polygons")):
        await db.write(Tx.put_puzzle, _puzzle(ident, rating, game), NOW)
    near = await db.read(ReadTx.nearest_puzzles, 7, 1500.0, None, 3)
    assert [p.id for p in near] == ["p-1", "c-2", "c-3"]
    assert [p.id for p in await db.read(ReadTx.nearest_puzzles, 7, 1500.0, "chopsticks", 2)] == ["c-2", "c-3"]
    await db.write(Tx.retire_puzzle, "c-2", "rules changed", NOW)
    await db.write(Tx.add_attempt, 7, "c-3", "ann", NOW)
    await db.write(Tx.add_attempt, 8, "c-4", "ben", NOW)  # someone else's attempt hides nothing from 7
    # 500 points either way: the lower rating first
    assert [p.id for p in await db.read(ReadTx.nearest_puzzles, 7, 1500.0, "chopsticks", 5)] == ["c-1", "c-4"]
    assert await db.read(ReadTx.puzzle_counts) == {"chopsticks": 3, "polygons": 1}


async def test_attempts_players_and_the_daily_puzzle(db: Database) -> None:
    await db.write(Tx.put_puzzle, _puzzle("c-1", 1500), NOW)
    first = await db.write(Tx.add_attempt, 7, "c-1", "ann", NOW)
    assert await db.write(Tx.add_attempt, 7, "c-1", "ann", NOW + 5) == first  # one per member and puzzle
    assert await db.read(ReadTx.open_attempt, 7) == first
    await db.write(Tx.update_attempt, first.id, progress=1, tries=2, answer="LL", solved=False, finished=True,
                   rating_before=1500.0, rating_after=1400.0, finished_at=NOW + 9)
    done = await db.read(ReadTx.get_attempt, first.id)
    assert done is not None and (done.solved, done.finished, done.tries, done.rating_after) == (False, True, 2, 1400.0)
    assert await db.read(ReadTx.open_attempt, 7) is None
    with pytest.raises(ValueError, match="not attempt fields"):
        await db.write(Tx.update_attempt, first.id, user_id=8)
    assert await db.read(ReadTx.puzzle_stats, 7) == [("chopsticks", 1, 0)]

    player = await db.write(Tx.lock_puzzle_player, PuzzlePlayerRecord(7, 1500.0, 350.0, 0.06, updated_at=NOW))
    assert (player.rating, player.rated) == (1500.0, 0)
    player.rating, player.rated, player.streak, player.best_streak = 1580.0, 1, 1, 1
    await db.write(Tx.put_puzzle_player, player)
    assert await db.write(Tx.lock_puzzle_player, PuzzlePlayerRecord(7, 1500.0, 350.0, 0.06)) == player

    await db.write(Tx.put_settings, (await db.read(ReadTx.get_settings, 5)).__class__(5, puzzle_channel_id=66,
                                                                                      puzzle_hour=9), NOW)
    assert await db.read(ReadTx.puzzle_guilds) == [(5, 66, 9)]
    daily = await db.write(Tx.add_daily, 5, "2025-12-06", "c-1", 66, NOW, NOW + 86400)
    assert daily is not None and daily.day == "2025-12-06" and not daily.revealed
    assert await db.write(Tx.add_daily, 5, "2025-12-06", "c-1", 66, NOW, NOW + 86400) is None  # once a day
    await db.write(Tx.set_daily_posted, daily.id, 1001, None)
    await db.write(Tx.set_daily_posted, daily.id, None, 1002)
    await db.write(Tx.set_daily_revealed, daily.id)
    posted = await db.read(ReadTx.latest_daily, 5)
    assert posted is not None and (posted.message_id, posted.thread_id, posted.revealed) == (1001, 1002, True)
    assert await db.read(ReadTx.daily_puzzle_ids, 5) == {"c-1"}
    for user, name, tries, shown in ((7, "ann", 1, False), (8, "ben", 3, False), (9, "cat", 2, True)):
        attempt = await db.write(Tx.add_attempt, user, "c-1", name, NOW, daily_id=daily.id, guild_id=5)
        await db.write(Tx.update_attempt, attempt.id, tries=tries, finished=True, shown=shown, finished_at=NOW + user)
    assert [(a.display_name, a.shown) for a in await db.read(ReadTx.daily_attempts, daily.id)] == [
        ("ann", False), ("ben", False), ("cat", True)]
    assert await db.read(ReadTx.month_table, 5, NOW - 1, NOW + 1, 10) == [(7, "ann", 1, 1), (8, "ben", 1, 3)]
    assert await db.read(ReadTx.month_table, 5, NOW + 1, NOW + 2, 10) == []


async def test_a_servers_puzzles_are_served_there_only_and_the_shipped_record_wins(db: Database) -> None:
    own = PuzzleRecord("c-9", "chopsticks", '{"id":"c-9","source":"match"}', "m", 1500.0, 350.0, 0.06, guild_id=5)
    assert await db.write(Tx.put_puzzle, own, NOW)
    assert [p.id for p in await db.read(ReadTx.nearest_puzzles, 7, 1500.0, None, 5, 5)] == ["c-9"]
    assert await db.read(ReadTx.nearest_puzzles, 7, 1500.0, None, 5, 6) == []  # another server's
    assert await db.read(ReadTx.nearest_puzzles, 7, 1500.0, None, 5) == []  # outside a server
    assert not await db.write(Tx.put_puzzle, PuzzleRecord("c-9", "chopsticks", "{}", "m2", 1500.0, 350.0, 0.06,
                                                          guild_id=6), NOW)  # a match never replaces a record
    assert await db.write(Tx.put_puzzle, _puzzle("c-9", 1400, digest="shipped"), NOW)
    shipped = await db.read(ReadTx.get_puzzle, "c-9")
    assert shipped is not None and (shipped.guild_id, shipped.digest) == (None, "shipped")  # everyone's now
    assert not await db.write(Tx.put_puzzle, own, NOW)
    assert [p.id for p in await db.read(ReadTx.nearest_puzzles, 7, 1500.0, None, 5, 6)] == ["c-9"]
