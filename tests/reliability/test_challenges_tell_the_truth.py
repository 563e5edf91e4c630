"""Challenges that tell the truth: a challenge learns its message from Discord's answer, and an expired one whose
message was never learned says so."""

from __future__ import annotations

from storage import Database
from tests.bot.helpers import buttons
from tests.reliability._support import World, edit_rows, ephemeral_refusal

# ---------------------------------------------------------------- challenges that tell the truth


async def test_a_challenge_learns_its_message_from_discords_answer(simcord_env, db: Database) -> None:
    # the message id was asked for after the post; when that question failed, the challenge expired with live buttons
    env = simcord_env
    world = World(env, "alice", "bob")
    env.inject_error("GET", "/webhooks/*/*/messages/@original", status=500, times=None)
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert tuple(await db.fetchone("SELECT message_id FROM challenges")) == (offered.response.id,)
    await env.advance_time(86400 + 60)
    message = world.channel.history()[0] if world.channel.history()[0].id == offered.response.id else next(
        m for m in world.channel.history() if m.id == offered.response.id)
    assert "expired unanswered" in message.content
    assert all(button.disabled for button in buttons(message).values())


async def test_an_expired_challenge_whose_message_was_never_learned_tells_the_truth(simcord_env,
                                                                                  db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await edit_rows(db, "UPDATE challenges SET message_id = NULL")  # as when the post's answer never came
    await env.advance_time(86400 + 60)
    told = world.channel.last_message
    assert told.content.startswith("<@") and "nobody accepted your Chopsticks challenge in time" in told.content
    clicked = await world["bob"].click(offered.response, label="Accept")
    assert ephemeral_refusal(clicked) == "This challenge expired unanswered."
    message = next(m for m in world.channel.history() if m.id == offered.response.id)
    assert all(button.disabled for button in buttons(message).values())
    assert tuple(await db.fetchone("SELECT COUNT(*) FROM matches")) == (0,)
