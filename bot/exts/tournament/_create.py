"""``/tournament create <game>``: one subcommand per game, built from the game's declaration as its ``start``
command is (:func:`bot.exts.match.option_annotation`), with the tournament's own options before the game's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional

import discord
from discord import app_commands

from bot.answers import respond
from bot.exts.match import DAYS_CHOICES, generated_command, option_annotation, variant_words
from bot.exts.tournament._show import title
from bot.service import Player
from bot.service.tournaments import MAX_PLAYERS, MAX_ROUNDS, MAX_START_HOURS, NAME_LIMIT, describe, start_words
from bot.utils.converters import player_of, require_guild
from bot.utils.names import escape
from bot.utils.queues import member_key
from games import GAMES, Game
from storage import TournamentRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

FormatOption = Literal["swiss", "round_robin"]
LevelOption = Literal["easy", "medium", "hard"]
CREATE_DESCRIPTIONS: dict[str, str] = {
    "name": f"The tournament's name (at most {NAME_LIMIT} characters)",
    "format": "Swiss (default: players meet others on their score) or round robin (everyone meets everyone)",
    "rounds": f"A Swiss's rounds (1–{MAX_ROUNDS}, default 5); a round robin has as many as its players need",
    "days": "Days per move of every game (default: the server's setting)",
    "max_players": f"Most players (2–{MAX_PLAYERS}; default 128, a round robin 32)",
    "starts_in": f"Hours until it starts by itself (1–{MAX_START_HOURS}); leave empty to start it by hand",
    "rated": "Whether its games count for the ratings (default yes)",
    "computer": "Enter the computer too, at this level",
}
TOURNAMENT_OPTIONS: list[tuple[str, Any]] = [
    ("name", app_commands.Range[str, 1, 100]),
    ("format", Optional[FormatOption]),  # noqa: UP045 - runtime values
    ("rounds", Optional[app_commands.Range[int, 1, MAX_ROUNDS]]),  # noqa: UP045
    ("days", Optional[int]),  # noqa: UP045
    ("max_players", Optional[app_commands.Range[int, 2, MAX_PLAYERS]]),  # noqa: UP045
    ("starts_in", Optional[app_commands.Range[int, 1, MAX_START_HOURS]]),  # noqa: UP045
    ("rated", Optional[bool]),  # noqa: UP045
    ("computer", Optional[LevelOption]),  # noqa: UP045
]
CREATE_COOLDOWN = app_commands.checks.cooldown(3, 60.0, key=member_key)
"""At most three tournaments created a minute per member."""


def create_command(game: Game[Any, Any]) -> app_commands.Command[Any, ..., None]:
    """``/tournament create <game>``: the tournament's options, then the game's variant options."""
    own = {name for name, _ in TOURNAMENT_OPTIONS}
    clashing = [option.name for option in game.options if option.name in own]
    if clashing:  # (a game's option named like a tournament's would be unreachable)
        raise ValueError(f"{game.key}'s options {clashing} clash with the tournament's own")
    option_names = [option.name for option in game.options]

    async def create(interaction: discord.Interaction[NapkinBot], **given: Any) -> None:
        guild_id = require_guild(interaction)
        variant = {name: given[name] for name in option_names if given.get(name) is not None}
        organizer: Player = player_of(interaction.user)
        tournament = await interaction.client.services.tournaments.create(
            guild_id=guild_id, channel_id=await _home(interaction), organizer=organizer, name=given["name"],
            game=game.key, variant=variant, fmt=given.get("format") or "swiss", rounds=given.get("rounds"),
            days_per_move=given.get("days"), max_players=given.get("max_players"), starts_in=given.get("starts_in"),
            rated=given.get("rated") is not False, computer=given.get("computer"))
        await announce_created(interaction, tournament)

    create.__qualname__ = create.__name__ = game.command
    params = [*TOURNAMENT_OPTIONS, *((option.name, option_annotation(option)) for option in game.options)]
    descriptions = {**CREATE_DESCRIPTIONS, **{option.name: option.command_description() for option in game.options}}
    callback = app_commands.choices(days=DAYS_CHOICES[:-1])(create)  # no "no limit": every round must end
    command = generated_command(game.command, f"Open a {game.title} tournament"[:100], callback, params, descriptions)
    return CREATE_COOLDOWN(command)


async def announce_created(interaction: discord.Interaction[NapkinBot], tournament: TournamentRecord) -> None:
    """Say in the channel that a tournament is open, and how to join it (no pings)."""
    computer = " The computer is entered." if await _has_computer(interaction, tournament) else ""
    start = start_words(tournament)
    if tournament.starts_at is None:
        start += " (`/tournament start`)"
    await respond(
        interaction, f"**{escape(interaction.user.display_name)}** opens tournament **{escape(title(tournament))}**: "
        f"{describe(tournament)}; it {start}.\nGame: {variant_words(tournament.game, tournament.variant)}.{computer}\n"
        f"Join with `/tournament join tournament:{tournament.id}`.",
        allowed_mentions=discord.AllowedMentions.none())


async def _has_computer(interaction: discord.Interaction[NapkinBot], tournament: TournamentRecord) -> bool:
    view = await interaction.client.services.tournaments.view(tournament.id, tournament.guild_id)
    return any(entry.is_computer for entry in view.entries)


async def _home(interaction: discord.Interaction[NapkinBot]) -> int:
    """The channel a tournament created by ``interaction`` belongs to: its channel, or the channel of the thread it
    was used in (a match's thread above all)."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread) and channel.parent_id:
        return channel.parent_id
    return interaction.channel_id or 0


def create_group() -> app_commands.Group:
    """``/tournament create``: one subcommand per registered game."""
    group = app_commands.Group(name="create", description="Open a tournament of a game")
    for key in GAMES:
        group.add_command(create_command(GAMES[key]))
    return group
