"""Option choices and autocomplete shared by the game extensions."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot import play
from bot.service import load_state

DAYS_CHOICES = [app_commands.Choice(name=f"{d} day{'s' if d > 1 else ''}", value=d) for d in (1, 2, 3, 5, 7, 14)] + [
    app_commands.Choice(name="no limit", value=0)]
LEVEL_CHOICES = [app_commands.Choice(name=level, value=level) for level in ("easy", "medium", "hard")]
SEAT_CHOICES = [app_commands.Choice(name="first", value="first"), app_commands.Choice(name="second", value="second")]

START_DESCRIPTIONS: dict[str, str] = {
    "opponent": "Who to challenge; leave empty for an open challenge, or pick me to play the computer",
    "level": "Computer strength when you play me",
    "days": "Days per move (default: the server's setting)",
    "seat": "Against the computer: move first or second",
}


async def legal_move_choices(interaction: discord.Interaction, current: str, game: str,
                             match_option: str | None) -> list[app_commands.Choice[str]]:
    """Autocomplete of the legal moves (formatted) of the match the command is about, filtered by ``current``."""
    try:
        match = await play.resolve_match(interaction, match_option, game)
    except Exception:
        return []
    state = load_state(match)
    if state.is_over:
        return []
    needle = current.strip().lower()
    choices: list[app_commands.Choice[str]] = []
    for move in state.legal_moves():
        text = state.format_move(move)
        if needle in text.lower():
            choices.append(app_commands.Choice(name=text, value=text))
        if len(choices) == 25:
            break
    return choices


def option_value(interaction: discord.Interaction, name: str) -> Any:
    """The value of an already filled option of the command being autocompleted (``None`` if absent)."""
    return getattr(interaction.namespace, name, None)
