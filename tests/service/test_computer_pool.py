"""The computer's worker processes: same moves as in the bot's process, the same games, a time guard, a clean stop."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
import time

import psutil
import pytest

from bot.service import Player, Services
from bot.service.computer import ComputerPool
from bot.service.computer_workers import ComputerStopped, WorkerLost
from bot.workers import choose_notation
from games import GAMES
from storage import Database
from tests.conftest import EXTRA_GAMES

pytestmark = pytest.mark.both_backends


def _positions() -> list[tuple[str, dict[str, object]]]:
    rng = random.Random(4)
    found = []
    for key in GAMES:
        state = GAMES[key].new_state({}, rng)
        for _ in range(3):  # a few moves in, stopping short of an end
            after = state.apply(GAMES[key].computer_move(state, "easy", rng))
            if after.is_over:
                break
            state = after
        found.append((key, state.to_dict()))
    return found


async def test_workers_choose_the_moves_the_bot_process_would_for_every_game() -> None:
    positions = _positions()
    assert GAMES["tictactoe"].__module__.startswith(EXTRA_GAMES)  # a game the worker only finds if told the package
    assert {key for key, _ in positions} == set(GAMES)
    pool = ComputerPool(1)
    pool.start()
    try:
        assert pool.running
        for key, state in positions:
            for level in ("easy", "medium"):
                seed = f"{key}:{level}"
                assert await pool.choose(key, state, level, seed) == choose_notation(key, state, level, seed)
    finally:
        await pool.close()
    assert not pool.running


async def test_a_search_over_its_time_budget_plays_an_easy_move() -> None:
    key, state = next((key, state) for key, state in _positions() if key == "polygons")
    pool = ComputerPool(1, budget=0.0)
    pool.start()
    try:
        chosen = await pool.choose(key, state, "hard", "seed")
    finally:
        await pool.close()
    assert chosen == choose_notation(key, state, "easy", "seed")


async def test_after_close_moves_are_searched_in_a_thread_and_bad_input_still_raises() -> None:
    pool = ComputerPool(2)
    pool.start()
    await pool.close()
    await pool.close()  # idempotent
    key, state = _positions()[0]
    assert await pool.choose(key, state, "easy", "s") == choose_notation(key, state, "easy", "s")
    with pytest.raises(ValueError, match="workers"):
        ComputerPool(-1)


async def test_the_service_applies_a_worker_move_with_its_version_check(db: Database) -> None:
    pool = ComputerPool(1)
    pool.start()
    services = Services(db, computer_id=1, computer=pool)
    try:
        match = await services.challenges.start_solo(guild_id=1, channel_id=2, game="chopsticks", variant={},
                                                     player=Player(7, "ann"), level="hard", player_seat=1)
        replies = await services.moves.computer_replies(match.id)
    finally:
        await pool.close()
    assert [r.seat for r in replies] == [0] and replies[0].match.version == match.version + 1
    seed = f"{match.id}:0:{match.initial_state.get('seed', '')}"
    assert replies[0].notation == choose_notation("chopsticks", match.state, "hard", seed)
    assert (await services.reading.moves(match.id))[0].notation == replies[0].notation



def _dies_in_a_worker() -> str:
    """Kills the worker process running it (as an out-of-memory kill would); in the bot's process, answers."""
    if multiprocessing.parent_process() is not None:
        os._exit(1)
    return "answered"


def _dies_once(marker: str) -> int:
    """Kills the first worker that runs it (leaving ``marker``); answers the process id of the next one."""
    if not os.path.exists(marker):
        with open(marker, "w"):
            pass
        os._exit(1)
    return os.getpid()


@pytest.mark.slow  # a fault suite: a worker killed with SIGKILL
async def test_a_dead_workers_piece_runs_again_on_a_fresh_worker_never_in_the_bots_process(tmp_path) -> None:
    key, state = _positions()[0]
    pool = ComputerPool(1)
    pool.start()
    try:
        answered_by = await pool.run(_dies_once, str(tmp_path / "died"), budget=120)
        assert answered_by != os.getpid() and (tmp_path / "died").exists()
        assert pool.worker_pids() == [answered_by] and pool.processes == 1  # the pool is whole again
        with pytest.raises(WorkerLost):  # a piece that kills every worker is given up, never run in the bot
            await pool.run(_dies_in_a_worker, budget=120)
        assert await pool.choose(key, state, "easy", "seed") == choose_notation(key, state, "easy", "seed")
        assert pool.processes == 1
    finally:
        await pool.close()
    assert pool.processes == 0


def test_review_slots_default_to_every_worker_but_one_and_are_bounded() -> None:
    assert [ComputerPool(workers).review_slots for workers in (0, 1, 2, 4)] == [1, 1, 1, 3]
    assert ComputerPool(4, review_slots=2).review_slots == 2
    for workers, slots in ((4, 4), (2, 2), (1, 2), (3, 0)):
        with pytest.raises(ValueError, match="review slots"):
            ComputerPool(workers, review_slots=slots)


_running = threading.Condition()
_counts = {"now": 0, "most": 0, "together": 1}


def _busy_a_moment() -> str:
    """A piece of work that holds its slot until ``_counts["together"]`` pieces run at once (for at most 10 s: a pool
    that never lets that many run shows it in ``_counts["most"]``), then a moment more."""
    with _running:
        _counts["now"] += 1
        _counts["most"] = max(_counts["most"], _counts["now"])
        _running.notify_all()
        _running.wait_for(lambda: _counts["now"] >= _counts["together"], timeout=10)
    time.sleep(0.05)
    with _running:
        _counts["now"] -= 1
    return "done"


@pytest.mark.parametrize("slots", [1, 2])
async def test_reviews_run_at_most_their_slots_at_once(slots: int) -> None:
    _counts.update(now=0, most=0, together=slots)  # each piece waits for every slot to be taken (not for luck)
    pool = ComputerPool(3, review_slots=slots)  # not started: the work runs in threads, under the same slots
    # four servers' work: one server's alone would run one at a time (its share, pool.per_server)
    try:
        answers = await asyncio.gather(*(pool.run(_busy_a_moment, budget=30, server=n) for n in range(4)))
    finally:
        _counts["together"] = 1
    assert answers == ["done"] * 4 and _counts["most"] == slots and pool.reviews == 0


async def test_a_review_waiting_for_its_slot_spends_its_budget() -> None:
    pool = ComputerPool(2, review_slots=1)
    first = asyncio.create_task(pool.run(time.sleep, 0.5, budget=30))
    await asyncio.sleep(0.05)
    with pytest.raises(TimeoutError):
        await pool.run(_busy_a_moment, budget=0.2)
    await first


def _workers_of_this_process() -> list[psutil.Process]:
    return [child for child in psutil.Process().children() if "spawn_main" in " ".join(child.cmdline())
            and child.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.parametrize("workers", [1, 2])
async def test_the_pool_never_runs_more_worker_processes_than_its_workers(workers: int) -> None:
    key, state = next((key, state) for key, state in _positions() if key == "chopsticks")
    before = {process.pid for process in _workers_of_this_process()}
    pool = ComputerPool(workers)
    pool.start()
    try:
        await asyncio.gather(*(pool.choose(key, state, "easy", str(n)) for n in range(6)))
        mine = [process for process in _workers_of_this_process() if process.pid not in before]
        assert len(mine) == pool.processes == workers
    finally:
        await pool.close()
    assert pool.processes == 0


def _sleeps_in_a_worker() -> str:
    """Keeps a worker busy for a minute; in the bot's process (after the worker is gone), answers at once."""
    if multiprocessing.parent_process() is not None:
        time.sleep(60)
    return "answered"


async def test_closing_with_a_grace_ends_a_worker_still_busy_after_it() -> None:
    before = {process.pid for process in _workers_of_this_process()}
    pool = ComputerPool(1)
    pool.start()
    busy = asyncio.create_task(pool.run(_sleeps_in_a_worker, budget=120))
    for _ in range(600):  # the worker starts and takes the work
        if pool.processes and pool.reviews:
            break
        await asyncio.sleep(0.05)
    (worker,) = [process for process in _workers_of_this_process() if process.pid not in before]
    began = time.monotonic()
    await pool.close(grace=0.5)
    assert time.monotonic() - began < 10
    assert not worker.is_running() or worker.status() == psutil.STATUS_ZOMBIE
    with pytest.raises(ComputerStopped):  # cut short, and not run again in the bot's process
        await busy
