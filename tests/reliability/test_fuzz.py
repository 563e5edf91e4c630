"""Hypothesis drives random sequences of commands and clicks from several members (the players, a bystander)
through the real bot under SimCord, over every game, against people and the computer, and checks the
invariants after every step: one move per ply made by the seat whose turn it was, the stored state equal to
the replay of the log, scores equal to the replay's, results counted once in the records; a refused action
changes nothing stored, and an applied move is exactly the move that was asked for."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simcord import Env

from bot.client import NapkinBot
from bot.service import load_state
from storage import Database, ReadTx
from tests.bot.helpers import buttons
from tests.reliability._support import (
    GAME_KEYS,
    World,
    assert_consistent,
    assert_ratings_match_results,
    command_for,
    ephemeral_refusal,
    full_snapshot,
    is_domain_error,
    legal_texts,
    match_of,
    quick_settle,
    solitaire_variant,
    start_command,
)
from tests.simcord_session import simcord_session

MAX_EXAMPLES = 20
MAX_STEPS = 30
ACTIONS = (["move"] * 6 + ["click"] * 3 + ["move elsewhere", "stale click", "wrong player", "wrong player",
           "garbage", "garbage", "resign", "draw", "decline draw", "abort", "board"])
GARBAGE = st.one_of(st.text(max_size=12), st.sampled_from(
    ["", "LL", "self LR", "split 1 3", "a1", "e5", "2@15,15", "3,9", "A-B", "1-2", "１", "@everyone", "x" * 300]))


def _games() -> list[str]:
    return list(GAME_KEYS)


class Stats:
    """Counts over all examples."""

    def __init__(self) -> None:
        self.examples = 0
        self.steps = 0
        self.applied = 0
        self.refused = 0


class Fuzz:
    """One example: a fresh database and bot (so that ids, random starts and computer moves, and hence the
    drawn choices, replay exactly when Hypothesis re-runs or shrinks an example)."""

    def __init__(self, env: Env, db: Database, stats: Stats) -> None:
        self.env = env
        self.db = db
        self.stats = stats

    async def start(self, world: World, data: Any, games: list[str]) -> int:
        game = data.draw(st.sampled_from(games), label="game")
        kind = data.draw(st.sampled_from(["people", "people", "computer", "solitaire"]), label="opponent")
        solo = solitaire_variant(game)
        if kind == "solitaire" and solo is None:
            kind = "people"
        options: dict[str, Any] = dict(solo or {}) if kind == "solitaire" else {}
        if kind == "computer":
            options.update(opponent=world.bot_member(), level="easy")
        elif kind == "people":
            options["opponent"] = world["bob"]
        result = await world["alice"].slash(world.channel, start_command(game), **options)
        assert not result.ephemeral, result.response.content
        if kind == "people":
            accepted = await world["bob"].click(result.response, label="Accept")
            assert not accepted.ephemeral
        return max(await self.db.read(ReadTx.all_match_ids))

    async def example(self, data: Any, games: list[str]) -> None:
        world = World(self.env, "alice", "bob", "carol")
        match_id = await self.start(world, data, games)
        for _ in range(data.draw(st.integers(4, MAX_STEPS), label="steps")):
            match = await match_of(self.db, match_id)
            if match.status != "active":
                match_id = await self.start(world, data, games)
                continue
            await self.step(world, data, match_id)
            self.stats.steps += 1
            await assert_consistent(self.db, match_id)
            await assert_ratings_match_results(self.db, world.guild.id)

    async def step(self, world: World, data: Any, match_id: int) -> None:
        match = await match_of(self.db, match_id)
        state = load_state(match)
        thread = world.thread()
        seats = {s.user_id for s in match.seats if not s.is_computer}
        members = [world[n] for n in ("alice", "bob", "carol")]
        mover = next(m for m in members if m.id == match.seats[state.current_seat].user_id)
        bystanders = [m for m in members if m.id != mover.id]
        action = data.draw(st.sampled_from(ACTIONS), label="action")
        texts = legal_texts(state)
        text = data.draw(st.sampled_from(texts), label="move")
        actor, expect_move = mover, None
        before = await full_snapshot(self.db)
        with quick_settle(self.env):
            if action in ("move", "click", "move elsewhere"):
                button = _button(thread.last_message, text) if action == "click" else None
                expect_move = text
                if button is not None:
                    result = await mover.click(thread.last_message, custom_id=button)
                elif action == "move elsewhere":
                    name, options = command_for(match.game, state, text)
                    result = await mover.slash(world.channel, name, **options, match=str(match_id))
                else:
                    name, options = command_for(match.game, state, text)
                    result = await mover.slash(thread, name, **options)
            elif action == "stale click":
                boards = [m for m in thread.history() if any(
                    cid.startswith("napkin:mv:") and not b.disabled for cid, b in buttons(m).items())]
                if not boards:
                    return
                board = data.draw(st.sampled_from(boards), label="board")
                choices = sorted(cid for cid, b in buttons(board).items()
                                 if cid.startswith("napkin:mv:") and not b.disabled)
                custom_id = data.draw(st.sampled_from(choices), label="button")
                actor = data.draw(st.sampled_from(members), label="clicker")
                result = await actor.click(board, custom_id=custom_id)
                if f":{match.version}:" in custom_id and actor.id == mover.id:
                    expect_move = custom_id.split(":", 4)[4]
            elif action == "wrong player":
                actor = data.draw(st.sampled_from(bystanders), label="who")
                name, options = command_for(match.game, state, text)
                result = await actor.slash(thread, name, **options)
            elif action == "garbage":
                actor = data.draw(st.sampled_from(members), label="who")
                garbage = data.draw(GARBAGE, label="text")
                name, options = command_for(match.game, state, texts[0])
                option = data.draw(st.sampled_from(sorted(options)), label="option")
                result = await actor.slash(thread, name, **{**options, option: garbage})
            else:
                actor = data.draw(st.sampled_from(members), label="who")
                name, options = {"resign": ("match resign", {}), "draw": ("match draw", {}),
                                 "decline draw": ("match draw", {"action": "decline"}),
                                 "abort": ("match abort", {}), "board": ("match board", {})}[action]
                result = await actor.slash(thread, name, **options)
        after = await match_of(self.db, match_id)
        if await full_snapshot(self.db) == before:  # nothing stored changed: a refusal, or showing the board
            if action == "board" and not result.ephemeral:
                return
            assert "Played" not in ephemeral_refusal(result), action
            assert not (expect_move and actor.id == mover.id and action != "stale click"), \
                f"the player to move was refused the legal move {expect_move!r}"
            self.stats.refused += 1
            return
        assert actor.id in seats, f"{action} by a non-player changed the database"
        if expect_move is not None or (action == "garbage" and after.ply > match.ply):
            assert actor.id == mover.id and after.ply > match.ply, action
            moves = await self.db.read(ReadTx.get_moves, match_id)
            assert moves[match.ply].seat == state.current_seat
            if expect_move is not None:
                assert moves[match.ply].notation == state.format_move(state.parse_move(expect_move))
            if action != "move elsewhere":  # elsewhere the confirmation is ephemeral; the board is in the thread
                assert not result.ephemeral
            self.stats.applied += 1
        else:  # a resignation, a draw offer or answer, or an abort: by a seated player, and never a move
            assert action in ("resign", "draw", "decline draw", "abort") and after.ply == match.ply, action
            assert not result.ephemeral


def _button(message: Any, move: str) -> str | None:
    if message is None:
        return None
    for custom_id, button in buttons(message).items():
        if custom_id.startswith("napkin:mv:") and custom_id.split(":", 4)[4] == move and not button.disabled:
            return custom_id
    return None


async def _example(path: Path, data: Any, games: list[str], stats: Stats) -> None:
    db = await Database.open(path)
    try:
        async with simcord_session(NapkinBot(db), settle_timeout=60.0) as env:
            await Fuzz(env, db, stats).example(data, games)
    finally:
        await db.close()
    unexpected = [error for error in env.errors if not is_domain_error(error)]
    assert not unexpected, unexpected
    stats.examples += 1


# SQLite only: every Hypothesis example needs a fresh database, which is a new file here (the storage, service and
# Discord-level suites run on both backends).
@pytest.mark.slow  # a sweep: Hypothesis's random command sequences
def test_random_command_sequences_keep_every_invariant(tmp_path: Path) -> None:
    games = _games()
    assert games, "no game is playable yet"
    stats = Stats()
    runs = itertools.count()

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def run(data: Any) -> None:
        asyncio.run(_example(tmp_path / f"fuzz-{next(runs)}.db", data, games, stats))

    run()
    assert stats.examples == MAX_EXAMPLES and stats.steps >= MAX_EXAMPLES * 4
    assert stats.applied > 0 and stats.refused > 0
    print(f"\nfuzz: {stats.steps} steps over {stats.examples} examples ({stats.applied} moves applied, "
          f"{stats.refused} refusals)")
