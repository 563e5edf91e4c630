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

import i18n
from bot.answers import PRIVATE, language_of, respond
from bot.service import load_state
from bot.utils.boards import how_to_move
from bot.utils.names import escape
from games import GAMES
from i18n import Listed, Text, _, speaking

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MATCH_COMMANDS = (
    ("/match list", _("your active matches here and whose move it is (`scope:all`: in every server)")),
    ("/match board", _("post a match's board again")),
    ("/match resign", _("give up a match")),
    ("/match draw", _("offer a draw, accept one, or decline it")),
    ("/match abort", _("call a match off before both sides have moved")),
    ("/match give-time", _("give your opponent one more day to move")),
    ("/match premove", _("if your opponent plays X, answer Y at once (only you see it)")),
    ("/match history", _("the move list, a replay and an export")),
    ("/match review", _("a finished match with every move marked, exact where the game is solved")),
)
CORRESPONDENCE_COMMANDS = (
    ("/vacation start", _("pause your deadlines in this server (`/vacation end` to come back)")),
    ("/notify", _("a direct message when it is your move; pings on or off; your name under puzzles")),
)
PUZZLE_COMMANDS = (
    ("/puzzle next", _("a puzzle near your puzzle rating, proven by exact search (only you see it)")),
    ("/puzzle stats", _("a member's puzzle rating, streak and results")),
    ("/puzzle month", _("this month's solvers of the server's daily puzzle")),
)
COMMUNITY_COMMANDS = (
    ("/rules", _("how a game is played, with an example board")),
    ("/leaderboard", _("this server's ranking for a game (this season's; `season:` earlier ones or all time)")),
    ("/stats", _("a member's record per game, and their tournaments")),
    ("/settings", _("server settings (Manage Server), seasons and the daily puzzle among them")),
)
TOURNAMENT_COMMANDS = (
    ("/tournament create", _("open a Swiss or round robin of a game (`variant:` its options as in `start`)")),
    ("/tournament join", _("enter one (the organizer can enter the computer too)")),
    ("/tournament leave", _("leave one that has not started")),
    ("/tournament start", _("start it now (organizer)")),
    ("/tournament withdraw", _("stop playing in one under way")),
    ("/tournament standings", _("the standings, with tie-breaks")),
    ("/tournament info", _("its game, format and players")),
    ("/tournament list", _("this server's tournaments")),
    ("/tournament cancel", _("cancel one (organizer)")),
    ("/tournament end-game", _("end a game idle a day past its deadline (organizer)")),
)
SECTIONS = (
    (_("Your matches"), MATCH_COMMANDS),
    (_("Away and notices"), CORRESPONDENCE_COMMANDS),
    (_("Tournaments"), TOURNAMENT_COMMANDS),
    (_("Puzzles"), PUZZLE_COMMANDS),
    (_("More"), COMMUNITY_COMMANDS),
)
"""The embed's fields after the games: a title and its commands, each with what it does."""

TOURNAMENT_RULES = (
    (_("Rounds run themselves"),
     _("A round's games are ordinary matches, each in its own thread with the usual deadlines, reminders, "
       "vacations and conditional moves. When the last game of a round ends, the next round is paired and "
       "posted at once, with the standings; after the last round come the final standings and the podium. "
       "Swiss rounds are paired by the FIDE Dutch system, round robins by the FIDE Berger tables: nobody meets "
       "anyone twice, and first and second moves alternate and balance.")),
    (_("Byes, late entries, withdrawals"),
     _("With an odd number of players one sits out each Swiss round with a bye worth a win (at most once each). "
       "A Swiss takes late entries until half its rounds have started: each round missed counts as a ½-point "
       "bye. Losing a game on time withdraws you from later rounds (your other games go on). "
       "`/tournament withdraw` resigns your game under way; a Swiss then pairs you no more, and in a round robin "
       "each of your remaining games is forfeited: the opponent scores the point. A game counts as played once "
       "both sides have moved; one that ends before that is a forfeit.")),
    (_("Standings and tie-breaks"),
     _("Points: a win 1, a draw ½. Ties in a Swiss are broken by Buchholz cut-1 (the sum of your opponents' "
       "scores, less the lowest), then Sonneborn-Berger (each opponent's score times your result against them); "
       "in a round robin by Sonneborn-Berger, then wins. As FIDE counts them, an opponent's unplayed games count "
       "as draws in their score, and each of your own unplayed rounds (a bye, a forfeit) counts as a game "
       "against a virtual opponent who had your points before that round and drew every round after it.")),
)
RATING_RULES = (
    (_("Ratings"),
     _("openskill ratings per server and game, shown as 1000 + 40 × (μ − 3σ): a careful estimate that grows as "
       "your results grow surer. A rating is provisional (shown with ?, left off the leaderboard unless "
       "`provisional:true`) for your first 5 rated games, and while its uncertainty σ is above 7.5.")),
    (_("Time away"),
     _("While you play no rated game, σ grows again from your last game's date (μ stays): from σ 5 (about twenty "
       "games) it passes 7.5 after a year, from σ 6.7 (five games) after about four months, and never goes above "
       "where it started (8.3). Your next game then moves your rating more. The leaderboard shows the rating your "
       "last game left you.")),
    (_("Seasons"),
     _("A server may keep seasons (`/settings seasons:` monthly or quarterly): `/leaderboard` then shows the "
       "current season, ranking everyone who played a rated game in it by the rating their last game of the season "
       "left them, with that season's wins, losses and draws. Earlier seasons stay (`season:`), and the rating "
       "itself carries on from season to season.")),
)
TOPICS = {"tournaments": (_("Tournaments"), TOURNAMENT_RULES), "ratings": (_("Ratings and seasons"), RATING_RULES)}
"""``/help topic:``: each topic's title and sections."""


def _line(command: str, what: Text, locale: str) -> str:
    # TRANSLATORS: one line of /help: a command (in a code span) and what it does
    return _("{command}: {what}", command=f"`{command}`", what=what).render(locale)


def help_embed(locale: str | None = None) -> discord.Embed:
    """The ``/help`` embed in ``locale`` (a shipped locale; ``None``: English): every registered game with its start
    and move commands, then the other commands."""
    embed = discord.Embed(
        title="Napkin Games",
        description=_("Pencil-and-paper games played turn by turn in this server, against a member or against me "
                      "(pick me as `opponent`, then `level:` easy, medium or hard, or perfect where a game is "
                      "solved; `/rules` says what each level does in that game). Leave `opponent` empty for an open "
                      "challenge anyone may accept.").render(locale),
        colour=discord.Colour.blurple())
    for key in GAMES:
        game = GAMES[key]
        moves = Listed(tuple(f"`/{game.command} {command.name}`" for command in game.moves))
        value = _("Start: {start} · move: {moves}", start=f"`/{game.command} start`", moves=moves).render(locale)
        embed.add_field(name=_(game.title).render(locale), value=value[:1024], inline=False)
    for title, commands_ in SECTIONS:
        embed.add_field(name=title.render(locale),
                        value="\n".join(_line(name, what, i18n.resolve(locale)) for name, what in commands_),
                        inline=False)
    embed.set_footer(text=_("Inside a match's thread the match is implied; elsewhere pick it with the match option. "
                            "/help topic:tournaments and /help topic:ratings explain those.").render(locale))
    return embed


def topic_embed(topic: str, locale: str | None = None) -> discord.Embed:
    """``/help topic:`` in ``locale``: how tournaments run (pairings, byes, withdrawals, tie-breaks), or how ratings,
    provisional ratings and seasons work."""
    title, sections = TOPICS[topic]
    embed = discord.Embed(title=title.render(locale), colour=discord.Colour.blurple())
    for name, text in sections:
        embed.add_field(name=name.render(locale), value=text.render(locale), inline=False)
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
        reader = language_of(interaction, private=True)
        embed = help_embed(reader) if topic is None else topic_embed(topic, reader)
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
        language = await self.bot.services.languages.server_language(message.guild.id)  # a public reply
        with speaking(language):
            how = how_to_move(match, load_state(match))
        text = _("{name}, I cannot read messages: moves are slash commands. {how}",
                 name=escape(message.author.display_name), how=how).render(language)
        try:
            await message.reply(text, mention_author=False, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.info("could not hint in match %s: %s", match.id, error)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Help(bot))
