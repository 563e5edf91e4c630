"""News that arrives: a deleted thread falls back to the channel, a forfeit notice that meets a server error is
retried, and a challenge whose message failed or is unknown tells the truth and disables its buttons."""

from __future__ import annotations

from typing import Any

import pytest

from storage import Database
from tests.reliability._support import (
    World,
    edit_rows,
    ephemeral_refusal,
    match_of,
    start_discord_match,
)

pytestmark = pytest.mark.both_backends

DAY = 86400.0


def _texts(channel: Any) -> list[str]:
    return [m.content for m in channel.history()]


def _reminders(channel: Any) -> list[str]:
    return [t for t in _texts(channel) if "a third of your time" in t]


# ---------------------------------------------------------------- news that arrives


async def _both_sides_moved(world: World) -> None:
    """alice, bob, alice in the match's thread: each side made its first move, so the deadline forfeits (a match
    without them is aborted), and bob is to move."""
    for player, move in (("alice", "LL"), ("bob", "LL"), ("alice", "RR")):
        await world[player].slash(world.thread(), "chopsticks move", notation=move)


async def test_a_deleted_thread_falls_back_to_the_channel(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks", days=1)
    thread = world.thread()
    await _both_sides_moved(world)
    simcord_env.backend.delete_channel(thread.id)
    await simcord_env.settle()
    await simcord_env.advance_time(2 * DAY / 3 + 60)
    assert len(_reminders(world.channel)) == 1
    assert (await match_of(db, match_id)).thread_id is None
    await simcord_env.advance_time(DAY / 3)
    assert (await match_of(db, match_id)).status == "finished"
    assert "ran out of time" in world.channel.last_message.content


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
@pytest.mark.parametrize("status", [503])
async def test_a_forfeit_notice_meeting_a_server_error_is_retried(simcord_env, db: Database, status: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks", days=1)
    await _both_sides_moved(world)
    await simcord_env.advance_time(DAY - 10)  # the reminder is out; the forfeit is next
    simcord_env.inject_error("POST", "/channels/*/messages", status=status, times=1)
    await simcord_env.advance_time(20)
    assert (await match_of(db, match_id)).status == "finished"
    assert "ran out of time" not in world.thread().last_message.content
    await simcord_env.advance_time(600)
    assert "ran out of time" in world.thread().last_message.content
    assert await db.fetchall("SELECT * FROM outbox") == []


async def test_a_challenge_whose_message_failed_is_cancelled_and_the_challenger_told(simcord_env,
                                                                                     db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    simcord_env.inject_error("POST", "/interactions/*/*/callback", status=400, message="injected")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert "cancelled the challenge" in ephemeral_refusal(result)
    assert [r[0] for r in await db.fetchall("SELECT status FROM challenges")] == ["cancelled"]


async def test_an_expired_challenge_with_an_unknown_message_answers_expired_and_disables_its_buttons(
        simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    simcord_env.inject_error("GET", "/webhooks/*/*/messages/@original", status=400, message="injected")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    message = result.response
    # (the id is now learnt from Discord's answer to the post itself; a message whose id was never learnt is made
    # here as it would be when that answer does not name it)
    await edit_rows(db, "UPDATE challenges SET message_id = NULL")
    assert (await db.fetchone("SELECT message_id FROM challenges"))[0] is None
    await simcord_env.advance_time(DAY + 60)
    assert [r[0] for r in await db.fetchall("SELECT status FROM challenges")] == ["expired"]
    click = await world["bob"].click(message, label="Accept")
    assert "expired" in ephemeral_refusal(click)
    refreshed = next(m for m in world.channel.history() if m.id == message.id)
    assert all(button.disabled for row in refreshed.components for button in row.children)
