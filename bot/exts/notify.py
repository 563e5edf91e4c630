"""``/notify``: how the bot tells a member it is their turn — a direct message (opt-in), and whether boards and
reminders may @-mention them — and whether the puzzles from their matches may name them (opt-in: a match puzzle's
source names the players only when every seat allowed it). The preferences are the member's own, the same in every
server."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, language_of, respond
from i18n import Text, _
from storage import MemberPrefs

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

ON_OFF = [app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off")]


def describe(prefs: MemberPrefs) -> list[Text]:
    """The preferences in words, one line each."""
    return [
        _("• Direct messages: on (I write to you when it becomes your move, and at each reminder)") if prefs.dm_turns
        else _("• Direct messages: off (`/notify dm:on` to get one when it becomes your move)"),
        _("• Pings: on (boards and reminders mention you when it is your move, challenges when they are for you)")
        if prefs.pings else _("• Pings: off (nothing mentions you: your name is in bold instead, and a challenge to "
                              "you comes by direct message)"),
        _("• Your name under puzzles: on (the puzzles from your matches say \"from you vs your opponent\" when your "
          "opponent allows it too)") if prefs.puzzle_names else
        _("• Your name under puzzles: off (the puzzles from your matches say only \"match #N\", never your name)"),
    ]


def _said(interaction: discord.Interaction[NapkinBot], lines: list[Text]) -> str:
    reader = language_of(interaction, private=True)
    return "\n".join(line.render(reader) for line in lines)


class Notify(commands.Cog):
    """The ``/notify`` command."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot

    @app_commands.command(name="notify", description="How I tell you it is your move, and your name under puzzles "
                                                     "(no option: show)", extras=PRIVATE)
    @app_commands.describe(dm="A direct message when it becomes your move, and at the reminder",
                           pings="@-mention you on boards, reminders and challenges",
                           puzzle_names="Name you under puzzles from your matches (when your opponent allows it too)")
    @app_commands.choices(dm=ON_OFF, pings=ON_OFF, puzzle_names=ON_OFF)
    async def notify(self, interaction: discord.Interaction[NapkinBot], dm: Literal["on", "off"] | None = None,
                     pings: Literal["on", "off"] | None = None,
                     puzzle_names: Literal["on", "off"] | None = None) -> None:
        """Show the member's preferences, or change the ones given (for every server)."""
        if dm is None and pings is None and puzzle_names is None:
            prefs = await self.bot.services.vacations.prefs(interaction.user.id)
            await respond(interaction, _said(interaction, [_("Your preferences (in every server):"),
                                                           *describe(prefs)]), private=True)
            return
        prefs = await self.bot.services.vacations.set_prefs(interaction.user.id,
                                                            dm_turns=None if dm is None else dm == "on",
                                                            pings=None if pings is None else pings == "on",
                                                            puzzle_names=None if puzzle_names is None
                                                            else puzzle_names == "on")
        lines = [_("Preferences updated (in every server):"), *describe(prefs)]
        if dm == "on":
            lines.append(_("If your direct messages are closed to members of a server, I cannot reach you there."))
        await respond(interaction, _said(interaction, lines), private=True)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Notify(bot))
