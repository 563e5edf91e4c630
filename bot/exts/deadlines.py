"""Correspondence time: reminders when a third of the time is left, forfeits at the deadline, challenge expiry.

One background task, driven by the deadlines stored in the database: it wakes when the next one falls due (at
least once an hour), lets the service decide what is due (each change is its own versioned transaction) and
then posts the messages. A restarted bot picks up where the stored deadlines say.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.exts.match import _board as board
from bot.exts.match import _lifecycle as lifecycle
from bot.exts.match._views import challenge_view
from bot.service import DueWork
from storage import ChallengeRecord, MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MAX_SLEEP = 3600.0
"""Longest sleep between checks, in seconds."""


class Deadlines(commands.Cog):
    """The deadline task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        """Start the task."""
        self._task = asyncio.create_task(self._run(), name="napkin-deadlines")

    async def cog_unload(self) -> None:
        """Stop the task."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        try:  # a crash between a member's move and the computer's reply left these waiting; computers have no deadline
            for match_id in await self.bot.service.computer_turns():
                await lifecycle.run_computer(self.bot, match_id)
        except Exception:
            log.exception("resuming computer turns failed")
        while not self.bot.is_closed():
            try:
                await self.tick()
            except Exception:
                log.exception("deadline pass failed; retrying later")
            wake = await self.bot.service.next_wakeup()
            delay = MAX_SLEEP if wake is None else min(MAX_SLEEP, max(0.0, wake - self.bot.now()) + 0.001)
            await asyncio.sleep(delay)

    async def tick(self) -> DueWork:
        """Process everything due now and post the messages; return what was done."""
        work = await self.bot.service.process_due()
        for match in work.reminded:
            await self._remind(match)
        for match in work.forfeited:
            await board.post_board(self.bot, match)
        for challenge in work.expired:
            await self._expire(challenge)
        return work

    async def _remind(self, match: MatchRecord) -> None:
        if match.current_seat is None or match.deadline is None:
            return
        seat = match.seats[match.current_seat]
        try:
            channel = await board.match_channel(self.bot, match)
            await channel.send(
                f"<@{seat.user_id}>, a third of your time is left in match #{match.id}: "
                f"move before <t:{int(match.deadline)}:f> (<t:{int(match.deadline)}:R>) or the match is forfeited.",
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(seat.user_id)]))
        except discord.HTTPException as error:
            log.warning("could not remind in match %s: %s", match.id, error)

    async def _expire(self, challenge: ChallengeRecord) -> None:
        if challenge.message_id is None:
            return
        try:
            channel = self.bot.get_channel(challenge.channel_id) or await self.bot.fetch_channel(challenge.channel_id)
            message = await channel.fetch_message(challenge.message_id)  # type: ignore[union-attr]
            await message.edit(content=message.content + "\nThis challenge expired unanswered.",
                               view=challenge_view(challenge.id, disabled=True),
                               allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.info("could not close expired challenge %s: %s", challenge.id, error)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Deadlines(bot))
