"""The computer's work in worker processes, behind a scheduler: moves for waiting members first, then the pairing of
a tournament's round, long work (reviews) in a lane of its own that never takes the last worker, fair between
servers.

A ``hard`` search is pure Python: run in a thread it holds the interpreter lock against the event loop, and every
member's command waits behind it. :class:`ComputerPool` runs the computer's work in worker processes, one
:class:`concurrent.futures.ProcessPoolExecutor` of one process per worker, so that a worker that dies breaks only
its own executor and the work it was running (a pool of several processes breaks whole: every piece under way in it
would fail with the one that killed it). A state crosses the process boundary as its ``to_dict()`` and is rebuilt
in the worker with ``GAMES[key].load``; the worker answers with the move's notation, which the service applies in its
own version-checked transaction, as for a member's move. Each worker is started with the registry's package list
(:func:`games.game_packages`), so it finds the same games as the bot, also games added with
:func:`games.add_game_package`.

**The scheduler.** Work waits in one of two lanes and is handed a free worker by :meth:`ComputerPool._dispatch`, never
queued inside an executor, so the order is ours:

- *move*: the computer's moves (:meth:`ComputerPool.move`). A move expected to be quick (its game and level took at
  most :data:`QUICK_SECONDS` of a worker so far, on average) goes first, to any free worker. The others are slow.
- *pair*: the pairing of a tournament's round (:meth:`ComputerPool.pair`): slow work that goes before every other
  slow work, in the order asked, so that it waits for at most the piece of work under way on a worker, never for
  whole reviews of other servers. Its budget is CPU seconds of its worker (:func:`bot.workers.cpu_bounded`), counted
  from its start: the wait for a worker and a busy machine do not use it up.
- *long*: work that takes long, cut into pieces (a review is one piece per move, :mod:`games.review`). A piece of
  long work is a *job*'s (:class:`LongWork`): jobs take their turn in fair order between servers, at most
  :attr:`ComputerPool.review_slots` at once (every worker but one, by default: long work never takes the last worker)
  and at most :attr:`ComputerPool.per_server` of one server at once; a job runs its pieces one after the other.
  Background jobs (a finished match examined for puzzles, :mod:`bot.service.match_puzzles`) come after every other
  job, and give their turn back between two pieces to any other job that waits.

Slow work (slow moves, pairings and pieces of long work) leaves one worker free for quick moves while quick moves
are being asked for (within :data:`QUICK_KEPT_SECONDS`; with more than one worker), so that a member whose game
answers in a few milliseconds never waits behind another's long search: size-based assignment, a worker kept for
short jobs. A waiting pairing takes the next worker that slow work may have. When a slow move and a piece of long
work both wait for the same worker they take turns, so long work always moves on, and a move waits for at most one
piece.

Fair order between servers is start-time fair queueing with unit costs: each waiting item gets a tag one above its
server's previous item and never below the tag of the last item served, and items are served by tag (then by
arrival). One server's ten reviews thus take turns with another server's one: the other's waits for at most one of
them. A job's place in line (:attr:`LongWork.ahead`) is what ``/match review`` shows its member.

Every queue has a cap: beyond :attr:`ComputerPool.move_queue` waiting moves a move is played at once at the ``easy``
level; long work beyond its caps (per member, per server, in all) and pairings beyond :data:`PAIR_QUEUE` are refused
with :class:`LimitReached`, whose text says why.

**Never silently weaker.** Every game bounds its own search by work, not by the clock (Monte-Carlo iterations and
rollouts, node budgets), so a move is reproducible from its seed. :attr:`ComputerPool.budget` is the wall-clock guard
above that: a move not answered within it (the bot overloaded far beyond its means), one that waits behind a full
queue, or one whose workers died :data:`MAX_DEATHS` times is played at the ``easy`` level, which costs next to
nothing, and says so: :attr:`ComputerMove.quick` names the reason, the board tells the players, and the pool's
:attr:`ComputerPool.observer` counts it (``napkin_computer_fallbacks_total``).

**A worker that dies takes nothing with it.** The piece it was running (a search, a move of a review) is run again on
a fresh worker, first in its lane, up to :data:`MAX_DEATHS` deaths (then :class:`WorkerLost`); the dead worker's
process is joined before its replacement starts, so the pool never runs more processes than its workers. Nothing
runs in the bot's own process in its place.

``workers=0`` runs the work in a thread of the event loop's process instead: what a process without an event loop to
protect uses (``napkin demo``, the service used alone in tests), and what :class:`ComputerPool` falls back to before
:meth:`ComputerPool.start` and after :meth:`ComputerPool.close` (long work still takes its turn).

No worker outlives the bot: each one exits within a second of its parent's end, whatever ended it (a SIGKILL
included), see :func:`bot.workers.exit_with_parent`.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import concurrent.futures
import contextlib
import functools
import itertools
import logging
import multiprocessing
import os
import signal
import statistics
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar, cast

from bot.service.errors import LimitReached
from bot.texts import plural
from bot.workers import choose_notation, cpu_bounded, init_worker, timed
from games import Level, game_packages

log = logging.getLogger(__name__)
T = TypeVar("T")
I = TypeVar("I")  # noqa: E741 - an item of a line

Lane = Literal["move", "long", "pair"]
LANES: tuple[Lane, ...] = ("move", "long", "pair")

MOVE_BUDGET = 30.0
"""Seconds a computer move may take, from the request to the answer, before an ``easy`` move is played instead."""
MAX_DEATHS = 3
"""Deaths of the workers running one piece of work (a search, a move of a review) before it is given up."""
QUICK_SECONDS = 0.05
"""A move whose game and level took at most this many CPU seconds of a worker (the median of the latest
:data:`COST_SAMPLES`; or that was never measured) is quick: it goes before the other moves, which are slow."""
QUICK_KEPT_SECONDS = 60.0
"""For this long after a quick move was asked for, slow work (slow moves, long work) leaves one worker to the quick
moves (with more than one worker)."""
MOVE_QUEUE = 256
"""Moves waiting for a worker beyond which a move is played at the ``easy`` level at once."""
LONG_PER_MEMBER = 1
"""Jobs of long work (reviews) one member may have waiting or running."""
LONG_QUEUE_PER_SERVER = 10
"""Jobs of long work one server may have waiting for their turn."""
LONG_QUEUE_PER_SLOT = 20
"""Jobs of long work that may wait for their turn, per review slot (so that the last one's wait stays bounded)."""
PAIR_QUEUE = 64
"""Pairings waiting for a worker beyond which another is refused (:class:`LimitReached`; its round is paired later)."""
PAIR_WALL_FACTOR = 5.0
"""A pairing not answered within this many times its CPU budget of wall-clock time (its wait included) is given up
all the same: a worker that no longer gets the CPU at all is something its CPU budget cannot see."""
COST_SAMPLES = 9
"""The latest searches of a game and level whose median CPU seconds tells whether its next is expected to be quick
(a median: the first search in a fresh worker, which fills the game's caches, says little of the next ones)."""

QuickReason = Literal["overloaded", "queue_full", "worker_lost"]
"""Why a move was played at the ``easy`` level: not answered within the budget; too many moves waiting; its workers
died :data:`MAX_DEATHS` times."""


class WorkerLost(RuntimeError):
    """The workers running a piece of work died :data:`MAX_DEATHS` times (it is not run again)."""


class ComputerStopped(RuntimeError):
    """The pool was closed before the work was done (it was waiting, or cut short after the close's grace)."""


@dataclass(frozen=True)
class ComputerMove:
    """The computer's answer: the move's notation, and why it is a quick move instead of a search at the level asked
    (:data:`QuickReason`), if it is one."""

    notation: str
    quick: QuickReason | None = None


class PoolObserver(Protocol):
    """What the pool reports as it happens (the bot's metrics, :class:`bot.ops.metrics.Metrics`)."""

    def waited(self, lane: Lane, seconds: float) -> None:
        """A move or a pairing got a worker, or a job of long work its turn, after ``seconds`` of waiting."""

    def fell_back(self, game: str, reason: QuickReason) -> None:
        """A move of ``game`` was played at the ``easy`` level for ``reason``."""


class _Unobserved:
    def waited(self, lane: Lane, seconds: float) -> None:
        """Nobody watches."""

    def fell_back(self, game: str, reason: QuickReason) -> None:
        """Nobody watches."""


def machine_workers() -> int:
    """The number of CPUs this process may run on (at least 1): the default pool size."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class _FairLine(Generic[I]):
    """Items waiting in fair order between servers: start-time fair queueing with unit costs (see the module's
    docstring). An item's rank comes first (a lower rank is served before any higher one), then its tag, then its
    arrival."""

    def __init__(self) -> None:
        self._items: list[tuple[tuple[int, int, int], I]] = []
        self._servers: dict[int, int] = {}  # id(item) -> server
        self._last: dict[int, int] = {}  # server -> its latest tag
        self._virtual = 0  # the tag of the last item served
        self._arrivals = itertools.count()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[I]:
        return (item for _, item in self._items)

    def push(self, item: I, server: int, rank: int = 0) -> None:
        """Add ``item`` of ``server``; rank below 0 (work run again after its worker died) skips the tags."""
        tag = 0
        if rank >= 0:
            tag = max(self._virtual, self._last.get(server, 0) + 1)
            self._last[server] = tag
        bisect.insort(self._items, ((rank, tag, next(self._arrivals)), item), key=lambda entry: entry[0])
        self._servers[id(item)] = server

    def pop(self, eligible: Callable[[I], bool] = lambda item: True) -> I | None:
        """Take the first item that is ``eligible`` (``None`` when none is)."""
        for index, (key, item) in enumerate(self._items):
            if eligible(item):
                del self._items[index]
                del self._servers[id(item)]
                self._virtual = max(self._virtual, key[1])
                return item
        return None

    def remove(self, item: I) -> bool:
        """Take ``item`` out of the line; ``False`` if it was not in it."""
        for index, (_, found) in enumerate(self._items):
            if found is item:
                del self._items[index]
                del self._servers[id(item)]
                return True
        return False

    def ahead(self, item: I) -> int:
        """How many items are before ``item``.

        Raises:
            ValueError: ``item`` is not in the line.
        """
        for index, (_, found) in enumerate(self._items):
            if found is item:
                return index
        raise ValueError("not in the line")

    def server_count(self, server: int) -> int:
        """Items of ``server`` in the line."""
        return sum(1 for found in self._servers.values() if found == server)


@dataclass(eq=False)
class _Waiter:
    """A piece of work waiting for a worker: the future is given the worker."""

    lane: Lane
    future: asyncio.Future[_Worker]
    since: float
    slow: bool = False
    """A move expected to be slow (or a piece of long work): it may not take the worker kept for quick moves."""


@dataclass(eq=False)
class _Worker:
    """One worker process, in an executor of its own (made, and its process started, with the first work it is
    given; made anew when its process died)."""

    pool: ComputerPool
    executor: ProcessPoolExecutor | None = None
    lane: Lane | None = None
    """The lane of the work it runs now, ``None`` when free."""
    replacing: bool = False
    """Its dead process is being joined; a new one starts with the next work."""
    slow: bool = False
    """It runs slow work now: a move expected to be slow, or a piece of long work."""
    running: concurrent.futures.Future[Any] | None = None

    @property
    def free(self) -> bool:
        return self.lane is None and not self.replacing

    @property
    def process(self) -> multiprocessing.process.BaseProcess | None:
        """Its process, once started (``None`` before)."""
        found = getattr(self.executor, "_processes", None) or {}  # no public access before Python 3.14
        return next(iter(list(found.values())), None)

    def submit(self, function: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        """Send ``function(*args)`` to the worker's process (starting it first if needed), with SIGINT ignored meanwhile
        in the main thread, so that a process started now starts with it ignored (an ignored signal stays so across
        ``exec``, and Python keeps it): a terminal's Ctrl-C reaches every process of its group, and even a worker
        still importing leaves it to the bot, whose graceful stop lets the work finish.

        Raises:
            BrokenProcessPool: the worker's process died while it had no work.
        """
        if self.executor is None:
            self.executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=init_worker,
                                                initargs=(game_packages(), os.getpid(), self.pool.main_thread))
        handler = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
        if handler is None:
            return self.executor.submit(function, *args)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return self.executor.submit(function, *args)
        finally:
            signal.signal(signal.SIGINT, handler)


class LongWork:
    """A job of long work (a review) in the long lane: made by :meth:`ComputerPool.long_work`. It waits for its turn
    (:meth:`turn`; its place meanwhile in :attr:`ahead`), then runs its pieces one after the other (:meth:`run`)."""

    def __init__(self, pool: ComputerPool, server: int, member: int | None, background: bool = False) -> None:
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


class ComputerPool:
    """Where the computer's work runs: its moves, and long work such as reviews (see the module's docstring).

    Args:
        workers: worker processes (``None``: one per CPU, :func:`machine_workers`; ``0``: a thread instead).
        budget: seconds before a move is given up for an ``easy`` one (:data:`MOVE_BUDGET`).
        review_slots: jobs of long work (reviews) running at once (``None``: every worker but one, at least one).
        per_server: jobs of long work of one server running at once (``None``: half the review slots, at least one).
        move_queue: moves waiting beyond which a move is played at the ``easy`` level (:data:`MOVE_QUEUE`).

    Raises:
        ValueError: ``workers`` below 0; ``review_slots`` below 1, or above ``workers - 1`` with several workers;
            ``per_server`` below 1 or above the review slots.
    """

    def __init__(self, workers: int | None = None, *, budget: float = MOVE_BUDGET,
                 review_slots: int | None = None, per_server: int | None = None,
                 move_queue: int = MOVE_QUEUE) -> None:
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
        self.budget = budget
        self.move_queue = move_queue
        self.long_queue = LONG_QUEUE_PER_SLOT * self.review_slots
        """Jobs of long work that may wait for their turn, in all."""
        self.observer: PoolObserver = _Unobserved()
        """Told of waits and quick moves as they happen (the bot's metrics)."""
        self.main_thread = False
        """Whether the workers are started from the main thread (see :func:`bot.workers.exit_with_parent`)."""
        self.searches = 0
        """Computer moves asked for and not answered yet (running in a worker or waiting for one)."""
        self.reviews = 0
        """Jobs of long work (reviews) waiting for their turn or running."""
        self.pairings = 0
        """Pairings asked for and not answered yet (running in a worker or waiting for one)."""
        self.deaths = 0
        """Worker processes that died while running work (replaced each time)."""
        self._workers: list[_Worker] = []
        self._closing = False
        self._moves: _FairLine[_Waiter] = _FairLine()
        self._jobs: _FairLine[LongWork] = _FairLine()
        self._ready: collections.deque[_Waiter] = collections.deque()  # pieces of jobs that had their turn
        self._pairings: collections.deque[_Waiter] = collections.deque()  # pairings, in the order asked
        self._started_jobs: set[LongWork] = set()
        self._per_server: collections.Counter[int] = collections.Counter()
        self._per_member: collections.Counter[int] = collections.Counter()
        self._costs: dict[tuple[str, str], collections.deque[float]] = {}
        self._measuring: set[tuple[str, str]] = set()  # kinds of move never measured, one of which is running
        self._quick_asked = -QUICK_KEPT_SECONDS  # when a quick move was last asked for (time.perf_counter)
        self._last_slow: Lane = "long"  # the lane whose slow work had a worker last
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------------------------------ life

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
        self._workers = [_Worker(self) for _ in range(self.workers)]

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
        self._moves, self._ready, self._pairings = _FairLine(), collections.deque(), collections.deque()
        self._closing = False

    # ------------------------------------------------------------------------------------------ moves

    async def move(self, game_key: str, state: dict[str, Any], level: Level, seed: str, *,
                   server: int = 0) -> ComputerMove:
        """The computer's move at ``level`` in ``state`` (``to_dict()`` form) of a match of ``server``, searched in a
        worker within :attr:`budget` seconds; deterministic for ``seed``. Past the budget, behind a full queue, or
        after its workers died :data:`MAX_DEATHS` times, the ``easy`` move instead, marked :attr:`ComputerMove.quick`.

        Raises:
            games.InvalidState, games.IllegalMove: as :func:`choose_notation`.
            ComputerStopped: the pool was closed while the move waited or ran.
        """
        self.searches += 1
        try:
            return await self._move(game_key, state, level, seed, server)
        finally:
            self.searches -= 1

    async def _move(self, game_key: str, state: dict[str, Any], level: Level, seed: str,
                    server: int) -> ComputerMove:
        if not self.running:
            return ComputerMove(await asyncio.to_thread(choose_notation, game_key, state, level, seed))
        reason: QuickReason
        if len(self._moves) >= self.move_queue:
            reason = "queue_full"
        else:
            key = (game_key, level)
            costs = self._costs.setdefault(key, collections.deque(maxlen=COST_SAMPLES))
            # never measured: quick, but only the first one until it is (others of its kind may be slow)
            slow = statistics.median(costs) > QUICK_SECONDS if costs else key in self._measuring
            first = not costs and not slow
            if first:
                self._measuring.add(key)
            if not slow:
                self._quick_asked = time.perf_counter()
            try:
                async with asyncio.timeout(self.budget):
                    notation, seconds = await self._piece("move", choose_notation, (game_key, state, level, seed),
                                                          server=server, slow=slow)
            except TimeoutError:
                reason = "overloaded"
            except WorkerLost:
                reason = "worker_lost"
            else:
                costs.append(seconds)
                return ComputerMove(notation)
            finally:
                if first:
                    self._measuring.discard(key)
        notation = await asyncio.to_thread(choose_notation, game_key, state, "easy", seed)
        if level == "easy":  # the move the worker would have played
            return ComputerMove(notation)
        log.warning("a %s move of %s played at the easy level: %s", level, game_key, reason)
        self.observer.fell_back(game_key, reason)
        return ComputerMove(notation, reason)

    async def choose(self, game_key: str, state: dict[str, Any], level: Level, seed: str) -> str:
        """The notation of :meth:`move` (for callers that need not know whether it was a quick move)."""
        return (await self.move(game_key, state, level, seed)).notation

    # ------------------------------------------------------------------------------------------ long work

    @contextlib.asynccontextmanager
    async def long_work(self, *, server: int = 0, member: int | None = None, what: str = "review",
                        background: bool = False) -> AsyncIterator[LongWork]:
        """A job of long work of ``server`` (for ``member``, if a member asked for it), in line from the moment the
        block is entered; it leaves the line, or gives its place to the next job, when the block ends. Inside, wait
        for its turn (:meth:`LongWork.turn`) and run its pieces (:meth:`LongWork.run`). A ``background`` job (work
        nobody waits for) has its turn after every other job waiting, and gives it back between two of its pieces
        whenever another job waits (:meth:`_give_way`).

        Raises:
            LimitReached: the member already has :data:`LONG_PER_MEMBER` jobs, the server
                :data:`LONG_QUEUE_PER_SERVER` waiting, or the lane :attr:`long_queue` waiting (``what`` names the
                work in the message).
        """
        if member is not None and self._per_member[member] >= LONG_PER_MEMBER:
            raise LimitReached(f"Your previous {what} is still being made; it is posted when it is ready.")
        waiting = self._jobs.server_count(server)
        if waiting >= LONG_QUEUE_PER_SERVER:
            raise LimitReached(f"{plural(waiting, what)} are already waiting in this server; please try again in a "
                               "few minutes.")
        if len(self._jobs) >= self.long_queue:
            raise LimitReached(f"The computer has {plural(len(self._jobs), what)} waiting; please try again in a few "
                               "minutes.")
        job = LongWork(self, server, member, background)
        if member is not None:
            self._per_member[member] += 1
        self.reviews += 1
        self._jobs.push(job, server, int(background))
        self._dispatch(moved=True)
        try:
            yield job
        finally:
            self.reviews -= 1
            if member is not None:
                self._per_member[member] -= 1
                if not self._per_member[member]:
                    del self._per_member[member]
            if job in self._started_jobs:
                self._started_jobs.discard(job)
                self._per_server[server] -= 1
                if not self._per_server[server]:
                    del self._per_server[server]
            else:
                self._jobs.remove(job)
                if not job._turn.done():
                    job._turn.cancel()
            self._dispatch(moved=True)

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

    # ------------------------------------------------------------------------------------------ pairings

    async def pair(self, function: Callable[..., T], *args: Any, budget: float) -> T:
        """Pair a tournament's round: run ``function(*args)`` (a module-level function with picklable arguments and
        result, such as :func:`bot.service.pairing.pair_round`) in a worker process, before any other slow work
        that waits (it waits for at most the work under way on a worker, never behind reviews), within ``budget``
        CPU seconds of its worker, counted from its start (:func:`bot.workers.cpu_bounded`); given up all the same
        after :data:`PAIR_WALL_FACTOR` times ``budget`` of wall-clock time, its wait included. Without workers (or
        before :meth:`start`) it runs in a thread, within ``budget`` seconds of wall-clock time.

        Raises:
            TimeoutError: the pairing used its budget (:class:`bot.workers.CpuBudgetSpent`, a ``TimeoutError``), or
                the wall-clock bound passed. LimitReached: :data:`PAIR_QUEUE` pairings wait already.
            WorkerLost, ComputerStopped: as :meth:`move`'s search (its workers died; the pool was closed).
            Exception: whatever ``function`` raises.
        """
        self.pairings += 1
        try:
            if not self.running:
                if self._closing:
                    raise ComputerStopped("the computer's workers were stopped")
                async with asyncio.timeout(budget):
                    return await asyncio.to_thread(function, *args)
            if len(self._pairings) >= PAIR_QUEUE:
                raise LimitReached(f"The computer has {plural(len(self._pairings), 'pairing')} waiting; this round "
                                   "is paired a little later.")
            async with asyncio.timeout(budget * PAIR_WALL_FACTOR):
                value, _ = await self._piece("pair", cpu_bounded, (budget, function, *args), server=0)
            return cast(T, value)
        finally:
            self.pairings -= 1

    # ------------------------------------------------------------------------------------------ long work (cont.)

    async def run(self, function: Callable[..., T], *args: Any, budget: float, server: int = 0) -> T:
        """Run ``function(*args)`` (a module-level function with picklable arguments and result) as one job of long
        work of ``server`` (0: the bot's own), in a worker process, or in a thread without workers.

        Raises:
            TimeoutError: no answer within ``budget`` seconds, waiting for its turn included (the work itself should
                bound its own time). LimitReached: the long lane has :attr:`long_queue` jobs waiting.
            WorkerLost, ComputerStopped: as :meth:`LongWork.run`.
            Exception: whatever ``function`` raises.
        """
        async with asyncio.timeout(budget), self.long_work(server=server, what="job") as job:
            return await job.run(function, *args)

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

    def _next_waiter(self) -> _Waiter | None:
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
            waiter = _Waiter(lane, loop.create_future(), time.perf_counter(), slow=slow or lane != "move")
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

    def _withdraw(self, waiter: _Waiter) -> None:
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

    def _finished(self, worker: _Worker, done: concurrent.futures.Future[Any]) -> None:
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

    def _replace(self, worker: _Worker) -> None:
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
