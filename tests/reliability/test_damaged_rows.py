"""A damaged match row (not JSON, an unknown game, a seat out of range, a state that is no position) is quarantined:
lists, the deadline pass and the computer turns resumed at start go on with the others."""

from __future__ import annotations

from typing import Any

import pytest

from bot.client import NapkinBot
from bot.service import Services
from storage import Database, ReadTx
from tests.reliability._support import (
    World,
    edit_rows,
    ephemeral_refusal,
    match_of,
    start_discord_match,
)

pytestmark = pytest.mark.both_backends

DAY = 86400.0


async def _damage(db: Database, match_id: int, kind: str) -> None:
    """Damage a stored match row the way a bad restore, a hand edit or an old bug would."""
    change = {
        "state_not_json": "UPDATE matches SET state = '{not json' WHERE id = ?",
        "unknown_game": "UPDATE matches SET game = 'backgammon' WHERE id = ?",
        "seat_out_of_range": "UPDATE matches SET current_seat = 7 WHERE id = ?",
        "state_not_a_position": "UPDATE matches SET state = '{\"hands\": \"x\"}' WHERE id = ?",
    }[kind]
    await edit_rows(db, change, (match_id,))


DAMAGE_KINDS = ["state_not_json", "unknown_game", "seat_out_of_range", "state_not_a_position"]


# ---------------------------------------------------------------- damaged rows


async def _two_matches(world: World, db: Database, **options: Any) -> tuple[int, int]:
    first = await start_discord_match(world, db, "chopsticks", **options)
    second = await start_discord_match(world, db, "chopsticks", **options)
    return first, second


@pytest.mark.parametrize("kind", DAMAGE_KINDS[:3])  # (a list reads no position; the other kind shows when used)
async def test_a_damaged_row_is_quarantined_and_lists_go_on(simcord_env, db: Database,
                                                            kind: str) -> None:
    world = World(simcord_env, "alice", "bob")
    healthy, damaged = await _two_matches(world, db)
    await _damage(db, damaged, kind)
    listed = await world["alice"].slash(world.channel, "match list")
    text = ephemeral_refusal(listed)
    assert f"#{healthy} Chopsticks vs bob" in text
    assert f"Match #{damaged} is damaged" in text and f"napkin inspect {damaged}" in text
    assert (await db.fetchone("SELECT damage FROM matches WHERE id = ?", (damaged,)))[0]
    board = await world["bob"].slash(world.channel, "match board", match=str(damaged))
    assert "is damaged" in ephemeral_refusal(board)
    moved = await world["alice"].slash(world.channel, "chopsticks move", notation="LL", match=str(healthy))
    assert (await match_of(db, healthy)).ply == 1, moved


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
@pytest.mark.parametrize("kind", DAMAGE_KINDS)
async def test_a_damaged_row_due_in_the_pass_does_not_stop_the_others(simcord_env, db: Database,
                                                                      kind: str) -> None:
    world = World(simcord_env, "alice", "bob")
    healthy, damaged = await _two_matches(world, db, days=1)
    await _damage(db, damaged, kind)
    cog = simcord_env.bot.get_cog("Deadlines")
    passes = 0
    real = cog.run_pass

    async def counted() -> float:
        nonlocal passes
        passes += 1
        return await real()

    cog.run_pass = counted
    await simcord_env.advance_time(DAY + 60)
    assert (await match_of(db, healthy)).status == "aborted"  # ended at its deadline (no first move: aborted)
    assert (await db.fetchone("SELECT damage, deadline FROM matches WHERE id = ?", (damaged,)))[1] is None
    assert cog.failures == 0 and passes <= 30  # no busy loop: about one pass an hour, and the due ones
    assert cog.job.loop.is_running()


@pytest.mark.parametrize("kind", DAMAGE_KINDS)
async def test_a_damaged_row_among_computer_turns_does_not_stop_resumption(simcord_env, db: Database,
                                                                           kind: str) -> None:
    world = World(simcord_env, "alice")
    for _ in range(2):
        await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    first, second = await db.read(ReadTx.all_match_ids)
    crashed = Services(db, computer_id=simcord_env.bot.user.id, clock=simcord_env.bot.now)
    for match_id in (first, second):  # committed; the process died before the computer answered
        await crashed.moves.play(match_id, world.guild.id, world["alice"].id, "LL")
    await _damage(db, first, kind)
    reopened = await Database.open(db.path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        await simcord_env.advance_time(1)
        assert (await match_of(reopened, second)).ply == 2  # the healthy match got its computer move
        if kind != "seat_out_of_range":  # (that row names no computer seat to move: it is not picked at all)
            assert (await reopened.fetchone("SELECT damage FROM matches WHERE id = ?", (first,)))[0]
    finally:
        await reopened.close()
