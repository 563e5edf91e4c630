"""The computer's worker processes: one :class:`concurrent.futures.ProcessPoolExecutor` of one process per worker
(:class:`Worker`), so that a worker that dies breaks only its own executor and the work it was running (a pool of
several processes breaks whole: every piece under way in it would fail with the one that killed it).

A state crosses the process boundary as its ``to_dict()`` and is rebuilt in the worker with ``GAMES[key].load``; the
worker answers with the move's notation, which the service applies in its own version-checked transaction, as for a
member's move. Each worker is started with the registry's package list (:func:`games.game_packages`), so it finds
the same games as the bot, also games added with :func:`games.add_game_package`. What a worker runs is
:mod:`bot.workers`; which work it is given, and when, is :mod:`bot.service.computer_scheduler`'s.

No worker outlives the bot: each one exits within a second of its parent's end, whatever ended it (a SIGKILL
included), see :func:`bot.workers.exit_with_parent`.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bot.service.computer_lines import Lane
from bot.workers import init_worker
from games import game_packages


class WorkerLost(RuntimeError):
    """The workers running a piece of work died :data:`bot.service.computer_scheduler.MAX_DEATHS` times (it is not
    run again)."""


class ComputerStopped(RuntimeError):
    """The pool was closed before the work was done (it was waiting, or cut short after the close's grace)."""


def machine_workers() -> int:
    """The number of CPUs this process may run on (at least 1): the default pool size."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@dataclass(eq=False)
class Worker:
    """One worker process, in an executor of its own (made, and its process started, with the first work it is
    given; made anew when its process died)."""

    main_thread: bool
    """Whether it is started from the main thread (see :func:`bot.workers.exit_with_parent`)."""
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
        """Neither running work nor being replaced."""
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
                                                initargs=(game_packages(), os.getpid(), self.main_thread))
        handler = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
        if handler is None:
            return self.executor.submit(function, *args)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return self.executor.submit(function, *args)
        finally:
            signal.signal(signal.SIGINT, handler)
