"""``/tournament create``: one command for every game — the game (a choice), the tournament's own options, and the
game's options written as its ``start`` command shows them (``variant:n:6 unique:true``), autocompleted for the
game chosen and checked by the game's declaration (:func:`games.parse_options`).

One command rather than a subcommand per game with every game's start options: Discord counts a command with all
its subcommands and options against 4,000 characters, and a subcommand per game made ``/tournament`` 6,237."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from bot.answers import language_of, respond, suggest_in_time
from bot.exts.match import DAYS_CHOICES, variant_words
from bot.exts.tournament._show import describe, start_words, title
from bot.service import NotFound, Player
from bot.service.tournaments import MAX_PLAYERS, MAX_ROUNDS, MAX_START_HOURS, NAME_LIMIT
from bot.texts import quote
from bot.utils.converters import AUTOCOMPLETE_LIMIT, player_of, require_guild
from bot.utils.names import escape
from bot.utils.queues import member_key
from games import GAMES, Option, parse_options
from i18n import SOURCE, Text, _
from storage import TournamentRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

FormatOption = Literal["swiss", "round_robin"]
LevelOption = Literal["easy", "medium", "hard"]
CREATE_DESCRIPTIONS: dict[str, str] = {
    "game": "The game every round is played in",
    "name": f"The tournament's name (at most {NAME_LIMIT} characters)",
    "variant": "The game's options as in its start command, such as n:6 unique:true (default: none)",
    "format": "Swiss (default: players meet others on their score) or round robin (everyone meets everyone)",
    "rounds": f"A Swiss's rounds (1–{MAX_ROUNDS}, default 5); a round robin has as many as its players need",
    "days": "Days per move of every game (default: the server's setting)",
    "max_players": f"Most players (2–{MAX_PLAYERS}; default 128, a round robin 32)",
    "starts_in": f"Hours until it starts by itself (1–{MAX_START_HOURS}); leave empty to start it by hand",
    "rated": "Whether its games count for the ratings (default yes)",
    "computer": "Enter the computer too, at this level",
}
CREATE_USES = 3
"""``/tournament create`` uses a minute per member (docs/playing.md, "Rests between uses")."""
CREATE_COOLDOWN = app_commands.checks.cooldown(CREATE_USES, 60.0, key=member_key)
"""At most three tournaments created a minute per member."""


def game_choices() -> list[app_commands.Choice[str]]:
    """Every registered game, by title (its key as the value)."""
    return [app_commands.Choice(name=declared.title, value=key) for key, declared in GAMES.items()]


def create_command() -> app_commands.Command[Any, ..., None]:
    """``/tournament create``: the game, the name, the game's options as text, then the tournament's options."""

    @app_commands.command(name="create", description="Open a Swiss or round-robin tournament of a game")
    @app_commands.describe(**CREATE_DESCRIPTIONS)
    @app_commands.choices(game=game_choices())
    @app_commands.choices(days=DAYS_CHOICES[:-1])  # no "no limit": every round must end
    @app_commands.guild_only()
    async def create(interaction: discord.Interaction[NapkinBot], game: str,
                     name: app_commands.Range[str, 1, 100], variant: app_commands.Range[str, 1, 400] | None = None,
                     format: FormatOption | None = None,
                     rounds: app_commands.Range[int, 1, MAX_ROUNDS] | None = None, days: int | None = None,
                     max_players: app_commands.Range[int, 2, MAX_PLAYERS] | None = None,
                     starts_in: app_commands.Range[int, 1, MAX_START_HOURS] | None = None,
                     rated: bool | None = None, computer: LevelOption | None = None) -> None:
        """Open a tournament of ``game`` in this channel (the channel of the thread it is used in)."""
        guild_id = require_guild(interaction)
        if game not in GAMES:
            raise NotFound(_("There is no game `{game}`; pick one from the list.", game=quote(game)))
        options = parse_options(GAMES[game].options, variant or "")
        organizer: Player = player_of(interaction.user)
        tournament = await interaction.client.services.tournaments.create(
            guild_id=guild_id, channel_id=await _home(interaction), organizer=organizer, name=name, game=game,
            variant=options, fmt=format or "swiss", rounds=rounds, days_per_move=days, max_players=max_players,
            starts_in=starts_in, rated=rated is not False, computer=computer)
        await announce_created(interaction, tournament)

    @create.autocomplete("variant")
    @suggest_in_time
    async def suggest_variant(interaction: discord.Interaction[NapkinBot],
                              current: str) -> list[app_commands.Choice[str]]:
        declared = GAMES.get(str(getattr(interaction.namespace, "game", "") or ""))
        if declared is None:
            return []
        reader = language_of(interaction, private=True)
        return [app_commands.Choice(name=label[:100], value=value)
                for label, value in variant_suggestions(declared.options, current, reader)[:AUTOCOMPLETE_LIMIT]]

    return CREATE_COOLDOWN(create)


def variant_suggestions(options: tuple[Option, ...], typed: str, reader: str = SOURCE) -> list[tuple[str, str]]:
    """What the ``variant`` option offers as ``(label, value)`` pairs (each value at most 100 characters): what is
    typed so far followed by each legal ``name:value`` of an option not yet given whose text starts like the last word
    typed — on/off options as true and false, choices each, numbers their least, default and greatest (text options
    are typed whole); each label ends with the option's description in ``reader``'s language."""
    words = typed.split()
    if typed[-1:].isspace() or not words:  # a word finished: the next option
        head, last = " ".join(words), ""
    else:
        head, last = " ".join(words[:-1]), words[-1]
    given = {word.split(":", 1)[0] for word in head.split() if ":" in word}
    found: list[tuple[str, str]] = []
    for option in options:
        if option.name in given:
            continue
        for value in _values(option):
            word = f"{option.name}:{value}"
            if not word.startswith(last):
                continue
            text = f"{head} {word}".strip()
            if len(text) <= 100:
                found.append((f"{text} — {Text(option.description, context='rules').render(reader)}", text))
    return found


def _values(option: Option) -> list[str]:
    if option.kind == "bool":
        return ["true", "false"]
    if option.kind == "choice":
        return list(option.choices)
    if option.kind == "int" and option.minimum is not None and option.maximum is not None:
        return [str(value) for value in sorted({option.minimum, option.default or option.minimum, option.maximum})]
    return []


async def announce_created(interaction: discord.Interaction[NapkinBot], tournament: TournamentRecord) -> None:
    """Say in the channel that a tournament is open, and how to join it (no pings)."""
    language = language_of(interaction, private=False)
    words = {"organizer": escape(interaction.user.display_name), "tournament": escape(title(tournament)),
             "about": describe(tournament, language), "start": start_words(tournament),
             "game": variant_words(tournament.game, tournament.variant, language), "id": str(tournament.id)}
    if await _has_computer(interaction, tournament):
        text = _("**{organizer}** opens tournament **{tournament}**: {about}; it {start}.\nGame: {game}. The "
                 "computer is entered.\nJoin with `/tournament join tournament:{id}`.", **words)
    else:
        text = _("**{organizer}** opens tournament **{tournament}**: {about}; it {start}.\nGame: {game}.\nJoin "
                 "with `/tournament join tournament:{id}`.", **words)
    await respond(interaction, text, allowed_mentions=discord.AllowedMentions.none())


async def _has_computer(interaction: discord.Interaction[NapkinBot], tournament: TournamentRecord) -> bool:
    view = await interaction.client.services.tournament_reading.view(tournament.id, tournament.guild_id)
    return any(entry.is_computer for entry in view.entries)


async def _home(interaction: discord.Interaction[NapkinBot]) -> int:
    """The channel a tournament created by ``interaction`` belongs to: its channel, or the channel of the thread it
    was used in (a match's thread above all)."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread) and channel.parent_id:
        return channel.parent_id
    return interaction.channel_id or 0
