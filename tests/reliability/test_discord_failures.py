"""Discord failing around a stored move: 429 and 5xx answers when the board is posted, interactions for a board or
challenge message deleted meanwhile, a match that no longer exists, and a crash between a member's move and the
computer's reply. The move is stored first, the member is told the truth, and ``/match board`` recovers."""

from __future__ import annotations

import discord
import pytest

from bot.client import NapkinBot
from bot.errors import GENERIC as GENERIC_TEXT
from bot.service import Services
from bot.utils import messages as _board
from storage import Database, ReadTx
from tests.bot.helpers import both_sides_move, move_button
from tests.reliability._support import (
    World,
    assert_consistent,
    edit_rows,
    ephemeral_refusal,
    full_snapshot,
    match_of,
    start_discord_match,
)

GENERIC = str(GENERIC_TEXT)  # the English reply (the tests' members read English)

pytestmark = pytest.mark.both_backends


def _notices(result) -> list[str]:
    """Ephemeral texts the member got for an interaction (the response and any follow-ups)."""
    messages = ([result.response] if result.response else []) + list(result.followups)
    return [m.content for m in messages if m.ephemeral]


async def _repost_and_continue(world: World, db: Database, match_id: int, actor: str, ply: int) -> None:
    """``/match board`` posts the current board with live buttons, and a click on it plays the next move."""
    thread = world.thread()
    shown = await world[actor].slash(thread, "match board")
    assert not shown.ephemeral and (f"move {ply}" if ply else "new match") in shown.response.content
    board = shown.response.message
    match = await match_of(db, match_id)
    button = next(b for b in (move_button(board, m) for m in ("LL", "LR", "RL", "RR")) if b is not None)
    assert f":{match.version}:" in button.custom_id  # drawn for the current version
    await world[actor].click(board, custom_id=button.custom_id)
    assert (await match_of(db, match_id)).ply == ply + 1
    await assert_consistent(db, match_id)


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_board_post_failing_after_a_click_keeps_the_move(simcord_env, db: Database, status: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")
    thread = world.thread()
    board = thread.last_message
    simcord_env.inject_error("POST", "/channels/*/messages", status=status, message="injected")
    result = await world["alice"].click(board, custom_id=move_button(board, "LL").custom_id)
    assert (await match_of(db, match_id)).ply == 1  # stored before Discord was asked to show it
    assert thread.last_message.id == board.id  # no new board could be posted
    notices = _notices(result)
    assert any("`LL`" in n and "/match board" in n for n in notices), notices
    await _repost_and_continue(world, db, match_id, "bob", ply=1)


@pytest.mark.parametrize("status", [429, 500, 502])
async def test_board_reply_failing_for_a_command_tells_the_truth(simcord_env, db: Database, status: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")
    simcord_env.inject_error("POST", "/interactions/*/*/callback", status=status, message="injected")
    result = await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    assert (await match_of(db, match_id)).ply == 1
    text = ephemeral_refusal(result)
    assert "`LL`" in text and "/match board" in text
    assert "nothing was changed" not in text  # the move *was* stored
    await _repost_and_continue(world, db, match_id, "bob", ply=1)


async def test_board_post_failing_after_a_command_elsewhere(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")
    simcord_env.inject_error("POST", "/channels/*/messages", status=500)
    result = await world["alice"].slash(world.channel, "chopsticks move", notation="RR", match=str(match_id))
    assert (await match_of(db, match_id)).ply == 1
    assert any("/match board" in n for n in _notices(result))
    await _repost_and_continue(world, db, match_id, "bob", ply=1)


async def test_a_click_on_a_board_deleted_meanwhile_gets_a_clear_reply(simcord_env, db: Database) -> None:
    """Discord answers 404 Unknown Message when the bot updates a message deleted after the click."""
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")
    thread = world.thread()
    board = thread.last_message
    simcord_env.inject_error("POST", "/interactions/*/*/callback", status=404, code=10008, message="Unknown Message")
    result = await world["alice"].click(board, custom_id=move_button(board, "LR").custom_id)
    text = ephemeral_refusal(result)
    assert "`LR`" in text
    assert (await match_of(db, match_id)).ply == 1
    fresh = thread.last_message
    assert fresh.id != board.id and "move 1" in fresh.content and move_button(fresh, "LL") is not None


async def test_an_accept_on_a_challenge_deleted_meanwhile_still_starts_the_match(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    challenge = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    simcord_env.inject_error("POST", "/interactions/*/*/callback", status=404, code=10008, message="Unknown Message")
    result = await world["bob"].click(challenge.response, label="Accept")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    text = ephemeral_refusal(result)
    assert f"#{match_id}" in text and GENERIC not in text
    assert "new match" in world.thread().last_message.content  # the first board is there


async def test_a_moderator_deleting_the_board_is_recovered_by_match_board(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    mods = world.guild.create_role("Mods", permissions=discord.Permissions(manage_messages=True))
    mod = world.guild.add_member(simcord_env.create_user("mod"), roles=[mods])
    match_id = await start_discord_match(world, db, "chopsticks")
    await mod.delete(world.thread().last_message)
    assert world.thread().last_message is None or "new match" not in world.thread().last_message.content
    await _repost_and_continue(world, db, match_id, "alice", ply=0)


async def test_buttons_of_a_vanished_or_finished_match_answer_clearly(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    first = await start_discord_match(world, db, "chopsticks")
    await both_sides_move(world, db, first)  # (so that the resignation below is a result, not an abort)
    old_board = world.thread().last_message
    _board._last_boards.clear()  # as after a restart: the bot no longer knows this board, so its buttons stay
    await world["bob"].slash(world.thread(), "match resign")
    assert move_button(old_board, "LL") is not None
    over = await world["alice"].click(old_board, custom_id=move_button(old_board, "LL").custom_id)
    assert "is over" in ephemeral_refusal(over)

    second = await start_discord_match(world, db, "chopsticks")
    board = world.thread().last_message
    # e.g. the database was restored from a backup older than this match
    await edit_rows(db, "DELETE FROM challenges WHERE match_id = ?", (second,))
    await edit_rows(db, "DELETE FROM matches WHERE id = ?", (second,))  # its seats and moves go with it
    before = await full_snapshot(db)
    gone = await world["alice"].click(board, custom_id=move_button(board, "LL").custom_id)
    assert f"no match #{second}" in ephemeral_refusal(gone)
    assert await full_snapshot(db) == before
    assert (await match_of(db, first)).status == "finished"


async def test_a_restart_resumes_a_computer_turn_interrupted_by_a_crash(simcord_env, db: Database) -> None:
    """The member's move committed, then the process died before the computer answered: the restarted bot must
    let the computer move instead of leaving the match waiting for ever (computer seats have no deadline)."""
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    crashed = Services(db, computer_id=simcord_env.bot.user.id, clock=simcord_env.bot.now)
    await crashed.moves.play(match_id, world.guild.id, world["alice"].id, "LL")  # committed; no computer reply
    assert (await match_of(db, match_id)).current_seat == 1
    reopened = await Database.open(db.path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        await simcord_env.advance_time(1)
        match = await match_of(reopened, match_id)
        assert match.ply == 2 and match.current_seat == 0
        assert "move 2" in world.thread().last_message.content
        await assert_consistent(reopened, match_id)
    finally:
        await reopened.close()



@pytest.mark.tolerates(errors=(discord.HTTPException,))
async def test_a_failed_reply_after_a_resignation_does_not_claim_nothing_changed(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")
    await both_sides_move(world, db, match_id)  # (so that the resignation below is a result, not an abort)
    simcord_env.inject_error("POST", "/interactions/*/*/callback", status=502, message="Bad Gateway")
    result = await world["bob"].slash(world.thread(), "match resign")
    assert (await match_of(db, match_id)).status == "finished"  # the resignation is stored
    text = ephemeral_refusal(result)
    assert "nothing was changed" not in text and "/match board" in text
