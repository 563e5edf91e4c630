"""Rounds that run themselves, on Discord: the task that runs the tournaments' passes, and the posters of their news.

The task (a :class:`bot.utils.scheduling.Job`) runs a pass when a tournament's game ends (the rounds service rings its
doorbell), when a tournament is due to start, when a stalled pairing's back-off is over or a pairing lease a dead
process left runs out, and every :data:`SWEEP_SECONDS` as a safety net (and at start-up): it settles ended games
(the next round paired the moment the last game of a round ends), starts tournaments at their start time and sweeps.

The news — a new round's pairings with the standings before it and each game's first board in its thread, the final
standings with the podium and the players thanked (pinged where they allow it, ``/notify``), a start time that came
with too few players, a round that could not be paired for a while (to its organizer) — is posted from the outbox
(:mod:`bot.exts.outbox`) by the posters registered here; each message of a news is noted as posted, so a retry posts
the others only.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.contract import MESSAGE_CONTENT
from bot.exts.match import begin_match
from bot.exts.tournament._show import podium_text, round_embed, standings_payload, title
from bot.service.tournament_director import FINAL_NEWS, ROUND_NEWS, STALLED_NEWS, WAITING_NEWS
from bot.service.tournament_reading import RoundNews
from bot.utils.messages import send_dm
from bot.utils.names import addressed, escape
from bot.utils.outbox import Poster, Progress
from bot.utils.scheduling import Job
from bot.utils.splitting import pack
from i18n import Channel, _, n_
from storage import OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

SWEEP_SECONDS = 6 * 3600.0
"""How often every running tournament is settled even when nothing woke the task (at start-up, and then as a safety
net: a game's end wakes the task at once, a lease that runs out and a stalled pairing are scheduled)."""


class TournamentRounds(commands.Cog):
    """The tournament task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.rounds = bot.services.tournament_rounds
        self.job = Job("tournament pass", lambda: self.run_pass(), longest=SWEEP_SECONDS, ready=bot.wait_until_ready,
                       clock=bot.now)
        self._last_sweep = 0.0

    async def cog_load(self) -> None:
        """Answer the tournaments' doorbell, start the task, and register the posters of the tournaments' news."""
        self.bot.services.tournament_doorbell.connect(self.job.wake)
        self.job.start()
        for kind, post in ((ROUND_NEWS, self._post_round), (FINAL_NEWS, self._post_final),
                           (WAITING_NEWS, self._post_waiting), (STALLED_NEWS, self._post_stalled)):
            self.bot.posters.register(kind, Poster(post, self._given_up))

    async def cog_unload(self) -> None:
        """Stop the task."""
        self.job.stop()

    @property
    def failures(self) -> int:
        """Failed passes in a row (0 after a pass that worked)."""
        return self.job.failures

    async def run_pass(self) -> float | None:
        """Settle ended games, retry stalled pairings and leases run out, start due tournaments, sweep (at start-up
        and every :data:`SWEEP_SECONDS`); return the seconds until the next work."""
        now = self.bot.now()
        await self.rounds.settle_pending()
        await self.rounds.retry_stalled()
        await self.rounds.retry_expired()
        if now - self._last_sweep >= SWEEP_SECONDS:
            await self.rounds.sweep()
            self._last_sweep = now
        await self.rounds.sweep_starts()
        until_sweep = SWEEP_SECONDS - (self.bot.now() - self._last_sweep)
        upcoming = await self.rounds.next_work()
        return until_sweep if upcoming is None else min(until_sweep, upcoming - self.bot.now())

    # ---------------------------------------------------------------- posters

    async def _channel(self, news: RoundNews) -> discord.abc.Messageable:
        channel = self.bot.get_channel(news.tournament.channel_id) or \
            await self.bot.fetch_channel(news.tournament.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            raise discord.ClientException(f"channel {news.tournament.channel_id} takes no messages")
        return channel

    async def _view(self, news: OutboxRecord) -> RoundNews | None:
        return await self.bot.services.tournament_reading.news(news)

    async def _post_round(self, news: OutboxRecord, progress: Progress) -> bool:
        """The round's pairings; the standings before it (from round 2 on); then each game's thread and first board
        (the computer moving first where it opens; a game already begun is not begun again)."""
        view = await self._view(news)
        if view is None:
            return False
        channel = await self._channel(view)
        language = await self.bot.services.languages.server_language(view.tournament.guild_id)
        if news.parts_done < 1:
            await channel.send(embed=round_embed(view, language), allowed_mentions=discord.AllowedMentions.none())
            await progress(1)
        if view.completed and news.parts_done < 2:
            await channel.send(**await standings_payload(view.tournament, view.standings, view.completed,
                                                         language=language))
            await progress(2)
        for board in view.boards:
            match = view.matches.get(board.match_id or 0)
            if match is None or match.thread_id is not None or match.ply:  # begun already (a retried news)
                continue
            try:
                await begin_match(self.bot, match, channel)
            except Exception:  # one board's failure must not hold the round's others; /match board shows it
                log.exception("could not begin match %s of tournament %s", match.id, view.tournament.id)
        return True

    async def _post_final(self, news: OutboxRecord, progress: Progress) -> bool:
        """The final standings with the podium (none when no game was played), then the players thanked, in as many
        messages as their names need: pinged where they allow it."""
        view = await self._view(news)
        if view is None:
            return False
        channel = await self._channel(view)
        language = await self.bot.services.languages.server_language(view.tournament.guild_id)
        if news.parts_done < 1:
            payload = await standings_payload(view.tournament, view.standings, view.completed, final=True,
                                              language=language)
            name = escape(title(view.tournament))
            if view.played:
                over = _("**{tournament}** is over.", tournament=name).render(language)
                podium = podium_text(view.standings, MESSAGE_CONTENT - len(over) - 1, language)
                payload["content"] = f"{over} {podium}" if podium else over
            else:
                payload["content"] = _("**{tournament}** is over. No game was played (every game was forfeited), so "
                                       "it has no podium.", tournament=name).render(language)
            await channel.send(**payload)
            await progress(1)
        players = [line for line in view.standings if line.key in view.pings]
        names = [addressed(line.key, line.name, view.pings[line.key]) for line in players]
        messages = pack(names, lead=_("Thanks for playing: ").render(language), more_lead=_("and: ").render(language),
                        end=".", mentions=[view.pings[line.key] for line in players])
        for number, message in enumerate(messages, start=2):
            if news.parts_done >= number:
                continue
            pinged = [discord.Object(players[index].key) for index in message.indexes if view.pings[players[index].key]]
            await channel.send(message.text,
                               allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=pinged))
            await progress(number)
        return True

    async def _post_waiting(self, news: OutboxRecord, progress: Progress) -> bool:
        view = await self._view(news)
        if view is None:
            return False
        language = await self.bot.services.languages.server_language(view.tournament.guild_id)
        text: dict[str, Any] = {
            "content": n_("**{tournament}** was to start now, but has {count} player: it needs two. It stays open: "
                          "`/tournament join`, and its organizer starts it with `/tournament start`.",
                          "**{tournament}** was to start now, but has {count} players: it needs two. It stays open: "
                          "`/tournament join`, and its organizer starts it with `/tournament start`.",
                          len(view.entries), tournament=escape(title(view.tournament))).render(language),
            "allowed_mentions": discord.AllowedMentions.none()}
        await (await self._channel(view)).send(**text)
        return True

    async def _post_stalled(self, news: OutboxRecord, progress: Progress) -> bool:
        """Tell the organizer, by direct message, that a round could not be paired for a while, and why."""
        view = await self._view(news)
        if view is None or view.tournament.status != "running" or view.tournament.current_round >= news.seq:
            return False  # paired (or over) since
        why = self.rounds.stalled_reason(view.tournament.id) or _("the pairing failed")
        await send_dm(self.bot, view.tournament.organizer_id, _(
            "Round {round} of **{tournament}** could not be paired for an hour ({why}). I keep trying; if it lasts, "
            "tell the bot's admin (their log has the details).", round=news.seq,
            tournament=escape(title(view.tournament)), why=why))
        return True

    async def _given_up(self, news: OutboxRecord, gone: bool) -> None:
        """Tell the organizer, by direct message, that a tournament's news could not be posted in its channel."""
        view = await self._view(news)
        if view is None:
            return
        why = _("its channel is gone") if gone else _("I can no longer post in its channel (a server admin can give "
                                                      "me back View Channel, Send Messages and Embed Links there)")
        what = {ROUND_NEWS: _("round {round}'s pairings", round=news.seq), FINAL_NEWS: _("its final standings"),
                WAITING_NEWS: _("that it could not start")}.get(news.kind, _("its news"))
        await send_dm(self.bot, view.tournament.organizer_id, _(
            "I could not post {what} of **{tournament}** in {channel}: {why}. `/tournament info` and "
            "`/tournament standings` show where it stands.", what=what, tournament=escape(title(view.tournament)),
            channel=Channel(view.tournament.channel_id), why=why))
