"""``/help``: the games, how to start one, and the match commands, in one ephemeral embed; and a short hint for a
message typed in a match thread.

Without the privileged message-content intent the bot cannot read what was typed, but it does learn that a
message was posted: the first message a seated player types in a match's thread (once per player and match while
the bot runs), and any message that mentions the bot there, gets a one-line reply saying how moves are made.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, respond
from bot.service import load_state
from bot.utils.boards import how_to_move
from bot.utils.names import escape
from games import GAMES

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MATCH_COMMANDS = (
    ("/match list", "your active matches here and whose move it is (`scope:all`: in every server)"),
    ("/match board", "post a match's board again"),
    ("/match resign", "give up a match"),
    ("/match draw", "offer a draw, accept one, or decline it"),
    ("/match abort", "call a match off before both sides have moved"),
    ("/match give-time", "give your opponent one more day to move"),
    ("/match premove", "if your opponent plays X, answer Y at once (only you see it)"),
    ("/match history", "the move list, a replay and an export"),
    ("/match review", "a finished match with every move marked, exact where the game is solved"),
)
CORRESPONDENCE_COMMANDS = (
    ("/vacation start", "pause your deadlines in this server (`/vacation end` to come back)"),
    ("/notify", "a direct message when it is your move; pings on or off"),
)
COMMUNITY_COMMANDS = (
    ("/rules", "how a game is played, with an example board"),
    ("/leaderboard", "this server's ranking for a game"),
    ("/stats", "a member's record per game"),
    ("/settings", "server settings (Manage Server)"),
)


def help_embed() -> discord.Embed:
    """The ``/help`` embed: every registered game with its start and move commands, then the other commands."""
    embed = discord.Embed(
        title="Napkin Games",
        description="Pencil-and-paper games played turn by turn in this server, against a member or against me "
                    "(pick me as `opponent`, then `level:` easy, medium or hard, or perfect where a game is solved; "
                    "`/rules` says what each level does in that game). Leave `opponent` empty for an open challenge "
                    "anyone may accept.",
        colour=discord.Colour.blurple())
    for key in GAMES:
        game = GAMES[key]
        moves = ", ".join(f"`/{game.command} {command.name}`" for command in game.moves)
        embed.add_field(name=game.title, value=f"Start: `/{game.command} start` · move: {moves}"[:1024],
                        inline=False)
    embed.add_field(name="Your matches", value="\n".join(f"`{name}`: {what}" for name, what in MATCH_COMMANDS),
                    inline=False)
    embed.add_field(name="Away and notices",
                    value="\n".join(f"`{name}`: {what}" for name, what in CORRESPONDENCE_COMMANDS), inline=False)
    embed.add_field(name="More", value="\n".join(f"`{name}`: {what}" for name, what in COMMUNITY_COMMANDS),
                    inline=False)
    embed.set_footer(text="Inside a match's thread the match is implied; elsewhere pick it with the match option.")
    return embed


class Help(commands.Cog):
    """``/help`` and the in-thread hint."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self._hinted: set[tuple[int, int]] = set()

    @app_commands.command(name="help", description="How to play: the games and the commands", extras=PRIVATE)
    async def help(self, interaction: discord.Interaction[NapkinBot]) -> None:
        """Show the help embed (only you see it)."""
        await respond(interaction, embed=help_embed(), private=True)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Answer a player's first message in a match thread (or any that mentions me) with how moves are made."""
        if message.author.bot or message.guild is None or not isinstance(message.channel, discord.Thread):
            return
        match = await self.bot.services.reading.match_in_thread(message.channel.id)
        if match is None or match.guild_id != message.guild.id or match.status != "active":
            return
        mentioned = self.bot.user is not None and self.bot.user in message.mentions
        key = (match.id, message.author.id)
        if not mentioned and (match.seat_of(message.author.id) is None or key in self._hinted):
            return
        self._hinted.add(key)
        text = (f"{escape(message.author.display_name)}, I cannot read messages: moves are slash commands. "
                + how_to_move(match, load_state(match)))
        try:
            await message.reply(text, mention_author=False, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.info("could not hint in match %s: %s", match.id, error)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Help(bot))
