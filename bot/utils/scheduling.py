"""The one back-off loop of the bot's periodic jobs (the deadline pass, the outbox's delivery, the tournaments), as
python-discord's one scheduling base and lichess's one scheduler line per job: a job gives the pass to run, which
says when it is next needed; this loop owns when and how often.

A :class:`Job` runs its pass in a :func:`discord.ext.tasks.loop` (so it runs on the bot's loop, and SimCord's clock
drives it in the tests), after the bot is ready: then it sleeps until the pass said, at most ``longest`` seconds.
A pass that raises is logged and run again after a growing pause (:data:`RETRY_DELAYS`), never in a busy loop, and the
job keeps running. :meth:`Job.wake` runs a pass at once, in a task of its own (new work was stored: the caller does
not wait for it), and reschedules the loop after it; a wake or a due iteration during a pass runs one more pass after
it, never a second pass beside it (nothing waits on another pass: the one under way goes on).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from discord.ext import tasks

log = logging.getLogger(__name__)

RETRY_DELAYS: tuple[float, ...] = (5.0, 15.0, 60.0, 300.0)
"""Seconds to wait after the 1st, 2nd, 3rd and every later failed pass in a row."""
SOON = 0.001
"""Seconds before the pass a wake asks for."""

Pass = Callable[[], Awaitable[float | None]]
"""A job's pass: does what is due, and returns the seconds until it is next needed (``None``: nothing scheduled)."""


class Job:
    """One periodic job of the bot.

    Args:
        name: what the logs call it (``"deadline pass"``).
        run_pass: the pass (:data:`Pass`).
        longest: the longest sleep between passes, seconds (a safety net, whatever the pass says).
        ready: awaited once before the first pass (the bot's ``wait_until_ready``).
        clock: the current time in epoch seconds (the bot's).
        retry_delays: seconds to wait after failed passes in a row (the last repeats).
    """

    def __init__(self, name: str, run_pass: Pass, *, longest: float, ready: Callable[[], Awaitable[object]],
                 clock: Callable[[], float], retry_delays: Sequence[float] = RETRY_DELAYS) -> None:
        self.name = name
        self._run_pass = run_pass
        self.longest = longest
        self._ready = ready
        self.retry_delays = tuple(retry_delays)
        self.failures = 0
        """Failed passes in a row (0 after a pass that worked)."""
        self._clock = clock
        self._woken = False
        self._running = False
        self._worker: asyncio.Task[None] | None = None
        self._last_iteration = 0.0
        self._next_at = 0.0
        """When the loop's next iteration is scheduled (epoch seconds)."""
        self.loop: tasks.Loop[Callable[[], Coroutine[Any, Any, None]]] = tasks.loop(seconds=longest)(self._iteration)
        self.loop.before_loop(self._before)

    def start(self) -> None:
        """Start the loop (its first pass comes once the bot is ready)."""
        self.loop.start()

    def stop(self) -> None:
        """Cancel the loop and a woken pass under way."""
        self.loop.cancel()
        if self._worker is not None:
            self._worker.cancel()

    def wake(self) -> None:
        """Run a pass now, in a task of its own (new work was stored), instead of at its scheduled time; a pass under
        way runs once more when it ends. Returns at once; nothing before the loop has started (its first pass comes
        anyway)."""
        self._woken = True
        if not self.loop.is_running() or self._running:
            return
        try:
            self._worker = asyncio.get_running_loop().create_task(self._woken_passes(), name=f"{self.name} (woken)")
        except RuntimeError:  # no event loop running (a service used alone): the loop's next pass does it
            self._worker = None

    async def _before(self) -> None:
        await self._ready()

    async def _woken_passes(self) -> None:
        sleep = await self._passes()
        if sleep is None or not self.loop.is_running():
            return
        wanted = self._clock() + sleep
        if wanted < self._next_at - SOON:  # needed before the loop's next iteration: bring that forward
            self._next_at = wanted
            self.loop.change_interval(seconds=max(SOON, wanted - self._last_iteration))

    async def _iteration(self) -> None:
        self._last_iteration = self._clock()
        sleep = await self._passes()
        if sleep is None:  # a woken pass was under way: it runs once more, and the loop looks again soon
            sleep = SOON
        self._next_at = self._last_iteration + sleep
        self.loop.change_interval(seconds=sleep)

    async def _passes(self) -> float | None:
        """Run passes while woken meanwhile; return the seconds to sleep after them, or ``None`` when a pass was under
        way (which then runs once more instead)."""
        if self._running:
            self._woken = True
            return None
        self._running = True
        try:
            while True:
                self._woken = False
                sleep = await self.run_once()
                if not self._woken:
                    return sleep
        finally:
            self._running = False

    async def run_once(self) -> float:
        """One pass now; return the seconds to sleep before the next (the pass's own, within ``longest``, or a
        retry delay after a failure). Never raises (but for cancellation)."""
        try:
            wanted = await self._run_pass()
        except Exception:
            delay = self.retry_delays[min(self.failures, len(self.retry_delays) - 1)]
            self.failures += 1
            log.exception("%s failed (%d in a row); retrying in %.0f s", self.name, self.failures, delay)
            return delay
        self.failures = 0
        if wanted is None:
            return self.longest
        return min(self.longest, max(SOON, wanted))
