"""The computer's turn on Discord: a member's computer matches search one at a time (a member's flood of computer
matches waits its turn; the computer pool's scheduler orders everyone's searches), with the channel's typing
indicator meanwhile, and its moves are posted on one board (which says so when the computer played a quick move
because the bot is overloaded)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.service import MoveResult
from bot.utils.boards import Board
from bot.utils.messages import match_channel, post_board
from bot.utils.queues import queues
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


def computer_to_move(match: MatchRecord) -> bool:
    """``True`` while the match runs and a computer seat is to move."""
    return match.status == "active" and match.current_seat is not None and match.seats[match.current_seat].is_computer


async def computer_answers(bot: NapkinBot, match: MatchRecord) -> list[MoveResult]:
    """Let computer seats move (showing the channel's typing indicator meanwhile); return their moves."""
    if not computer_to_move(match):
        return []
    try:
        channel = await match_channel(bot, match)
        async with channel.typing():
            return await queued_computer_replies(bot, match)
    except (discord.HTTPException, discord.ClientException) as error:  # no typing indicator: think anyway
        log.info("no typing indicator in match %s: %s", match.id, error)
        return await queued_computer_replies(bot, match)


async def queued_computer_replies(bot: NapkinBot, match: MatchRecord) -> list[MoveResult]:
    """The service's computer replies in ``match``, run when the match's human player has no other computer search
    under way (see :mod:`bot.utils.queues`): a member's flood of computer matches waits its turn."""
    member = next((seat.user_id for seat in match.seats if not seat.is_computer), 0)
    async with queues(bot)[0].slot(member):
        return await bot.services.moves.computer_replies(match.id)


async def run_computer(bot: NapkinBot, match_id: int) -> None:
    """Let computer seats move and post one board with their moves (nothing when no computer is to move)."""
    match = await bot.services.reading.get_match(match_id)
    results = await queued_computer_replies(bot, match)
    if results:
        await post_board(bot, results[-1].match, results[-1].after, Board(results=results))
