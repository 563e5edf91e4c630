"""The daily puzzle's news, posted through the one outbox (:mod:`bot.exts.outbox`): the post (the board and a
**Solve it** button, then a thread on it where the server allows threads) and, a day later, the reveal (the answer, the
themes and who found it in how many tries, in the thread, or under the post; the button disabled). Each kind's poster
is registered when the feature loads; a retry posts only the parts not yet posted (``news.parts_done``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import discord

from bot.exts.puzzles._show import daily_file, daily_text, reveal_text
from bot.exts.puzzles._views import SOLVE, DailyButton
from bot.service import NotFound
from bot.service.daily_puzzles import DAILY_NEWS, REVEAL_NEWS
from bot.utils.outbox import Poster, Progress
from i18n import Moment, _
from storage import OutboxRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440
"""The daily puzzle's thread archives after a day without messages (its reveal comes a day after the post)."""


def register(bot: NapkinBot) -> None:
    """Register the posters of the daily puzzle's news."""
    bot.posters.register(DAILY_NEWS, Poster(lambda news, progress: _post_daily(bot, news, progress), _given_up))
    bot.posters.register(REVEAL_NEWS, Poster(lambda news, progress: _post_reveal(bot, news, progress), _given_up))


def _view(daily_id: int, language: str, *, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(DailyButton(daily_id, disabled=disabled, language=language))
    return view


async def _channel(bot: NapkinBot, channel_id: int) -> discord.abc.Messageable:
    channel = bot.get_channel(channel_id) or await bot.fetch_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        raise discord.ClientException(f"the daily puzzle's channel {channel_id} takes no messages")
    return channel


async def _post_daily(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """The daily post, then its thread (where the server allows threads)."""
    try:
        daily, puzzle = await bot.services.daily_puzzles.daily(news.subject_id)
    except NotFound:
        return False
    channel = await _channel(bot, daily.channel_id)
    language = await bot.services.languages.server_language(daily.guild_id)
    if news.parts_done < 1:
        message = await channel.send(daily_text(daily, puzzle, language),
                                     file=await daily_file(daily, puzzle, language), view=_view(daily.id, language),
                                     allowed_mentions=discord.AllowedMentions.none())
        await bot.services.daily_puzzles.daily_posted(daily.id, message_id=message.id)
        await progress(1)
        daily.message_id = message.id
    settings = await bot.services.settings.get(daily.guild_id)
    if not settings.use_threads or not isinstance(channel, discord.TextChannel) or daily.message_id is None:
        return True
    try:
        message = await channel.fetch_message(daily.message_id)
        thread = await message.create_thread(name=_("Daily puzzle {day}", day=daily.day).render(language),
                                             auto_archive_duration=THREAD_ARCHIVE_MINUTES)
    except discord.HTTPException as error:  # no thread: the reveal goes under the post
        log.info("no thread for the daily puzzle %s (%s); the reveal goes under the post", daily.id, error)
        return True
    await bot.services.daily_puzzles.daily_posted(daily.id, thread_id=thread.id)
    await thread.send(_("Answer privately with **{button}** above; who solved it, and in how many tries, is revealed "
                        "here {when}.", button=SOLVE, when=Moment(daily.reveal_at, relative=True)).render(language),
                      allowed_mentions=discord.AllowedMentions.none())
    return True


async def _post_reveal(bot: NapkinBot, news: OutboxRecord, progress: Progress) -> bool:
    """The answer and the solvers, in the thread (or under the post); the post's button disabled."""
    try:
        daily, puzzle = await bot.services.daily_puzzles.daily(news.subject_id)
    except NotFound:
        return False
    if daily.revealed or daily.message_id is None:  # revealed already, or never posted: nothing to reveal
        return False
    language = await bot.services.languages.server_language(daily.guild_id)
    if news.parts_done < 1:
        attempts = await bot.services.daily_puzzles.daily_attempts(daily.id)
        text = reveal_text(daily, puzzle, attempts, language)
        mentions = discord.AllowedMentions.none()
        try:
            where = await _channel(bot, daily.thread_id) if daily.thread_id else None
        except discord.NotFound:
            where = None
        if where is not None:
            await where.send(text, allowed_mentions=mentions)
        else:
            channel = await _channel(bot, daily.channel_id)
            await channel.send(text, allowed_mentions=mentions, reference=discord.MessageReference(
                message_id=daily.message_id, channel_id=daily.channel_id, fail_if_not_exists=False))
        await progress(1)
    try:
        channel = await _channel(bot, daily.channel_id)
        if isinstance(channel, discord.TextChannel):
            message = await channel.fetch_message(daily.message_id)
            await message.edit(view=_view(daily.id, language, disabled=True))
    except discord.NotFound:
        log.info("the daily puzzle %s's post is gone; its button stays as it was", daily.id)
    await bot.services.daily_puzzles.daily_revealed(daily.id)
    return True


async def _given_up(news: OutboxRecord, gone: bool) -> None:
    """A daily puzzle's news Discord refuses for good: the server's admins see it missing (nobody else to tell)."""
    log.warning("the %s news of daily puzzle %s was given up (%s)", news.kind, news.subject_id,
                "its channel is gone" if gone else "no access to its channel")
