"""The outbox's delivery: one task posts every news the bot queued for later (:mod:`bot.service.outbox`) — whatever
its kind — through the poster its feature registered (:mod:`bot.utils.outbox`), and settles it the same way for every
kind: posted, no longer true, tried again later, or given up.

The task (a :class:`bot.utils.scheduling.Job`) runs when news is queued (the services ring its doorbell once the
transaction that queued it commits) and when the next news is due, which includes a claim a dead process left
(its lease runs out). A refusal Discord gives for good — no access to the channel (403) for
:data:`bot.service.outbox.NEWS_REFUSED_TRIES` attempts, or the channel gone (404) at once — gives the news up, logs
it, and lets its poster tell the players or the organizer; a transient failure (429, 5xx, the network) is tried
again after :data:`bot.service.outbox.NEWS_RETRY_DELAYS`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.service.outbox import NEWS_BATCH, refused_for_good
from bot.texts import plural
from bot.utils.scheduling import Job
from storage import OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MAX_SLEEP = 3600.0
"""Longest sleep between passes, seconds (a safety net: queued news rings the task, due news is scheduled)."""


class Outbox(commands.Cog):
    """The outbox's delivery task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.outbox = bot.services.outbox
        self.job = Job("outbox delivery", lambda: self.run_pass(), longest=MAX_SLEEP, ready=bot.wait_until_ready,
                       clock=bot.now)
        self.delivered = 0
        """News posted by this process."""

    async def cog_load(self) -> None:
        """Answer the news doorbell and start the task."""
        self.bot.services.news_doorbell.connect(self.job.wake)
        self.job.start()

    async def cog_unload(self) -> None:
        """Stop the task."""
        self.job.stop()

    async def run_pass(self) -> float | None:
        """Post what is due; return the seconds until the next news is due (``None``: none queued)."""
        await self.deliver_news()
        upcoming = await self.outbox.next_due()
        return None if upcoming is None else upcoming - self.bot.now()

    async def deliver_news(self) -> int:
        """Claim the due news (of this process's servers) a batch at a time and try each once; return how many were
        posted."""
        posted = 0
        while True:
            batch = await self.outbox.claim()
            for news in batch:
                posted += await self._deliver(news)
            if len(batch) < NEWS_BATCH:
                self.delivered += posted
                return posted

    async def _deliver(self, news: OutboxRecord) -> int:
        """Post one claimed ``news`` through its kind's poster and settle it; ``1`` when it was posted."""
        poster = self.bot.posters.get(news.kind)
        if poster is None:  # queued by a feature this process does not run: keep it for one that does
            retry = await self.outbox.failed(news, f"no poster for {news.kind!r} here")
            log.error("no poster for %s news %s; trying again at %s", news.kind, news.id, retry)
            return 0

        async def progress(parts_done: int) -> None:
            await self.outbox.progress(news, parts_done)

        try:
            posted = await poster.post(news, progress)
        except (discord.Forbidden, discord.NotFound, discord.ClientException) as error:  # refused for good
            gone = isinstance(error, discord.NotFound)
            what = f"{getattr(error, 'status', '')} {error}".strip()
            if refused_for_good(news, gone=gone):
                await self.outbox.give_up(news, what)
                log.warning("gave up the %s news %s after %s: Discord refuses it for good (%s)", news.kind,
                            news.subject_id, plural(news.attempts + 1, "attempt"), what)
                try:
                    await poster.given_up(news, gone)
                except Exception:
                    log.exception("could not tell anyone that the %s news %s was given up", news.kind, news.id)
                return 0
            retry = await self.outbox.failed(news, what)
            log.warning("Discord refused the %s news %s (attempt %d): %s; trying again at %s", news.kind,
                        news.subject_id, news.attempts + 1, error, retry)
            return 0
        except discord.HTTPException as error:  # 429, 5xx: Discord takes it later
            retry = await self.outbox.failed(news, f"{error.status} {error}")
            log.warning("could not post the %s news %s (attempt %d): %s; retrying at %s", news.kind, news.subject_id,
                        news.attempts + 1, error, retry)
            return 0
        await self.outbox.done(news)
        return int(posted)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Outbox(bot))
