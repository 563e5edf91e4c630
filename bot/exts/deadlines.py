"""Correspondence time: reminders when a third of the time is left, forfeits at the deadline, challenge expiry, and
the end of vacations whose allowance ran out.

One :func:`discord.ext.tasks.loop`, driven by the deadlines stored in the database: each pass lets the service
decide what is due (each change is its own versioned transaction) and posts the messages, then the loop sleeps
until the next stored deadline (at most an hour). A pass that fails (a locked or unreachable database, anything)
is logged and retried after a growing pause (:data:`RETRY_DELAYS`), never in a busy loop, and the loop keeps
running. A restarted bot picks up where the stored deadlines say.

Several bot processes may share one PostgreSQL database, each serving some of the shards: every process takes only
its own servers' work, and claims it in the database (the pass claims each due match, the outbox hands each news to
one process for a while, a computer turn is resumed under a claim), so that each reminder, forfeit, abort, expiry
and resumed computer turn is acted on by exactly one process.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands, tasks

from bot.service import Damaged, DueWork, NotFound
from bot.service.outbox import COMPUTER_TURN_LEASE, NEWS_BATCH, NEWS_REFUSED_TRIES
from bot.texts import plural
from bot.utils.boards import board_payload, describe_outcome
from bot.utils.buttons import challenge_view
from bot.utils.computer import run_computer
from bot.utils.messages import retire_previous_board, send_dm, send_to_match, tell_turn
from bot.utils.names import addressed, may_ping, member_name, server_name
from games import GAMES
from storage import ChallengeRecord, MatchRecord, OutboxRecord, VacationRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

MAX_SLEEP = 3600.0
"""Longest sleep between passes, in seconds."""
RETRY_DELAYS = (5.0, 15.0, 60.0, 300.0)
"""Seconds to wait after the 1st, 2nd, 3rd and every later failed pass in a row."""
HELD_RETRY = 1.0
"""Seconds to wait after a pass that did nothing although something is due: another process holds that work (it is
acting on it, or died holding it and the database has not yet let go), so the next pass waits a little instead of
spinning."""


class Deadlines(commands.Cog):
    """The deadline task."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.failures = 0
        """Failed passes in a row (0 after a pass that worked)."""
        self.delivered = 0
        """News the last pass delivered."""
        self.resuming: asyncio.Task[int] | None = None
        """The start-up task that resumes the computer's pending turns (:meth:`resume_computer_turns`)."""
        self.vacations = bot.services.vacations

    async def cog_load(self) -> None:
        """Start the loop."""
        self.deadline_loop.start()

    async def cog_unload(self) -> None:
        """Stop the loop (and the resuming of computer turns, if still under way)."""
        self.deadline_loop.cancel()
        if self.resuming is not None:
            self.resuming.cancel()

    @tasks.loop(seconds=MAX_SLEEP)
    async def deadline_loop(self) -> None:
        """One pass, then set the sleep until the next one (the next stored deadline, or a retry delay)."""
        self.deadline_loop.change_interval(seconds=await self.run_pass())

    @deadline_loop.before_loop
    async def _resume(self) -> None:
        await self.bot.wait_until_ready()
        if self.resuming is None:
            self.resuming = asyncio.create_task(self.resume_computer_turns(), name="resume computer turns")

    async def resume_computer_turns(self) -> int:
        """Let the computer move where a crash between a member's move and its reply left it to move (computers
        have no deadline); run in the background at start-up, a few at a time (one per computer worker), so the
        bot answers meanwhile. Only this process's servers' matches are resumed, each once it claimed it
        (:meth:`bot.service.outbox.ComputerTurnService.claim`), so that of several processes starting together
        exactly one resumes a match; one claimed by another process is looked at again when that claim runs out
        (it is resumed then if the computer is still to move: that process died). Returns the number of matches
        resumed; failures are logged, never raised."""
        slots = asyncio.Semaphore(max(1, self.bot.computer.workers))
        resumed = 0

        async def resume(match_id: int) -> str:
            async with slots:
                try:
                    if not await self.bot.services.computer_turns.claim(match_id):
                        return "held"
                except Exception:
                    log.exception("claiming the computer's turn in match %s failed", match_id)
                    return "failed"
                try:
                    await run_computer(self.bot, match_id)
                except Exception:
                    log.exception("resuming the computer's turn in match %s failed", match_id)
                    return "failed"
                finally:
                    try:
                        await self.bot.services.computer_turns.release(match_id)
                    except Exception:
                        log.exception("releasing the computer's turn in match %s failed (it runs out by itself)",
                                      match_id)
                return "resumed"

        held: set[int] | None = None
        while True:
            try:
                waiting = await self.bot.services.computer_turns.waiting()
            except Exception:
                log.exception("finding computer turns to resume failed")
                return resumed
            if held is not None:
                waiting = [match_id for match_id in waiting if match_id in held]
            if not waiting:
                return resumed
            outcomes = await asyncio.gather(*(resume(match_id) for match_id in waiting))
            resumed += outcomes.count("resumed")
            held = {match_id for match_id, outcome in zip(waiting, outcomes, strict=True) if outcome == "held"}
            if not held:
                return resumed
            await asyncio.sleep(COMPUTER_TURN_LEASE)

    def wake(self) -> None:
        """Run the next pass soon (new news was queued) instead of at the next stored deadline."""
        if self.deadline_loop.is_running():
            self.deadline_loop.change_interval(seconds=0.001)

    async def run_pass(self) -> float:
        """Process what is due and find the next wake-up; return the seconds to sleep before the next pass.

        Never raises (but for cancellation): a failure is logged and answered with the next retry delay.
        """
        started = self.bot.now()
        try:
            work = await self.tick()
            due = (await self.bot.services.deadlines.next_wakeup(), await self.vacations.next_end())
            times = [t for t in due if t is not None]
            wake = min(times) if times else None
        except Exception:
            delay = RETRY_DELAYS[min(self.failures, len(RETRY_DELAYS) - 1)]
            self.failures += 1
            log.exception("deadline pass failed (%d in a row); retrying in %.0f s", self.failures, delay)
            return delay
        self.failures = 0
        if wake is None:
            return MAX_SLEEP
        idle = not (work.reminded or work.forfeited or work.aborted or work.expired or work.quarantined
                    or self.delivered)
        if idle and wake <= started:
            return HELD_RETRY
        return min(MAX_SLEEP, max(0.0, wake - started) + 0.001)

    async def tick(self) -> DueWork:
        """Process everything due now, deliver the news that is due (reminders and results, from the outbox) and
        close expired challenges; return what was done."""
        for vacation in await self.vacations.end_due():  # (their deadlines already hold: bot.service.vacations)
            await self._tell_vacation_over(vacation)
        work = await self.bot.services.deadlines.process_due()
        for challenge in work.expired:
            await self._expire(challenge)
        self.delivered = await self.deliver_news()
        return work

    async def _tell_vacation_over(self, vacation: VacationRecord) -> None:
        """Tell the member, by direct message, that their vacation ended by itself (the allowance is spent) and their
        deadlines run again. Sent whatever ``/notify`` says (it is news about their own vacation, once); a failure
        is only logged."""
        server = server_name(self.bot, vacation.guild_id)
        days = plural(vacation.days or 1, "day")
        text = (f"Your vacation in **{server}** ended by itself after {days}: this year's allowance is spent. Your "
                "deadlines run again; `/match list` there shows whose move it is.")
        await send_dm(self.bot, vacation.user_id, text)

    async def deliver_news(self) -> int:
        """Claim the due outbox entries (of this process's servers) a batch at a time and try each once; return
        how many were delivered.

        Delivered news, and news that is no longer true (the match moved on), leaves the outbox; news Discord refuses
        for good (no access to the match's channel after :data:`bot.service.outbox.NEWS_REFUSED_TRIES` attempts, or
        the channel is gone) is kept as given up and its players told once; news Discord failed to take for now
        (429, 5xx) is tried again later (:data:`bot.service.outbox.NEWS_RETRY_DELAYS`). A claim keeps other
        processes off the news for :data:`bot.service.outbox.NEWS_LEASE` seconds, so each is posted by one process;
        news of a process that died with it is claimed again after that.
        """
        delivered = 0
        while True:
            batch = await self.bot.services.outbox.claim()
            for news in batch:
                delivered += await self._deliver(news)
            if len(batch) < NEWS_BATCH:
                return delivered

    async def _deliver(self, news: OutboxRecord) -> int:
        """Try to post one claimed ``news`` and settle it in the outbox; ``1`` when it was posted."""
        try:
            match = await self.bot.services.reading.get_match(news.match_id)
        except (NotFound, Damaged):
            await self.bot.services.outbox.done(news)
            return 0
        try:
            sent = await self._send_news(news, match)
        except (discord.Forbidden, discord.NotFound, discord.ClientException) as error:  # refused for good
            if isinstance(error, discord.NotFound) or news.attempts + 1 >= NEWS_REFUSED_TRIES:
                await self._give_up(news, match, error)
                return 0
            retry = await self.bot.services.outbox.failed(news)
            log.warning("Discord refused the %s of match %s (attempt %d of %d): %s; trying again at %s", news.kind,
                        match.id, news.attempts + 1, NEWS_REFUSED_TRIES, error, retry)
            return 0
        except discord.HTTPException as error:  # 429, 5xx: Discord will take it later
            retry = await self.bot.services.outbox.failed(news)
            log.warning("could not post the %s of match %s (attempt %d): %s; retrying at %s", news.kind,
                        match.id, news.attempts + 1, error, retry)
            return 0
        await self.bot.services.outbox.done(news)
        return int(sent)

    async def _give_up(self, news: OutboxRecord, match: MatchRecord,
                       error: discord.HTTPException | discord.ClientException) -> None:
        """Keep ``news`` as given up (it never arrives: no access to the match's channel, or no channel), log it,
        and tell the players it was for, once, by direct message: the result to each member of a finished match,
        the reminder to the member to move while it still holds."""
        gone = isinstance(error, discord.NotFound)
        await self.bot.services.outbox.give_up(news, f"{getattr(error, 'status', '')} {error}".strip())
        log.warning("gave up the %s of match %s after %s: Discord refuses it for good (%s)", news.kind, match.id,
                    plural(news.attempts + 1, "attempt"), error)
        where = (f"**{GAMES[match.game].title}** match #{match.id} in **{server_name(self.bot, match.guild_id)}** "
                 f"(<#{match.post_channel_id}>)")
        why = "its channel is gone" if gone else "I can no longer post in its channel (a server admin can give me " \
                                                "back View Channel and Send Messages there)"
        if news.kind == "result" and match.status != "active":
            text = f"I could not post the final board of {where}: {why}. {describe_outcome(match)}"
            told = [seat for seat in match.seats if not seat.is_computer]
        elif news.kind == "reminder" and match.status == "active" and match.ply == news.ply \
                and match.current_seat is not None and match.deadline is not None:
            text = (f"A third of your time is left in {where}: move before <t:{int(match.deadline)}:f>. I could not "
                    f"post this reminder there: {why}.")
            told = [match.seats[match.current_seat]]
        else:
            return  # no longer true
        for user_id in sorted({seat.user_id for seat in told}):
            await send_dm(self.bot, user_id, text)

    async def _send_news(self, news: OutboxRecord, match: MatchRecord) -> bool:
        """Post ``news``; ``False`` when it is no longer true (nothing posted)."""
        if news.kind == "result":
            if match.status == "active":
                return False
            message = await send_to_match(self.bot, match, lambda: board_payload(match))
            await retire_previous_board(match.id, message)
            return True
        if match.status != "active" or match.ply != news.ply or match.current_seat is None or match.deadline is None:
            return False  # the player moved (or the match ended) since the reminder was due
        seat = match.seats[match.current_seat]
        deadline = int(match.deadline)

        async def reminder() -> dict[str, Any]:
            return {"content": f"{member_name(seat)}, a third of your time is left in match #{match.id}: move "
                               f"before <t:{deadline}:f> (<t:{deadline}:R>) or the match is forfeited.",
                    "allowed_mentions": discord.AllowedMentions(users=[discord.Object(seat.user_id)] if seat.pings
                                                                else False)}

        message = await send_to_match(self.bot, match, reminder)
        await tell_turn(self.bot, match, message, reminder=True)
        return True

    async def _expire(self, challenge: ChallengeRecord) -> None:
        """Close an expired challenge on Discord: its message says so and its buttons are disabled (a click on a
        message whose id was never learned answers "expired" and disables them then), and the challenger is told
        (by name in bold when they turned pings off). Failures are logged."""
        try:
            channel = self.bot.get_channel(challenge.channel_id) or await self.bot.fetch_channel(challenge.channel_id)
        except discord.HTTPException as error:
            log.info("could not close expired challenge %s: %s", challenge.id, error)
            return
        if not isinstance(channel, discord.abc.Messageable):
            return
        pings = (await self.bot.services.vacations.prefs(challenge.challenger_id)).pings
        text = (f"{addressed(challenge.challenger_id, challenge.challenger_name, pings)}, nobody accepted your "
                f"{GAMES[challenge.game].title} challenge in time; it has expired.")
        mentions = may_ping(challenge.challenger_id, pings)
        try:
            if challenge.message_id is None:  # never learned: the notice stands alone
                await channel.send(text, allowed_mentions=mentions)
                return
            message = await channel.fetch_message(challenge.message_id)
            await message.edit(content=message.content + "\nThis challenge expired unanswered.",
                               view=challenge_view(challenge.id, disabled=True),
                               allowed_mentions=discord.AllowedMentions.none())
            await message.reply(text, mention_author=False, allowed_mentions=mentions)
        except discord.HTTPException as error:
            log.info("could not close expired challenge %s: %s", challenge.id, error)


async def setup(bot: NapkinBot) -> None:
    """Load the extension."""
    await bot.add_cog(Deadlines(bot))
