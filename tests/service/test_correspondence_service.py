"""Correspondence rules of the match service with a settable clock: a match whose first move never comes is
aborted at its deadline (not forfeited), and the opponent of the player to move can give extra time."""

from __future__ import annotations

import pytest

from bot.service import EXTRA_TIME_LIMIT, LimitReached, MatchOver, NotAllowed, Player, Services, TimeRanOut
from storage import Database, ReadTx
from tests.bot.helpers import snapshot, stored
from tests.reliability._support import Clock, service_match

pytestmark = pytest.mark.both_backends

DAY = 86400.0
ALICE, BOB, CAROL = Player(1, "alice"), Player(2, "bob"), Player(3, "carol")
GUILD = 10


async def _duel(services: Services, days: int = 3) -> int:
    return (await service_match(services, "chopsticks", GUILD, (ALICE, BOB), channel_id=5, days=days)).id


async def _ratings(db: Database) -> list[tuple[str, int]]:
    return sorted((r.display_name, r.games) for r in await db.read(ReadTx.ratings_of_game, GUILD, "chopsticks"))


# ------------------------------------------------------------ no first move, no forfeit


@pytest.mark.parametrize("moves", [(), ("LL",)], ids=["nobody moved", "only the first player moved"])
async def test_a_match_without_a_first_move_from_each_side_is_aborted_at_its_deadline(
        db: Database, moves: tuple[str, ...]) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=1)
    for move in moves:
        await services.moves.play(match_id, GUILD, ALICE.user_id, move)
    deadline = (await stored(db, match_id)).deadline
    assert deadline is not None
    clock.now = deadline - 1
    work = await services.deadlines.process_due()
    assert work.aborted == [] and (await stored(db, match_id)).status == "active"
    clock.now = deadline
    work = await services.deadlines.process_due()
    assert [m.id for m in work.aborted] == [match_id] and work.forfeited == []
    match = await stored(db, match_id)
    absent = len(moves)  # the seat that never moved: alice (0) when nobody moved, else bob (1)
    assert match.status == "aborted" and match.end_reason == "aborted" and match.deadline is None
    assert match.outcome == {"winner": None, "draw": False, "scores": None, "termination": "aborted",
                             "loser": absent}
    assert match.rating_changes is None and await _ratings(db) == []  # it counts for nobody
    news = await db.read(ReadTx.due_outbox, clock.now)  # the reminder queued before, and the final board
    assert [(n.match_id, n.kind) for n in news] == [(match_id, "reminder"), (match_id, "result")]


async def test_once_both_sides_moved_the_deadline_still_forfeits(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=1)
    for player, move in ((ALICE, "LL"), (BOB, "LL")):
        await services.moves.play(match_id, GUILD, player.user_id, move)
    clock.now += DAY
    work = await services.deadlines.process_due()
    assert work.aborted == [] and [m.id for m in work.forfeited] == [match_id]
    match = await stored(db, match_id)
    assert match.status == "finished" and match.outcome is not None
    assert (match.outcome["termination"], match.outcome["winner"], match.outcome["loser"]) == ("out_of_time", 1, 0)
    assert await _ratings(db) == [("alice", 1), ("bob", 1)]


async def test_a_first_move_after_the_deadline_aborts_instead_of_being_played(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=1)
    clock.now += DAY + 5  # the deadline pass has not run yet
    with pytest.raises(TimeRanOut, match="aborted") as late:
        await services.moves.play(match_id, GUILD, ALICE.user_id, "LL")
    assert late.value.match.status == "aborted"
    match = await stored(db, match_id)
    assert match.status == "aborted" and match.ply == 0 and await db.read(ReadTx.get_moves, match_id) == []
    assert match.outcome is not None and match.outcome["loser"] == 0


# ------------------------------------------------------------ extra time


async def test_the_opponent_gives_a_day_at_most_three_times(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=2)
    await services.moves.play(match_id, GUILD, ALICE.user_id, "LL")  # bob to move
    before = await stored(db, match_id)
    assert before.deadline == clock.now + 2 * DAY
    for given in range(1, EXTRA_TIME_LIMIT + 1):
        updated = await services.endings.give_time(match_id, GUILD, ALICE.user_id)
        assert updated.deadline == before.deadline + given * DAY
        assert updated.times_given(0) == given and updated.times_given(1) == 0
        assert updated.version == before.version + given
    match = await stored(db, match_id)
    assert match.deadline == before.deadline + EXTRA_TIME_LIMIT * DAY and match.time_given == [EXTRA_TIME_LIMIT, 0]
    unchanged = await snapshot(db)
    with pytest.raises(LimitReached, match=f"{EXTRA_TIME_LIMIT} times"):
        await services.endings.give_time(match_id, GUILD, ALICE.user_id)
    assert await snapshot(db) == unchanged
    # the extended deadline is the one the pass keeps: no forfeit at the old one
    clock.now = before.deadline + DAY
    assert (await services.deadlines.process_due()).aborted == []
    assert (await stored(db, match_id)).status == "active"
    # a move sets a fresh deadline; the counts stay with the match
    moved = await services.moves.play(match_id, GUILD, BOB.user_id, "LL")
    assert moved.match.deadline == clock.now + 2 * DAY
    assert (await stored(db, match_id)).time_given == [EXTRA_TIME_LIMIT, 0]
    given = await services.endings.give_time(match_id, GUILD, BOB.user_id)  # bob's own allowance is untouched
    assert given.deadline == clock.now + 3 * DAY and given.time_given == [EXTRA_TIME_LIMIT, 1]


@pytest.mark.parametrize("case", ["own turn", "no deadline", "not seated", "computer", "time ran out", "over"])
async def test_refused_extra_time_changes_nothing(db: Database, case: str) -> None:
    clock = Clock()
    services = Services(db, clock=clock, computer_id=99)
    if case == "computer":
        match_id = (await services.challenges.start_solo(guild_id=GUILD, channel_id=5, game="chopsticks", variant={},
                                                         player=ALICE, level="easy", days_per_move=3)).id
        giver, expected, error = ALICE, "nobody to give time to", NotAllowed
    else:
        match_id = await _duel(services, days=0 if case == "no deadline" else 3)
        giver, expected, error = {
            "own turn": (ALICE, "your own turn", NotAllowed),
            "no deadline": (BOB, "no time limit", NotAllowed),
            "not seated": (CAROL, "not playing", NotAllowed),
            "time ran out": (BOB, "already run out", NotAllowed),
            "over": (BOB, "is over", MatchOver),
        }[case]
        if case == "time ran out":
            clock.now += 3 * DAY
        if case == "over":
            await services.endings.resign(match_id, GUILD, ALICE.user_id)
    match = await stored(db, match_id)
    assert (match.deadline is None) == (case in ("no deadline", "over"))
    before = await snapshot(db)
    with pytest.raises(error, match=expected):
        await services.endings.give_time(match_id, GUILD, giver.user_id)
    assert await snapshot(db) == before
