"""Napkin Chess on Discord: ``/napkin free`` shows where a coin still fits."""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, defer, language_of, respond
from bot.service import BadOption, load_state
from bot.texts import quote
from bot.utils.converters import match_option, the_match
from bot.utils.images import image_file
from bot.utils.names import names_of
from bot.utils.queues import member_key
from games.napkin_chess import NapkinState
from i18n import Text, _, speaking
from renderers.napkin_chess import free_alt_text, render_free

if TYPE_CHECKING:
    from bot.client import NapkinBot

GAME = "napkin_chess"
SIZES = ("2", "3", "4")
FREE_USES = 3
"""``/napkin free`` uses a minute per member (docs/playing.md, "Rests between uses")."""
FREE_COOLDOWN = app_commands.checks.cooldown(FREE_USES, 60.0, key=member_key)
"""``/napkin free`` renders a map: at most three a minute per member."""


def _size(text: str) -> int:
    value = str(text).strip()
    if value not in SIZES:
        raise BadOption(_("`{size}` is not a coin size; sizes are 2, 3 and 4.", size=quote(value, 20)))
    return int(value)


def _hint(state: NapkinState, coin: int, seed: int) -> Text:
    if state.can_place(coin):
        samples = state.sample_placements(coin, 3, random.Random(seed))
        return _("It still fits, e.g. {moves}.", moves=", ".join(f"`{state.format_move(m)}`" for m in samples))
    if not state.fits(coin):
        return _("A coin of size {size} no longer fits anywhere.", size=coin)
    if state.supply[coin - 2] == 0:
        return _("It would fit, but no size-{size} coins are left in the supply.", size=coin)
    if state.is_over:
        return _("It would fit, but the match is over.")
    return _("It fits, but cannot be played now: the first coin must be a 2 (sizes allowed: {sizes}).",
             sizes=", ".join(map(str, state.allowed_sizes())))


class Commands(commands.Cog):
    """Extra ``/napkin`` subcommands."""

    @app_commands.command(name="free", description="Show where a coin of a size still fits (only you see it)",
                          extras=PRIVATE)
    @app_commands.describe(size="Coin size", match="The match (implied inside its thread)")
    @FREE_COOLDOWN
    async def free(self, interaction: discord.Interaction[NapkinBot], size: str,
                   match: match_option(GAME) = None) -> None:  # type: ignore[valid-type]
        """Render the free region for a coin size, with a few legal placements."""
        record = await the_match(interaction, match, GAME)
        coin = _size(size)
        state = load_state(record)
        assert isinstance(state, NapkinState)
        await defer(interaction, private=True)  # a map drawn on demand takes a while
        names = names_of(record)
        with speaking(language_of(interaction, private=True)):  # (the map's and its alt text's own words)
            png, alt = await asyncio.to_thread(lambda: (render_free(state, names, coin),
                                                        free_alt_text(state, names, coin)))
        await respond(interaction, _("Where a size-{size} coin fits in match #{match} (shaded). {hint}", size=coin,
                                     match=str(record.id), hint=_hint(state, coin, record.version)),
                      file=image_file(png, "free.png", alt), private=True)

    @free.autocomplete("size")
    async def _size_choices(self, interaction: discord.Interaction[NapkinBot],
                            current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=size, value=size) for size in SIZES if current.strip() in size]
