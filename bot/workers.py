"""What runs in the computer's worker processes: the games, and nothing else of the bot.

A worker imports this module and :mod:`games` (with the game packages the bot registered), not the bot's services,
storage or Discord, so that a worker that died is replaced in the time it takes to start an interpreter and import
the games. :mod:`bot.service.computer` sends it :func:`timed` calls of :func:`choose_notation` (a computer move), of
:mod:`games.review`'s pieces, and of a tournament round's pairing under a CPU budget (:func:`cpu_bounded`).
"""

from __future__ import annotations

import ctypes
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from games import GAMES, Level, add_game_package

T = TypeVar("T")


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


def timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``function(*args)`` and the CPU seconds it took where it ran (what a worker is sent): the work itself, the
    same on a busy machine as on an idle one."""
    began = time.process_time()
    value = function(*args)
    return value, time.process_time() - began


class CpuBudgetSpent(TimeoutError):
    """Work used up the CPU seconds it was given (:func:`cpu_bounded`) and was given up."""


def cpu_bounded(seconds: float, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, given up with :class:`CpuBudgetSpent` once it has used ``seconds`` of this process's CPU
    time (user and system: ``ITIMER_PROF``), however long it waited for the CPU meanwhile: a bound on the work
    itself, the same on a busy machine as on an idle one. ``function`` is pure Python (the signal is handled
    between two bytecodes).

    In a worker's main thread only: elsewhere (a thread of the bot's own process, whose main thread runs the event
    loop, or a system without interval timers) the work runs unbounded, and the caller bounds it by the clock.

    Raises:
        CpuBudgetSpent: ``seconds`` of CPU were used. Exception: whatever ``function`` raises.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return function(*args)

    def spent(signum: int, frame: object) -> None:
        raise CpuBudgetSpent(f"the work used up its {seconds:g} CPU seconds")

    previous = signal.signal(signal.SIGPROF, spent)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        return function(*args)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


WORKER_NICENESS = 5
"""How much lower a worker's CPU priority is than the bot's: on a machine whose cores are all searching, the event
loop still gets the CPU first, so members' commands are not held up by the computer's thinking."""


PARENT_POLL_SECONDS = 0.5
"""How often a worker looks whether the bot that started it is still there."""
_PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal the kernel sends this process when its parent thread ends."""


def exit_with_parent(parent: int, parent_is_main_thread: bool) -> None:
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


def init_worker(packages: tuple[str, ...], parent: int = 0, parent_is_main_thread: bool = False) -> None:
    """Pool initializer: end with the bot (``parent``, see :func:`exit_with_parent`), leave Ctrl-C to the bot (a
    terminal sends SIGINT to every process of the group; the bot's graceful stop lets a search under way finish),
    lower the worker's priority, register the bot's game packages in the worker."""
    if parent:
        exit_with_parent(parent, parent_is_main_thread)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # already so when started by the pool (see its workers' submit)
    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
    for package in packages:
        add_game_package(package)
