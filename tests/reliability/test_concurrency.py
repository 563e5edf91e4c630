"""Simultaneous submissions: one move per turn, one opponent per open challenge, and a resignation racing a move
leaves the log and the stored state in agreement.

Two levels: the service with ``asyncio.gather`` (also across two connections to the same file, as two bot
processes would be), and the real bot under SimCord with a burst of up to 20 clicks and commands that reach
discord.py before it handles any of them (see :func:`_support.burst`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

from bot.client import NapkinBot
from bot.service import MatchOver, NotAllowed, NotYourTurn, Outdated, Player, Services, load_state
from storage import Database, ReadTx
from tests.bot.helpers import move_button
from tests.reliability._support import (
    GAME_KEYS,
    World,
    assert_consistent,
    assert_no_mention_escapes,
    assert_ratings_match_results,
    burst,
    command_for,
    ephemeral_refusal,
    hands_over_turn,
    legal_texts,
    match_of,
    require_game,
    service_match,
    shuffled,
    start_discord_match,
)

pytestmark = pytest.mark.both_backends

GUILD = 4242
ALICE, BOB, CAROL = Player(11, "alice"), Player(12, "bob"), Player(13, "carol")
N = 20


def _plan(state: Any, version: int, mover: Player, waiting: Player, seed: int) -> list[tuple[str, Player, str, Any]]:
    """N submissions for the same turn: the mover's clicks (carrying the board's version) and commands (no
    version), the waiting player's clicks on the same board, and a non-player's commands."""
    texts = [t for t in legal_texts(state) if hands_over_turn(state, t)]
    assert texts, "no legal move that passes the turn"
    plan = []
    for i in range(N):
        text = texts[i % len(texts)]
        if i < 8:
            plan.append(("click", mover, text, version))
        elif i < 16:
            plan.append(("command", mover, text, None))
        elif i < 18:
            plan.append(("click", waiting, text, version))
        else:
            plan.append(("command", CAROL, text, None))
    return shuffled(plan, seed)


@pytest.mark.parametrize("game", GAME_KEYS)
async def test_twenty_simultaneous_submissions_apply_exactly_one_move(db: Database, game: str) -> None:
    require_game(game, renderer=False)
    services = Services(db)
    match = await service_match(services, game, GUILD, (ALICE, BOB))
    for round_ in range(3):
        match = await match_of(db, match.id)
        if match.status != "active":
            break
        state = load_state(match)
        mover, waiting = (ALICE, BOB) if state.current_seat == 0 else (BOB, ALICE)
        plan = _plan(state, match.version, mover, waiting, seed=round_)
        outcomes = await asyncio.gather(
            *(services.moves.play(match.id, GUILD, who.user_id, text, expected_version=version)
              for _kind, who, text, version in plan), return_exceptions=True)
        applied = [(p, o) for p, o in zip(plan, outcomes, strict=True) if not isinstance(o, BaseException)]
        assert len(applied) == 1, f"round {round_}: {len(applied)} moves applied"
        (_kind, who, text, _), result = applied[0]
        assert who == mover and result.notation == text
        for (_, who_refused, _, _), outcome in zip(plan, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                allowed = (NotAllowed, MatchOver) if who_refused == CAROL else (Outdated, NotYourTurn, MatchOver)
                assert isinstance(outcome, allowed), repr(outcome)
        moves = await services.reading.moves(match.id)
        assert len(moves) == match.ply + 1 and moves[-1].notation == text
        await assert_consistent(db, match.id)


async def test_two_processes_on_one_database_apply_one_move(db: Database) -> None:
    """Two bots on the same database (a restart overlapping the old process): each write's transaction (SQLite's
    BEGIN IMMEDIATE, PostgreSQL's lock on the match row) with the version check still lets exactly one of 20
    submissions through, and every other one is refused as a player would be (never a database error)."""
    second = await Database.open(db.path)
    try:
        services = [Services(db), Services(second)]
        match = await service_match(services[0], "chopsticks", GUILD, (ALICE, BOB))
        for round_ in range(4):
            match = await match_of(db, match.id)
            state = load_state(match)
            mover, waiting = (ALICE, BOB) if state.current_seat == 0 else (BOB, ALICE)
            plan = _plan(state, match.version, mover, waiting, seed=100 + round_)
            outcomes = await asyncio.gather(
                *(services[i % 2].moves.play(match.id, GUILD, who.user_id, text, expected_version=version)
                  for i, (_kind, who, text, version) in enumerate(plan)), return_exceptions=True)
            assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
            unexpected = [repr(o) for o in outcomes if isinstance(o, BaseException)
                          and not isinstance(o, Outdated | NotYourTurn | NotAllowed | MatchOver)]
            assert not unexpected, unexpected
            assert (await match_of(db, match.id)).ply == round_ + 1
            await assert_consistent(second, match.id)
    finally:
        await second.close()


async def test_twenty_simultaneous_accepts_seat_one_opponent(db: Database) -> None:
    services = Services(db)
    challenge = await services.challenges.create(guild_id=GUILD, channel_id=1, game="chopsticks", variant={},
                                                 challenger=ALICE, opponent=None)
    accepters = [Player(100 + i, f"m{i}") for i in range(N - 1)] + [ALICE]
    outcomes = await asyncio.gather(*(services.challenges.accept(challenge.id, GUILD, p) for p in accepters),
                                    return_exceptions=True)
    accepted = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(accepted) == 1
    match = accepted[0].match
    assert match.seats[0].user_id == ALICE.user_id and match.seats[1].user_id != ALICE.user_id
    names = {type(o).__name__ for o in outcomes if isinstance(o, BaseException)}
    assert names <= {"ChallengeClosed", "NotAllowed"}
    assert await db.read(ReadTx.all_match_ids) == [match.id]
    stored = await services.challenges.get(challenge.id)
    assert (stored.status, stored.match_id) == ("accepted", match.id)


async def test_resign_racing_a_move_at_the_service(db: Database) -> None:
    services = Services(db)
    rng = random.Random(9)
    seen = set()
    for trial in range(16):
        match = await service_match(services, "chopsticks", GUILD, (ALICE, BOB))
        opening = []
        for player in (ALICE, BOB):  # both sides move first: before that, a resignation aborts the match
            opening.append((await services.moves.play(match.id, GUILD, player.user_id, "LL")).notation)
            match = await match_of(db, match.id)
        state = load_state(match)
        text = rng.choice(legal_texts(state))
        resigner = rng.choice((ALICE, BOB))
        calls = [services.moves.play(match.id, GUILD, ALICE.user_id, text, expected_version=match.version),
                 services.endings.resign(match.id, GUILD, resigner.user_id)]
        if trial % 2:
            calls.reverse()
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        if trial % 2:
            outcomes.reverse()
        moved, resigned = outcomes
        assert not isinstance(resigned, BaseException)  # the match was active, so the resignation lands
        after = await match_of(db, match.id)
        assert after.status == "finished" and after.outcome["winner"] == 1 - resigner_seat(resigner)
        logged = [m.notation for m in await services.reading.moves(match.id)]
        if isinstance(moved, BaseException):
            assert isinstance(moved, MatchOver) and logged == opening
        else:
            assert logged == [*opening, text]
        seen.add(isinstance(moved, BaseException))
        await assert_consistent(db, match.id)
    assert seen == {True, False}, "both orders should have happened"
    await assert_ratings_match_results(db, GUILD)


def resigner_seat(player: Player) -> int:
    return 0 if player == ALICE else 1


# ---------------------------------------------------------------- Discord level


@pytest.mark.parametrize("game", GAME_KEYS)
async def test_burst_of_twenty_clicks_and_commands_applies_one_move(simcord_env, db: Database, game: str) -> None:
    require_game(game)
    world = World(simcord_env, "alice", "bob", "carol")
    match_id = await start_discord_match(world, db, game)
    thread = world.thread()
    start = len(simcord_env.http_requests)
    for round_ in range(2):
        match = await match_of(db, match_id)
        if match.status != "active":
            break
        state = load_state(match)
        mover, waiting = (world["alice"], world["bob"]) if state.current_seat == 0 else (world["bob"], world["alice"])
        board = thread.last_message
        texts = [t for t in legal_texts(state) if hands_over_turn(state, t)]
        actions: list[tuple[Any, str, Any]] = []
        for i in range(N):
            text = texts[i % len(texts)]
            button = move_button(board, text)
            if button is not None and i % 2 == 0:
                actor = waiting if i % 10 == 0 else mover
                actions.append((actor, "click", button.custom_id))
            elif i % 7 == 3:
                actions.append((world["carol"], "slash", command_for(game, state, text)))
            else:
                actions.append((mover, "slash", command_for(game, state, text)))
        actions = shuffled(actions, seed=round_ + 7)
        public_before = _public(thread)
        results = []
        async with burst(simcord_env):
            for actor, kind, what in actions:
                if kind == "click":
                    results.append(await actor.click(board, custom_id=what))
                else:
                    name, options = what
                    results.append(await actor.slash(thread, name, **options))
        winners = [r for r in results if not r.ephemeral]
        assert len(winners) == 1, [r.response.content[:60] for r in winners]
        for result in results:
            if result.ephemeral:
                ephemeral_refusal(result)
        after = await match_of(db, match_id)
        assert after.ply == match.ply + 1
        assert len(_public(thread)) == len(public_before) + 1  # exactly one new board
        await assert_consistent(db, match_id)
    players = [world["alice"].id, world["bob"].id]
    assert assert_no_mention_escapes(simcord_env, players, since=start) > 0


def _public(channel: Any) -> list[Any]:
    return [m for m in channel.history() if not m.flags.ephemeral]


async def test_burst_of_twenty_accepts_seats_one_opponent(simcord_env, db: Database) -> None:
    names = [f"m{i}" for i in range(N - 1)]
    world = World(simcord_env, "alice", *names)
    challenge = (await world["alice"].slash(world.channel, "chopsticks start")).response
    results = []
    async with burst(simcord_env):
        for name in shuffled([*names, "alice"], seed=3):
            results.append(await world[name].click(challenge, label="Accept"))
    accepted = [r for r in results if not r.ephemeral]
    assert len(accepted) == 1
    refusals = [ephemeral_refusal(r) for r in results if r.ephemeral]
    assert len(refusals) == N - 1
    assert all("no longer open" in t or "your own challenge" in t for t in refusals), refusals
    (match_id,) = await db.read(ReadTx.all_match_ids)
    match = await match_of(db, match_id)
    assert match.seats[0].display_name == "alice" and match.seats[1].display_name in names
    assert f"Accepted by **{match.seats[1].display_name}**" in challenge.content
    assert len(world.channel.threads) == 1


@contextlib.contextmanager
def one_after_the_other(bot: NapkinBot, first: str) -> Iterator[None]:
    """While the block runs, the service call of ``first`` (``"move"`` or ``"resign"``) goes first: the other one's
    service call starts once it has returned or raised. Both interactions still reach the bot together and are
    handled concurrently up to the database; this forces which of them the database sees first (on PostgreSQL
    the scheduling of the threads would decide, and one order could go untried)."""
    calls = {"move": (bot.services.moves, "play"), "resign": (bot.services.endings, "resign")}
    done = asyncio.Event()

    def leading(real: Any) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await real(*args, **kwargs)
            finally:
                done.set()
        return call

    def following(real: Any) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            await done.wait()
            return await real(*args, **kwargs)
        return call

    second = "resign" if first == "move" else "move"
    for name, wrap in ((first, leading), (second, following)):
        owner, method = calls[name]
        setattr(owner, method, wrap(getattr(owner, method)))
    try:
        yield
    finally:
        for owner, method in calls.values():
            delattr(owner, method)  # the class's method again


async def test_burst_resign_racing_a_move_keeps_log_and_state_in_agreement(simcord_env, simcord_bot: NapkinBot,
                                                                          db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    outcomes = set()
    for trial in range(6):
        match_id = await start_discord_match(world, db, "chopsticks")
        thread = world.thread()
        for player in ("alice", "bob"):  # both sides move first: before that, a resignation aborts the match
            await world[player].slash(thread, "chopsticks move", notation="RR")
        board = thread.last_message
        resigner = world["bob"] if trial % 3 else world["alice"]
        move_first = trial < 3
        with one_after_the_other(simcord_bot, "move" if move_first else "resign"):
            async with burst(simcord_env):
                results = {}
                for action in ("move", "resign") if move_first else ("resign", "move"):
                    if action == "resign":
                        results[action] = await resigner.slash(thread, "match resign")
                    elif trial % 2:
                        results[action] = await world["alice"].click(board,
                                                                     custom_id=move_button(board, "LL").custom_id)
                    else:
                        results[action] = await world["alice"].slash(thread, "chopsticks move", notation="LL")
        move_result, resign_result = results["move"], results["resign"]
        assert not resign_result.ephemeral
        match = await match_of(db, match_id)
        assert match.status == "finished" and match.outcome["termination"] == "resigned"
        moves = [m.notation for m in await db.read(ReadTx.get_moves, match_id)]
        if move_result.ephemeral:
            assert "is over" in ephemeral_refusal(move_result) and moves == ["RR", "RR"]
            outcomes.add("resign first")
        else:
            assert moves == ["RR", "RR", "LL"]
            outcomes.add("move first")
        assert move_result.ephemeral != move_first, trial  # the order forced is the order the database saw
        await assert_consistent(db, match_id)
    assert outcomes == {"resign first", "move first"}
    await assert_ratings_match_results(db, world.guild.id)


async def test_resign_while_the_computer_thinks_drops_its_move(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="hard")
    (match_id,) = await db.read(ReadTx.all_match_ids)
    thread = world.thread()
    await world["alice"].slash(thread, "chopsticks move", notation="RR")  # both sides move first (before that, a
    opened = (await match_of(db, match_id)).ply  # resignation aborts the match); the computer answered
    assert opened == 2
    async with burst(simcord_env):
        await world["alice"].slash(thread, "chopsticks move", notation="LL")
        await world["alice"].slash(thread, "match resign")
    match = await match_of(db, match_id)
    assert match.status == "finished" and match.outcome["winner"] == 1
    states = await assert_consistent(db, match_id)
    assert len(states) - 1 - opened in (0, 1, 2)  # the computer may have answered before the resignation, never after
