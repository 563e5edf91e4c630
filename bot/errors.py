"""Turning errors into ephemeral replies: one place maps exception types to what the member reads.

Commands and buttons raise domain errors (:class:`bot.service.ServiceError`, :class:`games.RulesError`) instead
of formatting replies themselves; anything unexpected is logged with its traceback and answered politely.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.answers import respond
from bot.ops.interactions import note_error
from bot.service import ServiceError
from bot.texts import plural, quote
from games import RulesError

log = logging.getLogger(__name__)

PERMISSION_NAMES = {"manage_guild": "Manage Server", "manage_messages": "Manage Messages"}
"""Discord's own display names where they differ from the API's."""

GENERIC = "Something went wrong on our side; nothing was changed. Please try again."
STALE_COMMAND = ("That is not one of my commands as they are now; Discord may still be updating its list. Try again "
                 "in a minute, or type / to see them.")
"""The answer to a command the bot does not have (a forged one, or one Discord's list still shows after an update)."""
DISCORD_FAILED = ("Discord failed to deliver my answer. What you did may already be saved: `/match board` or "
                  "`/match list` shows where things stand.")


def message_for(error: BaseException) -> str:
    """Return the sentence a member sees for ``error``."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, ServiceError | RulesError):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        if isinstance(error.__cause__, ServiceError | RulesError):  # a transformer's own refusal (the match option)
            return str(error.__cause__)
        return f"`{quote(error.value)}` is not a valid value here."
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return STALE_COMMAND
    if isinstance(error, app_commands.MissingPermissions):
        needed = ", ".join(PERMISSION_NAMES.get(p, p.replace("_", " ").title()) for p in error.missing_permissions)
        return f"You need the {needed} permission to do that."
    if isinstance(error, app_commands.CommandOnCooldown):
        seconds = max(1, round(error.retry_after))
        return f"That command is resting; try again in {plural(seconds, 'second')}."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Napkin Games works in servers, not in direct messages."
    if isinstance(error, app_commands.CheckFailure):
        return "You are not allowed to use this command here."
    if isinstance(error, discord.Forbidden):
        return "I am missing a permission in this channel (send messages, attach files or create threads)."
    if isinstance(error, discord.HTTPException):
        return DISCORD_FAILED
    return GENERIC


def is_refusal(error: BaseException) -> bool:
    """``True`` when ``error`` is one the bot answers on purpose, telling the member what was wrong (bad input, not
    allowed, a cooldown, a command it does not have); ``False`` for an unexpected one (logged, answered with
    :data:`GENERIC` or :data:`DISCORD_FAILED`)."""
    return message_for(error) not in (GENERIC, DISCORD_FAILED)


async def reply_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer ``interaction`` ephemerally with :func:`message_for` (logging unexpected errors); an autocomplete is
    answered with no choices."""
    text = message_for(error)
    original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
    unexpected = not is_refusal(error)
    note_error(original, expected=not unexpected)
    if unexpected:
        log.error("unhandled error in interaction %s", interaction.id, exc_info=original)
    if interaction.type is discord.InteractionType.autocomplete:
        if not interaction.response.is_done():
            try:
                await interaction.response.autocomplete([])
            except discord.HTTPException:
                log.info("could not answer autocomplete %s", interaction.id)
        return
    try:
        await respond(interaction, text, private=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply for interaction %s", interaction.id)
