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
from bot.utils.converters import require_guild
from bot.utils.messages import send_dm
from bot.utils.names import server_name
from bot.utils.outbox import Poster, Progress
from i18n import Moment, Text, _, n_
from storage import OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


def _paused(count: int) -> Text:
    """What starting a vacation did to the member's ``count`` matches waiting for their move."""
    if count:
        return n_("your deadlines are paused in {count} match where it is your move, and in every match that becomes "
                  "your move meanwhile.",
                  "your deadlines are paused in {count} matches where it is your move, and in every match that "
                  "becomes your move meanwhile.", count)
    return _("no match is waiting for your move now; every match that becomes your move meanwhile is paused.")


def _resumed(count: int) -> Text:
    """What ending a vacation did to the member's ``count`` matches waiting for their move."""
    if count:
        return n_("your deadlines run again in {count} match.", "your deadlines run again in {count} matches.", count)
    return _("no match was waiting for your move.")


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
        days = n_("{count} day", "{count} days", round((vacation.ends_by - vacation.started_at) / 86400))
        await respond(interaction, _(
            "You are on vacation in this server until {until} at the latest (the {days} of allowance you have left "
            "this year); {paused} You may still move. `/vacation end` ends it early: each started day counts as a "
            "whole day.", until=Moment(vacation.ends_by), days=days, paused=_paused(paused)), private=True)

    @app_commands.command(name="end", description="End your vacation: your deadlines run again", extras=PRIVATE)
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction[NapkinBot]) -> None:
        """End the vacation now; deadlines resume from where they stopped.

        Raises:
            NotAllowed: not on vacation in this server.
        """
        guild_id = require_guild(interaction)
        vacation, resumed, left = await self.vacations.end(guild_id, interaction.user.id)
        remaining = (n_("{count} vacation day left this year.", "{count} vacation days left this year.", left) if left
                     else _("No vacation days left this year."))
        await respond(interaction, _(
            "Welcome back! Your vacation cost {days} (each started day counts as a whole day); {resumed} {left}",
            days=n_("{count} day", "{count} days", vacation.days or 1), resumed=_resumed(resumed), left=remaining),
            private=True)


async def _post_vacation_over(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """Tell the member, by direct message, that their vacation ended by itself (the allowance is spent) and their
    deadlines run again. Sent whatever ``/notify`` says (it is news about their own vacation, once); a member whose
    direct messages are closed is not reached (nothing else to try)."""
    vacation = await bot.services.vacations.get(news.subject_id)
    if vacation is None:
        return False
    server = server_name(bot, vacation.guild_id)
    text = _("Your vacation in **{server}** ended by itself after {days}: this year's allowance is spent. Your "
             "deadlines run again; `/match list` there shows whose move it is.", server=server,
             days=n_("{count} day", "{count} days", vacation.days or 1))
    return await send_dm(bot, vacation.user_id, text)


async def _nobody_else(news: OutboxRecord, gone: bool) -> None:
    """A direct message refused for good: nobody else to tell."""


async def setup(bot: NapkinBot) -> None:
    """Load the extension, with the poster of its news."""
    await bot.add_cog(Vacation(bot))
    bot.posters.register(VACATION_OVER_NEWS, Poster(lambda news, progress: _post_vacation_over(bot, news, progress),
                                                    _nobody_else))
