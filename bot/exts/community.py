"""Community commands: ``/leaderboard``, ``/stats``, ``/rules`` and the admins' ``/settings``."""

from __future__ import annotations

import asyncio
import io
import random
from pathlib import Path
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

import renderers
from bot import play
from bot.service import ratings
from games import GAME_KEYS, GAME_TITLES, GAMES, State
from storage import repo

if TYPE_CHECKING:
    from bot.client import NapkinBot

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
GAME_CHOICES = [app_commands.Choice(name=GAME_TITLES[key], value=key) for key in GAME_KEYS]
LEADERBOARD_ROWS = 20


def rules_summary(game: str, limit: int = 3500) -> str:
    """Our own rules text for ``game`` from ``seeds/<game>.md``, cut at a paragraph before ``limit`` characters."""
    path = SEEDS / f"{game}.md"
    text = path.read_text(encoding="utf-8") if path.exists() else f"{GAMES[game].title}: rules text missing."
    if len(text) <= limit:
        return text
    cut = text.rfind("\n\n", 0, limit)
    return text[: cut if cut > 0 else limit] + "\n\n…"


def example_state(game: str, plies: int = 4) -> State:
    """A deterministic example position: the default start after a few ``easy`` computer moves."""
    rng = random.Random(7)
    state = GAMES[game].new_state({}, rng)
    for _ in range(plies):
        if state.is_over:
            break
        state = state.apply(GAMES[game].computer_move(state, "easy", rng))
    return state


def _client(interaction: discord.Interaction) -> NapkinBot:
    return interaction.client  # type: ignore[return-value]


class Community(commands.Cog):
    """Leaderboards, statistics, rules and server settings."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="This server's ranking for a game")
    @app_commands.describe(game="The game", solitaire="Gröbner Nim: the solitaire board (best turns against par)",
                           page=f"Page of {LEADERBOARD_ROWS} players (default 1)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction, game: str, solitaire: bool = False,
                          page: app_commands.Range[int, 1, 500] = 1) -> None:
        """Post the ranking as an embed (rank, player, rating, W/L/D)."""
        guild_id = play.require_guild(interaction)
        solo = solitaire and game == "groebner_nim"
        async with self.bot.db.read() as conn:
            rows = await repo.ratings_of_game(conn, guild_id, ratings.board_key(game, solo))
        standings = ratings.leaderboard(rows, solitaire=solo)
        title = f"{GAMES[game].title} — " + ("solitaire, best against par" if solo else "leaderboard")
        embed = discord.Embed(title=title, colour=discord.Colour.blurple())
        if not standings:
            embed.description = "No finished rated matches yet."
        else:
            pages = (len(standings) + LEADERBOARD_ROWS - 1) // LEADERBOARD_ROWS
            page = min(page, pages)
            lines = []
            for s in standings[(page - 1) * LEADERBOARD_ROWS: page * LEADERBOARD_ROWS]:
                if solo:
                    par = f"{s.best_vs_par:+d}" if s.best_vs_par is not None else "–"
                    lines.append(f"`{s.rank:>2}.` **{discord.utils.escape_markdown(s.name)}** · par {par} · "
                                 f"{s.games} games")
                else:
                    mark = "?" if s.provisional else ""
                    lines.append(f"`{s.rank:>2}.` **{discord.utils.escape_markdown(s.name)}** · {s.rating}{mark} · "
                                 f"{s.wins}/{s.losses}/{s.draws}")
            embed.description = "\n".join(lines)
            if solo:
                embed.set_footer(text=f"page {page} of {pages} · par ±N = best completed game: turns taken minus "
                                      "par, the fewest turns that complete the basis (lower is better)")
            else:
                embed.set_footer(text=f"page {page} of {pages} · rating 1000 + 40·(μ − 3σ), openskill; "
                                      "? = provisional (< 5 games); W/L/D")
        await interaction.response.send_message(embed=embed, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="stats", description="A member's record and rating per game in this server")
    @app_commands.describe(user="The member (default: you)")
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction, user: discord.Member | None = None) -> None:
        """Post a member's record per game."""
        guild_id = play.require_guild(interaction)
        member = user or interaction.user
        async with self.bot.db.read() as conn:
            rows = await repo.ratings_of_user(conn, guild_id, member.id)
        embed = discord.Embed(title=f"{member.display_name} — statistics", colour=discord.Colour.blurple())
        if not rows:
            embed.description = "No finished rated matches yet."
        for row in rows:
            game, solo = ratings.split_key(row.game)
            if solo:
                best = f"{row.best_vs_par:+d}" if row.best_vs_par is not None else "none yet"
                value = f"best {best} against par · {row.wins} completed of {row.games} games"
                embed.add_field(name=f"{GAMES[game].title} (solitaire)", value=value, inline=False)
                continue
            rating = ratings.display_rating(row.mu, row.sigma)
            provisional = "?" if row.games < ratings.PROVISIONAL_GAMES else ""
            value = f"rating {rating}{provisional} · W/L/D {row.wins}/{row.losses}/{row.draws} · {row.games} games"
            embed.add_field(name=GAMES[game].title, value=value, inline=False)
        await interaction.response.send_message(embed=embed, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="rules", description="How a game is played, with an example board")
    @app_commands.describe(game="The game")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        """Post our rules summary and an example board (only you see it)."""
        state = example_state(game)
        names = [f"Player {seat + 1}" for seat in range(state.seats)]
        png = await asyncio.to_thread(renderers.render, state, names)
        embed = discord.Embed(title=GAMES[game].title, description=rules_summary(game),
                              colour=discord.Colour.blurple())
        embed.set_image(url="attachment://example.png")
        await interaction.response.send_message(embed=embed, file=discord.File(io.BytesIO(png), "example.png"),
                                                ephemeral=True)

    @app_commands.command(name="settings", description="Server settings for Napkin Games (Manage Server)")
    @app_commands.describe(days="Default days per move for new challenges",
                           threads="Open a thread per match", max_active="Most active matches per member (1–100)",
                           rate_computer="Count matches against the computer in records",
                           allow_channel="Allow starting matches in this channel (adds to the list)",
                           disallow_channel="Remove a channel from the allowed list",
                           all_channels="Clear the list: matches may start in any channel")
    @app_commands.choices(days=[app_commands.Choice(name=f"{d} days", value=d) for d in (1, 2, 3, 5, 7, 14)] +
                          [app_commands.Choice(name="no limit", value=0)])
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(self, interaction: discord.Interaction, days: int | None = None, threads: bool | None = None,
                       max_active: app_commands.Range[int, 1, 100] | None = None, rate_computer: bool | None = None,
                       allow_channel: discord.TextChannel | None = None,
                       disallow_channel: discord.TextChannel | None = None, all_channels: bool = False) -> None:
        """Show the settings, or change the ones given (only members with Manage Server)."""
        guild_id = play.require_guild(interaction)
        service = self.bot.service
        current = await service.settings(guild_id)
        changes: dict[str, object] = {}
        if days is not None:
            changes["days_per_move"] = days
        if threads is not None:
            changes["use_threads"] = threads
        if max_active is not None:
            changes["max_active"] = max_active
        if rate_computer is not None:
            changes["rate_computer"] = rate_computer
        channels = set(current.allowed_channels)
        if all_channels:
            channels.clear()
        if allow_channel is not None:
            channels.add(allow_channel.id)
        if disallow_channel is not None:
            channels.discard(disallow_channel.id)
        if channels != set(current.allowed_channels):
            changes["allowed_channels"] = sorted(channels)
        if changes:
            current = await service.update_settings(guild_id, **changes)
        where = ", ".join(f"<#{c}>" for c in current.allowed_channels) or "any channel"
        days_text = f"{current.days_per_move} days" if current.days_per_move else "no limit"
        text = (f"{'Settings updated.' if changes else 'Current settings.'}\n"
                f"• Days per move: {days_text}\n• Threads per match: {'on' if current.use_threads else 'off'}\n"
                f"• Matches may start in: {where}\n• Active matches per member: at most {current.max_active}\n"
                f"• Matches against the computer count in records: {'yes' if current.rate_computer else 'no'}")
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Community(bot))
