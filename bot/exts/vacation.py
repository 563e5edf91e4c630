"""``/vacation start`` and ``/vacation end``: pause a member's deadlines in every match of a server, within a yearly
allowance (the server's ``/settings vacation_days``). The rules are :mod:`bot.service.vacations`'; this module only
answers the member (always only them: opponents see the vacation on the boards and in ``/match list``), and posts the
direct message that a vacation ended by itself (news of the outbox, :mod:`bot.exts.outbox`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, respond
from bot.service.vacations import VACATION_OVER_NEWS
from bot.texts import plural
from bot.utils.converters import require_guild
from bot.utils.messages import send_dm
from bot.utils.names import server_name
from bot.utils.outbox import Poster, Progress
from storage import OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


def _paused(count: int) -> str:
    """What starting a vacation did to the member's ``count`` matches waiting for their move."""
    if count:
        return (f"your deadlines are paused in {plural(count, 'match', 'matches')} where it is your move, and in "
                "every match that becomes your move meanwhile.")
    return "no match is waiting for your move now; every match that becomes your move meanwhile is paused."


def _resumed(count: int) -> str:
    """What ending a vacation did to the member's ``count`` matches waiting for their move."""
    if count:
        return f"your deadlines run again in {plural(count, 'match', 'matches')}."
    return "no match was waiting for your move."


class Vacation(commands.GroupCog, group_name="vacation", group_description="Pause your deadlines in this server"):
    """The vacation commands."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.vacations = bot.services.vacations

    @app_commands.command(name="start", description="Go on vacation: your deadlines in this server stop running",
                          extras=PRIVATE)
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[NapkinBot]) -> None:
        """Start a vacation for as long as this year's allowance lasts at most.

        Raises:
            NotAllowed (already on vacation, no allowance in this server), LimitReached (allowance spent).
        """
        guild_id = require_guild(interaction)
        vacation, paused = await self.vacations.start(guild_id, interaction.user.id)
        days = plural(round((vacation.ends_by - vacation.started_at) / 86400), "day")
        await respond(
            interaction,
            f"You are on vacation in this server until <t:{int(vacation.ends_by)}:f> at the latest (the {days} of "
            f"allowance you have left this year); {_paused(paused)} You may still move. `/vacation end` ends it "
            "early: each started day counts as a whole day.", private=True)

    @app_commands.command(name="end", description="End your vacation: your deadlines run again", extras=PRIVATE)
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction[NapkinBot]) -> None:
        """End the vacation now; deadlines resume from where they stopped.

        Raises:
            NotAllowed: not on vacation in this server.
        """
        guild_id = require_guild(interaction)
        vacation, resumed, left = await self.vacations.end(guild_id, interaction.user.id)
        await respond(
            interaction,
            f"Welcome back! Your vacation cost {plural(vacation.days or 1, 'day')} (each started day counts "
            f"as a whole day); {_resumed(resumed)} "
            f"{plural(left, 'vacation day') if left else 'No vacation days'} left this year.", private=True)


async def _post_vacation_over(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """Tell the member, by direct message, that their vacation ended by itself (the allowance is spent) and their
    deadlines run again. Sent whatever ``/notify`` says (it is news about their own vacation, once); a member whose
    direct messages are closed is not reached (nothing else to try)."""
    vacation = await bot.services.vacations.get(news.subject_id)
    if vacation is None:
        return False
    server = server_name(bot, vacation.guild_id)
    days = plural(vacation.days or 1, "day")
    text = (f"Your vacation in **{server}** ended by itself after {days}: this year's allowance is spent. Your "
            "deadlines run again; `/match list` there shows whose move it is.")
    return await send_dm(bot, vacation.user_id, text)


async def _nobody_else(news: OutboxRecord, gone: bool) -> None:
    """A direct message refused for good: nobody else to tell."""


async def setup(bot: NapkinBot) -> None:
    """Load the extension, with the poster of its news."""
    await bot.add_cog(Vacation(bot))
    bot.posters.register(VACATION_OVER_NEWS, Poster(lambda news, progress: _post_vacation_over(bot, news, progress),
                                                    _nobody_else))
