"""Nobody acts where they have no right, and the bot degrades gracefully where Discord denies *it* a right.

Members: only seated players move, resign, offer, accept or decline draws, or abort; only the invited member
accepts a directed challenge and nobody accepts their own; ``/settings`` needs Manage Server. The bot: without
permission to create threads the match is played in the channel; without permission to post (or to attach the
board image) it says so clearly instead of failing silently, and moves keep working.
"""

from __future__ import annotations

import discord
import pytest
from simcord import SetupError

from bot.service import load_state
from storage import Database, ReadTx
from tests.bot.helpers import both_sides_move, move_button
from tests.reliability._support import (
    GAME_KEYS,
    World,
    assert_consistent,
    command_for,
    ephemeral_refusal,
    full_snapshot,
    legal_texts,
    match_of,
    require_game,
    start_discord_match,
)

pytestmark = pytest.mark.both_backends

NO_RIGHT = ("not playing", "not your turn")


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
@pytest.mark.parametrize("game", GAME_KEYS)
async def test_only_seated_players_act(simcord_env, db: Database, game: str) -> None:
    require_game(game)
    world = World(simcord_env, "alice", "bob", "carol")
    match_id = await start_discord_match(world, db, game)
    thread = world.thread()
    state = load_state(await match_of(db, match_id))
    name, options = command_for(game, state, legal_texts(state)[0])
    before = await full_snapshot(db)
    attempts = [
        (world["carol"], name, options, "not playing"),
        (world["bob"], name, options, "not your turn"),
        (world["carol"], "match resign", {}, "not playing"),
        (world["carol"], "match draw", {}, "not playing"),
        (world["carol"], "match draw", {"action": "decline"}, "not playing"),
        (world["carol"], "match abort", {}, "not playing"),
        (world["carol"], "match give-time", {}, "not playing"),
        (world["carol"], "match give-time", {"match": str(match_id)}, "not playing"),
        (world["carol"], "match resign", {"match": str(match_id)}, "not playing"),
        (world["carol"], name, {**options, "match": str(match_id)}, "not playing"),
    ]
    for actor, command, opts, expected in attempts:
        result = await actor.slash(thread, command, **opts)
        assert expected in ephemeral_refusal(result).lower(), (actor.name, command)
    board = thread.last_message
    for move in {"LL", "RR"} if game == "chopsticks" else ():
        for actor in (world["carol"], world["bob"]):
            result = await actor.click(board, custom_id=move_button(board, move).custom_id)
            assert any(s in ephemeral_refusal(result).lower() for s in NO_RIGHT)
    assert await full_snapshot(db) == before
    # the refusals were about rights, not broken commands: the player to move can do all of it
    played = await world["alice"].slash(thread, name, **options)
    assert not played.ephemeral
    await both_sides_move(world, db, match_id, plies=1)  # bob's first move: the resignation below is then a result
    offered = await world["bob"].slash(thread, "match draw")
    assert "offers a draw" in offered.response.content
    declined = await world["alice"].slash(thread, "match draw", action="decline")
    assert not declined.ephemeral
    resigned = await world["alice"].slash(thread, "match resign")
    assert not resigned.ephemeral
    match = await match_of(db, match_id)
    assert match.status == "finished" and match.outcome["winner"] == 1
    await assert_consistent(db, match_id)


async def test_only_the_invited_member_accepts_and_nobody_their_own(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    directed = (await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])).response
    before = await full_snapshot(db)
    for actor, label, expected in ((world["carol"], "Accept", "addressed to someone else"),
                                   (world["alice"], "Accept", "your own challenge"),
                                   (world["carol"], "Decline", "only the invited member")):
        result = await actor.click(directed, label=label)
        assert expected in ephemeral_refusal(result).lower()
    assert await full_snapshot(db) == before
    await world["bob"].click(directed, label="Decline")
    assert [r[0] for r in await db.fetchall("SELECT status FROM challenges")] == ["declined"]

    open_challenge = (await world["alice"].slash(world.channel, "chopsticks start")).response
    own = await world["alice"].click(open_challenge, label="Accept")
    assert "your own challenge" in ephemeral_refusal(own).lower()
    stranger = await world["carol"].click(open_challenge, label="Decline")
    assert "only the invited member" in ephemeral_refusal(stranger).lower()
    await world["carol"].click(open_challenge, label="Accept")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    assert [s.display_name for s in (await match_of(db, match_id)).seats] == ["alice", "carol"]

    nobody_to_play = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["alice"])
    assert "cannot challenge yourself" in ephemeral_refusal(nobody_to_play)
    other_bot = world.guild.add_member(simcord_env.create_user("otherbot", bot=True))
    refused = await world["alice"].slash(world.channel, "chopsticks start", opponent=other_bot)
    assert "other bots cannot play" in ephemeral_refusal(refused).lower()


async def test_settings_need_manage_server_at_both_layers(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(simcord_env.create_user("boss"), roles=[admins])
    before = await full_snapshot(db)
    assert "settings" not in world["alice"].available_commands(world.channel)
    with pytest.raises(SetupError, match="not visible"):  # Discord itself hides it from members without the right
        await world["alice"].slash(world.channel, "settings", days=7)
    command = simcord_env.backend.find_command("settings", None, type=1)
    world.guild.set_command_permissions(int(command["id"]), {world["alice"]: True})
    for options in ({"days": 7}, {"max_active": 1}, {"all_channels": True}, {}):
        refused = await world["alice"].slash(world.channel, "settings", **options)
        assert "Manage Server" in ephemeral_refusal(refused)
    assert await full_snapshot(db) == before
    done = await boss.slash(world.channel, "settings", max_active=2)
    assert done.ephemeral and "Settings updated" in done.response.content
    assert (await db.read(ReadTx.get_settings, world.guild.id)).max_active == 2


def _bot_denied(world: World, name: str, **denied: bool) -> object:
    return world.guild.create_text_channel(name, overwrites={world.bot_member(): discord.PermissionOverwrite(
        **dict.fromkeys(denied, False))})


async def _accept_in(world: World, channel: object) -> object:
    challenge = await world["alice"].slash(channel, "chopsticks start", opponent=world["bob"])
    return await world["bob"].click(challenge.response, label="Accept")


async def test_without_thread_permission_the_match_is_played_in_the_channel(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    channel = _bot_denied(world, "no-threads", create_public_threads=True)
    accepted = await _accept_in(world, channel)
    assert not accepted.followups  # nothing to apologise for
    (match_id,) = await db.read(ReadTx.all_match_ids)
    assert (await match_of(db, match_id)).thread_id is None and channel.threads == []
    board = channel.last_message
    assert "new match" in board.content and board.attachments
    await world["alice"].click(board, custom_id=move_button(board, "LL").custom_id)
    assert "move 1" in channel.last_message.content
    moved = await world["bob"].slash(channel, "chopsticks move", notation="LL")
    assert not moved.ephemeral and "move 2" in moved.response.content
    await assert_consistent(db, match_id)


async def test_without_permission_to_post_in_threads_the_bot_says_so(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    channel = _bot_denied(world, "no-thread-posts", send_messages_in_threads=True)
    accepted = await _accept_in(world, channel)
    (match_id,) = await db.read(ReadTx.all_match_ids)
    notes = [m.content for m in accepted.followups if m.ephemeral]
    assert any(f"#{match_id}" in n and "could not post its board" in n for n in notes), notes
    thread = channel.threads[-1]
    assert thread.history() == []  # Discord refused the board there
    moved = await world["alice"].slash(thread, "chopsticks move", notation="LL")  # answers need no permission
    assert not moved.ephemeral and "move 1" in moved.response.content and moved.response.attachments
    shown = await world["bob"].slash(thread, "match board")
    assert not shown.ephemeral and "move 1" in shown.response.content
    await assert_consistent(db, match_id)


@pytest.mark.parametrize("threads", [True, False])
async def test_without_permission_to_attach_or_send_the_bot_says_so(simcord_env, db: Database,
                                                                   threads: bool) -> None:
    world = World(simcord_env, "alice", "bob")
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(simcord_env.create_user("boss"), roles=[admins])
    await boss.slash(world.channel, "settings", threads=threads)
    # what Discord answers a bot that may not attach files (or send messages) where it posts boards
    simcord_env.inject_error("POST", "/channels/*/messages", status=403, code=50013, message="Missing Permissions",
                             times=None)
    accepted = await _accept_in(world, world.channel)
    (match_id,) = await db.read(ReadTx.all_match_ids)
    assert any("could not post its board" in m.content for m in accepted.followups if m.ephemeral)
    where = world.thread() if threads else world.channel
    board = (await world["alice"].slash(where, "match board")).response.message
    clicked = await world["alice"].click(board, custom_id=move_button(board, "LL").custom_id)
    assert any("`LL`" in m.content and "/match board" in m.content for m in clicked.followups if m.ephemeral)
    moved = await world["bob"].slash(where, "chopsticks move", notation="LL")
    assert not moved.ephemeral and "move 2" in moved.response.content
    assert (await match_of(db, match_id)).ply == 2
    await assert_consistent(db, match_id)
