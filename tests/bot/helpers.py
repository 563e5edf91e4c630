"""Helpers for the Discord-level tests (SimCord handles, buttons, stored matches)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import discord

from bench._harness import World, command_for
from bot.service import load_state
from storage import Database, MatchRecord, ReadTx

__all__ = ["World", "both_sides_move", "buttons", "command_for", "move_button", "only_match_id", "pinged", "snapshot",
           "stored"]


def buttons(message: discord.Message) -> dict[str, discord.ui.Button[Any] | Any]:
    """The message's buttons by custom_id."""
    found = {}
    for row in message.components:
        for child in getattr(row, "children", []):
            if getattr(child, "custom_id", None):
                found[child.custom_id] = child
    return found


def move_button(message: discord.Message, move: str) -> Any | None:
    """The enabled button of ``message`` that plays ``move``, if any."""
    for custom_id, button in buttons(message).items():
        if custom_id.startswith("napkin:mv:") and custom_id.split(":", 4)[4] == move and not button.disabled:
            return button
    return None


async def stored(db: Database, match_id: int) -> MatchRecord:
    """The stored match (fails the test if missing)."""
    match = await db.read(ReadTx.get_match, match_id)
    assert match is not None
    return match


async def both_sides_move(world: World, db: Database, match_id: int, plies: int = 2) -> None:
    """The members to move in a duel make ``plies`` moves (each the first legal one, with the game's command and the
    ``match`` option), by default one each: a match that ends before both sides have moved is aborted, so a test of a
    resignation, an agreed draw or a rated result plays these first."""
    for _ in range(plies):
        match = await stored(db, match_id)
        assert match.status == "active" and match.current_seat is not None
        state = load_state(match)
        name, options = command_for(match.game, state, state.format_move(next(iter(state.legal_moves()))))
        user_id = match.seats[match.current_seat].user_id
        member = next(member for member in world.members.values() if member.id == user_id)
        moved = await member.slash(world.channel, name, **options, match=str(match_id))
        assert (await stored(db, match_id)).ply == match.ply + 1, moved


async def only_match_id(db: Database) -> int:
    """The id of the only match in the database."""
    ids = await db.read(ReadTx.all_match_ids)
    assert len(ids) == 1, ids
    return ids[0]


async def snapshot(db: Database) -> list[tuple[Any, ...]]:
    """Everything stored about matches, moves and challenges (to assert that nothing changed)."""
    rows = []
    for table, key in (("matches", "id"), ("moves", "match_id, ply"), ("challenges", "id"), ("seats", "match_id, seat"),
                       ("ratings", "guild_id, game, user_id")):
        rows.extend(tuple(r) for r in await db.fetchall(f"SELECT * FROM {table} ORDER BY {key}"))  # noqa: S608 - table names from a fixed tuple
    return rows


def pinged(env: Any, since: int, text: str) -> set[int]:
    """The users the bot's messages containing ``text`` (sent since request ``since`` of ``env``; there must be one)
    allowed to be pinged; none of them may let Discord parse mentions from the text itself."""
    users: set[int] = set()
    sent = 0
    for entry in env.http_requests[since:]:
        body = entry.json if isinstance(entry.json, dict) else {}
        payload = body.get("data") if entry.path.startswith("/interactions/") else body
        if isinstance(payload, dict) and text in str(payload.get("content", "")):
            sent += 1
            allowed = payload.get("allowed_mentions") or {}
            users |= {int(u) for u in allowed.get("users", [])}
            assert not allowed.get("parse"), allowed
    assert sent, f"no message containing {text!r} was sent"
    return users


async def until(condition: Callable[[], object], pause: float) -> None:
    """Wait until ``condition()`` holds, looking every ``pause`` seconds (for at most a minute).

    Raises:
        AssertionError: it never did.
    """
    for _ in range(int(60 / pause)):
        if condition():
            return
        await asyncio.sleep(pause)
    raise AssertionError("never happened")
