"""Correspondence time: reminders when a third of the time is left, forfeits at the deadline, challenge expiry, and
the end of vacations whose allowance ran out.

One :func:`discord.ext.tasks.loop`, driven by the deadlines stored in the database: each pass lets the service
decide what is due (each change is its own versioned transaction) and posts the messages, then the loop sleeps
until the next stored deadline (at most an hour). A pass that fails (a locked or unreachable database, anything)
is logged and retried after a growing pause (:data:`RETRY_DELAYS`), never in a busy loop, and the loop keeps
running. A restarted bot picks up where the stored deadlines say.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands, tasks

from bot.exts.match import _board as board
from bot.exts.match import _lifecycle as lifecycle
from bot.exts.match._views import challenge_view
from bot.service import Damaged, DueWork, NotFound
from bot.service.vacations import VacationService
from games import GAMES
from storage import ChallengeRecord, MatchRecord, OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MAX_SLEEP = 3600.0
"""Longest sleep between passes, in seconds."""
RETRY_DELAYS = (5.0, 15.0, 60.0, 300.0)
"""Seconds to wait after the 1st, 2nd, 3rd and every later failed pass in a row."""


class Deadlines(commands.Cog):
    """The deadline task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.failures = 0
        """Failed passes in a row (0 after a pass that worked)."""
        self.resuming: asyncio.Task[int] | None = None
        """The start-up task that resumes the computer's pending turns (:meth:`resume_computer_turns`)."""
        self.vacations = VacationService(bot.service.db, clock=bot.service.clock)

    async def cog_load(self) -> None:
        """Start the loop."""
        self.deadline_loop.start()

    async def cog_unload(self) -> None:
        """Stop the loop (and the resuming of computer turns, if still under way)."""
        self.deadline_loop.cancel()
        if self.resuming is not None:
            self.resuming.cancel()

    @tasks.loop(seconds=MAX_SLEEP)
    async def deadline_loop(self) -> None:
        """One pass, then set the sleep until the next one (the next stored deadline, or a retry delay)."""
        self.deadline_loop.change_interval(seconds=await self.run_pass())

    @deadline_loop.before_loop
    async def _resume(self) -> None:
        await self.bot.wait_until_ready()
        if self.resuming is None:
            self.resuming = asyncio.create_task(self.resume_computer_turns(), name="resume computer turns")

    async def resume_computer_turns(self) -> int:
        """Let the computer move where a crash between a member's move and its reply left it to move (computers
        have no deadline); run in the background at start-up, a few at a time (one per computer worker), so the
        bot answers meanwhile. Returns the number of matches resumed; failures are logged, never raised."""
        try:
            waiting = await self.bot.service.computer_turns()
        except Exception:
            log.exception("finding computer turns to resume failed")
            return 0
        slots = asyncio.Semaphore(max(1, self.bot.computer.workers))

        async def resume(match_id: int) -> None:
            async with slots:
                try:
                    await lifecycle.run_computer(self.bot, match_id)
                except Exception:
                    log.exception("resuming the computer's turn in match %s failed", match_id)

        await asyncio.gather(*(resume(match_id) for match_id in waiting))
        return len(waiting)

    def wake(self) -> None:
        """Run the next pass soon (new news was queued) instead of at the next stored deadline."""
        if self.deadline_loop.is_running():
            self.deadline_loop.change_interval(seconds=0.001)

    async def run_pass(self) -> float:
        """Process what is due and find the next wake-up; return the seconds to sleep before the next pass.

        Never raises (but for cancellation): a failure is logged and answered with the next retry delay.
        """
        started = self.bot.now()
        try:
            await self.tick()
            due = (await self.bot.service.next_wakeup(), await self.vacations.next_end())
            times = [t for t in due if t is not None]
            wake = min(times) if times else None
        except Exception:
            delay = RETRY_DELAYS[min(self.failures, len(RETRY_DELAYS) - 1)]
            self.failures += 1
            log.exception("deadline pass failed (%d in a row); retrying in %.0f s", self.failures, delay)
            return delay
        self.failures = 0
        return MAX_SLEEP if wake is None else min(MAX_SLEEP, max(0.0, wake - started) + 0.001)

    async def tick(self) -> DueWork:
        """Process everything due now, deliver the news that is due (reminders and results, from the outbox) and
        close expired challenges; return what was done."""
        await self.vacations.end_due()  # (their deadlines already hold: bot.service.vacations)
        work = await self.bot.service.process_due()
        for challenge in work.expired:
            await self._expire(challenge)
        await self.deliver_news()
        return work

    async def deliver_news(self) -> int:
        """Try every due outbox entry once; return how many were delivered.

        Delivered news, and news that is no longer true (the match moved on) or can never arrive (the match's
        channel is gone), leaves the outbox; news Discord failed to take is tried again later
        (:data:`bot.service.matches.NEWS_RETRY_DELAYS`).
        """
        delivered = 0
        for news in await self.bot.service.due_news():
            try:
                match = await self.bot.service.get_match(news.match_id)
            except (NotFound, Damaged):
                await self.bot.service.news_done(news)
                continue
            try:
                sent = await self._send_news(news, match)
            except discord.NotFound as error:  # the channel itself is gone: nobody can read it there
                log.warning("dropping the %s of match %s: its channel is gone (%s)", news.kind, match.id, error)
                await self.bot.service.news_done(news)
                continue
            except (discord.HTTPException, discord.ClientException) as error:
                retry = await self.bot.service.news_failed(news)
                log.warning("could not post the %s of match %s (attempt %d): %s; retrying at %s", news.kind,
                            match.id, news.attempts + 1, error, retry)
                continue
            delivered += sent
            await self.bot.service.news_done(news)
        return delivered

    async def _send_news(self, news: OutboxRecord, match: MatchRecord) -> bool:
        """Post ``news``; ``False`` when it is no longer true (nothing posted)."""
        if news.kind == "result":
            if match.status == "active":
                return False
            message = await board.send_to_match(self.bot, match, lambda: board.board_payload(match))
            await board.retire_previous_board(match.id, message)
            return True
        if match.status != "active" or match.ply != news.ply or match.current_seat is None or match.deadline is None:
            return False  # the player moved (or the match ended) since the reminder was due
        seat = match.seats[match.current_seat]
        deadline = int(match.deadline)

        async def reminder() -> dict[str, Any]:
            return {"content": f"{board.member_name(seat)}, a third of your time is left in match #{match.id}: move "
                               f"before <t:{deadline}:f> (<t:{deadline}:R>) or the match is forfeited.",
                    "allowed_mentions": discord.AllowedMentions(users=[discord.Object(seat.user_id)] if seat.pings
                                                                else False)}

        message = await board.send_to_match(self.bot, match, reminder)
        await board.tell_turn(self.bot, match, message, reminder=True)
        return True

    async def _expire(self, challenge: ChallengeRecord) -> None:
        if challenge.message_id is None:
            return
        try:
            channel = self.bot.get_channel(challenge.channel_id) or await self.bot.fetch_channel(challenge.channel_id)
            message = await channel.fetch_message(challenge.message_id)  # type: ignore[union-attr]
            await message.edit(content=message.content + "\nThis challenge expired unanswered.",
                               view=challenge_view(challenge.id, disabled=True),
                               allowed_mentions=discord.AllowedMentions.none())
            await message.reply(f"<@{challenge.challenger_id}>, nobody accepted your "
                                f"{GAMES[challenge.game].title} challenge in time; it has expired.",
                                mention_author=False,
                                allowed_mentions=discord.AllowedMentions(users=[discord.Object(challenge.challenger_id)]))
        except discord.HTTPException as error:
            log.info("could not close expired challenge %s: %s", challenge.id, error)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Deadlines(bot))
