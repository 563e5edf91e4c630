"""Napkin Chess through the real discord.py code paths, offline (SimCord)."""

from __future__ import annotations

import random

from bot.service import load_state
from games import GAMES
from storage import Database
from tests.bot.helpers import World, command_for, only_match_id, snapshot, stored


async def _started(world: World, db: Database, **options) -> int:
    start = await world["alice"].slash(world.channel, "napkin start", opponent=world["bob"], **options)
    await world["bob"].click(start.response, label="Accept")
    return await only_match_id(db)


async def test_full_match_by_commands(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _started(world, db, preset="quick")
    thread = world.thread()
    rng = random.Random(8)
    plies = 0
    while (match := await stored(db, match_id)).status == "active":
        state = load_state(match)
        actor = world["alice"] if match.current_seat == 0 else world["bob"]
        notation = state.format_move(GAMES["napkin_chess"].computer_move(state, "medium", rng))
        name, options = command_for("napkin_chess", state, notation)
        result = await actor.slash(thread, name, **options)
        assert not result.ephemeral, result.response.content
        plies += 1
        assert plies < 60
    final = load_state(match)
    assert final.is_over
    for size in (2, 3, 4):
        assert not final.can_place(size) or final.supply[size - 2] == 0
    assert match.outcome["scores"] == list(final.scores)
    sizes = await world["alice"].autocomplete(thread, "napkin place", "size", "")
    assert sizes == [] or all(int(c["value"]) in (2, 3, 4) for c in sizes)


async def test_free_region_and_size_autocomplete(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await _started(world, db, coins_4=0)
    thread = world.thread()
    choices = await world["alice"].autocomplete(thread, "napkin place", "size", "")
    assert [c["value"] for c in choices] == ["2", "3"]  # no size-4 coins in this supply
    result = await world["alice"].slash(thread, "napkin free", size="3")
    assert result.ephemeral
    assert "the first coin must be a 2" in result.response.content
    assert result.response.attachments[0].filename == "free.png"
    assert result.response.attachments[0].description.startswith("Map of where a size 3 coin still fits, shaded "
                                                                  "green. It fits from x ")
    first = await world["alice"].slash(thread, "napkin place", size="2", x="15", y="15")
    assert not first.ephemeral
    result = await world["bob"].slash(thread, "napkin free", size="3")
    assert "It still fits, e.g." in result.response.content
    match = await stored(db, await only_match_id(db))
    for hint in result.response.content.split("`")[1::2]:  # every suggested placement is legal
        load_state(match).play(hint)


async def test_malformed_placements_are_refused(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await _started(world, db)
    thread = world.thread()
    before = await snapshot(db)
    for size, x, y in (("2", "NaN", "5"), ("2", "inf", "5"), ("2", "1e309", "5"), ("2", "-3", "5"),
                       ("2", "3.333", "5"), ("3", "15", "15"), ("7", "15", "15"), ("2", "1", "1")):
        result = await world["alice"].slash(thread, "napkin place", size=size, x=x, y=y)
        assert result.ephemeral, (size, x, y)
        assert result.response.content
    assert await snapshot(db) == before


async def test_a_challenge_names_its_napkin_as_typed(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "napkin start", opponent=world["bob"], width=20, height=24)
    assert "width 20 · height 24" in start.response.content and "20.0" not in start.response.content
    await world["bob"].click(start.response, label="Accept")
    match = await stored(db, await only_match_id(db))
    assert (match.variant["width"], match.variant["height"]) == (20, 24)  # the napkin asked for
