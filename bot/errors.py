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
from bot.texts import quote
from games import RulesError
from i18n import Text, Textual, _, n_

log = logging.getLogger(__name__)

PERMISSION_NAMES = {"manage_guild": _("Manage Server"), "manage_messages": _("Manage Messages")}
"""Discord's own display names of the permissions the bot's commands need (as each language's client shows them)."""

GENERIC = _("Something went wrong on our side; nothing was changed. Please try again.")
STALE_COMMAND = _("That is not one of my commands as they are now; Discord may still be updating its list. Try "
                  "again in a minute, or type / to see them.")
"""The answer to a command the bot does not have (a forged one, or one Discord's list still shows after an update)."""
DISCORD_FAILED = _("Discord failed to deliver my answer. What you did may already be saved: `/match board` or "
                   "`/match list` shows where things stand.")


def _said(error: ServiceError | RulesError) -> Textual:
    """A domain error's sentence: its :class:`i18n.Text` when it carries one (rendered in the reader's language),
    else its English words."""
    first = error.args[0] if error.args else None
    return first if isinstance(first, Text) else str(error)


def message_for(error: BaseException, command: str | None = None) -> Textual:
    """Return the sentence a member sees for ``error`` (``command``: the command's name as typed, ``match board``,
    for the refusals that name it), a :class:`i18n.Text` to render in their language, or English words (a refusal
    not yet in the catalogs)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, ServiceError | RulesError):
        return _said(error)
    if isinstance(error, app_commands.TransformerError):
        if isinstance(error.__cause__, ServiceError | RulesError):  # a transformer's own refusal (the match option)
            return _said(error.__cause__)
        return _("`{value}` is not a valid value here.", value=quote(error.value))
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return STALE_COMMAND
    if isinstance(error, app_commands.MissingPermissions):
        permission = error.missing_permissions[0] if error.missing_permissions else "manage_guild"
        needed = PERMISSION_NAMES.get(permission, permission.replace("_", " ").title())
        return _("You need the {permission} permission to do that.", permission=needed)
    if isinstance(error, app_commands.CommandOnCooldown):
        seconds = max(1, round(error.retry_after))
        if command:
            return n_("`/{command}` takes a rest between uses, so that its heavy work does not hold up everyone "
                      "else's games; try it again in {count} second.",
                      "`/{command}` takes a rest between uses, so that its heavy work does not hold up everyone "
                      "else's games; try it again in {count} seconds.", seconds, command=command)
        return n_("That takes a rest between uses; try it again in {count} second.",
                  "That takes a rest between uses; try it again in {count} seconds.", seconds)
    if isinstance(error, app_commands.NoPrivateMessage):
        return _("Napkin Games works in servers, not in direct messages.")
    if isinstance(error, app_commands.CheckFailure):
        return _("You are not allowed to use this command here.")
    if isinstance(error, discord.Forbidden):
        return _("I am missing a permission in this channel (send messages, attach files or create threads).")
    if isinstance(error, discord.HTTPException):
        return DISCORD_FAILED
    return GENERIC


def is_refusal(error: BaseException) -> bool:
    """``True`` when ``error`` is one the bot answers on purpose, telling the member what was wrong (bad input, not
    allowed, a cooldown, a command it does not have); ``False`` for an unexpected one (logged, answered with
    :data:`GENERIC` or :data:`DISCORD_FAILED`)."""
    return message_for(error) not in (GENERIC, DISCORD_FAILED)


async def reply_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer ``interaction`` ephemerally with :func:`message_for`, in the member's language (logging unexpected
    errors); an autocomplete is answered with no choices."""
    command = interaction.command.qualified_name if interaction.command is not None else None
    text = message_for(error, command)
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
