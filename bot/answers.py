"""Answering an interaction within Discord's 3 seconds, whatever the command waits on.

Discord drops an interaction that gets no first response within 3 seconds ("The application did not respond"). Every
slash command and button click is watched from its start (:func:`watch`, called by the command tree and by the
persistent buttons): when its answer is not on its way within :data:`ANSWER_BUDGET` seconds — it waits for the
database, for a lock another process holds, for a queue — the watch defers it then: a "thinking…" placeholder with
the visibility the command declares (:data:`PRIVATE`: only the member sees it), or a silent acknowledgement of a
click. The answer, when it comes, fills the placeholder in. Commands that always take a while (a replay, a drawing
on demand) defer first themselves (:func:`defer`) and say where they stand while they wait (:func:`progress`).

Every answer goes through :func:`respond` (a message), :func:`update` (the clicked message edited) or :func:`defer`,
never through ``interaction.response`` directly: one lock per interaction keeps the watch from deferring while an
answer is on its way, and each helper makes the call that fits what was sent before — the response itself, the
placeholder filled in, or a follow-up. An answer meant for the member alone that finds a public placeholder (the
command was slow and then refused) takes the placeholder down and follows up privately, so a refusal is never shown
to the channel; a public answer that finds a private placeholder completes it and follows up in public.

An interaction's token lasts :data:`TOKEN_LIFETIME` seconds (Discord's 15 minutes): an answer that comes later (a
long queue) uses no token. A public one is posted in the interaction's channel, a private one sent to the member by
direct message; a click's message is edited through its channel; a progress note is dropped.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import discord

import i18n
from bot.contract import TOKEN_LIFETIME

log = logging.getLogger(__name__)

# A moment, a member or a channel in a sentence is written the way Discord shows them: a timestamp that every
# member's client writes in their own time zone and language, a mention. (The services never write markup.)
i18n.write_with(i18n.Moment, lambda moment: discord.utils.format_dt(
    datetime.datetime.fromtimestamp(moment.at, datetime.UTC), "R" if moment.relative else "f"))
i18n.write_with(i18n.Member, lambda member: f"<@{member.user_id}>")
i18n.write_with(i18n.Channel, lambda channel: f"<#{channel.channel_id}>")

ANSWER_BUDGET = 1.5
"""Seconds an interaction may go unanswered before it is deferred: Discord allows 3 from when it sent the
interaction, and the gateway's delivery and the deferral's own round trip take some of them."""
TOKEN_MARGIN = 60.0
"""Seconds before the end of an interaction's token after which it is no longer used (a request may take a while)."""
PRIVATE: dict[Any, Any] = {"private": True}
"""``extras`` of a command whose answer only the member sees: a deferral of it is private too (commands are public
by default)."""

Visibility = bool | Callable[[discord.Interaction[Any]], bool]
"""Whether an answer is private: fixed, or read from the interaction (an option like ``public:true``)."""

Suggest = TypeVar("Suggest", bound=Callable[..., Awaitable[list[Any]]])

_KEY = "napkin.answer"
LANGUAGE_KEY = "napkin.language"
"""``interaction.extras`` key of the server's language for the interaction's public answers, when the command tree
learnt it (its ``/settings language``); else Discord's ``guild_locale`` is used."""


def language_of(interaction: discord.Interaction[Any], *, private: bool) -> str:
    """The shipped locale an answer to ``interaction`` is written in: the member's (``interaction.locale``) when only
    they see it, else the server's (its ``/settings language`` when known, else ``guild_locale``; in a direct
    message, the member's)."""
    if private or interaction.guild_id is None:
        return i18n.resolve(str(interaction.locale.value) if interaction.locale else None)
    chosen = interaction.extras.get(LANGUAGE_KEY)
    if chosen:
        return i18n.resolve(chosen)
    guild_locale = interaction.guild_locale
    return i18n.resolve(str(guild_locale.value) if guild_locale else None)


async def learn_language(interaction: discord.Interaction[Any]) -> None:
    """Learn the server's language for ``interaction``'s public answers (its ``/settings language``, else the
    ``guild_locale`` Discord reports): what :func:`language_of` answers from. For a command the tree learns it before
    the command runs; a button's callback calls this first."""
    if interaction.guild_id is None or LANGUAGE_KEY in interaction.extras:
        return
    reported = interaction.guild_locale.value if interaction.guild_locale else None
    interaction.extras[LANGUAGE_KEY] = await interaction.client.services.languages.server_language(
        interaction.guild_id, reported)


def _rendered(interaction: discord.Interaction[Any], private: bool, content: i18n.Textual | None) -> str | None:
    return i18n.render(content, language_of(interaction, private=private))


@dataclass(eq=False)
class _Answer:
    """How far an interaction's answer is."""

    lock: asyncio.Lock
    placeholder: bool | None = None
    """The visibility (private: ``True``) of a placeholder still to be filled in, else ``None``."""
    silent: bool = False
    """A click was acknowledged without a message: its original is the clicked message."""
    watch: asyncio.Task[None] | None = None


def _state(interaction: discord.Interaction[Any]) -> _Answer:
    found: _Answer | None = interaction.extras.get(_KEY)
    if found is None:
        found = interaction.extras[_KEY] = _Answer(asyncio.Lock())
    return found


def _stop_watch(state: _Answer) -> None:
    if state.watch is not None and state.watch is not asyncio.current_task():
        state.watch.cancel()
    state.watch = None


def watch(interaction: discord.Interaction[Any], private: Visibility = False) -> None:
    """Defer ``interaction`` if it has no answer on its way after :data:`ANSWER_BUDGET` seconds (``private``: the
    placeholder only the member sees; a click is acknowledged silently). Call it first thing, before anything that
    may wait; an answer given meanwhile (:func:`respond`, :func:`update`, :func:`defer`) ends the watch."""
    state = _state(interaction)
    if state.watch is not None or interaction.response.is_done():
        return

    async def guard() -> None:
        await asyncio.sleep(ANSWER_BUDGET)
        async with state.lock:
            state.watch = None
            try:
                await _defer(interaction, state, private(interaction) if callable(private) else private)
            except discord.HTTPException as error:  # Discord already gave up on it: nothing more to do
                log.warning("could not defer interaction %s in time: %s", interaction.id, error)

    state.watch = asyncio.get_running_loop().create_task(guard(), name=f"answer watch {interaction.id}")


async def _defer(interaction: discord.Interaction[Any], state: _Answer, private: bool) -> None:
    if interaction.response.is_done():
        return
    if interaction.type is discord.InteractionType.component:
        await interaction.response.defer()  # a click: acknowledged; its message is edited by update()
        state.silent = True
        return
    await interaction.response.defer(ephemeral=private, thinking=True)
    state.placeholder = private


def token_expired(interaction: discord.Interaction[Any]) -> bool:
    """``True`` once the interaction's token is too old to use (within :data:`TOKEN_MARGIN` of its end)."""
    age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    return age >= TOKEN_LIFETIME - TOKEN_MARGIN


async def _without_token(interaction: discord.Interaction[Any], private: bool,
                         fields: dict[str, Any]) -> discord.Message | None:
    """An answer past the token's lifetime: in the channel when public, else by direct message to the member."""
    log.info("interaction %s is past its token's lifetime: answering %s", interaction.id,
             "by direct message" if private else "in its channel")
    fields.pop("ephemeral", None)
    if private:
        return await interaction.user.send(**fields)
    channel = interaction.channel
    if not isinstance(channel, discord.abc.Messageable):
        return await interaction.user.send(**fields)
    return await channel.send(**fields)


async def defer(interaction: discord.Interaction[Any], *, private: bool) -> None:
    """Defer ``interaction`` now (nothing if it has an answer already): for work that always takes a while."""
    state = _state(interaction)
    async with state.lock:
        _stop_watch(state)
        await _defer(interaction, state, private)


async def progress(interaction: discord.Interaction[Any], text: i18n.Textual) -> None:
    """Say where a deferred answer stands (``"2 replays ahead of yours"``) in its placeholder, which the answer
    fills in later; nothing when there is no placeholder."""
    state = _state(interaction)
    async with state.lock:
        if state.placeholder is not None and not token_expired(interaction):
            await interaction.edit_original_response(content=_rendered(interaction, state.placeholder, text))


def _edits(content: str | None, fields: dict[str, Any]) -> dict[str, Any]:
    """``send`` keyword arguments as an edit's (files become attachments)."""
    edits = dict(fields)
    if content is not None:
        edits["content"] = content
    if "file" in edits:
        edits["attachments"] = [edits.pop("file")]
    if "files" in edits:
        edits["attachments"] = list(edits.pop("files"))
    return edits


async def respond(interaction: discord.Interaction[Any], content: i18n.Textual | None = None, *,
                  private: bool = False, **fields: Any) -> discord.Message | None:
    """Send the interaction's answer (``private``: only the member sees it; ``fields``: ``send``'s keywords — embed,
    file, view, allowed_mentions…): as the response when none was sent yet, into the placeholder when it was
    deferred, else as a follow-up. A :class:`i18n.Text` is written in the reader's language (:func:`language_of`).
    Returns the message sent; ``None`` when it was sent but Discord would not say which message it is.

    Raises:
        discord.HTTPException: Discord refused the answer.
    """
    state = _state(interaction)
    if content is not None:
        fields["content"] = _rendered(interaction, private, content)
    elif isinstance(fields.get("content"), i18n.Text):
        fields["content"] = _rendered(interaction, private, fields["content"])
    async with state.lock:
        _stop_watch(state)
        if not interaction.response.is_done():
            sent = await interaction.response.send_message(ephemeral=private, **fields)
            resource = sent.resource if sent is not None else None
            if isinstance(resource, discord.Message):  # Discord names the message in its answer to the callback
                return resource
            try:
                return await interaction.original_response()
            except discord.HTTPException as error:  # sent, but not named: the caller goes on without it
                log.info("could not learn the answer of interaction %s: %s", interaction.id, error)
                return None
        if token_expired(interaction):
            state.placeholder = None
            return await _without_token(interaction, private, fields)
        shown, state.placeholder = state.placeholder, None
        if shown is not None:
            if shown == private:
                return await interaction.edit_original_response(**_edits(None, fields))
            if private:  # a public placeholder for a private answer (a refusal): take it down, answer privately
                await interaction.edit_original_response(content="…")
                await interaction.delete_original_response()
            else:  # a private placeholder for a public answer: it says where the answer went
                await interaction.edit_original_response(
                    content=_rendered(interaction, True, i18n._("Done; my answer is below.")))
        return await interaction.followup.send(ephemeral=private, wait=True, **fields)


def suggest_in_time(suggest: Suggest) -> Suggest:
    """An autocomplete callback that answers within :data:`ANSWER_BUDGET` (an autocomplete cannot be deferred):
    suggestions that take longer (the database is slow) are dropped and none offered; Discord asks again as the member
    types."""
    @functools.wraps(suggest)
    async def timely(*args: Any, **kwargs: Any) -> list[Any]:
        try:
            async with asyncio.timeout(ANSWER_BUDGET):
                return await suggest(*args, **kwargs)
        except TimeoutError:
            log.info("suggestions took over %.1f s; none offered", ANSWER_BUDGET)
            return []

    return cast(Suggest, timely)


async def update(interaction: discord.Interaction[Any], **fields: Any) -> None:
    """Answer a click by editing the clicked message (``fields``: ``edit``'s keywords — content, view…).

    Raises:
        discord.HTTPException: Discord refused the edit (the message was deleted meanwhile, …).
    """
    state = _state(interaction)
    if isinstance(fields.get("content"), i18n.Text):
        fields["content"] = _rendered(interaction, False, fields["content"])
    async with state.lock:
        _stop_watch(state)
        if not interaction.response.is_done():
            await interaction.response.edit_message(**fields)
        elif state.silent and not token_expired(interaction):
            await interaction.edit_original_response(**fields)
        elif interaction.message is not None:
            await interaction.message.edit(**fields)
