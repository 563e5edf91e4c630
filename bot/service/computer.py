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
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
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


def _init_worker(packages: tuple[str, ...]) -> None:
    """Pool initializer: lower the worker's priority, register the bot's game packages in the worker."""
    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
    for package in packages:
        add_game_package(package)


class ComputerPool:
    """Where computer moves are searched.

    Args:
        workers: worker processes (``None``: one per CPU, :func:`machine_workers`; ``0``: a thread instead).
        budget: seconds before a search is given up for an ``easy`` move (:data:`MOVE_BUDGET`).
    """

    def __init__(self, workers: int | None = None, *, budget: float = MOVE_BUDGET) -> None:
        self.workers = machine_workers() if workers is None else workers
        if self.workers < 0:
            raise ValueError("workers must be 0 (a thread) or more")
        self.budget = budget
        self._executor: ProcessPoolExecutor | None = None

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
        self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_init_worker,
                                             initargs=(game_packages(),))

    async def close(self) -> None:
        """Stop the workers (a search under way is abandoned); later moves run in a thread. Idempotent."""
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)

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
        executor = self._executor
        if executor is None:
            return await asyncio.to_thread(choose_notation, game_key, state, level, seed)
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(executor, choose_notation, game_key, state, level, seed), self.budget)
        except TimeoutError:
            log.warning("the %s search of a %s move took over %.0f s; playing an easy move", level, game_key,
                        self.budget)
        except BrokenProcessPool as error:
            self._replace_broken(executor, error)
        return await asyncio.to_thread(choose_notation, game_key, state, "easy", seed)

    async def run(self, function: Callable[..., T], *args: Any, budget: float) -> T:
        """Run ``function(*args)`` (a module-level function with picklable arguments and result, such as
        :func:`games.review.review_notations`) in a worker process, or in a thread without workers.

        Raises:
            TimeoutError: no answer within ``budget`` seconds (the work itself should bound its own time).
            Exception: whatever ``function`` raises.
        """
        executor = self._executor
        if executor is None:
            return await asyncio.wait_for(asyncio.to_thread(function, *args), budget)
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(loop.run_in_executor(executor, function, *args), budget)
        except BrokenProcessPool as error:
            self._replace_broken(executor, error)
        return await asyncio.wait_for(asyncio.to_thread(function, *args), budget)
