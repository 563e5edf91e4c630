"""News Discord refuses for good (403, a channel gone) is given up, recorded and told once; news Discord fails to
take for now (429, 5xx) is retried until delivered."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service.outbox import NEWS_REFUSED_TRIES
from storage import Database, ReadTx
from tests.reliability._support import World

pytestmark = pytest.mark.slow  # a long scenario: news retried through its back-off in real time


def _dms(member: Any) -> list[str]:
    return [message.content for message in member.user.dm_channel.history()]


def _posts_to(env: Any, channel_ids: set[int], since: int = 0) -> int:
    return sum(1 for entry in env.http_requests[since:] if entry.method == "POST"
               and entry.path in {f"/channels/{channel}/messages" for channel in channel_ids})


# ---------------------------------------------------------------- news Discord refuses for good


async def _forfeit_in_a_day(env: Any, world: World, db: Database) -> int:
    """A duel in its thread (both sides moved, alice to move, a day per move) that alice will lose on time."""
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=1)
    await world["bob"].click(offered.response, label="Accept")
    for player, move in (("alice", "LL"), ("bob", "LL")):
        await world[player].slash(world.thread(), "chopsticks move", notation=move)
    return max(await db.read(ReadTx.all_match_ids))


async def test_news_refused_for_good_is_given_up_recorded_and_told_once(simcord_env, db: Database,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    # the bot lost access to a match's thread and channel, 30 days passed: 726 post attempts, still due
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _forfeit_in_a_day(env, world, db)
    places = {world.thread().id, world.channel.id}
    for place in places:
        env.inject_error("POST", f"/channels/{place}/messages", status=403, code=50001, message="Missing Access",
                         times=None)
    since = len(env.http_requests)
    await env.advance_time(3 * 86400)  # the reminder, the forfeit, and their retries
    attempts = _posts_to(env, places, since)
    assert attempts == 2 * NEWS_REFUSED_TRIES  # the reminder's and the result's, each tried 3 times
    assert await db.read(ReadTx.next_outbox) is None  # nothing left to try, however long the bot runs
    await env.advance_time(2 * 86400)  # (a month of hourly passes would show the same, 30 times slower)
    assert _posts_to(env, places, since) == attempts
    kept = await db.fetchall("SELECT kind, status, attempts, last_error FROM outbox WHERE subject_id = ? AND "
                             "kind IN ('reminder', 'result') ORDER BY id",
                             (match_id,))
    assert [tuple(row)[:3] for row in kept] == [("reminder", "given_up", 3), ("result", "given_up", 3)]
    assert all("Missing Access" in row[3] for row in kept)
    assert (await db.read(ReadTx.get_match, match_id)).status == "finished"
    alice, bob = _dms(world["alice"]), _dms(world["bob"])
    assert len(alice) == 2 and len(bob) == 1  # alice: her reminder, then the result; bob: the result
    assert alice[0].startswith("A third of your time is left in **Chopsticks** match") and \
        "I could not post this reminder there" in alice[0]
    assert alice[1] == bob[0] and bob[0].startswith(f"I could not post the final board of **Chopsticks** match "
                                                    f"#{match_id}") and "alice ran out of time: **bob** wins." in bob[0]
    gave_up = [r for r in caplog.records if r.getMessage().startswith("gave up the")]
    assert len(gave_up) == 2


async def test_news_whose_channel_is_gone_is_given_up_at_once_and_told(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _forfeit_in_a_day(env, world, db)
    for place in (world.thread().id, world.channel.id):
        env.inject_error("POST", f"/channels/{place}/messages", status=404, code=10003, message="Unknown Channel",
                         times=None)
    await env.advance_time(2 * 86400)
    kept = await db.fetchall("SELECT kind, status, attempts FROM outbox WHERE subject_id = ? AND "
                             "kind IN ('reminder', 'result') ORDER BY id", (match_id,))
    assert [tuple(row) for row in kept] == [("reminder", "given_up", 1), ("result", "given_up", 1)]
    assert len(_dms(world["bob"])) == 1 and "its channel is gone" in _dms(world["bob"])[0]


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_news_discord_fails_to_take_for_now_is_still_retried_until_delivered(simcord_env, db: Database,
                                                                                 status: int) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _forfeit_in_a_day(env, world, db)
    thread = world.thread()
    env.inject_error("POST", f"/channels/{thread.id}/messages", status=status, times=NEWS_REFUSED_TRIES + 3)
    await env.advance_time(3 * 86400)
    assert await db.fetchall("SELECT * FROM outbox WHERE subject_id = ? AND kind IN ('reminder', 'result')",
                             (match_id,)) == []  # both delivered
    assert any("a third of your time" in m.content for m in thread.history())
    assert "alice ran out of time: **bob** wins." in thread.last_message.content
    assert _dms(world["alice"]) == _dms(world["bob"]) == []
