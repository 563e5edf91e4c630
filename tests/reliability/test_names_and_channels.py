"""Names are data and a match belongs to its channel: odd and masked-link display names shown as typed and never
turning a stored move into "nothing changed", a render failure after a stored move told truthfully, and a match
started in another match's thread belonging to the parent channel."""

from __future__ import annotations

from typing import Any

import pytest

import renderers
from bot.errors import GENERIC as GENERIC_TEXT
from bot.service import Player, Services
from storage import Database, ReadTx
from tests.bot.helpers import move_button
from tests.reliability._support import (
    World,
    edit_rows,
    match_of,
    service_match,
    start_discord_match,
)

GENERIC = str(GENERIC_TEXT)  # the English reply (the tests' members read English)

pytestmark = pytest.mark.both_backends

ALICE, BOB = Player(1, "alice"), Player(2, "bob")
GUILD = 10


async def _duel(services: Services, days: int = 3) -> int:
    return (await service_match(services, "chopsticks", GUILD, (ALICE, BOB), channel_id=5, days=days)).id


# ---------------------------------------------------------------- names are data


ODD_NAMES = ["two\nlines", "car\rreturn", "file\x1csep", "next\x85line", "para\u2029graph"]


@pytest.mark.parametrize("name", ODD_NAMES)
async def test_odd_display_names_never_turn_a_stored_move_into_nothing_changed(simcord_env, db: Database,
                                                                                name: str) -> None:
    world = World(simcord_env, "bob")
    odd = world.guild.add_member(simcord_env.create_user("odd"), nick=name)
    challenge = await odd.slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert not challenge.ephemeral, challenge.response.content
    await world["bob"].click(challenge.response, label="Accept")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    board = world.channel.threads[-1].last_message
    moved = await odd.click(board, custom_id=move_button(board, "LL").custom_id)
    assert (await match_of(db, match_id)).ply == 1
    notices = [m.content for m in ([moved.response] if moved.response else []) + list(moved.followups)]
    assert not any(GENERIC in n or "nothing was changed" in n for n in notices), notices
    latest = world.channel.threads[-1].last_message
    assert "move 1" in latest.content and "\u2029" not in latest.content and "\x1c" not in latest.content


async def test_a_render_failure_after_a_stored_move_tells_the_truth(simcord_env, db: Database,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await start_discord_match(world, db, "chopsticks")

    def broken(*args: Any, **kwargs: Any) -> bytes:
        raise ValueError("the font cannot draw this")

    monkeypatch.setattr(renderers, "render", broken)
    moved = await world["alice"].slash(world.thread(), "chopsticks move", notation="LL")
    assert (await match_of(db, match_id)).ply == 1
    assert not moved.ephemeral and "move 1" in moved.response.content
    assert "could not be drawn" in moved.response.content and GENERIC not in moved.response.content


async def test_masked_link_names_are_shown_as_typed_in_every_message(simcord_env, db: Database) -> None:
    world = World(simcord_env, "bob")
    name = "[free nitro](https://evil.example/x)"
    mal = world.guild.add_member(simcord_env.create_user("mal"), nick=name)
    world.members["mal"] = mal
    since = len(simcord_env.http_requests)
    challenge = await mal.slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(challenge.response, label="Accept")
    thread = world.thread()
    await mal.slash(thread, "chopsticks move", notation="LL")
    await world["bob"].slash(thread, "chopsticks move", notation="LL")  # (so that the resignation below is a result)
    await mal.slash(thread, "match list")
    await mal.slash(thread, "match draw")
    await world["bob"].slash(thread, "match draw", action="decline")
    await mal.slash(thread, "match resign")
    sent = 0
    for entry in simcord_env.http_requests[since:]:
        body = entry.json if isinstance(entry.json, dict) else {}
        content = (body.get("data") or {}).get("content") if "data" in body else body.get("content")
        if isinstance(content, str) and "free nitro" in content:
            sent += 1
            assert "[free nitro](" not in content.replace("\\[free nitro](", ""), content
    assert sent >= 5


# ---------------------------------------------------------------- a match belongs to its channel


async def test_a_match_started_in_another_matchs_thread_belongs_to_the_parent_channel(simcord_env,
                                                                                      db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carl")
    first = await start_discord_match(world, db, "chopsticks")
    first_thread = world.thread()
    started = await world["alice"].slash(first_thread, "chopsticks start", opponent=world["carl"])
    challenge = world.channel.last_message  # posted in the channel, not in match #1's thread
    assert "challenges" in challenge.content, started
    await world["carl"].click(challenge, label="Accept")
    second = max(await db.read(ReadTx.all_match_ids))
    match = await match_of(db, second)
    assert match.channel_id == world.channel.id and match.thread_id not in (None, first_thread.id)
    await world["alice"].slash(first_thread, "chopsticks move", notation="LL")  # no match option: match #1's
    assert (await match_of(db, first)).ply == 1 and (await match_of(db, second)).ply == 0


async def test_the_thread_lookup_never_picks_one_of_two_matches(db: Database) -> None:
    services = Services(db)
    first, second = await _duel(services), await _duel(services)
    # e.g. rows written by the old code
    await edit_rows(db, "UPDATE matches SET thread_id = 77 WHERE id IN (?, ?)", (first, second))
    assert await services.reading.match_in_thread(77) is None
    await services.challenges.set_thread(first, None)
    found = await services.reading.match_in_thread(77)
    assert found is not None and found.id == second
