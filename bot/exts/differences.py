"""``/differences``: the Grid Game of Differences — start a match and mark squares."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import play
from bot.exts._common import DAYS_CHOICES, LEVEL_CHOICES, SEAT_CHOICES, START_DESCRIPTIONS, legal_move_choices

GAME = "differences"


class Differences(commands.GroupCog, group_name="differences", group_description="Play the Grid Game of Differences"):
    """Grid Game of Differences commands."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="start", description="Challenge someone (or me) to the Grid Game of Differences")
    @app_commands.describe(**START_DESCRIPTIONS, n="Grid size n×n (4–15, default 8)",
                           unique="Count only differences that occur exactly once")
    @app_commands.choices(level=LEVEL_CHOICES, days=DAYS_CHOICES, seat=SEAT_CHOICES)
    async def start(self, interaction: discord.Interaction, opponent: discord.Member | None = None,
                    level: str | None = None, days: int | None = None, seat: str = "first",
                    n: app_commands.Range[int, 4, 15] = 8, unique: bool = False) -> None:
        """Start a match."""
        await play.start_command(interaction, GAME, {"n": n, "unique": unique}, opponent, level,  # type: ignore[arg-type]
                                 days, seat)

    @app_commands.command(name="mark", description="Mark a square, e.g. e5")
    @app_commands.describe(square="A free square: column letter then row number from the bottom, e.g. e5",
                           match="The match (implied inside its thread)")
    async def mark(self, interaction: discord.Interaction, square: str, match: str | None = None) -> None:
        """Mark a square."""
        record = await play.resolve_match(interaction, match, GAME)
        await play.submit_move(interaction, record.id, square)

    @mark.autocomplete("square")
    async def _square(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await legal_move_choices(interaction, current, GAME, interaction.namespace.match)

    @mark.autocomplete("match")
    async def _match(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await play.match_choices(interaction, current, GAME)


async def setup(bot: commands.Bot) -> None:
    """Load the extension."""
    await bot.add_cog(Differences(bot))
