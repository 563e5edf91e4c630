"""The Discord side of a move: a typed command or a button click becomes one call to the move service, and the
answer is one new board with the move (and the computer's answer, if the computer plays).

Flow of a move: the interaction is parsed by a command or a button, :func:`submit_move` asks the service to
validate and store it (one transaction, no Discord call inside), the board is rendered in a worker thread, and a
*new* message is posted in the match's thread (or channel) pinging only the player to move. If a computer seat is
to move next, its move is computed off the event loop and posted the same way.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, cast

import discord

from bot.answers import defer, language_of, respond, update
from bot.exts.match._premove import tell_discarded
from bot.service import BadOption, MoveResult, TimeRanOut
from bot.texts import quote
from bot.utils.boards import Board, board_payload
from bot.utils.computer import computer_answers, computer_to_move
from bot.utils.converters import require_guild
from bot.utils.messages import notify, post_board, queue_result, retire_previous_board, tell_turn
from i18n import Channel, _
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


MOVE_TEXT_LIMIT = 200


async def submit_move(interaction: discord.Interaction[NapkinBot], match_id: int, text: str, *,
                      expected_version: int | None = None, via_button: bool = False) -> MoveResult:
    """Apply a member's move and post one new board with it (and the computer's answer, if the computer plays).

    A button click is answered by removing the clicked board's buttons; a command used in the match's channel is
    answered with the board itself (deferred while the computer thinks); elsewhere it gets an ephemeral
    confirmation and the board goes to the match's thread. Errors before the move is stored propagate (the caller
    turns them into ephemeral replies; nothing is stored unless the move is legal). Once the move is stored, no
    failure reads as "nothing changed": every later failure is logged and the member told what was stored. A move
    after the mover's deadline forfeits the match instead (:class:`bot.service.TimeRanOut`), whose final board is
    posted before the refusal propagates.
    """
    bot = interaction.client
    guild_id = require_guild(interaction)
    if len(text) > MOVE_TEXT_LIMIT:
        raise BadOption(_("`{typed}…` is far too long to be a move.", typed=text[:40]))
    if not (text.isascii() and text.isprintable()):
        raise BadOption(_("`{typed}` has characters moves never use; moves are written with plain letters, digits "
                          "and signs.", typed=quote(text)))
    try:
        result = await bot.services.moves.play(match_id, guild_id, interaction.user.id, text, expected_version)
    except TimeRanOut as late:
        finished = cast(MatchRecord, late.match)
        await post_board(bot, finished)
        raise
    try:
        await _show_move(interaction, result, via_button=via_button)
    except Exception:  # the move is stored: whatever failed after it, the member hears the truth
        log.exception("showing the move of match %s failed after it was stored", result.match.id)
        await notify(interaction, _("Played `{move}` in match #{match}, but showing it failed; `/match board` posts "
                                    "the board again.", move=result.notation, match=str(result.match.id)))
    return result


async def _show_move(interaction: discord.Interaction[NapkinBot], result: MoveResult, *, via_button: bool) -> None:
    """Answer the interaction of a stored move, let the computer answer, and post the new board."""
    bot = interaction.client
    match = result.match
    here = interaction.channel_id == match.post_channel_id
    thinking = computer_to_move(match)
    answered = True
    try:
        if via_button:
            await update(interaction, view=None)
        elif here and thinking:
            await defer(interaction, private=False)
        elif not here:
            await respond(interaction, _("Played `{move}` in match #{match}; the board is in {channel}.",
                                         move=result.notation, match=str(match.id),
                                         channel=Channel(match.post_channel_id)), private=True)
    except discord.HTTPException as error:  # the clicked board was deleted meanwhile, or Discord failed
        log.info("could not answer the move in match %s at once: %s", match.id, error)
        answered = False
    stored = [result, *result.chained]  # the move, and the opponent's conditional reply played with it
    results = [*stored, *await computer_answers(bot, stored[-1].match)]
    final = results[-1]
    board = Board(results=results, actor=interaction.user.id, notice=await tell_discarded(bot, result))
    posted = False
    try:
        if here and not via_button and answered:
            message = await respond(interaction, **await board_payload(final.match, final.after, board,
                                                                  language=language_of(interaction, private=False)))
            posted = True
            await retire_previous_board(match.id, message)
            await tell_turn(bot, final.match, message, skip=board.actor)
        else:
            posted = await post_board(bot, final.match, final.after, board) is not None
    except discord.HTTPException as error:
        log.warning("could not post the board of match %s: %s", match.id, error)
        await queue_result(bot, final.match)
    if not posted:
        await notify(interaction, _("Played `{move}` in match #{match}, but Discord did not take the new board; "
                                    "`/match board` posts it again.", move=result.notation, match=str(match.id)))
    elif not interaction.response.is_done():
        await notify(interaction, _("Played `{move}` in match #{match}.", move=result.notation, match=str(match.id)))
