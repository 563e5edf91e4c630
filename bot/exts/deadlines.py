"""The deadline pass: correspondence time kept by itself — reminders when a third of the time is left, matches
forfeited (or called off, when a side never moved) at their deadline, challenges expired, vacations whose allowance
ran out ended.

One :class:`bot.utils.scheduling.Job`, driven by the deadlines stored in the database: each pass lets the services
decide what is due (each change is its own versioned transaction, which queues what there is to say in the outbox,
posted by :mod:`bot.exts.outbox`), then the job sleeps until the next stored deadline (at most an hour). A failed pass
is retried after a growing pause; a restarted bot picks up where the stored deadlines say.

Several bot processes may share one PostgreSQL database, each serving some of the shards: every process takes only
its own servers' work and claims each due match in the database, so that each reminder, forfeit, abort and expiry is
acted on by exactly one process.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord.ext import commands

from bot.service import DueWork
from bot.utils.scheduling import Job

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MAX_SLEEP = 3600.0
"""Longest sleep between passes, in seconds."""
HELD_RETRY = 1.0
"""Seconds to wait after a pass that did nothing although something is due: another process holds that work (it is
acting on it, or died holding it and the database has not yet let go), so the next pass waits a little instead of
spinning."""


class Deadlines(commands.Cog):
    """The deadline task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.job = Job("deadline pass", lambda: self.run_pass(), longest=MAX_SLEEP, ready=bot.wait_until_ready,
                       clock=bot.now)

    async def cog_load(self) -> None:
        """Answer the deadline doorbell (deadlines moved earlier: a vacation ended) and start the task."""
        self.bot.services.deadline_doorbell.connect(self.job.wake)
        self.job.start()

    async def cog_unload(self) -> None:
        """Stop the task."""
        self.job.stop()

    @property
    def failures(self) -> int:
        """Failed passes in a row (0 after a pass that worked)."""
        return self.job.failures

    async def run_pass(self) -> float | None:
        """Process what is due; return the seconds until the next stored deadline (``None``: none)."""
        started = self.bot.now()
        work = await self.tick()
        wake = await self.bot.services.deadlines.next_wakeup()
        if wake is None:
            return None
        idle = not (work.reminded or work.forfeited or work.aborted or work.expired or work.quarantined)
        if idle and wake <= started:
            return HELD_RETRY
        return max(0.0, wake - started) + 0.001

    async def tick(self) -> DueWork:
        """End the vacations whose allowance ran out (their members are told through the outbox), then settle every
        due match and challenge; return what was done."""
        await self.bot.services.vacations.end_due()
        return await self.bot.services.deadlines.process_due()


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Deadlines(bot))
