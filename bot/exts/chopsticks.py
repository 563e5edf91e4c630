"""``/chopsticks``: start a match and move by buttons (taps, self-taps, splits) or by notation."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import play
from bot.exts._common import DAYS_CHOICES, LEVEL_CHOICES, SEAT_CHOICES, START_DESCRIPTIONS, legal_move_choices
from bot.views import MoveButton
from games import State
from storage import MatchRecord

GAME = "chopsticks"
TAPS = ("LL", "LR", "RL", "RR")
SELF_TAPS = ("self LR", "self RL")


def _label(move: str) -> str:
    if move in TAPS:
        return f"{move[0]} → their {move[1]}"
    if move.startswith("self"):
        hands = move.split()[1]
        return f"own {hands[0]} → {hands[1]}"
    left, right = move.split()[1:]
    return f"split {left}·{right}"


def board_items(match: MatchRecord, state: State) -> list[discord.ui.Item[Any]]:
    """Buttons under a Chopsticks board: the four taps and two self-taps (illegal ones disabled), then every
    legal split."""
    legal = {state.format_move(m) for m in state.legal_moves()}
    items: list[discord.ui.Item[Any]] = []
    for move in TAPS:
        items.append(MoveButton(match.id, match.version, move, label=_label(move), row=0,
                                style=discord.ButtonStyle.primary, disabled=move not in legal))
    if match.variant.get("self_taps", True):
        for move in SELF_TAPS:
            items.append(MoveButton(match.id, match.version, move, label=_label(move), row=1,
                                    disabled=move not in legal))
    splits = sorted(m for m in legal if m.startswith("split"))
    for index, move in enumerate(splits[:15]):
        items.append(MoveButton(match.id, match.version, move, label=_label(move), row=2 + index // 5,
                                style=discord.ButtonStyle.success))
    return items


class Chopsticks(commands.GroupCog, group_name="chopsticks", group_description="Play Chopsticks"):
    """Chopsticks commands."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        play.BOARD_ITEMS[GAME] = board_items

    @app_commands.command(name="start", description="Challenge someone (or me) to Chopsticks")
    @app_commands.describe(**START_DESCRIPTIONS, rollover="Exactly 5 kills a hand; more wraps around (-5)",
                           self_taps="May a hand tap your own other hand?",
                           splits="Transfers between your hands: any, even halves only, or none",
                           suicide="May a split empty one hand?", swaps="May a split just swap your hands?")
    @app_commands.choices(level=LEVEL_CHOICES, days=DAYS_CHOICES, seat=SEAT_CHOICES, splits=[
        app_commands.Choice(name="transfer", value="transfer"), app_commands.Choice(name="even", value="even"),
        app_commands.Choice(name="none", value="none")])
    async def start(self, interaction: discord.Interaction, opponent: discord.Member | None = None,
                    level: str | None = None, days: int | None = None, seat: str = "first",
                    rollover: bool = False, self_taps: bool = True, splits: str = "transfer",
                    suicide: bool = False, swaps: bool = False) -> None:
        """Start a Chopsticks match with the chosen rule variant."""
        variant = {"rollover": rollover, "self_taps": self_taps, "splits": splits, "suicide": suicide,
                   "swaps": swaps}
        await play.start_command(interaction, GAME, variant, opponent, level, days, seat)  # type: ignore[arg-type]

    @app_commands.command(name="move", description="Play a move by notation: LR, self LR, split 1 3")
    @app_commands.describe(notation="LR = your left taps their right; self LR; split 1 3 = new left 1, right 3",
                           match="The match (implied inside its thread)")
    async def move(self, interaction: discord.Interaction, notation: str, match: str | None = None) -> None:
        """Play a move given in notation."""
        record = await play.resolve_match(interaction, match, GAME)
        await play.submit_move(interaction, record.id, notation)

    @move.autocomplete("notation")
    async def _notation(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await legal_move_choices(interaction, current, GAME, interaction.namespace.match)

    @move.autocomplete("match")
    async def _match(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await play.match_choices(interaction, current, GAME)


async def setup(bot: commands.Bot) -> None:
    """Load the extension."""
    await bot.add_cog(Chopsticks(bot))
