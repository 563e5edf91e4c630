"""Chopsticks through the real discord.py code paths, offline (SimCord)."""

from __future__ import annotations

import asyncio
import random

from bot.client import NapkinBot
from bot.service import load_state
from games import GAMES
from storage import Database
from tests.bot.helpers import World, both_sides_move, move_button, only_match_id, snapshot, stored

CHOPSTICKS = GAMES["chopsticks"]


async def _challenge_accepted(env, world: World, db: Database) -> int:
    alice, bob = world["alice"], world["bob"]
    result = await alice.slash(world.channel, "chopsticks start", opponent=bob)
    assert not result.ephemeral
    challenge = result.response
    assert "challenges" in challenge.content
    await bob.click(challenge, label="Accept")
    assert "Accepted by **bob**" in challenge.content
    assert all(button["disabled"] for row in challenge.components for button in row["components"])
    return await only_match_id(db)


async def test_challenge_accept_thread_moves_by_button_and_command_until_a_win(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _challenge_accepted(simcord_env, world, db)
    thread = world.thread()
    first_board = thread.last_message
    assert first_board.attachments and first_board.attachments[0].filename.endswith(".png")
    assert f"<@{world['alice'].id}>, your move" in first_board.content
    rng = random.Random(3)
    by_button = by_command = 0
    for _ in range(200):
        match = await stored(db, match_id)
        if match.status != "active":
            break
        state = load_state(match)
        actor = world["alice"] if match.current_seat == 0 else world["bob"]
        level = "hard" if match.current_seat == 0 else "easy"
        move = state.format_move(CHOPSTICKS.computer_move(state, level, rng))
        board = thread.last_message
        button = move_button(board, move)
        if button is not None and state.ply % 2 == 0:
            await actor.click(board, custom_id=button.custom_id)
            by_button += 1
        else:
            result = await actor.slash(thread, "chopsticks move", notation=move)
            assert not result.ephemeral, result.response.content
            by_command += 1
        after = await stored(db, match_id)
        assert after.ply == match.ply + 1
    match = await stored(db, match_id)
    assert match.status == "finished"
    assert match.outcome["winner"] == 0 and match.outcome["termination"] == "natural"
    assert by_button > 0 and by_command > 0
    final = thread.last_message
    assert "**alice** wins" in final.content
    assert [b.label for row in final.components for b in row.children] == ["Rematch"]  # no move buttons at the end


async def test_computer_match_answers_at_once(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    alice = world["alice"]
    result = await alice.slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="hard",
                               seat="second")
    assert "starts" in result.response.content
    match_id = await only_match_id(db)
    thread = world.thread()
    match = await stored(db, match_id)
    assert match.ply == 1 and match.current_seat == 1  # the computer opened at once
    rng = random.Random(5)
    for _ in range(120):
        match = await stored(db, match_id)
        if match.status != "active":
            break
        state = load_state(match)
        move = state.format_move(CHOPSTICKS.computer_move(state, "easy", rng))
        await alice.slash(thread, "chopsticks move", notation=move)
        after = await stored(db, match_id)
        assert after.status != "active" or after.current_seat == 1  # the computer already replied
    match = await stored(db, match_id)
    assert match.status == "finished"
    assert match.outcome["winner"] == 0  # perfect play wins as first player under the default rules


async def test_resign(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _challenge_accepted(simcord_env, world, db)
    await both_sides_move(world, db, match_id)  # (before that, a resignation aborts the match)
    result = await world["bob"].slash(world.thread(), "match resign")
    assert not result.ephemeral
    match = await stored(db, match_id)
    assert match.status == "finished" and match.outcome["winner"] == 0
    assert match.outcome["termination"] == "resigned" and match.seats[match.outcome["loser"]].display_name == "bob"
    again = await world["alice"].slash(world.thread(), "match resign")
    assert again.ephemeral and "is over" in again.response.content


async def test_button_from_before_a_restart_still_works(simcord_env, db: Database, db_path) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _challenge_accepted(simcord_env, world, db)
    board = world.thread().last_message
    button = move_button(board, "LL")
    assert button is not None
    reopened = await Database.open(db_path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        await world["alice"].click(board, custom_id=button.custom_id)
        match = await stored(reopened, match_id)
        assert match.ply == 1 and match.state["hands"] == [[1, 1], [2, 1]]
    finally:
        await reopened.close()


async def test_two_simultaneous_clicks_apply_exactly_one_move(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _challenge_accepted(simcord_env, world, db)
    bot: NapkinBot = simcord_env.bot
    guild_id = world.guild.id
    alice_id = world["alice"].id
    outcomes = await asyncio.gather(
        *(bot.services.moves.play(match_id, guild_id, alice_id, move, expected_version=0)
          for move in ("LL", "RR") * 10),
        return_exceptions=True)
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(applied) == 1
    assert all(type(o).__name__ in {"Outdated", "NotYourTurn"} for o in outcomes if isinstance(o, BaseException))
    moves = await bot.services.reading.moves(match_id)
    assert [m.ply for m in moves] == [1]


async def test_errors_are_ephemeral_and_change_nothing(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    await _challenge_accepted(simcord_env, world, db)
    thread = world.thread()
    before = await snapshot(db)
    cases = [
        (world["carol"], "LR", "not playing"),
        (world["bob"], "LR", "not your turn"),
        (world["alice"], "XYZ", "is not a chopsticks move"),
        (world["alice"], "split 9 9", "split"),
    ]
    for actor, notation, expected in cases:
        result = await actor.slash(thread, "chopsticks move", notation=notation)
        assert result.ephemeral, notation
        assert expected.lower() in result.response.content.lower()
    board = thread.last_message
    button = move_button(board, "LL")
    result = await world["bob"].click(board, custom_id=button.custom_id)
    assert result.ephemeral and "not your turn" in result.response.content.lower()
    assert await snapshot(db) == before
