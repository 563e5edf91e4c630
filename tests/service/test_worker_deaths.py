"""Workers SIGKILLed in the middle of hard searches and of a review, 20 times each (real processes, a real SIGKILL):
every search is answered at its level and every review made, the same as without a death; nothing runs in the bot's
process instead (its event loop is never held more than 100 ms: a heartbeat measures it); the pool never runs more
processes than its workers, and none is left once it is closed."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import signal
import time
from pathlib import Path

import psutil
import pytest

from bot.service import computer_scheduler
from bot.service.computer import ComputerPool
from bot.service.computer_scheduler import LongWork
from bot.service.reviews import review_match
from bot.workers import choose_notation
from games import GAMES
from games.review import review_notations
from tests.bot.helpers import until

pytestmark = pytest.mark.slow  # a fault suite: real worker processes killed with SIGKILL, 20 times each

KILLS = 20
SEARCH = ("differences", {"n": 10})
"""A hard search of a few hundred milliseconds of CPU: long enough to be killed in the middle; bounded by its work
alone, with no CPU cap (which a loaded machine, or a fresh worker's cold caches, could reach first, so that the move
after a death would differ from the one without it by the clock, not by the death)."""


def _finished_match() -> tuple[dict[str, object], list[str]]:
    game = GAMES["polygons"]
    rng = random.Random(3)
    state = game.new_state({}, random.Random(3))
    start, notations = state.to_dict(), []
    while not state.is_over:
        move = game.computer_move(state, "medium", rng)
        notations.append(state.format_move(move))
        state = state.apply(move)
    return start, notations


def _workers() -> set[int]:
    """This process's worker processes alive now (the resource tracker and zombies excepted)."""
    found = set()
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):  # ended meanwhile
            if "spawn_main" in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                found.add(child.pid)
    return found


def _waits_for_a_cpu() -> dict[str, float]:
    """Seconds each thread of this process has spent runnable but not running since it started (Linux's schedstat,
    by thread id): the time the machine's other processes had the CPU, which no code of ours can hold against the
    event loop — its own thread's, and that of a thread holding the GIL the loop waits for."""
    found = {}
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):  # a thread that ended meanwhile
            found[task.name] = int((task / "schedstat").read_text().split()[1]) / 1e9
    return found


def _waited(before: dict[str, float], after: dict[str, float]) -> float:
    """Seconds the threads of this process waited for a CPU between two readings of :func:`_waits_for_a_cpu` (a
    thread started meanwhile: all its waiting; one that ended: none)."""
    return sum(seconds - before.get(thread, 0.0) for thread, seconds in after.items())


class _Heartbeat:
    """How long the event loop was held: the longest gap between two runs of a 5 ms timer's callback beyond the 5 ms
    (``longest``), and the same without the time this process's threads waited for a CPU the machine's other
    processes had (``held``: the machine is shared, and its load is not the bot's doing; the loop's thread also waits
    while a thread that holds the GIL waits for a CPU)."""

    def __init__(self) -> None:
        self.longest = self.held = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _beat(self) -> None:
        loop = asyncio.get_running_loop()
        last, waits = loop.time(), _waits_for_a_cpu()
        while True:
            await asyncio.sleep(0.005)
            now, now_waits = loop.time(), _waits_for_a_cpu()
            gap = now - last - 0.005
            self.longest = max(self.longest, gap)
            self.held = max(self.held, gap - _waited(waits, now_waits))
            last, waits = now, now_waits

    def __enter__(self) -> _Heartbeat:
        self._task = asyncio.get_running_loop().create_task(self._beat())
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def test_killed_workers_take_nothing_with_them() -> None:
    start, notations = _finished_match()
    state = GAMES[SEARCH[0]].new_state(SEARCH[1]).to_dict()
    before = _workers()
    pool = ComputerPool(2)
    pool.start()
    reviews: list = []
    current: list[LongWork] = []
    done = asyncio.Event()

    async def review_again_and_again() -> None:
        while not done.is_set():
            async with pool.long_work(server=1) as job:
                current[:] = [job]
                reviews.append(await review_match(job, "polygons", start, notations, seed="kills"))

    async def kill_searches() -> list:
        answers = []
        for round_ in range(KILLS):
            search = asyncio.create_task(pool.move(SEARCH[0], state, "hard", f"kill {round_}", server=2))
            await until(lambda: pool.worker_pids("move"), 0.002)
            await asyncio.sleep(0.01)  # in the middle of the search
            for pid in pool.worker_pids("move"):
                os.kill(pid, signal.SIGKILL)
            answers.append(await search)
        return answers

    async def kill_review_pieces() -> int:
        killed, progress = 0, -1.0
        while killed < KILLS:
            job = current[0] if current else None
            pids = pool.worker_pids("long")
            if job is None or not pids or job.seconds == progress:  # one death per piece: it moved on first
                await asyncio.sleep(0.002)
                continue
            await asyncio.sleep(0.01)
            for pid in pool.worker_pids("long"):
                os.kill(pid, signal.SIGKILL)
                killed += 1
            progress = job.seconds
        return killed

    try:
        await asyncio.gather(*(pool.choose("chopsticks", GAMES["chopsticks"].new_state({}).to_dict(), "easy", str(n))
                               for n in range(2)))  # both workers started
        began = time.monotonic()
        with _Heartbeat() as heartbeat:
            reviewing = asyncio.create_task(review_again_and_again())
            watching = asyncio.create_task(_most_workers(pool, before))
            answers, killed = await asyncio.gather(kill_searches(), kill_review_pieces())
            done.set()
            await reviewing
            watching.cancel()
            (most,) = await asyncio.gather(watching, return_exceptions=True)
        seconds = time.monotonic() - began
        print(f"kills: {seconds:.1f} s")
        assert killed >= KILLS and pool.deaths >= 2 * KILLS - 2  # a kill may find its search just answered
        assert [answer.quick for answer in answers] == [None] * KILLS  # every search answered at its level
        print(f"event loop: longest gap {heartbeat.longest:.3f} s, held {heartbeat.held:.3f} s")
        assert heartbeat.held <= 0.1, f"the event loop was held {heartbeat.held:.3f} s"
        assert pool.processes == 2 and len(_workers() - before) == 2  # whole again

    finally:
        await pool.close()
    assert pool.processes == 0 and not _workers() - before  # none left
    assert most == 2  # never more processes than workers, replacements included
    expected = await asyncio.to_thread(review_notations, "polygons", start, notations, seconds=600, seed="kills")
    assert reviews and all(review == expected for review in reviews)  # the same review as without a death
    for round_ in range(3):  # the same move as without a death
        quiet = await asyncio.to_thread(choose_notation, SEARCH[0], state, "hard", f"kill {round_}")
        assert answers[round_].notation == quiet


async def _most_workers(pool: ComputerPool, before: set[int]) -> int:
    """The most worker processes seen at once (looked at every 50 ms, in a thread: scanning the machine's processes
    takes tens of milliseconds on a busy machine, which the event loop's heartbeat would count against the bot)."""
    most = 0
    try:
        while True:
            most = max(most, len(await asyncio.to_thread(_workers) - before))
            await asyncio.sleep(0.05)
    except asyncio.CancelledError:
        return most


def _searching_on_both(pool: ComputerPool) -> bool:
    return len(pool.worker_pids("move")) == 2


async def test_pools_replaced_one_after_another_never_exceed_their_workers_nor_leave_any(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # slow moves may take every worker here (no worker kept for quick ones), so that two run at once to be killed
    monkeypatch.setattr(computer_scheduler, "QUICK_KEPT_SECONDS", 0.0)
    state = GAMES[SEARCH[0]].new_state(SEARCH[1]).to_dict()
    before = _workers()
    for round_ in range(3):  # pools made, broken by SIGKILL, and closed in the same process
        pool = ComputerPool(2)
        pool.start()
        watching = asyncio.create_task(_most_workers(pool, before))
        try:
            # both workers started first (they start as work comes)
            await asyncio.gather(*(pool.move(SEARCH[0], state, "hard", f"{round_}:warm:{n}") for n in range(2)))
            await until(lambda pool=pool: pool.processes == 2, 0.01)
            for kill in range(2):
                searches = [asyncio.create_task(pool.move(SEARCH[0], state, "hard", f"{round_}:{kill}:{n}"))
                            for n in range(2)]
                await until(functools.partial(_searching_on_both, pool), 0.002)
                for pid in pool.worker_pids("move"):
                    os.kill(pid, signal.SIGKILL)
                assert [answer.quick for answer in await asyncio.gather(*searches)] == [None, None]
        finally:
            await pool.close()
            watching.cancel()
        (most,) = await asyncio.gather(watching, return_exceptions=True)
        assert most <= 2 and not _workers() - before, f"pool {round_}: {most} workers at most, then left"
