"""``/puzzle``: ``next`` (a puzzle near the member's puzzle rating, of any game or one), ``stats`` (a member's puzzle
rating, streak and results by game) and ``month`` (this month's solvers of the server's daily puzzles); the
components under a puzzle (:mod:`._views`) call into :class:`Puzzles`; and the task that plans each server's daily
puzzle (posted and revealed through the outbox: :mod:`._news`), and the task that examines every finished match for
the puzzles it holds (:mod:`bot.service.match_puzzles`).

Everything about a member's own puzzle is ephemeral (nobody else is spoiled); the daily post is public, its
answers private, its solvers revealed in its thread when the day ends. Refusals are the service's domain errors,
answered ephemerally with what was typed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.answers import PRIVATE, language_of, respond
from bot.exts.puzzles._show import (
    judged_file,
    judged_text,
    month_title,
    pick_moves,
    served_file,
    served_text,
)
from bot.exts.puzzles._views import AnswerButton, NextButton, PickSelect, ShowButton
from bot.service import Outdated
from bot.service.puzzles import Judged, Served, solver_seat
from bot.utils.converters import require_guild
from bot.utils.names import escape
from bot.utils.scheduling import Job
from games import GAMES
from games.puzzles import RULES
from i18n import _, n_

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MAX_SLEEP = 3600.0
"""Longest sleep of the daily puzzle task between passes, seconds."""
GAME_CHOICES = [app_commands.Choice(name=GAMES[key].title, value=key) for key in RULES if key in GAMES]
"""The games that have puzzles."""


def puzzle_view(served: Served) -> discord.ui.View:
    """The components under a puzzle: the pick list (few legal moves), Answer, Show the answer."""
    view = discord.ui.View(timeout=None)
    moves = pick_moves(served)
    if moves:
        view.add_item(PickSelect(served.attempt.id, served.attempt.progress, moves))
    view.add_item(AnswerButton(served.attempt.id, served.attempt.progress))
    view.add_item(ShowButton(served.attempt.id))
    return view


class Puzzles(commands.GroupCog, group_name="puzzle", group_description="Puzzles proven by exact search"):
    """The ``/puzzle`` commands, the puzzles' components, and the daily puzzle task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.puzzles = bot.services.puzzles
        self.job = Job("daily puzzles", lambda: self.bot.services.daily_puzzles.plan_daily(), longest=MAX_SLEEP,
                       ready=bot.wait_until_ready, clock=bot.now)
        self.match_job = Job("match puzzles", self._examine_matches, longest=MAX_SLEEP, ready=bot.wait_until_ready,
                             clock=bot.now)
        super().__init__()

    async def cog_load(self) -> None:
        """Answer the puzzle doorbells (a server changed its daily puzzle channel; a match ended) and start the
        tasks."""
        self.bot.services.puzzle_doorbell.connect(self.job.wake)
        self.job.start()
        self.bot.services.match_puzzle_doorbell.connect(self.match_job.wake)
        self.match_job.start()

    async def cog_unload(self) -> None:
        """Stop the tasks."""
        self.job.stop()
        self.match_job.stop()

    async def _examine_matches(self) -> None:
        """The match puzzles' pass: the finished matches waiting are examined, their puzzles kept (the service's
        :meth:`~bot.service.match_puzzles.MatchPuzzleService.examine_waiting`); woken when a match ends."""
        await self.bot.services.match_puzzles.examine_waiting()

    @app_commands.command(name="next", description="A puzzle near your puzzle rating (only you see it)",
                          extras=PRIVATE)
    @app_commands.describe(game="Only puzzles of this game (default: any)")
    @app_commands.choices(game=GAME_CHOICES)
    async def next(self, interaction: discord.Interaction[NapkinBot], game: str | None = None) -> None:
        """Serve the member's open puzzle, or a new one."""
        await self.next_puzzle(interaction, game)

    @app_commands.command(name="stats", description="A member's puzzle rating, streak and results")
    @app_commands.describe(member="Whose (default: yours)")
    async def stats(self, interaction: discord.Interaction[NapkinBot], member: discord.User | None = None) -> None:
        """Show a member's puzzle rating and results by game."""
        who = member or interaction.user
        found = await self.puzzles.stats(who.id)
        name = escape(who.display_name)
        if found.player is None:
            await respond(interaction, _("**{name}** has no puzzle rating yet: `/puzzle next` gives a first puzzle.",
                                         name=name), allowed_mentions=discord.AllowedMentions.none())
            return
        player = found.player
        reader = language_of(interaction, private=False)
        embed = discord.Embed(title=_("{name}'s puzzles", name=who.display_name[:200]).render(reader))
        embed.add_field(name=_("Puzzle rating").render(reader), value=_(
            "{rating} (± {spread})", rating=str(round(player.rating)),
            spread=str(round(2 * player.deviation))).render(reader))
        embed.add_field(name=_("Solved").render(reader), value=_(
            "{solved} of {rated} ({share}%)", solved=player.solved, rated=player.rated,
            share=round(100 * player.solved / max(1, player.rated))).render(reader))
        embed.add_field(name=_("Streak").render(reader), value=_(
            "{streak} (best {best})", streak=player.streak, best=player.best_streak).render(reader))
        for key, (rated, solved) in found.by_game.items():
            embed.add_field(name=GAMES[key].title_text.render(reader), inline=False, value=n_(
                "{solved} of {count} puzzle solved", "{solved} of {count} puzzles solved", rated,
                solved=solved).render(reader))
        await respond(interaction, embed=embed, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="month", description="This month's solvers of the server's daily puzzles")
    @app_commands.guild_only()
    async def month(self, interaction: discord.Interaction[NapkinBot]) -> None:
        """The monthly table of the server's daily puzzles."""
        guild_id = require_guild(interaction)
        month, rows = await self.bot.services.daily_puzzles.month_table(guild_id)
        lines = [_("**Daily puzzle solvers, {month}**", month=month_title(month))]
        lines += [_("{rank}. {name} — {puzzles} in {tries}", rank=rank, name=escape(name),
                    puzzles=n_("{count} puzzle", "{count} puzzles", solved),
                    tries=n_("{count} try", "{count} tries", tries))
                  for rank, (_member, name, solved, tries) in enumerate(rows, start=1)]
        if not rows:
            settings = await self.bot.services.settings.get(guild_id)
            lines.append(_("Nobody has solved a daily puzzle this month yet.") if settings.puzzle_channel_id else
                         _("This server has no daily puzzle: an admin can set one with `/settings puzzle_channel`."))
        reader = language_of(interaction, private=False)
        await respond(interaction, "\n".join(line.render(reader) for line in lines),
                      allowed_mentions=discord.AllowedMentions.none())

    # -- what the components call --------------------------------------------------------------------------------

    async def _send_served(self, interaction: discord.Interaction[Any], served: Served) -> None:
        name = interaction.user.display_name
        reader = language_of(interaction, private=True)
        await respond(interaction, served_text(served, name, reader), private=True,
                      file=await served_file(served, name, reader),
                      view=puzzle_view(served), allowed_mentions=discord.AllowedMentions.none())

    async def next_puzzle(self, interaction: discord.Interaction[Any], game: str | None) -> None:
        """Serve the member's open puzzle, or a new one near their rating (of ``game``, or any)."""
        served = await self.puzzles.next(interaction.user.id, interaction.user.display_name, game=game,
                                         guild_id=interaction.guild_id)
        await self._send_served(interaction, served)

    async def solve_daily(self, interaction: discord.Interaction[Any], daily_id: int) -> None:
        """Serve the member the daily puzzle (their own attempt at it)."""
        served = await self.bot.services.daily_puzzles.start_daily(daily_id, interaction.user.id,
                                                                   interaction.user.display_name, interaction.guild_id)
        await self._send_served(interaction, served)

    async def answer(self, interaction: discord.Interaction[Any], attempt_id: int, text: str,
                     progress: int | None = None) -> None:
        """Judge a move typed or picked on the board of ``progress`` (an older board's is out of date)."""
        if progress is not None:
            current = await self.puzzles.attempt(attempt_id, interaction.user.id)
            if current.attempt.progress != progress:
                raise Outdated(_("That board is out of date: the puzzle moved on. Answer on its newest board."))
        judged = await self.puzzles.answer(attempt_id, interaction.user.id, text)
        await self._send_judged(interaction, judged)

    async def show_answer(self, interaction: discord.Interaction[Any], attempt_id: int) -> None:
        """Show the answer (the attempt counts as not solved)."""
        await self._send_judged(interaction, await self.puzzles.show(attempt_id, interaction.user.id))

    async def _send_judged(self, interaction: discord.Interaction[Any], judged: Judged) -> None:
        name = interaction.user.display_name
        reader = language_of(interaction, private=True)
        fields: dict[str, Any] = {"file": await judged_file(judged, solver_seat(judged.puzzle), name, reader)}
        if judged.verdict in ("right", "wrong"):
            served = Served(judged.attempt, judged.puzzle, judged.state)
            fields["view"] = puzzle_view(served)
        elif not judged.attempt.daily_id:
            view = discord.ui.View(timeout=None)
            view.add_item(NextButton(judged.puzzle.game, f"Next {GAMES[judged.puzzle.game].title} puzzle"))
            view.add_item(NextButton(None, "Any game"))
            fields["view"] = view
        await respond(interaction, judged_text(judged, reader), private=True,
                      allowed_mentions=discord.AllowedMentions.none(),
                      **fields)
