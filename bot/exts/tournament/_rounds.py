"""Rounds that run themselves, on Discord: the task that reacts when a tournament's game ends (its next round is
paired the moment the last game of a round ends), starts tournaments at their start time, settles every running
tournament at start-up and every few minutes (what a crash or another process left), and posts the news:
a new round's pairings with the standings before it and each game's first board in its thread, and the final
standings with the podium, pinging the players who allow it (``/notify``).

A pass runs at once when woken: by :class:`bot.service.base.MatchEnds` (through
:attr:`bot.service.tournament_rounds.RoundService.wake`, when a game ended) and by the commands that queue news; and
by one :func:`discord.ext.tasks.loop`, as the deadline task, sleeping until the next start time or news (at most
:data:`SWEEP_SECONDS`). Passes never overlap (one lock). A pass that fails is logged and retried after a pause.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands, tasks

from bot.contract import MESSAGE_CONTENT
from bot.exts.match import begin_match
from bot.exts.tournament._show import podium_text, round_embed, standings_payload, title
from bot.service.tournament_rounds import NEWS_BATCH, RoundNews
from bot.utils.names import addressed, escape
from bot.utils.splitting import pack
from storage import TournamentNewsRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

SWEEP_SECONDS = 6 * 3600.0
"""How often every running tournament is settled even when nothing woke the task (at start-up, and then as a safety
net: a game's end wakes the task at once, and a crash is recovered at the next start-up)."""
RETRY_DELAYS = (5.0, 15.0, 60.0, 300.0)
"""Seconds to wait after the 1st, 2nd, 3rd and every later failed pass in a row."""


class TournamentRounds(commands.Cog):
    """The tournament task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.rounds = bot.services.tournament_rounds
        self.failures = 0
        self.posted = 0
        """News posted by this process (for tests)."""
        self._last_sweep = 0.0
        self._lock = asyncio.Lock()
        self._woken = False
        self._worker: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        """Listen for ended tournament games and start the loop."""
        self.rounds.wake = self.wake
        self.tournament_loop.start()

    async def cog_unload(self) -> None:
        """Stop the loop (and a pass under way)."""
        self.rounds.wake = lambda: None
        self.tournament_loop.cancel()
        if self._worker is not None:
            self._worker.cancel()

    def wake(self) -> None:
        """Run a pass now (in a task of its own; the caller does not wait for it): a game ended, or news was
        queued. A pass under way runs once more when it is done."""
        self._woken = True
        if self._worker is None or self._worker.done():
            try:
                self._worker = asyncio.get_running_loop().create_task(self._woken_passes(), name="tournament pass")
            except RuntimeError:  # no event loop running (a service used alone): the loop's next pass does it
                self._worker = None

    async def _woken_passes(self) -> None:
        while self._woken:
            self._woken = False
            async with self._lock:
                sleep = await self.run_pass()
            if self.failures and self.tournament_loop.is_running():  # failed: the loop tries again after a pause
                self.tournament_loop.change_interval(seconds=sleep)

    @tasks.loop(seconds=SWEEP_SECONDS)
    async def tournament_loop(self) -> None:
        """One pass, then sleep until the next start time or news, at most :data:`SWEEP_SECONDS`."""
        async with self._lock:
            sleep = await self.run_pass()
        self.tournament_loop.change_interval(seconds=sleep)

    @tournament_loop.before_loop
    async def _ready(self) -> None:
        await self.bot.wait_until_ready()

    async def run_pass(self) -> float:
        """Settle ended games, start due tournaments, sweep (at start-up and every :data:`SWEEP_SECONDS`), post news;
        return the seconds to sleep. Never raises (but for cancellation)."""
        now = self.bot.now()
        try:
            await self.rounds.settle_pending()
            if now - self._last_sweep >= SWEEP_SECONDS:
                await self.rounds.sweep()
                self._last_sweep = now
            upcoming = await self.rounds.next_work()
            if upcoming is not None and upcoming <= self.bot.now():
                await self.rounds.sweep_starts()
                await self.deliver_news()
                upcoming = await self.rounds.next_work()
        except Exception:
            delay = RETRY_DELAYS[min(self.failures, len(RETRY_DELAYS) - 1)]
            self.failures += 1
            log.exception("tournament pass failed (%d in a row); retrying in %.0f s", self.failures, delay)
            return delay
        self.failures = 0
        until_sweep = SWEEP_SECONDS - (self.bot.now() - self._last_sweep)
        wait = until_sweep if upcoming is None else min(until_sweep, upcoming - self.bot.now())
        return max(1.0, wait)

    async def deliver_news(self) -> int:
        """Claim the due tournament news (of this process's servers) a batch at a time and post each; return how
        many were posted. News Discord failed to take is tried again later; news of a tournament or channel that is
        gone is dropped."""
        posted = 0
        while True:
            batch = await self.rounds.claim_news()
            for news in batch:
                posted += await self._deliver(news)
            if len(batch) < NEWS_BATCH:
                self.posted += posted
                return posted

    async def _deliver(self, news: TournamentNewsRecord) -> int:
        view = await self.rounds.news_view(news)
        if view is None:
            await self.rounds.news_done(news)
            return 0
        try:
            channel = self.bot.get_channel(view.tournament.channel_id) or \
                await self.bot.fetch_channel(view.tournament.channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                raise discord.ClientException(f"channel {view.tournament.channel_id} takes no messages")
            if news.kind == "round":
                await self._post_round(channel, view)
            elif news.kind == "final":
                await self._post_final(channel, view)
            else:
                await self._post_waiting(channel, view)
        except discord.NotFound as error:
            log.warning("dropping the %s news of tournament %s: its channel is gone (%s)", news.kind,
                        news.tournament_id, error)
            await self.rounds.news_done(news)
            return 0
        except (discord.HTTPException, discord.ClientException) as error:
            retry = await self.rounds.news_failed(news)
            log.warning("could not post the %s news of tournament %s (attempt %d): %s; retrying at %s", news.kind,
                        news.tournament_id, news.attempts + 1, error, retry)
            return 0
        await self.rounds.news_done(news)
        return 1

    async def _post_round(self, channel: discord.abc.Messageable, view: RoundNews) -> None:
        """The round's pairings; the standings before it (from round 2 on); then each game's thread and first board
        (the computer moving first where it opens)."""
        await channel.send(embed=round_embed(view), allowed_mentions=discord.AllowedMentions.none())
        if view.completed:
            await channel.send(**await standings_payload(view.tournament, view.standings, view.completed))
        for board in view.boards:
            match = view.matches.get(board.match_id or 0)
            if match is None or match.thread_id is not None or match.ply:  # begun already (a retried news)
                continue
            try:
                await begin_match(self.bot, match, channel)
            except Exception:  # one board's failure must not hold the round's others; /match board shows it
                log.exception("could not begin match %s of tournament %s", match.id, view.tournament.id)

    async def _post_final(self, channel: discord.abc.Messageable, view: RoundNews) -> None:
        """The final standings with the podium, then the players thanked: pinged where they allow it."""
        payload = await standings_payload(view.tournament, view.standings, view.completed, final=True)
        over = f"**{escape(title(view.tournament))}** is over."
        podium = podium_text(view.standings, MESSAGE_CONTENT - len(over) - 1)
        payload["content"] = over + (f" {podium}" if podium else "")
        await channel.send(**payload)
        players = [line for line in view.standings if line.key in view.pings]
        names = [addressed(line.key, line.name, view.pings[line.key]) for line in players]
        for message in pack(names, lead="Thanks for playing: ", more_lead="and: ", end=".",
                            mentions=[view.pings[line.key] for line in players]):
            pinged = [discord.Object(players[index].key) for index in message.indexes if view.pings[players[index].key]]
            await channel.send(message.text,
                               allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=pinged))

    async def _post_waiting(self, channel: discord.abc.Messageable, view: RoundNews) -> None:
        players = len(view.entries)
        text: dict[str, Any] = {
            "content": f"**{escape(title(view.tournament))}** was to start now, but has {players} "
                       f"player{'s' if players != 1 else ''}: it needs two. It stays open: `/tournament join`, and "
                       "its organizer starts it with `/tournament start`.",
            "allowed_mentions": discord.AllowedMentions.none()}
        await channel.send(**text)
