"""The computer's moves, searched in worker processes so that no search holds the event loop's interpreter.

A ``hard`` search is pure Python: run in a thread it holds the interpreter lock against the event loop, and every
member's command waits behind it. :class:`ComputerPool` runs each search in a
:class:`concurrent.futures.ProcessPoolExecutor` (one worker per CPU the process may use, by default). A state
crosses the process boundary as its ``to_dict()`` and is rebuilt in the worker with ``GAMES[key].load``; the
worker answers with the move's notation, which the service applies in its own version-checked transaction, as
for a member's move. Each worker is started with the registry's package list (:func:`games.game_packages`), so it
finds the same games as the bot, also games added with :func:`games.add_game_package`.

Every game bounds its own search by work, not by the clock (Monte-Carlo iterations and rollouts, node budgets),
so a move is reproducible from its seed and takes about the same time on every call (the ``hard`` move times are
in ``make bench``). :attr:`ComputerPool.budget` is the wall-clock guard above that: a search not answered within
it (a machine overloaded far beyond its means, a worker that died) is dropped and an ``easy`` move, which costs
next to nothing, is played instead, so a match never waits forever for the computer.

``workers=0`` searches in a thread of the event loop's process instead: what a process without an event loop to
protect uses (``napkin demo``, the service used alone in tests), and what :class:`ComputerPool` falls back to
before :meth:`ComputerPool.start` and after :meth:`ComputerPool.close`.

Other work than moves (:meth:`ComputerPool.run`: the reviews) runs at most :attr:`ComputerPool.review_slots` pieces
at once, every worker but one by default, so that a computer opponent's move always finds a worker free.

No worker outlives the bot: each one exits within a second of its parent's end, whatever ended it (a SIGKILL
included), see :func:`_exit_with_parent`.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from games import GAMES, Level, add_game_package, game_packages

log = logging.getLogger(__name__)
T = TypeVar("T")

MOVE_BUDGET = 30.0
"""Seconds a computer move may take, from the request to the answer, before an ``easy`` move is played instead."""


def machine_workers() -> int:
    """The number of CPUs this process may run on (at least 1): the default pool size."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def choose_notation(game_key: str, state: dict[str, Any], level: Level, seed: str) -> str:
    """The computer's move at ``level`` in ``state`` (a ``to_dict()`` of game ``game_key``), in canonical
    notation; deterministic for ``seed`` (what a worker process runs).

    Raises:
        games.InvalidState: ``state`` is not a valid state of the game. games.IllegalMove: the game is over.
    """
    game = GAMES[game_key]
    loaded = game.load(state)
    move = game.computer_move(loaded, level, random.Random(seed))
    notation: str = loaded.format_move(move)
    return notation


WORKER_NICENESS = 5
"""How much lower a worker's CPU priority is than the bot's: on a machine whose cores are all searching, the event
loop still gets the CPU first, so members' commands are not held up by the computer's thinking."""


PARENT_POLL_SECONDS = 0.5
"""How often a worker looks whether the bot that started it is still there."""
_PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal the kernel sends this process when its parent thread ends."""


def _exit_with_parent(parent: int, parent_is_main_thread: bool) -> None:
    """Make this worker end when the process ``parent`` (its bot) ends, however it ended.

    On Linux, when the pool was started from the bot's main thread (which lives as long as the bot), the kernel
    sends SIGTERM at once (``prctl(PR_SET_PDEATHSIG)``; from another thread it would fire when that thread ended).
    Everywhere, a daemon thread checks every :data:`PARENT_POLL_SECONDS` that the worker's parent is still
    ``parent`` (an orphan is adopted by another process) and ends the worker when it is not.
    """
    if parent_is_main_thread and sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    if os.getppid() != parent:  # the bot ended before the check was in place
        os._exit(1)
    threading.Thread(target=watch, name="napkin-parent-watch", daemon=True).start()


def _init_worker(packages: tuple[str, ...], parent: int = 0, parent_is_main_thread: bool = False) -> None:
    """Pool initializer: end with the bot (``parent``, see :func:`_exit_with_parent`), leave Ctrl-C to the bot (a
    terminal sends SIGINT to every process of the group; the bot's graceful stop lets a search under way finish),
    lower the worker's priority, register the bot's game packages in the worker."""
    if parent:
        _exit_with_parent(parent, parent_is_main_thread)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # already so when started by _submit
    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
    for package in packages:
        add_game_package(package)


def _submit(executor: ProcessPoolExecutor, function: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """``loop.run_in_executor(executor, function, *args)`` with SIGINT ignored meanwhile (in the main thread), so that
    a worker the executor starts now starts with it ignored (an ignored signal stays so across ``exec``, and Python
    keeps it): a terminal's Ctrl-C reaches every process of its group, and even a worker still importing leaves it to
    the bot, whose graceful stop lets the work finish. A Ctrl-C in the few milliseconds of a worker's start is lost."""
    loop = asyncio.get_running_loop()
    handler = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if handler is None:
        return loop.run_in_executor(executor, function, *args)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return loop.run_in_executor(executor, function, *args)
    finally:
        signal.signal(signal.SIGINT, handler)


class ComputerPool:
    """Where computer moves are searched.

    Args:
        workers: worker processes (``None``: one per CPU, :func:`machine_workers`; ``0``: a thread instead).
        budget: seconds before a search is given up for an ``easy`` move (:data:`MOVE_BUDGET`).
        review_slots: pieces of :meth:`run` work (reviews) at once (``None``: every worker but one, at least one).

    Raises:
        ValueError: ``workers`` below 0; ``review_slots`` below 1, or above ``workers - 1`` with several workers.
    """

    def __init__(self, workers: int | None = None, *, budget: float = MOVE_BUDGET,
                 review_slots: int | None = None) -> None:
        self.workers = machine_workers() if workers is None else workers
        if self.workers < 0:
            raise ValueError("workers must be 0 (a thread) or more")
        most = max(1, self.workers - 1)
        self.review_slots = most if review_slots is None else review_slots
        if not 1 <= self.review_slots <= most:
            raise ValueError(f"review slots must be from 1 to {most} with {self.workers} workers")
        self.budget = budget
        self._executor: ProcessPoolExecutor | None = None
        self._reviews: asyncio.Semaphore | None = None
        self.searches = 0
        """Computer moves asked for and not answered yet (running in a worker or waiting for one)."""
        self.reviews = 0
        """Pieces of :meth:`run` work (reviews) asked for and not answered yet."""

    @property
    def running(self) -> bool:
        """``True`` while worker processes serve the moves."""
        return self._executor is not None

    def start(self) -> None:
        """Create the pool (idempotent; no-op for ``workers=0``). Processes start as moves arrive, up to
        :attr:`workers`, each a fresh interpreter (``spawn``: nothing of the bot's threads, connections or event
        loop is copied into a worker)."""
        if self._executor is not None or self.workers == 0:
            return
        main = threading.current_thread() is threading.main_thread()
        self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_init_worker,
                                             initargs=(game_packages(), os.getpid(), main))

    @property
    def processes(self) -> int:
        """Worker processes alive now (they start as work comes, up to :attr:`workers`)."""
        executor = self._executor
        found = getattr(executor, "_processes", None) or {}  # no public count before Python 3.14
        return sum(1 for process in list(found.values()) if process.is_alive())

    async def close(self, grace: float | None = None) -> None:
        """Stop the workers; later moves run in a thread. Idempotent.

        Args:
            grace: seconds a search or review under way may take to finish; then its worker is terminated
                (``None``: wait for it). Work still waiting for a worker is cancelled either way.
        """
        executor, self._executor = self._executor, None
        if executor is None:
            return
        stopping = asyncio.ensure_future(asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True))
        try:
            await asyncio.wait_for(asyncio.shield(stopping), grace)
        except TimeoutError:
            running = list((getattr(executor, "_processes", None) or {}).values())
            log.warning("terminating %d computer worker(s) still busy after %.0f s", len(running), grace)
            for process in running:  # Python 3.14 has executor.terminate_workers() for this
                process.terminate()
            await stopping

    def _replace_broken(self, executor: ProcessPoolExecutor, error: BrokenProcessPool) -> None:
        """A worker of ``executor`` died (the pool is broken): start new workers, once for all its callers."""
        log.error("a computer worker died; starting new workers", exc_info=error)
        if self._executor is executor:
            self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)
            self.start()

    async def choose(self, game_key: str, state: dict[str, Any], level: Level, seed: str) -> str:
        """The computer's move (notation) at ``level`` in ``state`` (``to_dict()`` form), searched off the event
        loop within :attr:`budget` seconds (else an ``easy`` move); deterministic for ``seed`` when in time.

        Raises:
            games.InvalidState, games.IllegalMove: as :func:`choose_notation`.
        """
        self.searches += 1
        try:
            return await self._choose(game_key, state, level, seed)
        finally:
            self.searches -= 1

    async def _choose(self, game_key: str, state: dict[str, Any], level: Level, seed: str) -> str:
        executor = self._executor
        if executor is None:
            return await asyncio.to_thread(choose_notation, game_key, state, level, seed)
        try:
            return await asyncio.wait_for(_submit(executor, choose_notation, game_key, state, level, seed),
                                          self.budget)
        except TimeoutError:
            log.warning("the %s search of a %s move took over %.0f s; playing an easy move", level, game_key,
                        self.budget)
        except BrokenProcessPool as error:
            self._replace_broken(executor, error)
        return await asyncio.to_thread(choose_notation, game_key, state, "easy", seed)

    async def run(self, function: Callable[..., T], *args: Any, budget: float) -> T:
        """Run ``function(*args)`` (a module-level function with picklable arguments and result, such as
        :func:`games.review.review_notations`) in a worker process, or in a thread without workers; at most
        :attr:`review_slots` at once (the others wait, within their ``budget``).

        Raises:
            TimeoutError: no answer within ``budget`` seconds, waiting for a slot included (the work itself should
                bound its own time).
            Exception: whatever ``function`` raises.
        """
        if self._reviews is None:  # made in the running loop
            self._reviews = asyncio.Semaphore(self.review_slots)
        self.reviews += 1
        try:
            async with asyncio.timeout(budget):
                async with self._reviews:
                    return await self._run(function, *args, budget=budget)
        finally:
            self.reviews -= 1

    async def _run(self, function: Callable[..., T], *args: Any, budget: float) -> T:
        executor = self._executor
        if executor is None:
            return await asyncio.wait_for(asyncio.to_thread(function, *args), budget)
        try:
            return await asyncio.wait_for(_submit(executor, function, *args), budget)
        except BrokenProcessPool as error:
            self._replace_broken(executor, error)
        return await asyncio.wait_for(asyncio.to_thread(function, *args), budget)
