"""Gröbner Nim on Discord: ``/groebner sticks`` lists the sticks as polynomials."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, respond
from bot.service import load_state
from bot.utils.converters import match_option, the_match
from games.groebner_nim import GroebnerNimState, format_stick

if TYPE_CHECKING:
    from bot.client import NapkinBot

GAME = "groebner_nim"


class Commands(commands.Cog):
    """Extra ``/groebner`` subcommands."""

    @app_commands.command(name="sticks", description="List the match's sticks as polynomials", extras=PRIVATE)
    @app_commands.describe(match="The match (implied inside its thread)")
    async def sticks(self, interaction: discord.Interaction[NapkinBot],
                     match: match_option(GAME) = None) -> None:  # type: ignore[valid-type]
        """List the sticks (only you see the answer)."""
        record = await the_match(interaction, match, GAME)
        state = load_state(record)
        assert isinstance(state, GroebnerNimState)
        lines = [f"`{index}`: {format_stick(stick)}" for index, stick in enumerate(state.sticks, start=1)]
        picked = ", ".join(state.format_move(p) for p in state.picked) or "none"
        await respond(interaction, "\n".join(lines) + f"\nPicked pairs: {picked}", private=True)
