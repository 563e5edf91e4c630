"""Correspondence play under SimCord with controlled time: deadlines, challenges, draws, abort, history,
leaderboards and settings."""

from __future__ import annotations

import io
import json

import discord
import pytest
from PIL import Image

from bot.client import NapkinBot
from bot.service import replay
from games import GAMES
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, only_match_id, pinged, snapshot, stored

pytestmark = pytest.mark.both_backends

DAY = 86400


async def _match(env, world: World, db: Database, days: int = 3, game: str = "chopsticks") -> int:
    result = await world["alice"].slash(world.channel, f"{game} start", opponent=world["bob"], days=days)
    await world["bob"].click(result.response, label="Accept")
    return await only_match_id(db)



def _thread_texts(world: World) -> list[str]:
    return [m.content for m in world.thread().history()]


async def _both_sides_moved(world: World) -> None:
    """alice, bob, alice: each side made its first move (a forfeit needs it), and bob is to move."""
    for actor, move in ((world["alice"], "LL"), (world["bob"], "LL"), (world["alice"], "RR")):
        await actor.slash(world.thread(), "chopsticks move", notation=move)


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_reminder_then_forfeit(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _match(simcord_env, world, db, days=3)
    await _both_sides_moved(world)
    # bob has 3 days; the reminder comes when one day (a third) is left, the forfeit at the deadline
    await simcord_env.advance_time(2 * DAY - 60)
    assert not any("a third of your time" in t for t in _thread_texts(world))
    await simcord_env.advance_time(120)
    reminders = [m for m in world.thread().history() if "a third of your time" in m.content]
    assert len(reminders) == 1 and f"<@{world['bob'].id}>" in reminders[0].content
    assert (await stored(db, match_id)).status == "active"
    await simcord_env.advance_time(DAY)
    match = await stored(db, match_id)
    assert match.status == "finished"
    assert match.outcome["winner"] == 0 and match.outcome["termination"] == "out_of_time"
    assert match.seats[match.outcome["loser"]].display_name == "bob"
    assert "bob ran out of time: **alice** wins." in world.thread().last_message.content
    assert sum("a third of your time" in t for t in _thread_texts(world)) == 1


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_restart_in_the_middle_of_a_deadline_still_forfeits_on_time(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _match(simcord_env, world, db, days=1)
    await _both_sides_moved(world)
    await simcord_env.advance_time(DAY / 2)
    reopened = await Database.open(db.path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        await simcord_env.advance_time(DAY / 2 - 60)
        assert (await stored(reopened, match_id)).status == "active"
        await simcord_env.advance_time(120)
        match = await stored(reopened, match_id)
        assert match.status == "finished" and match.outcome["winner"] == 0
        assert match.outcome["termination"] == "out_of_time"
    finally:
        await reopened.close()


async def test_challenge_expires_and_its_buttons_are_disabled(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    challenge = result.response
    await simcord_env.advance_time(DAY + 1)
    assert "expired" in challenge.content
    assert all(b["disabled"] for row in challenge.components for b in row["components"])
    rows = await db.fetchall("SELECT status FROM challenges")
    assert [r[0] for r in rows] == ["expired"]
    assert await db.read(ReadTx.all_match_ids) == []


async def test_directed_challenge_rights(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    before = await snapshot(db)
    denied = await world["carol"].click(result.response, label="Accept")
    assert denied.ephemeral and "addressed to someone else" in denied.response.content
    own = await world["alice"].click(result.response, label="Accept")
    assert own.ephemeral and "your own challenge" in own.response.content
    assert await snapshot(db) == before
    open_challenge = await world["alice"].slash(world.channel, "chopsticks start")
    await world["carol"].click(open_challenge.response, label="Accept")
    match = await stored(db, await only_match_id(db))
    assert [s.display_name for s in match.seats] == ["alice", "carol"]


async def test_draw_offer_accepted(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _match(simcord_env, world, db)
    await both_sides_move(world, db, match_id)  # (before that, an agreed draw aborts the match)
    offer = await world["alice"].slash(world.thread(), "match draw")
    assert "offers a draw" in offer.response.content
    again = await world["alice"].slash(world.thread(), "match draw")
    assert again.ephemeral and "already offered" in again.response.content
    await world["bob"].slash(world.thread(), "match draw")
    match = await stored(db, match_id)
    assert match.status == "finished" and match.outcome["draw"] and match.outcome["termination"] == "draw_agreed"
    rows = await db.read(ReadTx.ratings_of_game, world.guild.id, "chopsticks")
    assert sorted((r.display_name, r.draws) for r in rows) == [("alice", 1), ("bob", 1)]


async def test_abort_only_before_both_sides_moved(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    first = await _match(simcord_env, world, db)
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    result = await world["bob"].slash(world.thread(), "match abort")
    assert "aborted" in result.response.content
    assert (await stored(db, first)).status == "aborted"

    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(result.response, label="Accept")
    second = max(await db.read(ReadTx.all_match_ids))
    thread = world.thread()
    await world["alice"].slash(thread, "chopsticks move", notation="LL")
    await world["bob"].slash(thread, "chopsticks move", notation="LL")
    refused = await world["alice"].slash(thread, "match abort")
    assert refused.ephemeral and "can no longer be aborted" in refused.response.content
    assert (await stored(db, second)).status == "active"


async def test_history_gif_has_one_frame_per_ply_and_json_replays(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _match(simcord_env, world, db)
    thread = world.thread()
    for actor, move in ((world["alice"], "LL"), (world["bob"], "LL"), (world["alice"], "RR")):
        await actor.slash(thread, "chopsticks move", notation=move)
    result = await world["bob"].slash(thread, "match history")
    message = result.response
    assert "1. LL 2. LL 3. RR" in message.content
    files = {a.filename: await a.read() for a in message.attachments}
    gif = Image.open(io.BytesIO(files[f"match-{match_id}.gif"]))
    assert gif.n_frames == 4  # the start and one frame per ply
    export = json.loads(files[f"match-{match_id}.json"])
    state = GAMES["chopsticks"].load(export["initial_state"])
    for move in export["moves"]:
        state = state.play(move["move"])
    assert state.to_dict() == export["final_state"]
    match = await stored(db, match_id)
    assert replay(match, await db.read(ReadTx.get_moves, match_id))[-1].to_dict() == match.state


async def test_leaderboard_order_after_a_series(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    series = [("alice", "bob", "bob"), ("alice", "carol", "carol"), ("bob", "carol", "carol"),
              ("alice", "bob", "bob")]
    for challenger, accepter, loser in series:
        result = await world[challenger].slash(world.channel, "chopsticks start", opponent=world[accepter])
        await world[accepter].click(result.response, label="Accept")
        await both_sides_move(world, db, max(await db.read(ReadTx.all_match_ids)))
        await world[loser].slash(world.thread(), "match resign")
    board = await world["carol"].slash(world.channel, "leaderboard", game="chopsticks", provisional=True)
    embed = board.response.embeds[0]
    lines = embed.description.splitlines()
    assert [line.split("**")[1] for line in lines] == ["alice", "bob", "carol"]
    assert "3/0/0" in lines[0] and "1/2/0" in lines[1] and "0/2/0" in lines[2]
    stats = await world["carol"].slash(world.channel, "stats", user=world["alice"])
    assert "W/L/D 3/0/0" in stats.response.embeds[0].fields[0].value
    # both say what became of matches against the computer (not counted: the server's default)
    for embed in (board.response.embeds[0], stats.response.embeds[0]):
        assert "matches against the computer are not counted here" in embed.footer.text, embed.footer.text


async def test_settings_need_manage_server(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(simcord_env.create_user("boss"), roles=[admins])
    assert "settings" not in world["alice"].available_commands(world.channel)  # hidden from non-admins
    # even where a server grants the command to a member, the Manage Server check still refuses
    command = simcord_env.backend.find_command("settings", None, type=1)
    world.guild.set_command_permissions(int(command["id"]), {world["alice"]: True})
    refused = await world["alice"].slash(world.channel, "settings", days=7)
    assert refused.ephemeral and "Manage Server" in refused.response.content
    assert (await db.read(ReadTx.get_settings, world.guild.id)).days_per_move == 3
    done = await boss.slash(world.channel, "settings", days=7, threads=False, allow_channel=world.channel)
    assert done.ephemeral and "Settings updated" in done.response.content
    settings = await db.read(ReadTx.get_settings, world.guild.id)
    assert (settings.days_per_move, settings.use_threads, settings.allowed_channels) == (7, False, [world.channel.id])
    other = world.guild.create_text_channel("elsewhere")
    refused = await world["alice"].slash(other, "chopsticks start")
    assert refused.ephemeral and "cannot be started in this channel" in refused.response.content


async def test_rules_show_our_summary_and_an_example_board(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    result = await world["alice"].slash(world.channel, "rules", game="chopsticks")
    assert result.ephemeral
    embed = result.response.embeds[0]
    assert "Chopsticks" in embed.title and len(embed.description) > 200
    assert result.response.attachments[0].filename == "example.png"


async def test_active_match_limit_per_member(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(simcord_env.create_user("boss"), roles=[admins])
    await boss.slash(world.channel, "settings", max_active=2)
    for _ in range(2):
        await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    refused = await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(),
                                         level="easy")
    assert refused.ephemeral
    assert "already has 2 active matches" in refused.response.content
    assert len(await db.read(ReadTx.all_match_ids)) == 2
    listing = await world["alice"].slash(world.channel, "match list")
    assert listing.ephemeral
    assert listing.response.content.count("Chopsticks vs") == 2


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
@pytest.mark.parametrize("first_moves", [0, 1], ids=["nobody moved", "only alice moved"])
async def test_a_match_whose_first_move_never_comes_is_aborted_not_forfeited(simcord_env, db: Database,
                                                                             first_moves: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _match(simcord_env, world, db, days=1)
    if first_moves:
        await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    absent = ["alice", "bob"][first_moves]
    since = len(simcord_env.http_requests)
    await simcord_env.advance_time(DAY - 60)
    assert (await stored(db, match_id)).status == "active"
    await simcord_env.advance_time(120)
    match = await stored(db, match_id)
    assert match.status == "aborted" and match.outcome is not None
    assert (match.outcome["termination"], match.outcome["winner"]) == ("aborted", None)
    assert match.seats[match.outcome["loser"]].display_name == absent
    final = world.thread().last_message
    assert f"Aborted: {absent} made no first move before the deadline; it counts for nobody." in final.content
    assert "<@" not in final.content  # nobody is told it is their move, or thanked for the match
    assert pinged(simcord_env, since, "Aborted: ") == set()
    assert not any("ran out of time" in t for t in _thread_texts(world))
    assert await db.read(ReadTx.ratings_of_game, world.guild.id, "chopsticks") == []


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_give_time_moves_the_opponents_deadline_by_a_day(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    match_id = await _match(simcord_env, world, db, days=2)
    thread = world.thread()
    await world["alice"].slash(thread, "chopsticks move", notation="LL")
    deadline = int((await stored(db, match_id)).deadline)
    since = len(simcord_env.http_requests)
    given = await world["alice"].slash(thread, "match give-time")
    assert not given.ephemeral
    text = given.response.content
    assert f"alice gives one more day: the deadline is now <t:{deadline + DAY}:f> (extra time 1 of 3" in text
    assert f"<@{world['bob'].id}>, your move · deadline <t:{deadline + DAY}:R>." in text
    assert pinged(simcord_env, since, "gives one more day") == {world["bob"].id}
    match = await stored(db, match_id)
    assert match.deadline == deadline + DAY and match.time_given == [1, 0]

    before = await snapshot(db)
    for actor, expected in (("bob", "your own turn"), ("carol", "not playing in match")):
        refused = await world[actor].slash(thread, "match give-time")
        assert refused.ephemeral and expected in refused.response.content
    assert await snapshot(db) == before
    for _ in range(2):
        await world["alice"].slash(world.channel, "match give-time", match=str(match_id))
    assert (await stored(db, match_id)).deadline == deadline + 3 * DAY
    before = await snapshot(db)
    refused = await world["alice"].slash(thread, "match give-time")
    assert refused.ephemeral and "already given extra time 3 times" in refused.response.content
    assert await snapshot(db) == before

    await simcord_env.advance_time(deadline + 3 * DAY - 60 - simcord_env.bot.now())
    assert (await stored(db, match_id)).status == "active"  # the old deadline passed long ago
    await simcord_env.advance_time(120)
    assert (await stored(db, match_id)).status == "aborted"  # bob never made his first move


async def test_give_time_refused_without_a_member_opponent_or_a_deadline(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    computer = await only_match_id(db)
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=0)
    await world["bob"].click(result.response, label="Accept")
    unlimited = max(await db.read(ReadTx.all_match_ids))
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    before = await snapshot(db)
    refused = await world["alice"].slash(world.channel, "match give-time", match=str(computer))
    assert refused.ephemeral and "nobody to give time to" in refused.response.content
    refused = await world["alice"].slash(world.thread(), "match give-time")
    assert refused.ephemeral and f"Match #{unlimited} has no time limit" in refused.response.content
    assert await snapshot(db) == before
