"""``/groebner``: Gröbner Nim — duel or solitaire; pick pairs of sticks, list the sticks."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import play
from bot.exts._common import DAYS_CHOICES, LEVEL_CHOICES, SEAT_CHOICES, START_DESCRIPTIONS
from bot.service import load_state

GAME = "groebner_nim"


def _pairs(state: object) -> list[tuple[int, int]]:
    pairs = []
    for move in state.unpicked_pairs():  # type: ignore[attr-defined]
        first, second = (int(part) for part in state.format_move(move).split("-"))  # type: ignore[attr-defined]
        pairs.append((first, second))
    return pairs


class Groebner(commands.GroupCog, group_name="groebner", group_description="Play Gröbner Nim"):
    """Gröbner Nim commands."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="start", description="Start Gröbner Nim: a duel with someone (or me), or solitaire")
    @app_commands.describe(**START_DESCRIPTIONS, mode="duel (2 players) or solitaire (fewest turns)",
                           sticks="Random start: number of sticks (2–6)", order="Monomial order choosing heads",
                           bonus_turn="Duel: adding a stick earns another turn",
                           start="Custom start as polynomials, e.g. x^3+1, x*y^2+y^3")
    @app_commands.choices(level=LEVEL_CHOICES, days=DAYS_CHOICES, seat=SEAT_CHOICES,
                          mode=[app_commands.Choice(name="duel", value="duel"),
                                app_commands.Choice(name="solitaire", value="solitaire")],
                          order=[app_commands.Choice(name="grevlex", value="grevlex"),
                                 app_commands.Choice(name="lex", value="lex")])
    async def start(self, interaction: discord.Interaction, mode: str = "duel", opponent: discord.Member | None = None,
                    level: str | None = None, days: int | None = None, seat: str = "first",
                    sticks: app_commands.Range[int, 2, 6] = 2, order: str = "grevlex", bonus_turn: bool = False,
                    start: app_commands.Range[str, 1, 400] | None = None) -> None:
        """Start a match."""
        variant = {"mode": mode, "sticks": sticks, "order": order, "bonus_turn": bonus_turn, "start": start}
        await play.start_command(interaction, GAME, variant, opponent, level, days, seat)  # type: ignore[arg-type]

    @app_commands.command(name="pair", description="Pick a pair of sticks not picked before")
    @app_commands.describe(first="A stick number", second="Another stick number",
                           match="The match (implied inside its thread)")
    async def pair(self, interaction: discord.Interaction, first: str, second: str, match: str | None = None) -> None:
        """Pick a pair."""
        record = await play.resolve_match(interaction, match, GAME)
        await play.submit_move(interaction, record.id, f"{first.strip()[:10]}-{second.strip()[:10]}")

    @app_commands.command(name="sticks", description="List the match's sticks as polynomials")
    @app_commands.describe(match="The match (implied inside its thread)")
    async def sticks(self, interaction: discord.Interaction, match: str | None = None) -> None:
        """List the sticks (only you see the answer)."""
        from games.groebner_nim import format_stick

        record = await play.resolve_match(interaction, match, GAME)
        state = load_state(record)
        lines = [f"`{index}`: {format_stick(stick)}" for index, stick in enumerate(state.sticks, start=1)]
        picked = ", ".join(state.format_move(p) for p in state.picked) or "none"
        await interaction.response.send_message("\n".join(lines) + f"\nPicked pairs: {picked}", ephemeral=True)

    @pair.autocomplete("first")
    async def _first(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            record = await play.resolve_match(interaction, interaction.namespace.match, GAME)
        except Exception:
            return []
        numbers = sorted({n for pair in _pairs(load_state(record)) for n in pair})
        return [app_commands.Choice(name=str(n), value=str(n)) for n in numbers if current.strip() in str(n)][:25]

    @pair.autocomplete("second")
    async def _second(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        try:
            record = await play.resolve_match(interaction, interaction.namespace.match, GAME)
        except Exception:
            return []
        first = str(getattr(interaction.namespace, "first", "") or "").strip()
        numbers = set()
        for a, b in _pairs(load_state(record)):
            if first == str(a):
                numbers.add(b)
            elif first == str(b):
                numbers.add(a)
            elif not first:
                numbers.update((a, b))
        return [app_commands.Choice(name=str(n), value=str(n)) for n in sorted(numbers)
                if current.strip() in str(n)][:25]

    @pair.autocomplete("match")
    @sticks.autocomplete("match")
    async def _match(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await play.match_choices(interaction, current, GAME)


async def setup(bot: commands.Bot) -> None:
    """Load the extension."""
    await bot.add_cog(Groebner(bot))
