"""Reliability, round four (issue 45), the computer's workers: a round's pairing that four other servers' reviews
cannot hold up, and no worker that outlives the bot. Each test names the attack it holds against (each broke the
code before this round)."""

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
from bot.service import Player, Services, pairing
from bot.service.computer import ComputerPool
from bot.utils.computer import run_computer
from games import GAMES
from storage import Database, ReadTx
from tests.bot.helpers import until
from tests.reliability._support import Clock, World, ephemeral_refusal

GUILD = 20
PLAYERS = [Player(300 + n, f"p{n}") for n in range(4)]
PIECE_SECONDS = 0.5
"""How long each piece of the other servers' reviews holds its worker."""
REVIEW_PIECES = 40
"""Pieces per review: 20 s of work each, as in the attack."""


class _Waits:
    """A pool observer that keeps every wait it is told of."""

    def __init__(self) -> None:
        self.waits: list[tuple[str, float]] = []

    def waited(self, lane: str, seconds: float) -> None:
        self.waits.append((lane, seconds))

    def fell_back(self, game: str, reason: str) -> None:
        """Not needed here."""


def _piece(seconds: float) -> float:
    """A piece of a review: holds its worker for ``seconds``."""
    time.sleep(seconds)
    return seconds


async def _review(pool: ComputerPool, server: int) -> None:
    async with pool.long_work(server=server) as job:
        for _ in range(REVIEW_PIECES):
            await job.run(_piece, PIECE_SECONDS)


async def test_a_round_ends_while_four_servers_reviews_fill_the_workers_and_is_paired_within_its_budget(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # the pairing waited in the reviews' lane, as one "bot" server, and its 60 s budget counted the wait: it timed
    # out and round 2 was never paired
    budget = 10.0
    monkeypatch.setattr(pairing, "PAIRING_BUDGET", budget)  # (a 4-player round takes milliseconds of it)
    pool = ComputerPool(2)  # one review slot
    waits = _Waits()
    pool.observer = waits
    pool.start()
    services = Services(db, clock=Clock(time.time()), computer=pool, computer_id=999)
    reviews: list[asyncio.Task[None]] = []
    try:
        cup = await services.tournaments.create(guild_id=GUILD, channel_id=1, organizer=PLAYERS[0], name="Cup",
                                                game="chopsticks", variant={}, rounds=2)
        for player in PLAYERS:
            await services.tournaments.join(cup.id, GUILD, player)
        await services.tournaments.start(cup.id, GUILD, PLAYERS[0].user_id)
        games = [p for p in await db.read(ReadTx.tournament_pairings, cup.id, 1) if p.kind == "game"]
        assert len(games) == 2 and (await services.tournaments.get(cup.id, GUILD)).current_round == 1

        reviews = [asyncio.create_task(_review(pool, server)) for server in (1, 2, 3, 4)]
        await until(lambda: pool.busy("long") == 1 and len(pool.line()) == 3, 0.01)  # one runs, three wait
        state = GAMES["chopsticks"].new_state({}).to_dict()
        assert (await pool.move("chopsticks", state, "easy", "now")).quick is None  # the other worker is kept for
        #   quick moves from now on: the pairing has to wait for the review's piece under way
        for board in games:  # round 1 ends: each side moves, then the second resigns
            for _ in range(2):
                match = await services.reading.get_match(board.match_id)
                await services.moves.play(board.match_id, GUILD, match.seats[match.current_seat].user_id, "LL")
            await services.endings.resign(board.match_id, GUILD, board.second_id)
        ended = time.perf_counter()
        assert await services.tournament_rounds.settle_pending() == [cup.id]
        paired_after = time.perf_counter() - ended

        assert (await services.tournaments.get(cup.id, GUILD)).current_round == 2
        assert len([p for p in await db.read(ReadTx.tournament_pairings, cup.id, 2) if p.kind == "game"]) == 2
        assert services.tournament_rounds.stalled == {}
        assert pool.reviews == 4 and len(pool.line()) == 3  # paired while every review still runs or waits
        assert paired_after < budget + PIECE_SECONDS  # within its budget plus one piece of the reviews
        waited = [seconds for lane, seconds in waits.waits if lane == "pair"][-1]  # (round 1's was the first)
        print(f"round 2 paired {paired_after:.2f} s after round 1 ended; the pairing waited {waited:.3f} s for a "
              f"worker, behind a review piece of {PIECE_SECONDS} s")
    finally:
        for review in reviews:
            review.cancel()
        await asyncio.gather(*reviews, return_exceptions=True)
        await pool.close()


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
