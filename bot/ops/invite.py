"""The bot's invite address: the OAuth2 scopes and the permissions it needs, listed once (``napkin invite-url``;
``docs/operating.md`` shows the same list, which a test checks)."""

from __future__ import annotations

import base64
import binascii

import discord

SCOPES = ("bot", "applications.commands")
"""Slash commands need ``applications.commands``; the bot user needs ``bot``."""

PERMISSIONS = (
    ("view_channel", "View Channels", "see the channels where matches are played"),
    ("send_messages", "Send Messages", "post challenges and boards"),
    ("send_messages_in_threads", "Send Messages in Threads", "post boards in each match's thread"),
    ("create_public_threads", "Create Public Threads", "open a thread per match"),
    ("embed_links", "Embed Links", "reviews, leaderboards and statistics are embeds"),
    ("attach_files", "Attach Files", "the board images and replays"),
    ("read_message_history", "Read Message History", "answer in threads and find the board a button belongs to"),
)
"""Every permission the bot asks for: (``discord.Permissions`` flag, Discord's name for it, why)."""

PLACEHOLDER = "YOUR_APPLICATION_ID"
"""Stands for the application id in an address made without one."""


def permissions() -> discord.Permissions:
    """The permissions of :data:`PERMISSIONS`."""
    return discord.Permissions(**{flag: True for flag, _, _ in PERMISSIONS})


def invite_url(client_id: int | str = PLACEHOLDER) -> str:
    """The OAuth2 address that adds the bot (application ``client_id``) to a server with :data:`SCOPES` and
    :func:`permissions`."""
    return discord.utils.oauth_url(client_id, permissions=permissions(), scopes=SCOPES)


def application_id(token: str) -> int | None:
    """The application id a bot token starts with (its first part is the bot user's id in base64, which for a bot
    is the application's id), or ``None`` when ``token`` does not look like a bot token."""
    first = token.strip().split(".", 1)[0]
    try:
        decoded = base64.b64decode(first + "=" * (-len(first) % 4), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(decoded) if decoded.isdigit() and 15 <= len(decoded) <= 20 else None


def permissions_table() -> str:
    """The permissions as the admins' docs show them (Markdown: Discord's name, why)."""
    rows = [f"| {name} | {why} |" for _, name, why in PERMISSIONS]
    return "\n".join(["| permission | why |", "|---|---|", *rows])
