"""``/help``: the games, how to start one, the match and tournament commands, in one ephemeral embed, and the topics
(``topic:tournaments``, ``topic:ratings``) that explain tournaments, ratings and seasons to players; and a short hint
for a message typed in a match thread.

Without the privileged message-content intent the bot cannot read what was typed, but it does learn that a
message was posted: the first message a seated player types in a match's thread (once per player and match while
the bot runs), and any message that mentions the bot there, gets a one-line reply saying how moves are made.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

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
    ("/notify", "a direct message when it is your move; pings on or off; your name under puzzles"),
)
PUZZLE_COMMANDS = (
    ("/puzzle next", "a puzzle near your puzzle rating, proven by exact search (only you see it)"),
    ("/puzzle stats", "a member's puzzle rating, streak and results"),
    ("/puzzle month", "this month's solvers of the server's daily puzzle"),
)
COMMUNITY_COMMANDS = (
    ("/rules", "how a game is played, with an example board"),
    ("/leaderboard", "this server's ranking for a game (this season's; `season:` earlier ones or all time)"),
    ("/stats", "a member's record per game, and their tournaments"),
    ("/settings", "server settings (Manage Server), seasons and the daily puzzle among them"),
)
TOURNAMENT_COMMANDS = (
    ("/tournament create", "open a Swiss or round robin of a game (`variant:` its options as in `start`)"),
    ("/tournament join", "enter one (the organizer can enter the computer too)"),
    ("/tournament leave", "leave one that has not started"),
    ("/tournament start", "start it now (organizer)"),
    ("/tournament withdraw", "stop playing in one under way"),
    ("/tournament standings", "the standings, with tie-breaks"),
    ("/tournament info", "its game, format and players"),
    ("/tournament list", "this server's tournaments"),
    ("/tournament cancel", "cancel one (organizer)"),
    ("/tournament end-game", "end a game idle a day past its deadline (organizer)"),
)

TOURNAMENT_RULES = (
    ("Rounds run themselves",
     "A round's games are ordinary matches, each in its own thread with the usual deadlines, reminders, "
     "vacations and conditional moves. When the last game of a round ends, the next round is paired and "
     "posted at once, with the standings; after the last round come the final standings and the podium. "
     "Swiss rounds are paired by the FIDE Dutch system, round robins by the FIDE Berger tables: nobody meets "
     "anyone twice, and first and second moves alternate and balance."),
    ("Byes, late entries, withdrawals",
     "With an odd number of players one sits out each Swiss round with a bye worth a win (at most once each). "
     "A Swiss takes late entries until half its rounds have started: each round missed counts as a ½-point "
     "bye. Losing a game on time withdraws you from later rounds (your other games go on). "
     "`/tournament withdraw` resigns your game under way; a Swiss then pairs you no more, and in a round robin "
     "each of your remaining games is forfeited: the opponent scores the point. A game counts as played once "
     "both sides have moved; one that ends before that is a forfeit."),
    ("Standings and tie-breaks",
     "Points: a win 1, a draw ½. Ties in a Swiss are broken by Buchholz cut-1 (the sum of your opponents' "
     "scores, less the lowest), then Sonneborn-Berger (each opponent's score times your result against them); "
     "in a round robin by Sonneborn-Berger, then wins. As FIDE counts them, an opponent's unplayed games count "
     "as draws in their score, and each of your own unplayed rounds (a bye, a forfeit) counts as a game "
     "against a virtual opponent who had your points before that round and drew every round after it."),
)
RATING_RULES = (
    ("Ratings",
     "openskill ratings per server and game, shown as 1000 + 40 × (μ − 3σ): a careful estimate that grows as "
     "your results grow surer. A rating is provisional (shown with ?, left off the leaderboard unless "
     "`provisional:true`) for your first 5 rated games, and while its uncertainty σ is above 7.5."),
    ("Time away",
     "While you play no rated game, σ grows again from your last game's date (μ stays): from σ 5 (about twenty "
     "games) it passes 7.5 after a year, from σ 6.7 (five games) after about four months, and never goes above "
     "where it started (8.3). Your next game then moves your rating more. The leaderboard shows the rating your "
     "last game left you."),
    ("Seasons",
     "A server may keep seasons (`/settings seasons:` monthly or quarterly): `/leaderboard` then shows the "
     "current season, ranking everyone who played a rated game in it by the rating their last game of the season "
     "left them, with that season's wins, losses and draws. Earlier seasons stay (`season:`), and the rating "
     "itself carries on from season to season."),
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
    embed.add_field(name="Tournaments",
                    value="\n".join(f"`{name}`: {what}" for name, what in TOURNAMENT_COMMANDS), inline=False)
    embed.add_field(name="Puzzles", value="\n".join(f"`{name}`: {what}" for name, what in PUZZLE_COMMANDS),
                    inline=False)
    embed.add_field(name="More", value="\n".join(f"`{name}`: {what}" for name, what in COMMUNITY_COMMANDS),
                    inline=False)
    embed.set_footer(text="Inside a match's thread the match is implied; elsewhere pick it with the match option. "
                          "/help topic:tournaments and /help topic:ratings explain those.")
    return embed


def topic_embed(topic: str) -> discord.Embed:
    """``/help topic:``: how tournaments run (pairings, byes, withdrawals, tie-breaks), or how ratings, provisional
    ratings and seasons work."""
    sections = TOURNAMENT_RULES if topic == "tournaments" else RATING_RULES
    title = "Tournaments" if topic == "tournaments" else "Ratings and seasons"
    embed = discord.Embed(title=title, colour=discord.Colour.blurple())
    for name, text in sections:
        embed.add_field(name=name, value=text, inline=False)
    return embed


class Help(commands.Cog):
    """``/help`` and the in-thread hint."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self._hinted: set[tuple[int, int]] = set()

    @app_commands.command(name="help", description="How to play: the games and the commands", extras=PRIVATE)
    @app_commands.describe(topic="Tournaments (pairings, byes, tie-breaks) or ratings (provisional, seasons)")
    async def help(self, interaction: discord.Interaction[NapkinBot],
                   topic: Literal["tournaments", "ratings"] | None = None) -> None:
        """Show the help embed, or one topic's (only you see it)."""
        embed = help_embed() if topic is None else topic_embed(topic)
        await respond(interaction, embed=embed, private=True)

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
