"""Gröbner Nim through the real discord.py code paths, offline (SimCord): solitaire and duel."""

from __future__ import annotations

import random

from bot.service import load_state
from bot.utils.boards import board_mentions
from games import GAMES
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, only_match_id, snapshot, stored


async def test_solitaire_by_commands_and_its_leaderboard(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    result = await world["alice"].slash(world.channel, "groebner start", mode="solitaire", start="x^3+1, x*y^2+y^3")
    assert "starts" in result.response.content
    match_id = await only_match_id(db)
    started = await stored(db, match_id)
    # solitaire is solitaire: no move deadline, no ping of the player about their own move
    assert started.days_per_move == 0 and started.deadline is None
    assert board_mentions(started).users is False
    thread = world.thread()
    listing = await world["alice"].slash(thread, "groebner sticks")
    assert listing.ephemeral
    assert listing.response.content.splitlines() == ["`1`: `x^3 + 1`", "`2`: `x*y^2 + y^3`", "No pair picked yet."]
    firsts = await world["alice"].autocomplete(thread, "groebner pair", "first", "")
    assert [c["value"] for c in firsts] == ["1", "2"]
    move = await world["alice"].slash(thread, "groebner pair", first="1", second="2")
    assert not move.ephemeral
    match = await stored(db, match_id)
    assert match.status == "finished"  # the worked vector: one move adds y^5 + y^2 and ends the game
    final = load_state(match)
    assert len(final.sticks) == 3
    board = await world["alice"].slash(world.channel, "leaderboard", game="groebner_nim", solitaire=True)
    line = board.response.embeds[0].description
    assert "alice" in line
    assert f"par {1 - final.par:+d}" in line
    footer = board.response.embeds[0].footer.text
    assert "turns taken minus par" in footer and "rating" not in footer and "W/L/D" not in footer


async def test_duel_by_commands(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, "groebner start", opponent=world["bob"], sticks=3)
    await world["bob"].click(start.response, label="Accept")
    match_id = await only_match_id(db)
    thread = world.thread()
    rng = random.Random(2)
    plies = 0
    while (match := await stored(db, match_id)).status == "active":
        state = load_state(match)
        actor = world["alice"] if match.current_seat == 0 else world["bob"]
        first, second = state.format_move(GAMES["groebner_nim"].computer_move(state, "medium", rng)).split("-")
        result = await actor.slash(thread, "groebner pair", first=first, second=second)
        assert not result.ephemeral, result.response.content
        plies += 1
    final = load_state(match)
    assert final.is_basis()
    assert match.ply == plies
    assert sum(match.outcome["scores"]) == 3 * (len(final.sticks) - 3)


async def test_bad_pairs_and_starts_are_refused(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    for bad in ("x", "x^-1+1", "x^999+1", "x*z+1", ",".join(["x+1"] * 7), "garbage"):
        result = await world["alice"].slash(world.channel, "groebner start", mode="solitaire", start=bad)
        assert result.ephemeral, bad
    assert await db.read(ReadTx.all_match_ids) == []
    await world["alice"].slash(world.channel, "groebner start", mode="solitaire", sticks=4)
    thread = world.thread()
    before = await snapshot(db)
    for first, second in (("1", "1"), ("1", "9"), ("0", "2"), ("a", "b"), ("1", "")):
        result = await world["alice"].slash(thread, "groebner pair", first=first, second=second)
        assert result.ephemeral, (first, second)
    assert await snapshot(db) == before


async def test_solitaire_records_stay_apart_from_duel_ratings(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await world["alice"].slash(world.channel, "groebner start", mode="solitaire", start="x^3+1, x*y^2+y^3")
    await world["alice"].slash(world.thread(), "groebner pair", first="1", second="2")
    start = await world["alice"].slash(world.channel, "groebner start", opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    await both_sides_move(world, db, max(await db.read(ReadTx.all_match_ids)))
    await world["bob"].slash(world.thread(), "match resign")
    duel = await world["bob"].slash(world.channel, "leaderboard", game="groebner_nim", provisional=True)
    assert "1/0/0" in duel.response.embeds[0].description.splitlines()[0]  # alice: one duel, won
    stats = await world["bob"].slash(world.channel, "stats", user=world["alice"])
    fields = {f.name: f.value for f in stats.response.embeds[0].fields}
    assert "W/L/D 1/0/0" in fields["Gröbner Nim"]
    assert fields["Gröbner Nim (solitaire)"].endswith("· 1 completed of 1 game")  # singular, not "1 games"
