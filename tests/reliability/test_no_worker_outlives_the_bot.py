"""No computer worker outlives the bot: after a bot that played a computer duel and refused two reviews ends, every
process it started is gone within seconds; a restart whose start-up work outlasts SimCord's five seconds still
comes up."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import psutil
import pytest
import pytest_asyncio

from bot.client import NapkinBot
from bot.service import Services
from bot.utils.computer import run_computer
from storage import Database, ReadTx
from tests.reliability._support import World, ephemeral_refusal

# ---------------------------------------------------------------- no worker outlives the bot


RESOURCE_TRACKER = "multiprocessing.resource_tracker"
"""The one child that is no worker: multiprocessing's bookkeeping process, started with the first worker of the test
process and shared by every pool in it until the process ends (by design, one per process)."""


def _children() -> dict[int, str]:
    """Every process below the test process (recursively), alive and not a zombie, with its command line; the
    resource tracker excepted."""
    found = {}
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):  # ended meanwhile
            command = " ".join(child.cmdline())
            if child.status() != psutil.STATUS_ZOMBIE and RESOURCE_TRACKER not in command:
                found[child.pid] = command
    return found


@pytest_asyncio.fixture
async def nothing_outlives_the_bot() -> AsyncIterator[dict[int, str]]:
    """The children of the test process before the test; after the test's bot and its environment ended (this
    fixture is set up before ``simcord_env``, so it is torn down after it), every child started since must be gone
    within :data:`GONE_WITHIN` seconds."""
    before = _children()
    yield before
    left: dict[int, str] = {}
    for _ in range(int(GONE_WITHIN / 0.05)):
        left = {pid: command for pid, command in _children().items() if pid not in before}
        if not left:
            return
        await asyncio.sleep(0.05)
    pytest.fail(f"{len(left)} process(es) outlived the bot by {GONE_WITHIN} s: {left}")


GONE_WITHIN = 3.0
"""Seconds after the bot's end within which its workers must be gone (a worker ends within a second of its pool's
close)."""


async def test_no_worker_outlives_a_bot_that_played_a_computer_duel_and_refused_two_reviews(
        nothing_outlives_the_bot: dict[int, str], simcord_env: Any, db: Database) -> None:
    # one computer worker was still alive 3 s after the environment shut down: it ends the bot's tasks, not the bot
    bot = simcord_env.bot
    world, elsewhere = World(simcord_env, "alice"), World(simcord_env, "bob")
    duel = await bot.services.challenges.start_computer_duel(
        guild_id=world.guild.id, channel_id=world.channel.id, game="napkin_chess", variant={},
        levels=("easy", "medium"))
    await run_computer(bot, duel.id)  # played to its end by the computer's workers
    assert (await db.read(ReadTx.get_match, duel.id)).status == "finished"
    workers = {pid for pid, command in _children().items()
               if pid not in nothing_outlives_the_bot and "spawn_main" in command}
    assert workers and set(bot.computer.worker_pids()) == workers  # the duel ran in the bot's own workers
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    running = max(await db.read(ReadTx.all_match_ids))
    foreign = await elsewhere["bob"].slash(elsewhere.channel, "match review", match=str(duel.id))
    assert f"There is no match #{duel.id} in this server" in ephemeral_refusal(foreign)
    unfinished = await world["alice"].slash(world.channel, "match review", match=str(running))
    assert "is still being played" in ephemeral_refusal(unfinished)
    assert bot.computer.reviews == 0  # refused before any review was asked of the workers


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_restart_whose_start_up_work_outlasts_simcords_five_seconds_still_comes_up(
        simcord_env: Any, db: Database) -> None:
    # "bot did not settle while advancing time": a restarted bot resumes the computer turns a crash left (worker
    # interpreters start, the games load, boards are drawn), and SimCord gave that 5 s, which a loaded machine overran
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    crashed = Services(db, computer_id=simcord_env.bot.user.id, clock=simcord_env.bot.now)
    match = await crashed.moves.play(match_id, world.guild.id, world["alice"].id, "LL")  # the process died here
    assert match.match.current_seat == 1  # the computer's turn, left pending
    restarted = NapkinBot(db)
    real = restarted.computer.move

    async def on_a_loaded_machine(*args: Any, **kwargs: Any) -> Any:
        await asyncio.to_thread(time.sleep, 6.0)  # what a busy machine adds to the start-up work
        return await real(*args, **kwargs)

    restarted.computer.move = on_a_loaded_machine  # type: ignore[method-assign]
    await simcord_env.restart_bot(restarted)
    assert (await db.read(ReadTx.get_match, match_id)).ply == 2  # resumed, within the environment's settle bound
