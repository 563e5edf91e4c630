"""Ratings that mean something: a resignation or an agreed draw before both sides moved is an abort (no farming),
rated results between the same two members count a few times a day, and a rating built on one opponent shows
in ``/stats``."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import Player, Services, load_state
from bot.service.ratings import PAIR_RATED_PER_DAY
from bot.utils.boards import headline
from storage import Database
from tests.reliability._support import Clock, World, service_match

GUILD = 10
ALICE, BOB, CAROL = Player(1, "alice"), Player(2, "bob"), Player(3, "carol")


# ---------------------------------------------------------------- ratings that mean something


async def test_resigning_before_both_sides_moved_aborts_so_a_farming_loop_gains_nothing(simcord_env,
                                                                                       db: Database) -> None:
    # two accounts looped challenge, Accept, resign before any move: 93 rated wins, 1000 → 2194 and first place
    env = simcord_env
    world = World(env, "alice", "alt")
    for _ in range(10):
        offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["alt"])
        await world["alt"].click(offered.response, label="Accept")
        resigned = await world["alt"].slash(world.thread(), "match resign")
        text = resigned.response.content  # alice, who challenged, is told (her pings are on)
        assert text.startswith(f"<@{world['alice'].id}>, match #") and "is called off: it ended before both" in text
    statuses = await db.fetchall("SELECT status, rated FROM matches")
    assert {row[0] for row in statuses} == {"aborted"} and len(statuses) == 10
    assert await db.fetchall("SELECT * FROM ratings") == []
    board = await world["alice"].slash(world.channel, "leaderboard", game="chopsticks")
    assert board.response.embeds[0].description == "No finished rated matches yet."


async def test_a_draw_agreed_before_both_sides_moved_is_an_abort(db: Database) -> None:
    services = Services(db, clock=Clock())
    match = await service_match(services, "differences", GUILD, (ALICE, BOB))
    await services.moves.play(match.id, GUILD, ALICE.user_id, "a1")
    await services.endings.offer_draw(match.id, GUILD, ALICE.user_id)
    ended, agreed = await services.endings.offer_draw(match.id, GUILD, BOB.user_id)
    assert agreed and ended.status == "aborted" and ended.outcome["termination"] == "aborted"
    assert await db.fetchall("SELECT * FROM ratings") == []


async def _rated_win(services: Services, winner: Player, loser: Player) -> Any:
    """A chopsticks duel in which both sides moved, then ``loser`` resigned."""
    match = await service_match(services, "chopsticks", GUILD, (winner, loser))
    for player in (winner, loser):
        await services.moves.play(match.id, GUILD, player.user_id, "LL")
    return await services.endings.resign(match.id, GUILD, loser.user_id)


async def test_rated_results_between_the_same_two_members_count_three_times_a_day(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    ended = []
    for _ in range(5):
        ended.append(await _rated_win(services, ALICE, BOB))
        clock.now += 600
    assert [match.rated for match in ended] == [True, True, True, False, False]
    assert [match.rating_changes is not None for match in ended] == [True, True, True, False, False]
    row = await db.fetchone("SELECT games, wins FROM ratings WHERE user_id = ?", (ALICE.user_id,))
    assert tuple(row) == (PAIR_RATED_PER_DAY, PAIR_RATED_PER_DAY) == (3, 3)
    shown = headline(ended[3], load_state(ended[3]))
    assert "Not rated: alice and bob already have 3 rated results against each other in the last 24 hours" in shown
    assert "Not rated" not in headline(ended[2], load_state(ended[2]))
    other = await _rated_win(services, ALICE, CAROL)  # another opponent still counts
    assert other.rated
    clock.now = ended[0].finished_at + 86400 + 1  # the first result is a day old: one more counts
    assert (await _rated_win(services, ALICE, BOB)).rated
    assert not (await _rated_win(services, ALICE, BOB)).rated


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_rating_built_on_one_opponent_shows_in_stats(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob", "carol")
    alice, bob, carol = (Player(world[name].id, name) for name in ("alice", "bob", "carol"))
    services: Services = env.bot.services
    for day in range(3):
        for _ in range(PAIR_RATED_PER_DAY):
            match = await service_match(services, "chopsticks", world.guild.id, (alice, bob))
            for player in (alice, bob):
                await services.moves.play(match.id, world.guild.id, player.user_id, "LL")
            await services.endings.resign(match.id, world.guild.id, bob.user_id)
        if day < 2:
            await env.advance_time(86400)
    match = await service_match(services, "chopsticks", world.guild.id, (alice, carol))
    for player in (alice, carol):
        await services.moves.play(match.id, world.guild.id, player.user_id, "LL")
    await services.endings.resign(match.id, world.guild.id, carol.user_id)
    shown = await world["carol"].slash(world.channel, "stats", user=world["alice"])
    [field] = shown.response.embeds[0].fields
    assert "W/L/D 10/0/0" in field.value
    assert "9 of 10 rated wins (90%) against one member: bob" in field.value
    plain = await world["carol"].slash(world.channel, "stats", user=world["carol"])
    assert "against one member" not in plain.response.embeds[0].fields[0].value
