"""Polygons & Dots through the real discord.py code paths, offline (SimCord)."""

from __future__ import annotations

import random

import pytest

from bot.service import load_state
from games import GAMES
from storage import Database
from tests.bot.helpers import World, command_for, only_match_id, snapshot, stored


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_full_match_by_commands(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "polygons start", opponent=world["bob"], dots=4, size=10)
    await world["bob"].click(start.response, label="Accept")
    match_id = await only_match_id(db)
    thread = world.thread()
    rng = random.Random(6)
    while (match := await stored(db, match_id)).status == "active":
        state = load_state(match)
        actor = world["alice"] if match.current_seat == 0 else world["bob"]
        if state.phase == "draw" and state.path_end is not None:
            offered = {c["value"] for c in await actor.autocomplete(thread, "polygons connect", "to", "")}
            assert offered == set(state.legal_targets())
        notation = state.format_move(GAMES["polygons"].computer_move(state, "easy", rng))
        name, options = command_for("polygons", state, notation)
        result = await actor.slash(thread, name, **options)
        assert not result.ephemeral, result.response.content
    final = load_state(match)
    assert len(final.segments) == 8  # every dot joined, the closing segment included
    assert sum(match.outcome["scores"]) == len(final.faces())
    assert match.ply == 8 + 7  # 8 placements and 7 drawn segments; the closing one is automatic


async def test_bad_dots_and_segments_are_refused(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "polygons start", opponent=world["bob"], dots=3)
    await world["bob"].click(start.response, label="Accept")
    thread = world.thread()
    await world["alice"].slash(thread, "polygons dot", x="1", y="1")
    await world["bob"].slash(thread, "polygons dot", x="2", y="2")
    before = await snapshot(db)
    cases = [("polygons dot", {"x": "3", "y": "3"}), ("polygons dot", {"x": "1", "y": "1"}),
             ("polygons dot", {"x": "99", "y": "0"}), ("polygons dot", {"x": "a", "y": "0"}),
             ("polygons dot", {"x": "1.5", "y": "0"}), ("polygons connect", {"to": "B", "from": "A"})]
    for name, options in cases:
        result = await world["alice"].slash(thread, name, **options)
        assert result.ephemeral, options
        assert result.response.content
    assert await snapshot(db) == before


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_komi_match_against_hard(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "polygons start", opponent=world.bot_member(), level="hard", dots=3,
                               size=8, komi=2)
    match_id = await only_match_id(db)
    rng = random.Random(2)
    while (match := await stored(db, match_id)).status == "active":
        state = load_state(match)
        assert state.komi == 2
        notation = state.format_move(GAMES["polygons"].computer_move(state, "easy", rng))
        name, options = command_for("polygons", state, notation)
        result = await world["alice"].slash(world.thread(), name, **options)
        assert not result.ephemeral, result.response.content
    final = load_state(match)
    assert match.variant["komi"] == 2
    odd, even = match.outcome["scores"]
    assert odd + even == len(final.faces()) + 2  # the second player's two points come on top of the faces
    boards = [message for message in world.thread().history() if message.attachments]
    assert boards and ("wins" in boards[-1].content or "Draw" in boards[-1].content)  # the final board
