"""Your turn, everywhere: /notify direct messages (after an opponent's move and at the reminder, never breaking a
move when they fail), pings turned off, and /match list scope:all across servers."""

from __future__ import annotations

from typing import Any

import pytest

from storage import Database, ReadTx
from tests.bot.helpers import World, pinged, stored

pytestmark = pytest.mark.both_backends

DAY = 86400


async def _match(world: World, db: Database, first: str = "alice", second: str = "bob", days: int = 3) -> int:
    result = await world[first].slash(world.channel, "chopsticks start", opponent=world[second], days=days)
    await world[second].click(result.response, label="Accept")
    return max(await db.read(ReadTx.all_match_ids))


def _dms(member: Any) -> list[str]:
    return [m.content for m in member.user.dm_channel.history()]



async def test_notify_shows_and_stores_the_members_preferences(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    shown = await world["alice"].slash(world.channel, "notify")
    assert shown.ephemeral and "Direct messages: off" in shown.response.content
    assert "Pings: on" in shown.response.content
    assert await db.fetchall("SELECT * FROM member_prefs") == []
    changed = await world["alice"].slash(world.channel, "notify", dm="on", pings="off")
    assert changed.ephemeral and "Direct messages: on" in changed.response.content
    assert "Pings: off" in changed.response.content
    rows = [tuple(r)[:3] for r in await db.fetchall("SELECT user_id, dm_turns, pings FROM member_prefs")]
    assert rows == [(world["alice"].id, 1, 0)]
    await world["alice"].slash(world.channel, "notify", pings="on")  # the other one is kept
    rows = [tuple(r)[:3] for r in await db.fetchall("SELECT user_id, dm_turns, pings FROM member_prefs")]
    assert rows == [(world["alice"].id, 1, 1)]


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_direct_message_when_it_becomes_an_opted_in_members_turn_and_at_the_reminder(simcord_env,
                                                                                          db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    await world["bob"].slash(world.channel, "notify", dm="on")
    match_id = await _match(world, db)
    thread = world.thread()
    assert _dms(world["bob"]) == []  # alice is to move first
    await world["alice"].slash(thread, "chopsticks move", notation="LL")
    board = thread.last_message
    [dm] = _dms(world["bob"])
    assert dm.startswith(f"It is your move in **Chopsticks** match #{match_id} against alice in **")
    assert board.jump_url in dm
    assert _dms(world["alice"]) == []  # alice did not ask for messages
    await world["bob"].slash(thread, "chopsticks move", notation="LL")
    assert len(_dms(world["bob"])) == 1  # his own move tells him nothing
    await world["alice"].slash(thread, "chopsticks move", notation="RR")
    assert len(_dms(world["bob"])) == 2
    deadline = int((await stored(db, match_id)).deadline)
    await env.advance_time(2 * DAY + 60)
    reminder = next(m for m in thread.history() if "a third of your time" in m.content)
    dms = _dms(world["bob"])
    assert len(dms) == 3 and dms[-1].startswith("A third of your time is left in **Chopsticks**")
    assert f"(deadline <t:{deadline}:f>)" in dms[-1] and reminder.jump_url in dms[-1]


async def test_closed_direct_messages_never_break_a_move(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    await world["bob"].slash(world.channel, "notify", dm="on")
    match_id = await _match(world, db)
    dm_path = f"/channels/{world['bob'].user.dm_channel.id}/messages"
    env.inject_error("POST", dm_path, status=403, code=50007, message="Cannot send messages to this user",
                     times=None)
    since = len(env.http_requests)
    result = await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    assert any(e.method == "POST" and e.path == dm_path for e in env.http_requests[since:])  # it was tried
    assert not result.ephemeral and "alice played `LL`" in result.response.content
    match = await stored(db, match_id)
    assert match.ply == 1 and match.seats[match.current_seat].display_name == "bob"
    assert _dms(world["bob"]) == []


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_member_who_turned_pings_off_is_named_not_pinged(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    await world["bob"].slash(world.channel, "notify", pings="off")
    match_id = await _match(world, db, days=3)
    thread = world.thread()
    since = len(env.http_requests)
    await world["alice"].slash(thread, "chopsticks move", notation="LL")
    board = thread.last_message.content
    assert "**bob**, your move" in board and f"<@{world['bob'].id}>" not in board
    assert pinged(env, since, "**bob**, your move") == set()
    await world["bob"].slash(thread, "chopsticks move", notation="LL")
    assert f"<@{world['alice'].id}>, your move" in thread.last_message.content  # alice keeps her pings
    await world["alice"].slash(thread, "chopsticks move", notation="RR")
    since = len(env.http_requests)
    await env.advance_time(2 * DAY + 60)
    reminder = next(m.content for m in thread.history() if "a third of your time" in m.content)
    assert reminder.startswith(f"**bob**, a third of your time is left in match #{match_id}")
    assert pinged(env, since, "a third of your time") == set()
    since = len(env.http_requests)
    offer = await world["alice"].slash(thread, "match draw")
    assert "alice offers a draw. **bob**, answer with `/match draw`" in offer.response.content
    assert pinged(env, since, "offers a draw") == set()  # a draw offer respects pings:off too
    since = len(env.http_requests)
    await world["alice"].slash(thread, "match resign")
    final = thread.last_message.content if "thanks" in thread.last_message.content else \
        next(m.content for m in reversed(thread.history()) if "thanks for the match" in m.content)
    assert f"<@{world['alice'].id}> **bob** — thanks for the match!" in final
    assert pinged(env, since, "thanks for the match") == {world["alice"].id}


async def test_match_list_scope_all_lists_the_members_matches_of_every_server(simcord_env, db: Database) -> None:
    env = simcord_env
    home = World(env, "alice", "bob", "carol")
    away = World(env, "dave")
    stranger = World(env, "erin", "frank")
    bob_away = away.guild.add_member(home["bob"].user)
    home_match = await _match(home, db, "alice", "bob")
    home_thread = home.thread()
    challenge = await away["dave"].slash(away.channel, "chopsticks start", opponent=bob_away, days=2)
    await bob_away.click(challenge.response, label="Accept")
    away_match = max(await db.read(ReadTx.all_match_ids))
    away_thread = away.thread()
    await away["dave"].slash(away_thread, "chopsticks move", notation="LL")  # now bob is to move there
    others = [await _match(home, db, "alice", "carol"), await _match(stranger, db, "erin", "frank")]

    listing = await home["bob"].slash(home.channel, "match list", scope="all")
    assert listing.ephemeral
    text = listing.response.content
    assert text.startswith("2 active matches in 2 servers; your move in 1.")
    home_line = next(line for line in text.splitlines() if f"#{home_match} Chopsticks" in line)
    away_line = next(line for line in text.splitlines() if f"#{away_match} Chopsticks" in line)
    assert f"](https://discord.com/channels/{home.guild.id}/{home_thread.id}) vs alice: alice to move" in home_line
    assert f"in **{home.guild.name}**" in home_line
    deadline = int((await stored(db, away_match)).deadline)
    assert f"](https://discord.com/channels/{away.guild.id}/{away_thread.id}) vs dave: **your move**" in away_line
    assert f"deadline <t:{deadline}:R>" in away_line and f"in **{away.guild.name}**" in away_line
    assert not any(f"#{other} Chopsticks" in text for other in others)

    here = await home["bob"].slash(home.channel, "match list")
    assert f"#{home_match} Chopsticks" in here.response.content
    assert f"#{away_match} Chopsticks" not in here.response.content
    nothing = await stranger["erin"].slash(stranger.channel, "match list", scope="all")
    assert "1 active match in 1 server; your move in 1." in nothing.response.content
