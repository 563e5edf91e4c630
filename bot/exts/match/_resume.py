"""The computer's turns a crash left waiting: a crash between a member's move and the computer's reply leaves the
computer to move, and computers have no deadline; once the bot is ready, their turns are resumed in the background,
a few at a time (one per computer worker), so the bot answers meanwhile. Only this process's servers' matches are
resumed, each once this process claimed it (:class:`bot.service.computer_turns.ComputerTurnService`), so that of
several processes starting together exactly one resumes a match; one claimed by another process is looked at again
when that claim runs out (resumed then if the computer is still to move: that process died)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from discord.ext import commands, tasks

from bot.service.computer_turns import COMPUTER_TURN_LEASE
from bot.utils.computer import run_computer

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


class ComputerTurns(commands.Cog):
    """Resumes the computer's turns once, at start-up."""

    def __init__(self, bot: NapkinBot) -> None:
        self.bot = bot
        self.resumed = 0
        """Matches whose computer turn this process resumed."""

    async def cog_load(self) -> None:
        """Resume once the bot is ready."""
        self.resume_once.start()

    async def cog_unload(self) -> None:
        """Stop resuming (the rest is resumed at the next start)."""
        self.resume_once.cancel()

    @tasks.loop(count=1)
    async def resume_once(self) -> None:
        """Resume every waiting computer turn (:meth:`resume_computer_turns`)."""
        self.resumed = await self.resume_computer_turns()

    @resume_once.before_loop
    async def _ready(self) -> None:
        await self.bot.wait_until_ready()

    async def resume_computer_turns(self) -> int:
        """Let the computer move wherever it is to move (of this process's servers); return the number of matches
        resumed. Failures are logged, never raised."""
        slots = asyncio.Semaphore(max(1, self.bot.computer.workers))
        turns = self.bot.services.computer_turns

        async def resume(match_id: int) -> str:
            async with slots:
                try:
                    if not await turns.claim(match_id):
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
                        await turns.release(match_id)
                    except Exception:
                        log.exception("releasing the computer's turn in match %s failed (it runs out by itself)",
                                      match_id)
                return "resumed"

        resumed = 0
        held: set[int] | None = None
        while True:
            try:
                waiting = await turns.waiting()
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
