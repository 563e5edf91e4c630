"""Pings and direct messages, bounded and only where wanted: challenges ping a target a few times an hour at most,
direct messages to one member are capped per hour, a member with pings off is never mentioned, and reposting a
board pings nobody."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.exts.match import BOARD_REPOSTS
from bot.service.challenges import CHALLENGES_PER_TARGET
from bot.utils.messages import DMS_PER_HOUR
from storage import Database
from tests.reliability._support import World


def _pings(env: Any, user_id: int, since: int = 0) -> int:
    """Messages the bot sent or edited since request ``since`` that may @-mention ``user_id`` (their allowed
    mentions name them)."""
    count = 0
    for entry in env.http_requests[since:]:
        body = entry.json if isinstance(entry.json, dict) else {}
        payload = body.get("data") if entry.path.startswith("/interactions/") else body
        if not isinstance(payload, dict):
            continue
        allowed = payload.get("allowed_mentions") or {}
        assert "users" not in allowed.get("parse", []), payload
        count += str(user_id) in {str(user) for user in allowed.get("users", [])}
    return count


def _dms(member: Any) -> list[str]:
    return [message.content for message in member.user.dm_channel.history()]


# ---------------------------------------------------------------- bounded by design: challenges and direct messages


async def test_challenge_and_cancel_every_five_seconds_pings_the_target_three_times_an_hour(simcord_env,
                                                                                          db: Database) -> None:
    # one member challenged the same member and cancelled, every 5 s for 5 minutes: 48 pings (about 576 an hour)
    env = simcord_env
    world = World(env, "alice", "bob")
    bob = world["bob"]
    since = len(env.http_requests)
    refusals: list[str] = []
    for _ in range(60):
        offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob)
        if offered.ephemeral:
            refusals.append(offered.response.content)
        else:
            cancelled = await world["alice"].click(offered.response, label="Decline")  # the challenger cancels
            assert "Cancelled by" in cancelled.response.content
        await env.advance_time(5)
    assert _pings(env, bob.id, since) == CHALLENGES_PER_TARGET == 3
    to_bob = [text for text in refusals if f"You have challenged <@{bob.id}> 3 times in the last hour" in text]
    assert to_bob and all("cancelled ones count too" in text for text in to_bob)
    assert tuple(await db.fetchone("SELECT COUNT(*) FROM challenges")) == (3,)
    await env.advance_time(3600)  # an hour after the first: one slot is free again
    again = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob)
    assert not again.ephemeral and _pings(env, bob.id, since) == 4
    open_one = await world["alice"].slash(world.channel, "chopsticks start")  # an open challenge pings nobody
    assert not open_one.ephemeral


async def test_a_challenge_that_was_accepted_does_not_count_toward_the_limit(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    for _ in range(CHALLENGES_PER_TARGET + 2):  # friends playing one quick match after another
        offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
        accepted = await world["bob"].click(offered.response, label="Accept")
        assert "Accepted by" in accepted.response.content
        await world["alice"].slash(world.thread(), "match abort")


async def test_direct_messages_to_one_member_are_capped_per_hour(simcord_env, db: Database,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    # a member with pings off is told of each challenge by direct message: a crowd challenging him at once
    env = simcord_env
    caplog.set_level(logging.INFO, logger="bot.utils.messages")
    names = [f"m{n}" for n in range(DMS_PER_HOUR + 3)]
    world = World(env, "bob", *names)
    await world["bob"].slash(world.channel, "notify", pings="off")
    for name in names:
        offered = await world[name].slash(world.channel, "chopsticks start", opponent=world["bob"])
        assert not offered.ephemeral
    assert len(_dms(world["bob"])) == DMS_PER_HOUR
    dropped = [r for r in caplog.records if "direct message" in r.getMessage() and "hour" in r.getMessage()]
    assert len(dropped) == 3
    await env.advance_time(3601)
    late = await world[names[0]].slash(world.channel, "differences start", opponent=world["bob"])
    assert not late.ephemeral and len(_dms(world["bob"])) == DMS_PER_HOUR + 1


# ---------------------------------------------------------------- pings only where wanted


async def test_a_member_with_pings_off_is_challenged_in_bold_and_told_by_direct_message(simcord_env,
                                                                                      db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    bob = world["bob"]
    await bob.slash(world.channel, "notify", pings="off")
    since = len(env.http_requests)
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob)
    assert "challenges **bob** to" in offered.response.content and f"<@{bob.id}>" not in offered.response.content
    [told] = _dms(bob)
    assert told.startswith("**alice** challenges you to **Chopsticks** in **") and offered.response.message.jump_url \
        in told
    await bob.click(offered.response, label="Accept")
    for player, move in (("alice", "LL"), ("bob", "LL")):
        await world[player].slash(world.thread(), "chopsticks move", notation=move)
    final = await world["alice"].slash(world.thread(), "match resign")
    rematch = await world["alice"].click(final.response, label="Rematch")
    assert rematch.ephemeral and "Rematch offered" in rematch.response.content
    offer = world.channel.last_message
    assert "challenges **bob** to" in offer.content and "rematch" in offer.content
    assert len(_dms(bob)) == 2 and offer.jump_url in _dms(bob)[-1]
    assert _pings(env, bob.id, since) == 0


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_member_with_pings_off_is_never_mentioned_whatever_happens(simcord_env, db: Database) -> None:
    # boards, reminders, draw offers, extra time, final boards, rematches, declines and expiries
    env = simcord_env
    world = World(env, "alice", "bob")
    alice, bob = world["alice"], world["bob"]
    for member in (alice, bob):
        await member.slash(world.channel, "notify", pings="off")
    since = len(env.http_requests)
    offered = await alice.slash(world.channel, "chopsticks start", opponent=bob, days=3)
    await bob.click(offered.response, label="Accept")
    thread = world.thread()
    await alice.slash(thread, "chopsticks move", notation="LL")
    await bob.slash(thread, "chopsticks move", notation="LL")
    await alice.slash(thread, "match draw")
    await bob.slash(thread, "match draw", action="decline")
    await bob.slash(thread, "match give-time")
    await env.advance_time(3.1 * 86400)  # alice's reminder (her deadline is a day later: bob gave her time)
    assert any("a third of your time" in m.content for m in thread.history())
    await alice.slash(thread, "chopsticks move", notation="RR")
    final = await bob.slash(thread, "match resign")
    assert "**alice** wins" in final.response.content
    rematch = await alice.click(final.response, label="Rematch")
    assert not rematch.response.content.startswith("Something")
    await bob.click(world.channel.last_message, label="Decline")
    assert world.channel.last_message.content.startswith("**alice**, bob declined")
    await alice.slash(world.channel, "chopsticks start", opponent=bob)
    await env.advance_time(86400 + 60)  # expires unanswered: alice is told
    assert any("nobody accepted your" in m.content for m in world.channel.history())
    assert _pings(env, alice.id, since) == 0 and _pings(env, bob.id, since) == 0


async def test_reposting_a_board_pings_nobody_and_a_flood_of_reposts_is_refused(simcord_env, db: Database) -> None:
    # the player not to move re-posted the board 30 times in a minute: the opponent was @-mentioned 30 times
    env = simcord_env
    world = World(env, "alice", "bob")
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(offered.response, label="Accept")
    since = len(env.http_requests)
    answers = [await world["bob"].slash(world.thread(), "match board") for _ in range(30)]
    posted = [answer for answer in answers if not answer.ephemeral]
    refused = [answer for answer in answers if answer.ephemeral]
    assert len(posted) == BOARD_REPOSTS == 5
    assert all("takes a rest" in answer.response.content for answer in refused)
    assert all(f"<@{world['alice'].id}>, your move" in answer.response.content for answer in posted)  # (no ping)
    assert _pings(env, world["alice"].id, since) == 0
