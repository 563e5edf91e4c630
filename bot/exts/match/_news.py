"""The match feature's news, posted later through the outbox (:mod:`bot.exts.outbox`): a finished match's final board
that could not be posted at once (or that the deadline pass decided), the reminder that a third of the time is left,
and the notice that a challenge expired unanswered. Each kind's poster is registered when the feature loads."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.service import Damaged, NotFound
from bot.service.challenges import EXPIRED
from bot.service.deadlines import CHALLENGE_EXPIRED_NEWS, REMINDER_NEWS
from bot.service.finisher import RESULT_NEWS
from bot.utils.boards import board_payload, describe_outcome
from bot.utils.buttons import challenge_view
from bot.utils.messages import retire_previous_board, send_dm, send_to_match, tell_turn
from bot.utils.names import addressed, may_ping, member_name, server_name
from bot.utils.outbox import Poster, Progress
from games import GAMES
from i18n import Channel, Moment, _, speaking
from storage import MatchRecord, OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)


def register(bot: NapkinBot) -> None:
    """Register the posters of the match feature's news."""
    bot.posters.register(RESULT_NEWS, Poster(lambda news, progress: _post_result(bot, news, progress),
                                             lambda news, gone: _match_given_up(bot, news, gone)))
    bot.posters.register(REMINDER_NEWS, Poster(lambda news, progress: _post_reminder(bot, news, progress),
                                               lambda news, gone: _match_given_up(bot, news, gone)))
    bot.posters.register(CHALLENGE_EXPIRED_NEWS, Poster(lambda news, progress: _post_expired(bot, news, progress),
                                                        _nobody_to_tell))


async def _match(bot: NapkinBot, news: OutboxRecord) -> MatchRecord | None:
    try:
        return await bot.services.reading.get_match(news.subject_id)
    except (NotFound, Damaged):
        return None


async def _post_result(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """A finished match's final board (nothing while it is still running: its next board shows it)."""
    match = await _match(bot, news)
    if match is None or match.status == "active":
        return False
    language = await bot.services.languages.server_language(match.guild_id)
    message = await send_to_match(bot, match, lambda: board_payload(match, language=language))
    await retire_previous_board(match.id, message)
    return True


async def _post_reminder(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """The reminder that a third of the time is left (nothing once the player moved or the match ended)."""
    match = await _match(bot, news)
    if match is None or match.status != "active" or match.ply != news.seq or match.current_seat is None \
            or match.deadline is None:
        return False
    seat = match.seats[match.current_seat]
    deadline = int(match.deadline)

    async def reminder() -> dict[str, Any]:
        language = await bot.services.languages.server_language(match.guild_id)
        text = _("{member}, a third of your time is left in match #{match}: move before {deadline} ({left}) or the "
                 "match is forfeited.", member=member_name(seat), match=str(match.id), deadline=Moment(deadline),
                 left=Moment(deadline, relative=True))
        return {"content": text.render(language),
                "allowed_mentions": discord.AllowedMentions(users=[discord.Object(seat.user_id)] if seat.pings
                                                            else False)}

    message = await send_to_match(bot, match, reminder)
    await tell_turn(bot, match, message, reminder=True)
    return True


async def _match_given_up(bot: NapkinBot, news: OutboxRecord, gone: bool) -> None:
    """Tell the players a match's news was for, once, by direct message: the result to each member of the finished
    match, the reminder to the member to move while it still holds."""
    match = await _match(bot, news)
    if match is None:
        return
    where = _("**{game}** match #{match} in **{server}** ({channel})", game=GAMES[match.game].title_text,
              match=str(match.id), server=server_name(bot, match.guild_id), channel=Channel(match.post_channel_id))
    why = _("its channel is gone") if gone else _("I can no longer post in its channel (a server admin can give me "
                                                  "back View Channel and Send Messages there)")
    if news.kind == RESULT_NEWS and match.status != "active":
        told = [seat for seat in match.seats if not seat.is_computer]
    elif news.kind == REMINDER_NEWS and match.status == "active" and match.ply == news.seq \
            and match.current_seat is not None and match.deadline is not None:
        told = [match.seats[match.current_seat]]
    else:
        return  # no longer true
    for user_id in sorted({seat.user_id for seat in told}):
        language = await bot.services.languages.member_language(user_id)
        with speaking(language):
            if news.kind == RESULT_NEWS:
                text = _("I could not post the final board of {where}: {why}. {outcome}", where=where, why=why,
                         outcome=describe_outcome(match))
            else:
                text = _("A third of your time is left in {where}: move before {deadline}. I could not post this "
                         "reminder there: {why}.", where=where, deadline=Moment(match.deadline or 0), why=why)
            words = text.render(language)
        await send_dm(bot, user_id, words)


async def _post_expired(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """Close an expired challenge on Discord: its message says so and its buttons are disabled (a click on a message
    whose id was never learned answers "expired" and disables them then), and the challenger is told (by name in
    bold when they turned pings off)."""
    try:
        challenge = await bot.services.challenges.get(news.subject_id)
    except NotFound:
        return False
    channel = bot.get_channel(challenge.channel_id) or await bot.fetch_channel(challenge.channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        return False
    pings = (await bot.services.vacations.prefs(challenge.challenger_id)).pings
    language = await bot.services.languages.server_language(challenge.guild_id)  # the challenge's message's
    text = _("{member}, nobody accepted your {game} challenge in time; it has expired.",
             member=addressed(challenge.challenger_id, challenge.challenger_name, pings),
             game=GAMES[challenge.game].title_text).render(language)
    mentions = may_ping(challenge.challenger_id, pings)
    if challenge.message_id is None:  # never learned: the notice stands alone
        await channel.send(text, allowed_mentions=mentions)
        return True
    if news.parts_done < 1:
        try:
            message = await channel.fetch_message(challenge.message_id)
        except discord.NotFound:  # the challenge's message was deleted: the notice stands alone
            await channel.send(text, allowed_mentions=mentions)
            return True
        await message.edit(content=f"{message.content}\n{EXPIRED.render(language)}",
                           view=challenge_view(challenge.id, disabled=True, language=language),
                           allowed_mentions=discord.AllowedMentions.none())
        await progress(1)
    await channel.send(text, reference=discord.MessageReference(message_id=challenge.message_id,
                                                                 channel_id=challenge.channel_id,
                                                                 fail_if_not_exists=False),
                       mention_author=False, allowed_mentions=mentions)
    return True


async def _nobody_to_tell(news: OutboxRecord, gone: bool) -> None:
    """An expired challenge's notice that cannot be posted: nobody else to tell (its challenger sees it expired)."""
    log.info("the %s news %s was given up; nobody else to tell", news.kind, news.subject_id)
