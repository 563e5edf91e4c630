"""``/tournament``: join, leave, start, withdraw, standings, info, list, cancel and end-game (``create`` is
:mod:`._create`'s). Refusals are the service's domain errors, answered ephemerally by the error handler with what was
typed; commands that may pair a round (start, withdraw, end-game) answer within Discord's 3 seconds by deferring
first (ephemerally: a refusal is only the member's), then say in the channel what happened."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, defer, language_of, respond
from bot.exts.tournament._options import TournamentTransformer, the_tournament
from bot.exts.tournament._show import LIST_LINES, info_embed, list_line, standings_payload, title
from bot.service.tournament_reading import named
from bot.utils.converters import MatchOption, player_of, require_guild
from bot.utils.messages import notify, post_board
from bot.utils.names import escape
from i18n import Channel, Text, _, n_
from storage import TournamentRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

LevelOption = Literal["easy", "medium", "hard"]
TOURNAMENT = "The tournament (implied when the server has only one it could be)"
OpenOption = app_commands.Transform[TournamentRecord, TournamentTransformer("open")]
JoinOption = app_commands.Transform[TournamentRecord, TournamentTransformer("live")]
RunningOption = app_commands.Transform[TournamentRecord, TournamentTransformer("running")]
AnyOption = app_commands.Transform[TournamentRecord, TournamentTransformer("all")]


def manager(interaction: discord.Interaction[NapkinBot]) -> bool:
    """``True`` when the member has Manage Server here (they may act for any tournament's organizer)."""
    return bool(interaction.permissions.manage_guild)


async def announce(interaction: discord.Interaction[NapkinBot], text: Text, done: Text) -> None:
    """Say ``text`` in the channel (no pings; in the server's language) and tell the member ``done`` (ephemerally, the
    deferred answer; in theirs). When the channel does not take the message, the member is told instead."""
    channel = interaction.channel
    try:
        if not isinstance(channel, discord.abc.Messageable):
            raise discord.ClientException("the channel takes no messages")
        await channel.send(text.render(language_of(interaction, private=False)),
                           allowed_mentions=discord.AllowedMentions.none())
    except (discord.HTTPException, discord.ClientException) as error:
        log.info("could not announce in channel %s: %s", interaction.channel_id, error)
        done = _("{done} (I could not say so in this channel: {text})", done=done, text=text)
    await notify(interaction, done)


class Tournament(commands.GroupCog, group_name="tournament", group_description="Swiss and round-robin tournaments"):
    """The ``/tournament`` commands."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="join", description="Enter a tournament (or, as its organizer, enter the computer)")
    @app_commands.describe(tournament=TOURNAMENT, computer="Organizer: enter the computer at this level instead")
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction[NapkinBot], tournament: JoinOption | None = None,
                   computer: LevelOption | None = None) -> None:
        """Enter the member (or the computer); a late entry into a running Swiss gets ½-point byes."""
        chosen = await the_tournament(interaction, tournament, "live")
        entered = await self.bot.services.tournaments.join(chosen.id, chosen.guild_id, player_of(interaction.user),
                                                           level=computer, manager=manager(interaction))
        name = escape(title(entered.tournament))
        who = (_("The computer ({level})", level=computer) if computer else
               f"**{escape(interaction.user.display_name)}**")
        if entered.late_byes:
            text = _("{who} joins **{tournament}**. They join in round {round}, with a ½-point bye for each round "
                     "missed ({byes}).", who=who, tournament=name, round=entered.entry.joined_round,
                     byes=entered.late_byes)
        else:
            text = _("{who} joins **{tournament}**.", who=who, tournament=name)
        await respond(interaction, text, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="leave", description="Leave a tournament that has not started")
    @app_commands.describe(tournament=TOURNAMENT, computer="Organizer: take the computer out instead")
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction[NapkinBot], tournament: OpenOption | None = None,
                    computer: bool = False) -> None:
        """Take the member (or the computer) out of an open tournament."""
        chosen = await the_tournament(interaction, tournament, "open")
        left = await self.bot.services.tournaments.leave(chosen.id, chosen.guild_id, interaction.user.id,
                                                         computer=computer, manager=manager(interaction))
        who = _("The computer") if computer else f"**{escape(interaction.user.display_name)}**"
        await respond(interaction, _("{who} leaves **{tournament}**.", who=who, tournament=escape(title(left))),
                      allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="start", description="Start a tournament now and pair its first round (organizer)",
                          extras=PRIVATE)
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[NapkinBot], tournament: OpenOption | None = None) -> None:
        """Start it (its organizer, or Manage Server): round 1 is paired in a worker and posted by the task."""
        chosen = await the_tournament(interaction, tournament, "open")
        await defer(interaction, private=True)
        started = await self.bot.services.tournaments.start(chosen.id, chosen.guild_id, interaction.user.id,
                                                            manager=manager(interaction))
        await announce(interaction, n_("**{tournament}** starts: {count} round; round 1 is paired below.",
                                       "**{tournament}** starts: {count} rounds; round 1 is paired below.",
                                       started.rounds, tournament=escape(title(started))),
                       _("Tournament #{tournament} starts; its pairings follow in {channel}.",
                         tournament=str(started.id), channel=Channel(started.channel_id)))

    @app_commands.command(name="withdraw", description="Withdraw from a running tournament", extras=PRIVATE)
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def withdraw(self, interaction: discord.Interaction[NapkinBot],
                       tournament: RunningOption | None = None) -> None:
        """Withdraw: the game under way is resigned; a Swiss pairs them no more, a round robin forfeits the rest."""
        chosen = await the_tournament(interaction, tournament, "running")
        await defer(interaction, private=True)
        withdrawn = await self.bot.services.tournaments.withdraw(chosen.id, chosen.guild_id, interaction.user.id)
        who = f"**{escape(interaction.user.display_name)}**"
        if withdrawn.tournament.format == "round_robin":
            after = n_("Their remaining {count} game is forfeited: each opponent scores the point.",
                       "Their remaining {count} games are forfeited: each opponent scores the point.",
                       withdrawn.forfeited)
        else:
            after = _("They will not be paired in later rounds.")
        if withdrawn.resigned is not None:
            text = _("{who} withdraws from **{tournament}**. Their game under way, match #{match}, is resigned (a "
                     "loss). {after}", who=who, tournament=escape(title(withdrawn.tournament)),
                     match=str(withdrawn.resigned.id), after=after)
        else:
            text = _("{who} withdraws from **{tournament}**. {after}", who=who,
                     tournament=escape(title(withdrawn.tournament)), after=after)
        await announce(interaction, text, _("You are withdrawn from tournament #{tournament}.",
                                            tournament=str(chosen.id)))
        if withdrawn.resigned is not None:
            await post_board(self.bot, withdrawn.resigned)

    @app_commands.command(name="standings", description="A tournament's standings, with tie-breaks")
    @app_commands.describe(tournament=TOURNAMENT, page="Page of 25 players (default 1)")
    @app_commands.guild_only()
    async def standings(self, interaction: discord.Interaction[NapkinBot], tournament: AnyOption | None = None,
                        page: app_commands.Range[int, 1, 100] = 1) -> None:
        """Post the standings after the completed rounds (the final ones once it finished) with their image."""
        chosen = await the_tournament(interaction, tournament, "all")
        view = await self.bot.services.tournament_reading.view(chosen.id, chosen.guild_id)
        payload = await standings_payload(view.tournament, view.standings, view.completed, page,
                                          language=language_of(interaction, private=False),
                                          final=view.tournament.status == "finished")
        await respond(interaction, **payload)

    @app_commands.command(name="info", description="A tournament's game, format, players and where it stands",
                          extras=PRIVATE)
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def info(self, interaction: discord.Interaction[NapkinBot], tournament: AnyOption | None = None) -> None:
        """Show the tournament's information (only to the member)."""
        chosen = await the_tournament(interaction, tournament, "all")
        view = await self.bot.services.tournament_reading.view(chosen.id, chosen.guild_id)
        await respond(interaction, embed=info_embed(view, language_of(interaction, private=True)), private=True)

    @app_commands.command(name="list", description="This server's open, running and finished tournaments",
                          extras=PRIVATE)
    @app_commands.describe(page=f"Page of {LIST_LINES} tournaments (default 1)")
    @app_commands.guild_only()
    async def list_(self, interaction: discord.Interaction[NapkinBot],
                    page: app_commands.Range[int, 1, 10_000] = 1) -> None:
        """List the server's tournaments, newest first (only to the member)."""
        guild_id = require_guild(interaction)
        found, page, pages = await self.bot.services.tournament_reading.page(guild_id, page, LIST_LINES)
        if not found:
            await respond(interaction, _("This server has no tournaments yet. Open one with `/tournament create`."),
                          private=True)
            return
        reader = language_of(interaction, private=True)
        lines = [list_line(tournament, reader) for tournament in found]
        if pages > 1:
            lines.append((_("Page {page} of {pages} · `{command} page:{next}` for more.", page=page, pages=pages,
                            command="/tournament list", next=str(page + 1)) if page < pages else
                          _("Page {page} of {pages}.", page=page, pages=pages)).render(reader))
        await respond(interaction, "\n".join(lines), private=True)

    @app_commands.command(name="cancel", description="Cancel a tournament (organizer or Manage Server)")
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def cancel(self, interaction: discord.Interaction[NapkinBot],
                     tournament: app_commands.Transform[TournamentRecord, TournamentTransformer("live")] | None = None,
                     ) -> None:
        """Cancel it: no further round, no final standings; games under way go on as ordinary matches."""
        chosen = await the_tournament(interaction, tournament, "live")
        cancelled = await self.bot.services.tournaments.cancel(chosen.id, chosen.guild_id, interaction.user.id,
                                                               manager=manager(interaction))
        words = {"tournament": escape(title(cancelled)), "member": escape(interaction.user.display_name)}
        text = (_("**{tournament}** is cancelled by **{member}**. Its games under way go on as ordinary matches.",
                  **words) if chosen.status == "running" else
                _("**{tournament}** is cancelled by **{member}**.", **words))
        await respond(interaction, text, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="end-game", description="End a tournament game idle past its deadline and a day "
                                                       "(organizer)", extras=PRIVATE)
    @app_commands.describe(tournament=TOURNAMENT, match="The idle game: its player to move loses on time")
    @app_commands.guild_only()
    async def end_game(self, interaction: discord.Interaction[NapkinBot], match: MatchOption,
                       tournament: RunningOption | None = None) -> None:
        """End an idle game of the current round (its organizer, or Manage Server), so the round cannot stall."""
        chosen = await the_tournament(interaction, tournament, "running")
        await defer(interaction, private=True)
        ended = await self.bot.services.tournaments.end_idle_game(
            chosen.id, chosen.guild_id, interaction.user.id, match.id, manager=manager(interaction))
        await announce(interaction, _("Match #{match} of {tournament} is ended: its player to move had not moved for "
                                      "their days per move and a day more, and loses on time.", match=str(ended.id),
                                      tournament=named(replace(chosen, name=escape(chosen.name)))),
                       _("Match #{match} is ended.", match=str(ended.id)))
        message = await post_board(self.bot, ended)
        if message is None:
            await notify(interaction, _("Match #{match}'s final board could not be posted yet; it is queued.",
                                        match=str(ended.id)))
