"""``napkin play``'s local server (bot.local_play), driven through SimCord without a browser: what the page
would show comes from the same simulated server (tests/browser drives the page itself)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from simcord import MemberActor
from simcord.builders import UserHandle

from bot.client import TREE_HASH_KEY
from bot.local_play import (
    BOT_NAME,
    FOLLOW_SECONDS,
    GUILD_ID,
    LocalServer,
    catch_up_clock,
    local_server,
    parse_players,
    preview_page,
)
from games import GAMES
from storage import Database, ReadTx

SIMCORD_DEFAULT_SETTLE = 5.0
"""SimCord's own settle time-out (seconds), past which an action's outcome is called uncertain."""


def test_player_names_are_parsed_and_bad_ones_quoted() -> None:
    assert parse_players("alice,bob") == ("alice", "bob")
    assert parse_players(" Ann Lee , ben.k ") == ("Ann Lee", "ben.k")
    with pytest.raises(ValueError, match="'' is not a player name"):
        parse_players("ann,,ben")
    with pytest.raises(ValueError, match="'ANN' is named twice"):
        parse_players("ann,ANN")
    with pytest.raises(ValueError, match="'a<b' is not a player name"):
        parse_players("a<b")


async def _start_against_computer(server: LocalServer, name: str) -> int:
    """``/chopsticks start`` against the computer (hard, second seat); the match's id."""
    result = await server.players[name].slash(server.channel, "chopsticks start", opponent=_bot(server),
                                               level="hard", seat="second")
    assert not result.ephemeral, result.response.content
    (match,) = await server.bot.db.read(ReadTx.active_matches_of, GUILD_ID, server.players[name].id)
    return match.id


def _bot(server: LocalServer) -> MemberActor:
    """The bot as a member (the ``opponent`` that means the computer)."""
    return MemberActor(server.env, server.guild, UserHandle(server.env, server.env.backend.bot_user))


async def test_the_local_server_is_set_up_like_a_server_the_bot_lives_in(db: Database) -> None:
    began = time.time()
    async with local_server(db, ["alice", "bob"]) as server:
        assert set(server.players) == {"alice", "bob"}
        assert server.channel.name == "games"
        assert (await server.bot.services.settings.get(GUILD_ID)).use_threads is False
        assert server.bot.services.challenges.computer_name == BOT_NAME
        # the simulated clock was set to real time as the server started (however long the start took)
        assert began - 1 <= server.env.now().timestamp() <= time.time() + 1
        match_id = await _start_against_computer(server, "alice")
        board = server.channel.last_message  # threads are off: the board is in the channel itself
        assert not server.channel.threads
        assert board.attachments and board.attachments[0].filename == f"chopsticks-{match_id}-1.png"
        assert f"{BOT_NAME} (hard) played" in board.content
        assert began - 1 <= board.created_at.timestamp() <= time.time() + 1  # posted in real time, however slow


async def test_matches_go_on_across_runs_with_the_same_players_and_commands(db_path: Path) -> None:
    db = await Database.open(db_path)
    try:
        async with local_server(db, ["alice", "bob"]) as server:
            ids = {name: member.id for name, member in server.players.items()}
            channel_id, bot_id = server.channel.id, server.env.backend.bot_user.id
            match_id = await _start_against_computer(server, "alice")
    finally:
        await db.close()
    db = await Database.open(db_path)
    try:
        assert await db.read(ReadTx.get_meta, TREE_HASH_KEY)  # so the bot alone would not sync again
        # bob again, and a new player; alice is not playing this time.
        async with local_server(db, ["bob", "carl"]) as server:
            assert server.players["bob"].id == ids["bob"]
            assert server.players["carl"].id not in ids.values()
            assert (server.channel.id, server.env.backend.bot_user.id) == (channel_id, bot_id)
        async with local_server(db, ["alice"]) as server:
            alice = server.players["alice"]
            assert alice.id == ids["alice"]
            listed = await alice.slash(server.channel, "match list")
            assert f"#{match_id}" in listed.response.content
            moved = await alice.slash(server.channel, "chopsticks move", notation="LL")
            assert not moved.ephemeral, moved.response.content
            match = await db.read(ReadTx.get_match, match_id)
            assert match is not None and match.ply == 3  # her move and the computer's reply, in this run
            assert server.channel.last_message.content.startswith(f"**Chopsticks** · match #{match_id} · move 3")
    finally:
        await db.close()


async def test_a_computer_move_slower_than_simcords_default_settle_time_still_completes(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    chopsticks = GAMES["chopsticks"]
    think = chopsticks.computer_move

    def slow(state, level, rng):  # type: ignore[no-untyped-def]  # in the service's worker thread
        time.sleep(SIMCORD_DEFAULT_SETTLE + 0.5)
        return think(state, level, rng)

    monkeypatch.setattr(chopsticks, "computer_move", slow)
    async with local_server(db, ["alice"]) as server:
        match_id = await _start_against_computer(server, "alice")  # would raise TimeoutError at 5 s
        assert server.channel.last_message.content.startswith(f"**Chopsticks** · match #{match_id} · move 1")


async def test_the_follower_republishes_after_bot_activity_outside_page_actions(db: Database) -> None:
    async with local_server(db, ["alice"]) as server, preview_page(server) as page:
        assert page.url.startswith("http://127.0.0.1:")
        await asyncio.sleep(FOLLOW_SECONDS * 4)
        assert page.follower.refreshes == 0  # nothing happened, nothing republished
        await _start_against_computer(server, "alice")  # driven from here, not from a page
        for _ in range(100):
            await asyncio.sleep(FOLLOW_SECONDS)
            if page.follower.refreshes:
                break
        assert page.follower.refreshes == 1
        await asyncio.sleep(FOLLOW_SECONDS * 4)
        assert page.follower.refreshes == 1


async def test_deadlines_fall_due_on_the_real_clock(db: Database) -> None:
    async with local_server(db, ["alice", "bob"]) as server:
        alice, bob = server.players["alice"], server.players["bob"]
        challenge = await alice.slash(server.channel, "chopsticks start", opponent=bob, days=1)
        await bob.click(challenge.response, label="Accept")
        (match,) = await db.read(ReadTx.active_matches_of, GUILD_ID, alice.id)
        assert match.deadline is not None and abs(match.deadline - (time.time() + 86400)) < 60
        moved = catch_up_clock(server.env, lambda: time.time() + 86400 + 60)  # a day and a minute later
        assert moved > 86400
        await server.env.settle()  # what the follower does every TIMER_SECONDS
        match = await db.read(ReadTx.get_match, match.id)
        assert match is not None and match.status == "aborted"  # nobody moved: aborted, not forfeited
        assert "alice made no first move before the deadline" in server.channel.last_message.content
