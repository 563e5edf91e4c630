"""Vacations under SimCord with controlled time: deadlines pause and resume exactly (also across a restart), a
vacation ends itself when the allowance is spent, opponents see it on the board and in /match list, and bad
requests are refused with nothing stored changed."""

from __future__ import annotations

import math
from typing import Any

import discord
import pytest

from bot.client import NapkinBot
from bot.service.vacations import VacationService, days_spent, year_bounds
from storage import Database, ReadTx
from tests.bot.helpers import World, stored

pytestmark = pytest.mark.both_backends

DAY = 86400


async def _duel(world: World, db: Database, first: str, second: str, days: int = 3) -> int:
    """A match of ``first`` against ``second`` in which each side moved once, so ``first`` is to move."""
    result = await world[first].slash(world.channel, "chopsticks start", opponent=world[second], days=days)
    await world[second].click(result.response, label="Accept")
    match_id = max(await db.read(ReadTx.all_match_ids))
    thread = world.thread()
    await world[first].slash(thread, "chopsticks move", notation="LL")
    await world[second].slash(thread, "chopsticks move", notation="LL")
    return match_id


async def _vacations(db: Database) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in await db.fetchall("SELECT guild_id, user_id, started_at, ends_by, ended_at, days "
                                                "FROM vacations ORDER BY id")]


async def _stored_state(db: Database) -> list[tuple[Any, ...]]:
    """Everything a vacation or a setting could change (both backends)."""
    rows: list[tuple[Any, ...]] = []
    for sql in ("SELECT id, deadline, reminded, version, status FROM matches ORDER BY id",
                "SELECT * FROM vacations ORDER BY id", "SELECT * FROM member_prefs ORDER BY user_id",
                "SELECT * FROM guild_settings ORDER BY guild_id"):
        rows.extend(tuple(r) for r in await db.fetchall(sql))
    return rows


def _admin(env: Any, world: World) -> Any:
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    return world.guild.add_member(env.create_user("boss"), roles=[admins])


def _thread_of(world: World, match_id: int) -> Any:
    return next(t for t in world.channel.threads if f"#{match_id}:" in (t.name or ""))


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_vacation_pauses_and_resumes_deadlines_exactly(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob", "carol")
    waiting = await _duel(world, db, "bob", "alice")  # bob to move
    elsewhere = await _duel(world, db, "carol", "bob")  # carol to move: her clock, not bob's
    first_deadline = (await stored(db, waiting)).deadline
    carol_deadline = (await stored(db, elsewhere)).deadline
    await env.advance_time(DAY)
    start = env.bot.now()

    started = await world["bob"].slash(world.channel, "vacation start")
    assert started.ephemeral and "You are on vacation in this server until" in started.response.content
    assert "paused in 1 match" in started.response.content
    [(guild, user, started_at, ends_by, ended_at, days)] = await _vacations(db)
    assert (guild, user, ended_at, days) == (world.guild.id, world["bob"].id, None, None)
    assert started_at == start and ends_by == start + 14 * DAY  # the default allowance
    assert (await stored(db, waiting)).deadline == first_deadline + 14 * DAY
    assert (await stored(db, elsewhere)).deadline == carol_deadline

    # opponents see it: on the board and in /match list
    board = await world["alice"].slash(_thread_of(world, waiting), "match board")
    assert f"bob is on vacation until <t:{int(ends_by)}:f> (their deadlines are paused)." in board.response.content
    listing = await world["alice"].slash(world.channel, "match list")
    assert f"bob on vacation until <t:{int(ends_by)}:f>" in listing.response.content

    # carol moves while bob is away: his new deadline is paused from then on
    await env.advance_time(DAY / 2)
    carol_moved = env.bot.now()
    await world["carol"].slash(_thread_of(world, elsewhere), "chopsticks move", notation="RR")
    assert (await stored(db, elsewhere)).deadline == carol_moved + 3 * DAY + (ends_by - carol_moved)

    # bob's old deadline passes: nothing happens while he is away
    await env.advance_time(first_deadline - env.bot.now() + DAY)
    assert (await stored(db, waiting)).status == "active"
    assert not any("a third of your time" in m.content for m in _thread_of(world, waiting).history())

    end = env.bot.now()
    ended = await world["bob"].slash(world.channel, "vacation end")
    paused = end - start
    assert ended.ephemeral and f"cost {math.ceil(paused / DAY)} days" in ended.response.content
    assert "run again in 2 matches" in ended.response.content
    assert (await stored(db, waiting)).deadline == first_deadline + paused
    assert (await stored(db, elsewhere)).deadline == carol_moved + 3 * DAY + (end - carol_moved)
    [(*_, ended_at, days)] = await _vacations(db)
    assert ended_at == end and days == math.ceil(paused / DAY) == days_spent(start, end)
    board = await world["alice"].slash(_thread_of(world, waiting), "match board")
    assert "on vacation" not in board.response.content

    # the reminder and the forfeit come exactly where the paused deadline now is
    deadline = first_deadline + paused
    await env.advance_time(deadline - DAY - 60 - env.bot.now())
    assert not any("a third of your time" in m.content for m in _thread_of(world, waiting).history())
    await env.advance_time(120)
    assert sum("a third of your time" in m.content for m in _thread_of(world, waiting).history()) == 1
    await env.advance_time(DAY - 120)
    assert (await stored(db, waiting)).status == "active"
    await env.advance_time(120)
    match = await stored(db, waiting)
    assert match.status == "finished" and match.outcome["termination"] == "out_of_time"


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_vacation_ends_itself_when_the_allowance_is_spent_also_across_a_restart(simcord_env,
                                                                                       db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    await _admin(env, world).slash(world.channel, "settings", vacation_days=2)
    assert (await db.read(ReadTx.get_settings, world.guild.id)).vacation_days == 2
    match_id = await _duel(world, db, "bob", "alice", days=1)
    deadline = (await stored(db, match_id)).deadline
    start = env.bot.now()
    await world["bob"].slash(world.channel, "vacation start")
    assert (await stored(db, match_id)).deadline == deadline + 2 * DAY
    await env.advance_time(DAY / 2)

    reopened = await Database.open(db.path)
    try:
        await env.restart_bot(NapkinBot(reopened))
        await env.advance_time(start + 2 * DAY - 60 - env.bot.now())
        assert (await _vacations(reopened))[0][4] is None  # still on vacation
        await env.advance_time(120)
        [(*_, ended_at, days)] = await _vacations(reopened)
        assert (ended_at, days) == (start + 2 * DAY, 2)  # ended by the deadline pass, when the allowance ran out
        told = [m.content for m in world["bob"].user.dm_channel.history()]  # bob is told once, by direct message
        assert told == [f"Your vacation in **{world.guild.name}** ended by itself after 2 days: this year's allowance "
                        "is spent. Your deadlines run again; `/match list` there shows whose move it is."]
        await env.advance_time(600)
        assert len(world["bob"].user.dm_channel.history()) == 1
        match = await stored(reopened, match_id)
        assert match.status == "active" and match.deadline == deadline + 2 * DAY
        assert all(seat.away_until is None for seat in match.seats)
        status = await VacationService(reopened, clock=env.bot.now).status(world.guild.id, world["bob"].id)
        assert (status.spent, status.left, status.vacation) == (2, 0, None)
        refused = await world["bob"].slash(world.channel, "vacation start")
        year = year_bounds(start)[2]
        assert refused.ephemeral and f"no vacation days left in {year}" in refused.response.content
        await env.advance_time(deadline + 2 * DAY - 60 - env.bot.now())
        assert (await stored(reopened, match_id)).status == "active"
        await env.advance_time(120)
        match = await stored(reopened, match_id)
        assert match.status == "finished" and match.outcome["termination"] == "out_of_time"
    finally:
        await reopened.close()


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_vacation_ended_after_a_restart_resumes_exactly(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _duel(world, db, "bob", "alice")
    deadline = (await stored(db, match_id)).deadline
    start = env.bot.now()
    await world["bob"].slash(world.channel, "vacation start")
    reopened = await Database.open(db.path)
    try:
        await env.restart_bot(NapkinBot(reopened))
        await env.advance_time(5 * DAY + 3600)
        end = env.bot.now()
        ended = await world["bob"].slash(world.channel, "vacation end")
        assert "cost 6 days" in ended.response.content and "8 vacation days left" in ended.response.content
        assert (await stored(reopened, match_id)).deadline == deadline + (end - start)
    finally:
        await reopened.close()


async def test_moving_on_vacation_keeps_the_vacation_and_the_opponents_clock(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _duel(world, db, "bob", "alice")
    await world["bob"].slash(world.channel, "vacation start")
    await env.advance_time(3600)
    moved = env.bot.now()
    await world["bob"].slash(world.thread(), "chopsticks move", notation="RR")
    match = await stored(db, match_id)
    assert match.deadline == moved + 3 * DAY  # alice's clock runs as usual
    assert (await _vacations(db))[0][4] is None  # bob is still on vacation


async def test_bad_vacation_requests_are_refused_and_change_nothing(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    boss = _admin(env, world)
    await _duel(world, db, "bob", "alice")
    before = await _stored_state(db)
    refused = await world["bob"].slash(world.channel, "vacation end")
    assert refused.ephemeral and "You are not on vacation in this server" in refused.response.content
    assert await _stored_state(db) == before

    await world["bob"].slash(world.channel, "vacation start")
    before = await _stored_state(db)
    again = await world["bob"].slash(world.channel, "vacation start")
    assert again.ephemeral and "already on vacation" in again.response.content
    assert await _stored_state(db) == before
    await world["bob"].slash(world.channel, "vacation end")

    await boss.slash(world.channel, "settings", vacation_days=1)
    before = await _stored_state(db)
    spent = await world["bob"].slash(world.channel, "vacation start")  # the first vacation cost a day already
    assert spent.ephemeral and "no vacation days left" in spent.response.content
    assert "allowance of 1 day is spent" in spent.response.content
    assert await _stored_state(db) == before

    await boss.slash(world.channel, "settings", vacation_days=0)
    before = await _stored_state(db)
    none = await world["alice"].slash(world.channel, "vacation start")
    assert none.ephemeral and "This server gives no vacation days" in none.response.content
    assert await _stored_state(db) == before
    shown = await boss.slash(world.channel, "settings")
    assert "Vacation per member and calendar year: none" in shown.response.content
