"""``/polygons``: Polygons & Dots — place dots, then connect them into one closed path."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import play
from bot.exts._common import DAYS_CHOICES, LEVEL_CHOICES, SEAT_CHOICES, START_DESCRIPTIONS
from bot.service import load_state

GAME = "polygons"


class Polygons(commands.GroupCog, group_name="polygons", group_description="Play Polygons & Dots"):
    """Polygons & Dots commands."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="start", description="Challenge someone (or me) to Polygons & Dots")
    @app_commands.describe(**START_DESCRIPTIONS, size="Lattice 0..size in both directions (5–30, default 15)",
                           dots="Dots each player places (3–10, default 5)")
    @app_commands.choices(level=LEVEL_CHOICES, days=DAYS_CHOICES, seat=SEAT_CHOICES)
    async def start(self, interaction: discord.Interaction, opponent: discord.Member | None = None,
                    level: str | None = None, days: int | None = None, seat: str = "first",
                    size: app_commands.Range[int, 5, 30] = 15, dots: app_commands.Range[int, 3, 10] = 5) -> None:
        """Start a match."""
        await play.start_command(interaction, GAME, {"size": size, "dots": dots}, opponent,  # type: ignore[arg-type]
                                 level, days, seat)

    @app_commands.command(name="dot", description="Place a dot on a lattice point (no three dots in a line)")
    @app_commands.describe(x="Column, a whole number from 0", y="Row, a whole number from 0",
                           match="The match (implied inside its thread)")
    async def dot(self, interaction: discord.Interaction, x: str, y: str, match: str | None = None) -> None:
        """Place a dot."""
        record = await play.resolve_match(interaction, match, GAME)
        await play.submit_move(interaction, record.id, f"{x.strip()[:20]},{y.strip()[:20]}")

    @app_commands.command(name="connect", description="Draw the next segment of the path to an unconnected dot")
    @app_commands.describe(to="The dot to draw to", match="The match (implied inside its thread)",
                           from_="First segment only: the dot to start from")
    @app_commands.rename(from_="from")
    async def connect(self, interaction: discord.Interaction, to: str, from_: str | None = None,
                      match: str | None = None) -> None:
        """Draw a segment."""
        record = await play.resolve_match(interaction, match, GAME)
        text = f"{from_.strip()[:10]}-{to.strip()[:10]}" if from_ else to.strip()[:10]
        await play.submit_move(interaction, record.id, text)

    @connect.autocomplete("to")
    async def _to(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            record = await play.resolve_match(interaction, interaction.namespace.match, GAME)
        except Exception:
            return []
        state = load_state(record)
        if getattr(state, "phase", None) != "draw":
            return []
        start = getattr(interaction.namespace, "from", None) or state.path_end
        names = [name for name in state.legal_targets() if name != start]
        return [app_commands.Choice(name=name, value=name) for name in names
                if current.strip().upper() in name][:25]

    @connect.autocomplete("from_")
    async def _from(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            record = await play.resolve_match(interaction, interaction.namespace.match, GAME)
        except Exception:
            return []
        state = load_state(record)
        if getattr(state, "phase", None) != "draw" or state.path_end is not None:
            return []
        names = [chr(ord("A") + index) for index in range(len(state.dots))]
        return [app_commands.Choice(name=name, value=name) for name in names if current.strip().upper() in name][:25]

    @dot.autocomplete("match")
    @connect.autocomplete("match")
    async def _match(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await play.match_choices(interaction, current, GAME)


async def setup(bot: commands.Bot) -> None:
    """Load the extension."""
    await bot.add_cog(Polygons(bot))
