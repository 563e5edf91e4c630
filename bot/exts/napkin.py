"""``/napkin``: Napkin Chess — place coins, see where a coin still fits."""

from __future__ import annotations

import asyncio
import io
import random

import discord
from discord import app_commands
from discord.ext import commands

from bot import play
from bot.exts._common import DAYS_CHOICES, LEVEL_CHOICES, SEAT_CHOICES, START_DESCRIPTIONS
from bot.service import BadOption, load_state
from games.napkin_chess import PRESETS

GAME = "napkin_chess"
SIZES = (2, 3, 4)


def _size(text: str | int) -> int:
    value = str(text).strip()
    if value not in ("2", "3", "4"):
        raise BadOption(f"`{value[:20]}` is not a coin size; sizes are 2, 3 and 4.")
    return int(value)


class Napkin(commands.GroupCog, group_name="napkin", group_description="Play Napkin Chess"):
    """Napkin Chess commands."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="start", description="Challenge someone (or me) to Napkin Chess")
    @app_commands.describe(**START_DESCRIPTIONS, preset="Napkin and supply preset (default: classic)",
                           width="Napkin width in napkin units", height="Napkin height in napkin units",
                           coins_2="Coins of size 2 in the shared supply", coins_3="Coins of size 3",
                           coins_4="Coins of size 4", hole="A hole of radius 1 near the centre",
                           first_coin_two="The first coin must be a 2",
                           scoring="points (sum of coin values) or last_mover (last to place wins)")
    @app_commands.choices(level=LEVEL_CHOICES, days=DAYS_CHOICES, seat=SEAT_CHOICES,
                          preset=[app_commands.Choice(name=name, value=name) for name in list(PRESETS)[:25]],
                          scoring=[app_commands.Choice(name="points", value="points"),
                                   app_commands.Choice(name="last_mover", value="last_mover")])
    async def start(self, interaction: discord.Interaction, opponent: discord.Member | None = None,
                    level: str | None = None, days: int | None = None, seat: str = "first",
                    preset: str | None = None, width: app_commands.Range[int, 8, 60] | None = None,
                    height: app_commands.Range[int, 8, 60] | None = None,
                    coins_2: app_commands.Range[int, 0, 99] | None = None,
                    coins_3: app_commands.Range[int, 0, 99] | None = None,
                    coins_4: app_commands.Range[int, 0, 99] | None = None, hole: bool | None = None,
                    first_coin_two: bool | None = None, scoring: str | None = None) -> None:
        """Start a match; options left empty come from the preset."""
        variant: dict[str, object] = {}
        if preset is not None:
            variant["preset"] = preset
        base = dict(PRESETS[preset or "classic"])
        for key, value in (("width", width), ("height", height), ("hole", hole),
                           ("first_coin_two", first_coin_two), ("scoring", scoring)):
            if value is not None:
                variant[key] = value
        if any(v is not None for v in (coins_2, coins_3, coins_4)):
            supply = list(base.get("supply", [20, 15, 7]))
            for index, value in enumerate((coins_2, coins_3, coins_4)):
                if value is not None:
                    supply[index] = value
            variant["supply"] = supply
        await play.start_command(interaction, GAME, variant, opponent, level, days, seat)  # type: ignore[arg-type]

    @app_commands.command(name="place", description="Place a coin: size 2, 3 or 4 at centre x, y (≤ 2 decimals)")
    @app_commands.describe(size="Coin size (radius), still in supply", x="Centre x, e.g. 12.5", y="Centre y, e.g. 7",
                           match="The match (implied inside its thread)")
    async def place(self, interaction: discord.Interaction, size: str, x: str, y: str,
                    match: str | None = None) -> None:
        """Place a coin."""
        record = await play.resolve_match(interaction, match, GAME)
        await play.submit_move(interaction, record.id, f"{_size(size)}@{x.strip()[:20]},{y.strip()[:20]}")

    @app_commands.command(name="free", description="Show where a coin of a size still fits (only you see it)")
    @app_commands.describe(size="Coin size", match="The match (implied inside its thread)")
    async def free(self, interaction: discord.Interaction, size: str, match: str | None = None) -> None:
        """Render the free region for a coin size, with a few legal placements."""
        from renderers.napkin_chess import render_free

        record = await play.resolve_match(interaction, match, GAME)
        coin = _size(size)
        state = load_state(record)
        png = await asyncio.to_thread(render_free, state, play.names_of(record), coin)
        if state.can_place(coin):
            samples = state.sample_placements(coin, 3, random.Random(record.version))
            hint = "It still fits, e.g. " + ", ".join(f"`{state.format_move(m)}`" for m in samples) + "."
        elif not state.fits(coin):
            hint = f"A coin of size {coin} no longer fits anywhere."
        elif state.supply[coin - 2] == 0:
            hint = f"It would fit, but no size-{coin} coins are left in the supply."
        elif state.is_over:
            hint = "It would fit, but the match is over."
        else:
            hint = f"It fits, but cannot be played now: the first coin must be a 2 (sizes allowed: " \
                   f"{', '.join(map(str, state.allowed_sizes()))})."
        await interaction.response.send_message(f"Where a size-{coin} coin fits in match #{record.id} (shaded). "
                                                f"{hint}", file=discord.File(io.BytesIO(png), "free.png"),
                                                ephemeral=True)

    @place.autocomplete("size")
    @free.autocomplete("size")
    async def _size_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            record = await play.resolve_match(interaction, interaction.namespace.match, GAME)
            supply = load_state(record).supply
        except Exception:
            supply = (1, 1, 1)
        return [app_commands.Choice(name=f"{size} ({count} left)", value=str(size))
                for size, count in zip(SIZES, supply) if count > 0 and current.strip() in str(size)]

    @place.autocomplete("match")
    @free.autocomplete("match")
    async def _match(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await play.match_choices(interaction, current, GAME)


async def setup(bot: commands.Bot) -> None:
    """Load the extension."""
    await bot.add_cog(Napkin(bot))
