"""The computer's scheduler: which waiting work a free worker takes, and when.

Work waits in one of the lanes (:data:`bot.service.computer_lines.Lane`) and is handed a free worker by
:meth:`Scheduler._dispatch`, never queued inside an executor, so the order is ours:

- *move*: the computer's moves (:meth:`bot.service.computer.ComputerPool.move`). A move expected to be quick (its
  game and level took at most :data:`bot.service.computer.QUICK_SECONDS` of a worker so far, on average) goes first,
  to any free worker. The others are slow.
- *pair*: the pairing of a tournament's round (:meth:`bot.service.computer.ComputerPool.pair`): slow work that goes
  before every other slow work, in the order asked, so that it waits for at most the piece of work under way on a
  worker, never for whole reviews of other servers.
- *long*: work that takes long, cut into pieces (a review is one piece per move, :mod:`games.review`). A piece of
  long work is a *job*'s (:class:`LongWork`): jobs take their turn in fair order between servers
  (:class:`bot.service.computer_lines.FairLine`), at most :attr:`Scheduler.review_slots` at once (every worker but
  one, by default: long work never takes the last worker) and at most :attr:`Scheduler.per_server` of one server at
  once; a job runs its pieces one after the other. Background jobs (a finished match examined for puzzles,
  :mod:`bot.service.match_puzzles`) come after every other job, and give their turn back between two pieces to any
  other job that waits (:meth:`Scheduler._give_way`).

Slow work (slow moves, pairings and pieces of long work) leaves one worker free for quick moves while quick moves
are being asked for (within :data:`QUICK_KEPT_SECONDS`; with more than one worker), so that a member whose game
answers in a few milliseconds never waits behind another's long search: size-based assignment, a worker kept for
short jobs. A waiting pairing takes the next worker that slow work may have. When a slow move and a piece of long
work both wait for the same worker they take turns, so long work always moves on, and a move waits for at most one
piece.

**A worker that dies takes nothing with it.** The piece it was running (a search, a move of a review) is run again on
a fresh worker, first in its lane, up to :data:`MAX_DEATHS` deaths (then
:class:`bot.service.computer_workers.WorkerLost`); the dead worker's process is joined before its replacement
starts, so the scheduler never runs more processes than its workers. Nothing runs in the bot's own process in its
place. Without workers (``workers=0``, before :meth:`Scheduler.start`, after :meth:`Scheduler.close`) a piece runs
in a thread of the event loop's process instead.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from bot.service.computer_lines import FairLine, Lane
from bot.service.computer_observer import PoolObserver, Unobserved
from bot.service.computer_workers import ComputerStopped, Worker, WorkerLost, machine_workers
from bot.workers import timed

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_DEATHS = 3
"""Deaths of the workers running one piece of work (a search, a move of a review) before it is given up."""
QUICK_KEPT_SECONDS = 60.0
"""For this long after a quick move was asked for, slow work (slow moves, long work) leaves one worker to the quick
moves (with more than one worker)."""


@dataclass(eq=False)
class Waiter:
    """A piece of work waiting for a worker: the future is given the worker."""

    lane: Lane
    future: asyncio.Future[Worker]
    since: float
    slow: bool = False
    """A move expected to be slow (or a piece of long work): it may not take the worker kept for quick moves."""


class LongWork:
    """A job of long work (a review) in the long lane: made by :meth:`bot.service.computer.ComputerPool.long_work`.
    It waits for its turn (:meth:`turn`; its place meanwhile in :attr:`ahead`), then runs its pieces one after the
    other (:meth:`run`)."""

    def __init__(self, pool: Scheduler, server: int, member: int | None, background: bool = False) -> None:
        loop = asyncio.get_running_loop()
        self.server = server
        self.member = member
        self.background = background
        """Background work (a finished match examined for puzzles): after every other job, and it gives its turn
        back between two pieces to a job that is not background and waits."""
        self.seconds = 0.0
        """CPU seconds its pieces took so far in the workers."""
        self._pool = pool
        self._since = time.perf_counter()
        self._turn: asyncio.Future[None] = loop.create_future()
        self._moved = asyncio.Event()
        self._one_piece = asyncio.Lock()

    @property
    def started(self) -> bool:
        """``True`` once it had its turn."""
        return self._turn.done() and not self._turn.cancelled() and self._turn.exception() is None

    @property
    def ahead(self) -> int:
        """Jobs that will have their turn before this one, as the line stands now (0 once it had its turn). Another
        server's job that arrives later may still come before it: that is the fair share."""
        if self._turn.done():
            return 0
        return self._pool._jobs.ahead(self)

    async def turn(self) -> None:
        """Wait for its turn.

        Raises:
            ComputerStopped: the pool was closed first.
        """
        await asyncio.shield(self._turn)

    async def moved(self) -> None:
        """Wait until its place in line changed (or its turn came) since the last call.

        Raises:
            ComputerStopped: the pool was closed first.
        """
        await self._moved.wait()
        self._moved.clear()
        if self._turn.done() and not self._turn.cancelled() and (error := self._turn.exception()) is not None:
            raise error

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """Run the piece ``function(*args)`` (a module-level function with picklable arguments and result) in a worker
        (in a thread without workers), after its turn and after the job's previous piece; add its seconds to
        :attr:`seconds`.

        Raises:
            WorkerLost: its workers died :data:`MAX_DEATHS` times. ComputerStopped: the pool was closed first.
            Exception: whatever ``function`` raises.
        """
        await self.turn()
        if self.background and self._pool._give_way(self):
            await self.turn()
        async with self._one_piece:
            value, seconds = await self._pool._piece("long", function, args, server=self.server)
        self.seconds += seconds
        return cast(T, value)


class Scheduler:
    """The computer's workers and the lines their work waits in (see the module's docstring); the work itself is asked
    of :class:`bot.service.computer.ComputerPool`, which is one.

    Args:
        workers: worker processes (``None``: one per CPU, :func:`machine_workers`; ``0``: a thread instead).
        review_slots: jobs of long work (reviews) running at once (``None``: every worker but one, at least one).
        per_server: jobs of long work of one server running at once (``None``: half the review slots, at least one).

    Raises:
        ValueError: ``workers`` below 0; ``review_slots`` below 1, or above ``workers - 1`` with several workers;
            ``per_server`` below 1 or above the review slots.
    """

    def __init__(self, workers: int | None = None, *, review_slots: int | None = None,
                 per_server: int | None = None) -> None:
        self.workers = machine_workers() if workers is None else workers
        if self.workers < 0:
            raise ValueError("workers must be 0 (a thread) or more")
        most = max(1, self.workers - 1)
        self.review_slots = most if review_slots is None else review_slots
        if not 1 <= self.review_slots <= most:
            raise ValueError(f"review slots must be from 1 to {most} with {self.workers} workers")
        self.per_server = max(1, self.review_slots // 2) if per_server is None else per_server
        if not 1 <= self.per_server <= self.review_slots:
            raise ValueError(f"long work per server must be from 1 to {self.review_slots}")
        self.observer: PoolObserver = Unobserved()
        """Told of waits and quick moves as they happen (the bot's metrics)."""
        self.main_thread = False
        """Whether the workers are started from the main thread (see :func:`bot.workers.exit_with_parent`)."""
        self.deaths = 0
        """Worker processes that died while running work (replaced each time)."""
        self._workers: list[Worker] = []
        self._closing = False
        self._moves: FairLine[Waiter] = FairLine()
        self._jobs: FairLine[LongWork] = FairLine()
        self._ready: collections.deque[Waiter] = collections.deque()  # pieces of jobs that had their turn
        self._pairings: collections.deque[Waiter] = collections.deque()  # pairings, in the order asked
        self._started_jobs: set[LongWork] = set()
        self._per_server: collections.Counter[int] = collections.Counter()
        self._quick_asked = -QUICK_KEPT_SECONDS  # when a quick move was last asked for (time.perf_counter)
        self._last_slow: Lane = "long"  # the lane whose slow work had a worker last
        self._tasks: set[asyncio.Task[None]] = set()


    @property
    def running(self) -> bool:
        """``True`` while worker processes serve the work."""
        return bool(self._workers) and not self._closing

    def start(self) -> None:
        """Make the workers (idempotent; no-op for ``workers=0``). Processes start as work arrives, up to
        :attr:`workers`, each a fresh interpreter (``spawn``: nothing of the bot's threads, connections or event loop
        is copied into a worker)."""
        if self._workers or self.workers == 0:
            return
        self._closing = False
        self.main_thread = threading.current_thread() is threading.main_thread()
        self._workers = [Worker(self.main_thread) for _ in range(self.workers)]

    @property
    def processes(self) -> int:
        """Worker processes alive now (they start as work comes, up to :attr:`workers`)."""
        return sum(1 for worker in self._workers if (process := worker.process) is not None and process.is_alive())

    def busy(self, lane: Lane) -> int:
        """Workers running work of ``lane`` now."""
        return sum(1 for worker in self._workers if worker.lane == lane)

    def waiting(self, lane: Lane) -> int:
        """Work of ``lane`` waiting: moves and pairings for a worker; jobs of long work for their turn, and their
        pieces for a worker."""
        if lane == "pair":
            return len(self._pairings)
        return len(self._moves) if lane == "move" else len(self._jobs) + len(self._ready)

    def _give_way(self, job: LongWork) -> bool:
        """Between two pieces of the background ``job``: when a job that is not background waits for its turn, ``job``
        gives its turn back and waits in line again after it (``True``: wait for the turn again)."""
        if job not in self._started_jobs or all(waiting.background for waiting in self._jobs):
            return False
        self._started_jobs.discard(job)
        self._per_server[job.server] -= 1
        if not self._per_server[job.server]:
            del self._per_server[job.server]
        job._turn = asyncio.get_running_loop().create_future()
        self._jobs.push(job, job.server, 1)
        self._dispatch(moved=True)
        return True

    def line(self) -> list[LongWork]:
        """The jobs of long work waiting for their turn, in the order they are to have it as the line stands now."""
        return list(self._jobs)

    def worker_pids(self, lane: Lane | None = None) -> list[int]:
        """The process ids of the workers running work of ``lane`` now (of every started worker: ``None``)."""
        return [process.pid for worker in self._workers if (lane is None or worker.lane == lane)
                and (process := worker.process) is not None and process.pid is not None]

    async def close(self, grace: float | None = None) -> None:
        """Stop the workers; later work runs in a thread. Idempotent.

        Work waiting for a worker or for its turn is given up (:class:`ComputerStopped`).

        Args:
            grace: seconds the work under way may take to finish; then its worker is terminated and its caller gets
                :class:`ComputerStopped` (``None``: wait for it).
        """
        if not self._workers or self._closing:
            return
        self._closing = True
        stopped = ComputerStopped("the computer's workers were stopped")
        for waiter in [*self._moves, *self._ready, *self._pairings]:
            if not waiter.future.done():
                waiter.future.set_exception(stopped)
        for job in list(self._jobs):
            if not job._turn.done():
                job._turn.set_exception(stopped)
                job._turn.exception()  # retrieved: nobody may be waiting for it
                job._moved.set()
        busy = [worker.running for worker in self._workers if worker.lane is not None and worker.running is not None]
        if busy:
            _, pending = await asyncio.to_thread(concurrent.futures.wait, busy, timeout=grace)
            if pending:
                log.warning("terminating %d computer worker(s) still busy after %g s", len(pending), grace)
                for worker in self._workers:
                    if worker.running in pending and (process := worker.process) is not None:
                        process.terminate()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        for worker in self._workers:
            if worker.executor is not None:
                await asyncio.to_thread(worker.executor.shutdown, wait=True, cancel_futures=True)
        self._workers = []
        self._moves, self._ready, self._pairings = FairLine(), collections.deque(), collections.deque()
        self._closing = False


    # ------------------------------------------------------------------------------------------ scheduling

    def _dispatch(self, moved: bool = False) -> None:
        """Give jobs of long work their turn while the slots allow, then free workers to waiting work."""
        while len(self._started_jobs) < self.review_slots:
            job = self._jobs.pop(lambda waiting: self._per_server[waiting.server] < self.per_server)
            if job is None:
                break
            moved = True
            self._started_jobs.add(job)
            self._per_server[job.server] += 1
            job._turn.set_result(None)
            job._moved.set()
            self.observer.waited("long", time.perf_counter() - job._since)
        if moved:
            for job in self._jobs:
                job._moved.set()
        if self._closing:
            return
        for worker in self._workers:
            if not worker.free:
                continue
            waiter = self._next_waiter()
            if waiter is None:
                break
            worker.lane, worker.slow = waiter.lane, waiter.slow
            waiter.future.set_result(worker)

    def _next_waiter(self) -> Waiter | None:
        """The work a free worker takes: a quick move first; else slow work, within the workers that slow work may
        have (all but one while quick moves are being asked for): a pairing first, then a slow move and a piece of
        long work (within the review slots) taking turns when both wait."""
        for given_up in (self._ready, self._pairings):
            while given_up and given_up[0].future.done():
                given_up.popleft()  # given up by its caller
        quick = self._moves.pop(lambda waiter: not waiter.slow and not waiter.future.done())
        if quick is not None:
            return quick
        kept = 1 if self.workers > 1 and time.perf_counter() - self._quick_asked < QUICK_KEPT_SECONDS else 0
        if sum(1 for worker in self._workers if worker.slow) >= self.workers - kept:
            return None
        if self._pairings:
            return self._pairings.popleft()
        long_may = bool(self._ready) and self.busy("long") < self.review_slots
        move_may = any(waiter.slow and not waiter.future.done() for waiter in self._moves)
        if long_may and (not move_may or self._last_slow == "move"):
            self._last_slow = "long"
            return self._ready.popleft()
        if move_may:
            self._last_slow = "move"
            return self._moves.pop(lambda waiter: waiter.slow and not waiter.future.done())
        return None

    async def _piece(self, lane: Lane, function: Callable[..., Any], args: tuple[Any, ...], *, server: int,
                     slow: bool = True) -> tuple[Any, float]:
        """``timed(function, *args)`` in a worker, once the scheduler gives it one; run again on a fresh worker when
        its worker dies, up to :data:`MAX_DEATHS` deaths. In a thread when no worker runs."""
        loop = asyncio.get_running_loop()
        deaths = 0
        again = False
        while True:
            if not self.running:
                if self._closing:
                    raise ComputerStopped("the computer's workers were stopped")
                return await asyncio.to_thread(timed, function, *args)
            waiter = Waiter(lane, loop.create_future(), time.perf_counter(), slow=slow or lane != "move")
            if lane == "move":
                self._moves.push(waiter, server, -1 if again else int(slow))
            elif lane == "pair":
                if again:
                    self._pairings.appendleft(waiter)
                else:
                    self._pairings.append(waiter)
            elif again:
                self._ready.appendleft(waiter)
            else:
                self._ready.append(waiter)
            self._dispatch()
            try:
                worker = await waiter.future
            except asyncio.CancelledError:
                self._withdraw(waiter)
                raise
            if lane != "long" and not again:  # (a job of long work waited for its turn: told then)
                self.observer.waited(lane, time.perf_counter() - waiter.since)
            try:
                running = worker.submit(timed, function, *args)
            except BrokenProcessPool:  # its process died while it waited for work
                self._replace(worker)
                again = True
                continue
            worker.running = running
            running.add_done_callback(functools.partial(self._call_soon, loop, self._finished, worker))
            try:
                return await asyncio.wrap_future(running)
            except BrokenProcessPool as error:
                if self._closing:
                    raise ComputerStopped("the computer's workers were stopped") from error
                deaths += 1
                if deaths >= MAX_DEATHS:
                    log.error("the workers running a piece of %s work died %d times: giving it up", lane, deaths)
                    raise WorkerLost(f"the computer's workers died {deaths} times running this work") from error
                log.warning("a computer worker died running a piece of %s work; running it again", lane)
                again = True

    def _withdraw(self, waiter: Waiter) -> None:
        """The caller of ``waiter`` gave up: out of its line, or, had it just been given a worker, the worker back."""
        if waiter.future.done() and not waiter.future.cancelled() and waiter.future.exception() is None:
            worker = waiter.future.result()
            worker.lane, worker.slow = None, False
            self._dispatch()
            return
        if not self._moves.remove(waiter):
            for line in (self._ready, self._pairings):
                with contextlib.suppress(ValueError):
                    line.remove(waiter)

    @staticmethod
    def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
            loop.call_soon_threadsafe(callback, *args)

    def _finished(self, worker: Worker, done: concurrent.futures.Future[Any]) -> None:
        """A worker's work ended (answered, raised, cancelled, or its process died): free it, or replace it."""
        worker.running, worker.slow = None, False
        if self._closing or worker not in self._workers:
            worker.lane = None
            return
        if not done.cancelled() and isinstance(done.exception(), BrokenProcessPool):
            self.deaths += 1
            self._replace(worker)
            return
        worker.lane = None
        self._dispatch()

    def _replace(self, worker: Worker) -> None:
        """A worker's process died: join it (and its executor's threads) off the event loop, then let the worker take
        work again, which starts a new process."""
        if worker.replacing:
            return
        worker.replacing, worker.lane, worker.slow = True, None, False
        executor, worker.executor = worker.executor, None

        async def replace() -> None:
            try:
                if executor is not None:
                    await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
                if not self._closing:  # the new process starts now, not when work is waiting for it
                    await asyncio.wrap_future(worker.submit(os.getpid))
            except BrokenProcessPool:
                log.error("a new computer worker died as it started; the next work starts another")
                worker.executor = None
            finally:
                worker.replacing = False
                self._dispatch()

        task = asyncio.get_running_loop().create_task(replace())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
