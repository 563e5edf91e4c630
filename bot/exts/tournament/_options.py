"""The ``tournament`` option: a tournament number of this server, autocompleted with the tournaments a command can
act on (open ones to join, running ones to withdraw from...), or, left empty, the server's only such tournament.

Every value is checked here, server-side: Discord does not confine a value to the autocompleted choices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import discord
from discord import app_commands

from bot.answers import language_of, suggest_in_time
from bot.service import BadOption
from bot.service.tournament_reading import STATUS_GROUPS
from bot.texts import quote
from bot.utils.converters import AUTOCOMPLETE_LIMIT, require_guild
from i18n import Text, _, p_
from storage import TournamentRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

STATUS_WORDS: dict[str, Text] = {"open": p_("tournament status", "open"),
                                 "running": p_("tournament status", "running"),
                                 "finished": p_("tournament status", "finished"),
                                 "cancelled": p_("tournament status", "cancelled")}
"""Each status as the autocomplete shows it after a tournament's name, in any shipped language."""


class TournamentTransformer(app_commands.Transformer["NapkinBot"]):
    """A tournament number (``3`` or ``#3``) of this server, autocompleted with its tournaments whose status is in
    the group ``group`` (:data:`bot.service.tournament_reading.STATUS_GROUPS`).

    Raises (from :meth:`transform`):
        BadOption: the text is not a tournament number. NotFound: no such tournament here.
    """

    def __init__(self, group: str = "all") -> None:
        self.group = group

    async def transform(self, interaction: discord.Interaction[NapkinBot], value: Any) -> TournamentRecord:
        """The stored tournament the option names."""
        guild_id = require_guild(interaction)
        text = str(value).strip().lstrip("#")
        if not (text.isascii() and text.isdecimal()) or len(text) > 18:
            raise BadOption(_("`{value}` is not a tournament number; pick one from the list.", value=quote(value)))
        return await interaction.client.services.tournament_reading.get(int(text), guild_id)

    @suggest_in_time
    async def autocomplete(self, interaction: discord.Interaction[NapkinBot],  # type: ignore[override]
                           value: str) -> list[app_commands.Choice[str]]:
        """This server's tournaments of the group, newest first, filtered by what is typed (at most 25)."""
        if interaction.guild_id is None:
            return []
        found = await interaction.client.services.tournament_reading.choices(
            interaction.guild_id, str(value).strip().lstrip("#"), STATUS_GROUPS[self.group], AUTOCOMPLETE_LIMIT)
        reader = language_of(interaction, private=True)
        return [app_commands.Choice(name=f"#{number} {name} ({_status(status, reader)})"[:100], value=str(number))
                for number, name, status in found]


def _status(status: str, reader: str) -> str:
    word = STATUS_WORDS.get(status)
    return word.render(reader) if word is not None else status


def tournament_option(group: str) -> Any:
    """The annotation of an optional ``tournament`` option offering the tournaments of ``group``."""
    return Optional[app_commands.Transform[TournamentRecord, TournamentTransformer(group)]]  # noqa: UP045 - a runtime value


OpenTournament = app_commands.Transform[TournamentRecord, TournamentTransformer("open")]
RunningTournament = app_commands.Transform[TournamentRecord, TournamentTransformer("running")]
LiveTournament = app_commands.Transform[TournamentRecord, TournamentTransformer("live")]
AnyTournament = app_commands.Transform[TournamentRecord, TournamentTransformer("all")]


async def the_tournament(interaction: discord.Interaction[NapkinBot], given: TournamentRecord | None,
                         group: str) -> TournamentRecord:
    """The tournament a command is about: the option if given, else the server's only tournament of ``group``.

    Raises:
        BadOption: none, or several, and the option was left empty.
    """
    if given is not None:
        return given
    guild_id = require_guild(interaction)
    found = await interaction.client.services.tournament_reading.choices(guild_id, "", STATUS_GROUPS[group], 2)
    if not found:
        if group == "open":
            raise BadOption(_("This server has no open tournament; `/tournament list` shows them all."))
        if group == "running":
            raise BadOption(_("This server has no running tournament; `/tournament list` shows them all."))
        if group == "live":
            raise BadOption(_("This server has no open or running tournament; `/tournament list` shows them all."))
        raise BadOption(_("This server has no tournament; `/tournament list` shows them all."))
    if len(found) > 1:
        raise BadOption(_("This server has several tournaments this applies to: choose one with the `tournament` "
                          "option."))
    return await interaction.client.services.tournament_reading.get(found[0][0], guild_id)
