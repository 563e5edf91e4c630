"""From what a member gave to what the services take: the server of an interaction, the member as a player, and the
``match`` option (a match number, autocompleted with the member's active matches, or the match the context implies).

Every option is validated here, server-side: Discord does not confine a value to the autocompleted choices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import discord
from discord import app_commands

from bot.answers import suggest_in_time
from bot.service import BadOption, NotAllowed, Player
from games import GAMES
from i18n import _
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot


AUTOCOMPLETE_LIMIT = 25
"""Discord shows at most 25 suggestions."""


def player_of(user: discord.abc.User) -> Player:
    """The service's view of a Discord user."""
    return Player(user.id, user.display_name)


def require_guild(interaction: discord.Interaction[Any]) -> int:
    """The interaction's server id (raises :class:`NotAllowed` in DMs)."""
    if interaction.guild_id is None:
        raise NotAllowed(_("Napkin Games works in servers, not in direct messages."))
    return interaction.guild_id


async def implied_match(interaction: discord.Interaction[NapkinBot], game: str | None = None) -> MatchRecord:
    """The match a command without a ``match`` option is about: the one played in the thread it is used in, else
    the member's only active match (of ``game``).

    Raises:
        BadOption: nothing identifies a single match. NotAllowed: used in a DM.
    """
    bot = interaction.client
    guild_id = require_guild(interaction)
    match = await bot.services.reading.match_in_thread(interaction.channel_id or 0)
    if match is None or match.guild_id != guild_id:
        mine = [m for m in await bot.services.reading.active_matches(guild_id, interaction.user.id)
                if game is None or m.game == game]
        if len(mine) != 1:
            raise BadOption(_("Use this command in the match's thread, or choose the match with the `match` option."))
        match = mine[0]
    return check_game(match, game)


def check_game(match: MatchRecord, game: str | None) -> MatchRecord:
    """Return ``match`` if it is a match of ``game`` (or ``game`` is ``None``).

    Raises:
        BadOption: it is a match of another game.
    """
    if game is not None and match.game != game:
        raise BadOption(_("Match #{match} is a {game} match, not {other}.", match=str(match.id),
                          game=GAMES[match.game].title_text, other=GAMES[game].title_text))
    return match


class MatchTransformer(app_commands.Transformer["NapkinBot"]):
    """The ``match`` option: a match number (``12`` or ``#12``) of this server, autocompleted with the member's
    active matches (of one game, when given).

    Raises (from :meth:`transform`):
        BadOption: the text is not a match number, or the match is of another game. NotFound: no such match here.
    """

    def __init__(self, game: str | None = None) -> None:
        self.game = game

    async def transform(self, interaction: discord.Interaction[NapkinBot], value: Any) -> MatchRecord:
        """The stored match the option names."""
        guild_id = require_guild(interaction)
        text = str(value).strip().lstrip("#")
        if not (text.isascii() and text.isdecimal()) or len(text) > 18:
            raise BadOption(_("`{typed}` is not a match number; pick one from the list.", typed=str(value)[:40]))
        match = await interaction.client.services.reading.get_match(int(text), guild_id)
        return check_game(match, self.game)

    @suggest_in_time
    async def autocomplete(self, interaction: discord.Interaction[NapkinBot],  # type: ignore[override]
                           value: str) -> list[app_commands.Choice[str]]:  # (discord.py types value as int|float|str)
        """The member's active matches (of the game), at most 25, filtered by what is typed: one storage query that
        builds, filters and limits the labels, decoding no state
        (:meth:`bot.service.reading.ReadingService.match_choices`)."""
        if interaction.guild_id is None:
            return []
        needle = str(value).strip().lstrip("#")
        titles = {key: GAMES[key].title for key in GAMES if self.game is None or key == self.game}
        labels = await interaction.client.services.reading.match_choices(interaction.guild_id, interaction.user.id,
                                                                         titles, needle, AUTOCOMPLETE_LIMIT)
        return [app_commands.Choice(name=label, value=str(match_id)) for match_id, label in labels]


MatchOption = app_commands.Transform[MatchRecord, MatchTransformer]
"""The ``match`` option of any game (``/match …`` commands)."""


def match_option(game: str | None = None) -> Any:
    """The annotation of an optional ``match`` option limited to ``game``'s matches."""
    return Optional[app_commands.Transform[MatchRecord, MatchTransformer(game)]]  # noqa: UP045 - a runtime value


async def the_match(interaction: discord.Interaction[NapkinBot], given: MatchRecord | None,
                    game: str | None = None) -> MatchRecord:
    """The match a command is about: the ``match`` option if given, else the one the context implies."""
    return given if given is not None else await implied_match(interaction, game)
