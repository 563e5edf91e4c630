"""Helpers for the Discord-level tests (SimCord handles, buttons, stored matches)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import discord

from bench._harness import World, command_for
from bot.service import load_state
from storage import Database, MatchRecord, ReadTx

__all__ = ["KEYS", "World", "both_sides_move", "button_id", "buttons", "command_for", "custom_ids", "labels",
           "move_button", "only_match_id", "pinged", "press", "snapshot", "stored"]

KEYS = {"accept": r"napkin:ch:\d+:accept", "decline": r"napkin:ch:\d+:decline", "rematch": r"napkin:rm:\d+",
        "answer": r"napkin:pz:ans:\d+:\d+", "pick": r"napkin:pz:pick:\d+:\d+", "show": r"napkin:pz:show:\d+",
        "next": r"napkin:pz:next:(?!any$)[a-z_]+", "any game": r"napkin:pz:next:any", "solve": r"napkin:pz:daily:\d+"}
"""A component by what it does, whatever language its label is in: the pattern of its ``custom_id``."""


def buttons(message: discord.Message) -> dict[str, discord.ui.Button[Any] | Any]:
    """The message's buttons by custom_id."""
    found = {}
    for row in message.components:
        for child in getattr(row, "children", []):
            if getattr(child, "custom_id", None):
                found[child.custom_id] = child
    return found


def labels(message: Any) -> dict[str, str | None]:
    """A message's components, in order, by custom id: each one's label (a select's placeholder); a response's raw
    rows (dicts) or a channel message's (discord.py's rows)."""
    found: dict[str, str | None] = {}
    for row in message.components or ():
        children = row.get("components", []) if isinstance(row, dict) else getattr(row, "children", [])
        for child in children:
            get = child.get if isinstance(child, dict) else lambda key, child=child: getattr(child, key, None)
            if get("custom_id"):
                found[get("custom_id")] = get("label") or get("placeholder")
    return found


def custom_ids(message: Any) -> list[str]:
    """The custom ids of a message's components, in order (:func:`labels`)."""
    return list(labels(message))


def button_id(message: Any, key: str) -> str:
    """The ``custom_id`` of the one component of ``message`` that does ``key`` (:data:`KEYS`: ``accept``,
    ``decline``, ``rematch``, ``answer``, ``show``, ``next``, ``any game``, ``solve``, ``pick``)."""
    found = [custom_id for custom_id in custom_ids(message) if re.fullmatch(KEYS[key], custom_id)]
    assert len(found) == 1, (key, custom_ids(message))
    return found[0]


async def press(actor: Any, message: Any, key: str) -> Any:
    """``actor`` clicks the button of ``message`` that does ``key`` (:func:`button_id`), whatever its label's
    language."""
    return await actor.click(message, custom_id=button_id(message, key))


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
