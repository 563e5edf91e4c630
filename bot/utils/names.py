"""How members, seats and servers are named in messages: one line, no formatting, no mention formed by accident;
a seated member addressed by a mention or, when they turned pings off, their name in bold."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

import discord

from storage import MatchRecord, SeatRecord

if TYPE_CHECKING:
    from bot.client import NapkinBot


NAME_LIMIT = 64
"""Longest display name shown in a message, in characters (longer ones end with "…")."""


def plain_name(name: str) -> str:
    """A display name on one line: control, line and paragraph separator characters become spaces, runs of
    spaces one, and at most :data:`NAME_LIMIT` characters."""
    text = " ".join("".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") and c != "\u200d" else c
                            for c in name).split())
    text = text or "?"
    return text if len(text) <= NAME_LIMIT else text[:NAME_LIMIT - 1] + "…"


def escape(name: str) -> str:
    """A display name safe inside a message (:func:`plain_name`, then markdown, masked links and mentions shown as
    typed: no formatting, link, heading or ping is formed)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(plain_name(name)))


def names_of(match: MatchRecord) -> list[str]:
    """Display names per seat."""
    return [seat.display_name for seat in match.seats]


def member_name(seat: SeatRecord) -> str:
    """A seated member as a board addresses them: a mention, or their name in bold when they turned pings off."""
    return f"<@{seat.user_id}>" if seat.pings else f"**{escape(seat.display_name)}**"


def addressed(user_id: int, name: str, pings: bool) -> str:
    """A member a message is for: a mention, or their name in bold when they turned pings off (``/notify``)."""
    return f"<@{user_id}>" if pings else f"**{escape(name)}**"


def may_ping(user_id: int, pings: bool) -> discord.AllowedMentions:
    """The allowed mentions of a message for one member: them, unless they turned pings off; nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(user_id)] if pings else False)


def server_name(bot: NapkinBot, guild_id: int) -> str:
    """The server's name, safe in a message (``"a server"`` when the bot does not see it)."""
    guild = bot.get_guild(guild_id)
    return escape(guild.name) if guild is not None else "a server"
