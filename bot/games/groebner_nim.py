"""Gröbner Nim on Discord: ``/groebner sticks`` lists the sticks as polynomials."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, language_of, respond
from bot.service import load_state
from bot.utils.converters import match_option, the_match
from games.groebner_nim import GroebnerNimState, format_stick
from i18n import Listed, _

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
        # every polynomial and pair in a code span: what a player copies keeps its `*` and `^` (Markdown would eat them)
        lines = [f"`{index}`: `{format_stick(stick)}`" for index, stick in enumerate(state.sticks, start=1)]
        pairs = [f"`{state.format_move(pair)}`" for pair in state.picked]
        picked = (_("Picked pairs: {pairs}.", pairs=Listed(tuple(pairs))) if pairs
                  else _("No pair picked yet."))
        reader = language_of(interaction, private=True)
        await respond(interaction, "\n".join([*lines, picked.render(reader)]), private=True)
