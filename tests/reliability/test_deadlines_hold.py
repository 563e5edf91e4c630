"""Deadlines that hold: a move after its deadline forfeits instead of resetting the clock, a move committed while
the deadline pass runs gets no early reminder, and a reminder whose post fails is retried until delivered."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from bot.service import Player, Services, TimeRanOut
from storage import Database, ReadTx
from tests.reliability._support import (
    Clock,
    World,
    match_of,
    service_match,
    start_discord_match,
)

pytestmark = pytest.mark.both_backends

DAY = 86400.0
ALICE, BOB = Player(1, "alice"), Player(2, "bob")
GUILD = 10


async def _duel(services: Services, days: int = 3) -> int:
    return (await service_match(services, "chopsticks", GUILD, (ALICE, BOB), channel_id=5, days=days)).id


def _texts(channel: Any) -> list[str]:
    return [m.content for m in channel.history()]


def _reminders(channel: Any) -> list[str]:
    return [t for t in _texts(channel) if "a third of your time" in t]


# ---------------------------------------------------------------- deadlines that hold


async def test_a_move_after_the_deadline_forfeits_instead_of_resetting_the_clock(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=1)
    for player, move in ((ALICE, "LL"), (BOB, "LL"), (ALICE, "RR")):  # each side has moved: a forfeit is due
        await services.moves.play(match_id, GUILD, player.user_id, move)
    deadline = (await match_of(db, match_id)).deadline
    assert deadline is not None
    clock.now = deadline + 3600  # the bot was down: no pass ran at the deadline
    with pytest.raises(TimeRanOut, match="ran out"):
        await services.moves.play(match_id, GUILD, BOB.user_id, "LL")
    match = await match_of(db, match_id)
    assert match.status == "finished" and match.deadline is None and match.ply == 3  # the late move is not stored
    assert match.outcome is not None and match.outcome["termination"] == "out_of_time"
    assert match.outcome["winner"] == 0 and match.outcome["loser"] == 1


async def test_a_move_committed_while_the_pass_runs_gets_no_early_reminder(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    match_id = await _duel(services, days=3)
    await services.moves.play(match_id, GUILD, ALICE.user_id, "LL")
    clock.now += 2 * DAY + 60  # bob's reminder is due
    read_list, go_on = threading.Event(), threading.Event()
    original = ReadTx.due_match_ids

    def paused(tx: ReadTx, now: float, shards: Any = None) -> list[Any]:
        found = original(tx, now, shards)
        read_list.set()
        go_on.wait(10)  # the pass holds its list while bob moves
        return found

    monkeypatch.setattr(ReadTx, "due_match_ids", paused)
    running = asyncio.create_task(services.deadlines.process_due())
    await asyncio.to_thread(read_list.wait, 10)
    await services.moves.play(match_id, GUILD, BOB.user_id, "LL")  # a fresh 3 days for alice
    go_on.set()
    work = await running
    assert work.reminded == [] and work.forfeited == []
    match = await match_of(db, match_id)
    assert match.status == "active" and not match.reminded
    assert await db.fetchall("SELECT * FROM outbox") == []


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
@pytest.mark.parametrize("status", [503])  # discord.py never retries a 503
async def test_a_reminder_whose_post_fails_is_retried_until_delivered(simcord_env, db: Database, status: int) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks", days=1)
    await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    deadline = (await match_of(db, match_id)).deadline
    await simcord_env.advance_time(deadline - DAY / 3 - 10 - simcord_env.bot.now())
    simcord_env.inject_error("POST", "/channels/*/messages", status=status, times=1)
    await simcord_env.advance_time(20)
    assert _reminders(world.thread()) == []
    assert (await db.fetchone("SELECT attempts FROM outbox WHERE kind = 'reminder'"))[0] == 1
    await simcord_env.advance_time(600)
    assert len(_reminders(world.thread())) == 1
    assert await db.fetchall("SELECT * FROM outbox") == []
    await simcord_env.advance_time(DAY)  # (bob never made a first move: the match is aborted at the deadline)
    assert len(_reminders(world.thread())) == 1 and (await match_of(db, match_id)).status == "aborted"
