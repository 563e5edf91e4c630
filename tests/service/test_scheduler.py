"""The computer pool's scheduler: moves before long work, long work never on the last worker, fair turns between
servers, capped queues with polite refusals, and quick moves that say so (in order, never timed)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from bot.service import LimitReached
from bot.service.computer import COST_SAMPLES, ComputerPool
from bot.workers import CpuBudgetSpent, choose_notation
from games import GAMES
from tests.bot.helpers import until


def _pause(seconds: float) -> float:
    """A piece of long work that holds its worker for ``seconds``."""
    time.sleep(seconds)
    return seconds


class _Seen:
    """A pool observer that keeps what it is told."""

    def __init__(self) -> None:
        self.waits: list[tuple[str, float]] = []
        self.fallbacks: list[tuple[str, str]] = []

    def waited(self, lane: str, seconds: float) -> None:
        self.waits.append((lane, seconds))

    def fell_back(self, game: str, reason: str) -> None:
        self.fallbacks.append((game, reason))


async def _job(pool: ComputerPool, server: int, order: list[str], name: str, pieces: int = 1,
               seconds: float = 0.05) -> None:
    async with pool.long_work(server=server) as job:
        await job.turn()
        order.append(name)
        for _ in range(pieces):
            await job.run(_pause, seconds)


async def _settled() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_one_servers_ten_reviews_do_not_delay_another_servers_beyond_its_turn() -> None:
    pool = ComputerPool(4)  # not started: the pieces run in threads, the turns are the scheduler's all the same
    assert (pool.review_slots, pool.per_server) == (3, 1)
    order: list[str] = []
    flood = [asyncio.create_task(_job(pool, 1, order, f"a{n}")) for n in range(10)]
    await _settled()
    assert order == ["a0"]  # one server's share of the review slots, however many it asks
    late = asyncio.create_task(_job(pool, 2, order, "b0"))
    await _settled()
    assert order == ["a0", "b0"]  # its turn came at once: a free slot, and server 1 already has its share
    others = [asyncio.create_task(_job(pool, server, order, f"c{server}")) for server in (3, 4)]
    await _settled()
    assert order == ["a0", "b0", "c3"]  # all three slots taken; server 4 waits for the next turn
    (waiting_c4,) = [job for job in pool.line() if job.server == 4]
    assert waiting_c4.ahead == 0 and [job.server for job in pool.line()][:2] == [4, 1]
    await asyncio.gather(*flood, late, *others)
    assert order.index("c4") < order.index("a1")  # server 4 before server 1's second review
    assert sorted(order) == sorted(["b0", "c3", "c4", *(f"a{n}" for n in range(10))])
    assert pool.reviews == 0 and not pool.line()


async def test_turns_alternate_between_servers_whatever_they_asked_first() -> None:
    pool = ComputerPool(2)  # one review slot
    order: list[str] = []
    first = [asyncio.create_task(_job(pool, 1, order, f"a{n}")) for n in range(4)]
    await _settled()
    second = [asyncio.create_task(_job(pool, 2, order, f"b{n}")) for n in range(2)]
    await _settled()
    assert [job.ahead for job in pool.line()] == [0, 1, 2, 3, 4]
    assert [job.server for job in pool.line()] == [2, 1, 2, 1, 1]  # b0 before a1: one turn each
    await asyncio.gather(*first, *second)
    assert order == ["a0", "b0", "a1", "b1", "a2", "a3"]


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_move_requested_while_reviews_fill_the_long_lane_is_answered_before_them() -> None:
    pool = ComputerPool(2)
    pool.start()
    order: list[str] = []
    try:
        state = GAMES["chopsticks"].new_state({}).to_dict()
        await asyncio.gather(*(pool.choose("chopsticks", state, "easy", "warm") for _ in range(2)))
        assert pool.processes == 2  # both workers started
        reviews = [asyncio.create_task(_job(pool, server, order, f"review {server}", pieces=3, seconds=0.3))
                   for server in (1, 2, 3)]
        await until(lambda: pool.busy("long") >= 1, 0.01)
        assert order == ["review 1"] and pool.busy("long") == pool.review_slots == 1  # the lane is full
        move = asyncio.create_task(pool.move("chopsticks", state, "hard", "now", server=4))
        await asyncio.sleep(0)  # the move's first step, which asks for a worker (it is sent to it at its next step)
        assert pool.busy("move") == 1  # the last worker: the move has it at once
        answer = await move
        order.append("move")
        assert answer.notation == choose_notation("chopsticks", state, "hard", "now") and answer.quick is None
        assert order == ["review 1", "move"]  # answered before the reviews waiting behind the first
        await asyncio.gather(*reviews)
        assert order == ["review 1", "move", "review 2", "review 3"]
    finally:
        await pool.close()


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_the_last_worker_is_never_taken_by_long_work() -> None:
    pool = ComputerPool(3)
    pool.start()
    seen = set()
    order: list[str] = []
    try:
        jobs = [asyncio.create_task(_job(pool, server, order, str(server), pieces=3, seconds=0.1))
                for server in range(8)]
        while not all(job.done() for job in jobs):
            seen.add(pool.busy("long"))
            assert pool.busy("long") <= pool.review_slots == pool.workers - 1
            await asyncio.sleep(0.005)
        await asyncio.gather(*jobs)
        assert max(seen) == 2 and len(order) == 8
    finally:
        await pool.close()


async def test_one_worker_takes_turns_between_moves_and_pieces() -> None:
    pool = ComputerPool(1)  # no worker to keep: long work runs between moves, one piece at a time
    pool.start()
    state = GAMES["chopsticks"].new_state({}).to_dict()
    try:
        await pool.choose("chopsticks", state, "easy", "warm")
        review = asyncio.create_task(_job(pool, 1, [], "review", pieces=4, seconds=0.2))
        await until(lambda: pool.busy("long") >= 1, 0.01)
        answers = await asyncio.gather(*(pool.move("chopsticks", state, "easy", str(n), server=2) for n in range(3)))
        assert not review.done()  # each move waited for at most the piece under way, not for the review
        assert [answer.quick for answer in answers] == [None] * 3
        await review
    finally:
        await pool.close()


async def test_queues_have_caps_and_refuse_politely() -> None:
    pool = ComputerPool(2)  # one review slot; not started
    async with pool.long_work(server=1, member=7) as held:
        await held.turn()
        with pytest.raises(LimitReached, match=r"^Your previous review is still being made; it is posted when"):
            async with pool.long_work(server=2, member=7):
                pass
        async with contextlib.AsyncExitStack() as stack:
            for member in range(100, 110):
                await stack.enter_async_context(pool.long_work(server=1, member=member))
            with pytest.raises(LimitReached, match=r"^10 reviews are already waiting in this server; please try again"):
                async with pool.long_work(server=1, member=200):
                    pass
            for server in range(2, 12):
                await stack.enter_async_context(pool.long_work(server=server))
            assert len(pool.line()) == pool.long_queue == 20
            with pytest.raises(LimitReached, match=r"^The computer has 20 reviews waiting; please try again in a few"):
                async with pool.long_work(server=99, member=300):
                    pass
        assert pool.line() == [] and pool.reviews == 1
    assert pool.reviews == 0


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_move_behind_a_full_queue_or_past_its_budget_is_quick_and_says_so() -> None:
    state = GAMES["polygons"].new_state({}).to_dict()
    seen = _Seen()
    pool = ComputerPool(1, budget=0.0, move_queue=1)
    pool.observer = seen
    pool.start()
    try:
        late = await pool.move("polygons", state, "hard", "s")
        assert late.quick == "overloaded" and late.notation == choose_notation("polygons", state, "easy", "s")
        pool.budget = 60.0
        busy = asyncio.create_task(pool.run(_pause, 1.0, budget=60))  # the one worker is busy
        await until(lambda: pool.busy("long") >= 1, 0.01)
        waiting = asyncio.create_task(pool.move("polygons", state, "hard", "waits"))
        await _settled()
        assert pool.waiting("move") == 1 == pool.move_queue
        full = await pool.move("polygons", state, "hard", "full")
        assert full.quick == "queue_full"
        easy = await pool.move("polygons", state, "easy", "full")
        assert easy.quick is None  # the level asked: nothing weaker to tell
        assert (await waiting).quick is None and await busy == 1.0
        assert seen.fallbacks == [("polygons", "overloaded"), ("polygons", "queue_full")]
        assert [lane for lane, _ in seen.waits].count("move") >= 1 and ("long", pytest.approx(0, abs=5)) in seen.waits
    finally:
        await pool.close()


@pytest.mark.slow  # strength: real hard searches fill both workers
async def test_slow_moves_leave_a_worker_to_quick_ones_while_these_are_asked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.service.computer_scheduler as computer_scheduler

    slow_state = GAMES["polygons"].new_state({"size": 30, "dots": 10}).to_dict()
    quick_state = GAMES["chopsticks"].new_state({}).to_dict()
    pool = ComputerPool(2)
    pool.start()
    try:
        await pool.move("polygons", slow_state, "hard", "measured")  # its kind is measured: slow
        await asyncio.gather(*(pool.move("chopsticks", quick_state, "hard", str(n)) for n in range(4)))
        for n in range(COST_SAMPLES):  # the samples kept are all of warm workers (a first move imports)
            await pool.move("chopsticks", quick_state, "hard", f"warm{n}")
        assert pool.measured_slow("chopsticks", "hard") is False and pool.measured_slow("polygons", "hard") is True
        monkeypatch.setattr(computer_scheduler, "QUICK_KEPT_SECONDS", 0.0)  # no quick move asked for lately
        slow = [asyncio.create_task(pool.move("polygons", slow_state, "hard", f"a{n}")) for n in range(3)]
        await _settled()
        assert pool.busy("move") == 2  # every worker searches
        await asyncio.gather(*slow)
        monkeypatch.setattr(computer_scheduler, "QUICK_KEPT_SECONDS", 60.0)
        await pool.move("chopsticks", quick_state, "hard", "asked")
        slow = [asyncio.create_task(pool.move("polygons", slow_state, "hard", f"b{n}")) for n in range(3)]
        await _settled()
        assert pool.busy("move") == 1 and pool.waiting("move") == 2  # one worker kept for quick moves
        quick = await pool.move("chopsticks", quick_state, "hard", "at once")
        # it took the kept worker at once: answered while the first slow move still runs and the two others wait
        assert quick.quick is None and not any(task.done() for task in slow)
        assert pool.busy("move") == 1 and pool.waiting("move") == 2
        await asyncio.gather(*slow)
    finally:
        await pool.close()


def _stamped_pause(seconds: float) -> tuple[float, float]:
    """A piece of long work that holds its worker for ``seconds``; when it ran (wall-clock start and end)."""
    began = time.time()
    time.sleep(seconds)
    return began, time.time()


def _started_at() -> float:
    """A pairing that only says when it started (wall clock)."""
    return time.time()


def _burns_cpu(seconds: float) -> float:
    """Work that keeps its CPU busy for ``seconds`` of CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


async def _stamped_job(pool: ComputerPool, server: int, pieces: int, seconds: float,
                       stamps: list[tuple[float, float]]) -> None:
    async with pool.long_work(server=server) as job:
        for _ in range(pieces):
            stamps.append(await job.run(_stamped_pause, seconds))


async def test_a_pairing_waits_for_at_most_the_piece_under_way_never_for_other_servers_reviews() -> None:
    pool = ComputerPool(2)  # one review slot, one worker kept for quick moves while they are asked for
    seen = _Seen()
    pool.observer = seen
    pool.start()
    state = GAMES["chopsticks"].new_state({}).to_dict()
    stamps: list[tuple[float, float]] = []
    reviews: list[asyncio.Task[None]] = []
    try:
        await asyncio.gather(*(pool.choose("chopsticks", state, "easy", str(n)) for n in range(2)))  # both started
        assert pool.processes == 2
        await pool.pair(_started_at, budget=30)  # the worker has imported what a pairing needs
        reviews = [asyncio.create_task(_stamped_job(pool, server, 20, 0.25, stamps)) for server in (1, 2, 3, 4)]
        await until(lambda: pool.busy("long") == 1 and len(pool.line()) == 3, 0.01)
        await pool.move("chopsticks", state, "easy", "asked")  # a quick move was just asked: one worker is kept
        asked = time.time()
        started = await pool.pair(_started_at, budget=30)
        assert pool.reviews == 4 and len(pool.line()) == 3  # paired while every review still runs or waits
        went_first = [began for began, _ in stamps if asked < began < started]
        assert len(went_first) <= 1  # the piece under way (given its worker already) at most: never another
        assert ("pair", pytest.approx(0, abs=5)) in seen.waits
    finally:
        for review in reviews:
            review.cancel()
        await asyncio.gather(*reviews, return_exceptions=True)
        await pool.close()


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_pairings_budget_is_the_cpu_it_uses_not_its_wait_nor_its_sleep(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.service.computer as computer

    pool = ComputerPool(1)
    pool.start()
    try:
        await pool.pair(_started_at, budget=30)  # the worker started
        monkeypatch.setattr(computer, "PAIR_WALL_FACTOR", 1000.0)  # the CPU budget alone, however busy the machine
        busy = asyncio.create_task(pool.run(_pause, 1.0, budget=60))  # the one worker is busy for a second
        await until(lambda: pool.busy("long") >= 1, 0.01)
        assert await pool.pair(_pause, 0.6, budget=0.3) == 0.6  # waited 1 s and slept 0.6 s: 0 CPU seconds spent
        assert busy.done()
        with pytest.raises(CpuBudgetSpent, match=r"used up its 0\.3 CPU seconds"):
            await pool.pair(_burns_cpu, 30.0, budget=0.3)
        assert await pool.pair(_burns_cpu, 0.05, budget=0.3) == 0.05  # the worker goes on serving
        monkeypatch.setattr(computer, "PAIR_WALL_FACTOR", 2.0)
        with pytest.raises(TimeoutError) as late:  # a worker that gets no CPU: the wall clock gives it up
            await pool.pair(_pause, 3.0, budget=0.2)
        assert not isinstance(late.value, CpuBudgetSpent)
    finally:
        await pool.close()


async def test_a_pairing_without_workers_runs_in_a_thread_within_its_budget_of_wall_clock() -> None:
    pool = ComputerPool(0)
    assert await pool.pair(_pause, 0.01, budget=5) == 0.01
    with pytest.raises(TimeoutError):
        await pool.pair(_pause, 0.5, budget=0.05)
    assert pool.pairings == 0


async def test_background_work_comes_after_reviews_and_gives_its_turn_back_between_pieces() -> None:
    pool = ComputerPool(2)  # one review slot; not started: the pieces run in threads, the turns are the scheduler's
    assert pool.review_slots == 1
    order: list[str] = []
    go = asyncio.Event()

    async def background() -> None:
        async with pool.long_work(server=1, background=True, what="examination") as job:
            for piece in range(3):
                await job.run(_pause, 0.05)
                order.append(f"background {piece}")
                await go.wait()

    examined = asyncio.create_task(background())
    await until(lambda: order == ["background 0"], 0.01)  # it had its turn at once: nothing else waited
    reviewed = asyncio.create_task(_job(pool, 2, order, "review", pieces=2))
    await _settled()
    assert order == ["background 0"] and not pool.line()[0].background  # the review waits for the turn
    go.set()  # the background job's next piece: it gives way first
    await asyncio.gather(examined, reviewed)
    # the review waited for at most the piece under way, then had the turn; the background work finished after it
    assert order == ["background 0", "review", "background 1", "background 2"]
    waiting_first = asyncio.create_task(background())
    order.clear()
    async with pool.long_work(server=3) as blocker:  # a review holds the slot: then a background job and another
        await blocker.turn()
        await _settled()
        late = asyncio.create_task(_job(pool, 4, order, "later review"))
        await _settled()
        assert pool.line()[-1].background  # the background job waits behind the review that came after it
    await asyncio.gather(waiting_first, late)
    assert order[0] == "later review"
