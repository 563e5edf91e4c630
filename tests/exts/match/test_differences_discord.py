"""The Grid Game of Differences through the real discord.py code paths, offline (SimCord)."""

from __future__ import annotations

import random

from bot.service import load_state
from games import GAMES
from storage import Database
from tests.bot.helpers import World, only_match_id, snapshot, stored


async def test_full_match_by_commands_and_autocomplete_offers_only_legal_squares(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "differences start", opponent=world["bob"], n=5)
    await world["bob"].click(start.response, label="Accept")
    match_id = await only_match_id(db)
    thread = world.thread()
    rng = random.Random(4)
    for ply in range(5):
        match = await stored(db, match_id)
        state = load_state(match)
        actor = world["alice"] if match.current_seat == 0 else world["bob"]
        choices = await actor.autocomplete(thread, "differences mark", "square", "")
        offered = {choice["value"] for choice in choices}
        legal = {state.format_move(m) for m in state.legal_moves()}
        assert offered == legal
        assert len(offered) == (5 - ply) ** 2
        typed = await actor.autocomplete(thread, "differences mark", "square", "c")
        assert {c["value"] for c in typed} == {s for s in legal if s.startswith("c")}
        square = rng.choice(sorted(legal))
        result = await actor.slash(thread, "differences mark", square=square)
        assert not result.ephemeral
        assert f"played `{square}`" in result.response.content
    match = await stored(db, match_id)
    assert match.status == "finished"
    final = load_state(match)
    assert match.outcome["scores"] == list(final.scores)
    assert ("wins" in thread.last_message.content) or ("Draw" in thread.last_message.content)


async def test_bad_squares_are_refused_ephemerally(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "differences start", opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="c5")
    before = await snapshot(db)
    for square, reason in (("c2", "column c"), ("e5", "row 5"), ("z99", ""), ("e0", ""), ("i9", "")):
        result = await world["bob"].slash(thread, "differences mark", square=square)
        assert result.ephemeral, square
        assert reason in result.response.content
    assert await snapshot(db) == before


async def test_hard_computer_answers(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "differences start", opponent=world.bot_member(), level="hard", n=4)
    match_id = await only_match_id(db)
    rng = random.Random(1)
    while (match := await stored(db, match_id)).status == "active":
        state = load_state(match)
        move = state.format_move(GAMES["differences"].computer_move(state, "easy", rng))
        await world["alice"].slash(world.thread(), "differences mark", square=move)
    assert match.ply == 4
