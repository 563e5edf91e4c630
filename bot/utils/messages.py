"""Posting to a match's thread: finding it (or its channel, when the thread is gone), sending a board there and
taking the buttons off the previous one, telling the player to move by direct message, queueing a result Discord
did not take, and ephemeral notes to the member who acted.

Only the newest board of a match carries buttons (the previous one's are removed when a new one is posted, as far as
Discord lets us; a click that still arrives answers "out of date").
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.answers import respond
from bot.service.finisher import RESULT_NEWS
from bot.service.outbox import NEWS_RETRY_DELAYS
from bot.utils.boards import Board, board_payload
from bot.utils.names import escape, server_name
from games import GAMES, State
from i18n import Text, Textual, _, render
from storage import MatchRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


UNKNOWN_CHANNEL = 10003
"""Discord's error code for a channel or thread that no longer exists."""
DMS_PER_HOUR = 10
"""Direct messages one member gets from the bot in an hour at most (turns, reminders, challenges, notices); more are
dropped, with a log line: a crowd of opponents or challengers cannot flood a member's direct messages."""

_dm_limits: weakref.WeakKeyDictionary[object, commands.CooldownMapping[int]] = weakref.WeakKeyDictionary()


async def send_dm(bot: NapkinBot, user_id: int, text: Textual) -> bool:
    """Send member ``user_id`` the direct message ``text`` (nothing parsed as a mention; a :class:`i18n.Text` in the
    member's language as Discord last reported it), at most :data:`DMS_PER_HOUR` an hour per member (a further one
    is dropped with a log line). Returns whether it was sent; a failure (closed direct messages, anything Discord
    refuses) is only logged, never raised."""
    limits = _dm_limits.get(bot)
    if limits is None:
        limits = _dm_limits[bot] = commands.CooldownMapping(commands.Cooldown(DMS_PER_HOUR, 3600.0), lambda key: key)
    if limits.update_rate_limit(user_id, bot.now()) is not None:
        log.info("not sending member %s a direct message: %d sent in the last hour already", user_id, DMS_PER_HOUR)
        return False
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        words = render(text, await bot.services.languages.member_language(user_id)) if isinstance(text, Text) \
            else text
        await user.send(words, allowed_mentions=discord.AllowedMentions.none())
    except (discord.HTTPException, discord.ClientException) as error:
        log.info("could not send member %s a direct message: %s", user_id, error)
        return False
    return True


PayloadFactory = Callable[[], Awaitable[dict[str, Any]]]


_last_boards: dict[int, discord.Message] = {}
"""The newest board message of each match posted by this process (its buttons are removed by the next one)."""


async def _channel(bot: NapkinBot, channel_id: int, match_id: int) -> discord.abc.Messageable:
    channel = bot.get_channel(channel_id) or await bot.fetch_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        raise discord.ClientException(f"channel {channel_id} of match {match_id} takes no messages")
    return channel


async def forget_thread(bot: NapkinBot, match: MatchRecord) -> None:
    """The match's thread is gone (deleted): clear the stored thread id, so its news goes to its channel."""
    log.info("the thread %s of match %s is gone; posting in its channel %s", match.thread_id, match.id,
             match.channel_id)
    await bot.services.challenges.set_thread(match.id, None)
    match.thread_id = None


async def match_channel(bot: NapkinBot, match: MatchRecord) -> discord.abc.Messageable:
    """The thread (or channel) the match is played in; when its thread was deleted, the channel it was started
    in (and the stored thread id is cleared).

    Raises:
        discord.HTTPException: Discord does not know the channel (any more).
    """
    try:
        return await _channel(bot, match.post_channel_id, match.id)
    except discord.NotFound:
        if match.thread_id is None:
            raise
    await forget_thread(bot, match)
    return await _channel(bot, match.channel_id, match.id)


async def send_to_match(bot: NapkinBot, match: MatchRecord, payload: PayloadFactory) -> discord.Message:
    """Send ``await payload()`` in the match's thread, or, when the thread turns out to be gone, in its channel
    (the payload is built again: a file cannot be sent twice).

    Raises:
        discord.HTTPException, discord.ClientException: Discord refused (``NotFound``: the channel is gone too).
    """
    channel = await match_channel(bot, match)
    try:
        return await channel.send(**await payload())
    except discord.NotFound as error:
        if match.thread_id is None or error.code != UNKNOWN_CHANNEL:
            raise
    await forget_thread(bot, match)
    return await (await _channel(bot, match.channel_id, match.id)).send(**await payload())


async def retire_previous_board(match_id: int, current: discord.Message | None = None) -> None:
    """Remove the buttons of the match's previous board (best effort) and remember ``current`` as the newest."""
    previous = _last_boards.pop(match_id, None)
    if current is not None:
        _last_boards[match_id] = current
    if previous is None or (current is not None and previous.id == current.id) or not previous.components:
        return
    try:  # through the channel, never the token of the interaction that posted it (it lasts 15 minutes)
        channel = previous.channel
        await (previous if isinstance(channel, discord.GroupChannel) else
               channel.get_partial_message(previous.id)).edit(view=None)
    except discord.HTTPException as error:  # deleted, archived, or Discord failed: its clicks say "out of date"
        log.info("could not clear the buttons of an old board of match %s: %s", match_id, error)


async def post_board(bot: NapkinBot, match: MatchRecord, state: State[Any] | None = None,
                     board: Board | None = None) -> discord.Message | None:
    """Post a new board message in the match's channel; ``None`` if Discord refused (the move is stored)."""
    language = await bot.services.languages.server_language(match.guild_id)
    try:
        message = await send_to_match(bot, match, lambda: board_payload(match, state, board, language=language))
    except (discord.HTTPException, discord.ClientException) as error:
        log.warning("could not post the board of match %s: %s", match.id, error)
        await queue_result(bot, match)
        return None
    await retire_previous_board(match.id, message)
    if board is not None and board.ping:
        await tell_turn(bot, match, message, skip=board.actor)
    return message


def match_link(match: MatchRecord) -> str:
    """A link that opens the match's thread (or channel) in Discord."""
    return f"https://discord.com/channels/{match.guild_id}/{match.post_channel_id}"


async def tell_turn(bot: NapkinBot, match: MatchRecord, message: discord.Message | None = None, *,
                    skip: int | None = None, reminder: bool = False) -> bool:
    """Send the member to move in ``match`` a direct message that it is their turn (``reminder``: that a third of
    their time is left), with a link to ``message`` (the board or the reminder) or to the match's thread, if they
    asked for such messages (``/notify dm:on``) and are not ``skip`` (who just acted). Returns whether it was sent
    (:func:`send_dm`: capped per hour; a failure is only logged, never raised)."""
    if match.status != "active" or match.current_seat is None or len(match.seats) == 1:
        return False
    seat = match.seats[match.current_seat]
    if seat.is_computer or not seat.dm or seat.user_id == skip:
        return False
    opponents = ", ".join(escape(s.display_name) for s in match.seats if s.user_id != seat.user_id)
    server = server_name(bot, match.guild_id)
    link = message.jump_url if message is not None else match_link(match)
    # The game's title is its own catalog entry (the games mark it), rendered in the member's language.
    fields = {"game": _(GAMES[match.game].title), "match": str(match.id), "opponents": opponents, "server": server,
              "link": link, "due": f"<t:{int(match.deadline or 0)}:f>"}
    if reminder:
        text = _("A third of your time is left in **{game}** match #{match} against {opponents} in **{server}** "
                 "(deadline {due}): {link}", **fields) if match.deadline else \
            _("A third of your time is left in **{game}** match #{match} against {opponents} in **{server}**: "
              "{link}", **fields)
    else:
        text = _("It is your move in **{game}** match #{match} against {opponents} in **{server}** (deadline "
                 "{due}): {link}", **fields) if match.deadline else \
            _("It is your move in **{game}** match #{match} against {opponents} in **{server}**: {link}", **fields)
    return await send_dm(bot, seat.user_id, text)


async def queue_result(bot: NapkinBot, match: MatchRecord) -> None:
    """A finished match's final board could not be posted: queue it in the outbox, first tried again after the first
    retry delay (then with back-off until posted, or given up when Discord refuses it for good). Nothing for a running
    match (its next board, or ``/match board``, shows it)."""
    if match.status == "active":
        return
    await bot.services.outbox.queue(RESULT_NEWS, match.id, match.guild_id, seq=match.ply,
                                    delay=NEWS_RETRY_DELAYS[0])


async def notify(interaction: discord.Interaction[Any], text: Textual) -> None:
    """Tell the member ``text`` ephemerally (:func:`bot.answers.respond`; a :class:`i18n.Text` in their language); a
    Discord failure is only logged."""
    try:
        await respond(interaction, text, private=True)
    except discord.HTTPException as error:
        log.warning("could not notify interaction %s: %s", interaction.id, error)
