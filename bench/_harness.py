"""Driving the bot through SimCord for benchmarks and tests: a server with members, the slash command that plays a
move given in a game's notation, a burst of interactions that reach the bot before it handles any of them, and the
move-latency loop (:func:`move_latencies`) that the interaction benchmarks time."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from games import GAMES, State

START_SPACING = 7.0
"""Seconds of simulated time between two starts (the per-member start cooldown allows 10 a minute)."""


def command_for(game: str, state: State[Any], notation: str) -> tuple[str, dict[str, str]]:
    """Return the slash command (``"<group> <subcommand>"``, options) that plays ``notation`` in ``state`` of
    ``game``: the game's own :meth:`games.Game.command_for`, under its command group.

    Raises:
        ValueError: ``notation`` has no command form (never for the canonical notation of a legal move).
    """
    declared = GAMES[game]
    name, options = declared.command_for(state, notation)
    return f"{declared.command} {name}", options


class World:
    """A server with a games channel and named members, built on a SimCord environment."""

    def __init__(self, env: Any, *names: str) -> None:
        self.env = env
        self.guild = env.create_guild()
        self.channel = self.guild.create_text_channel("games")
        self.members = {name: self.guild.add_member(env.create_user(name)) for name in names}

    def __getitem__(self, name: str) -> Any:
        return self.members[name]

    def bot_member(self) -> Any:
        """The bot as a member handle (to pass as ``opponent``)."""
        from simcord.actors import MemberActor
        from simcord.builders import UserHandle

        return MemberActor(self.env, self.guild, UserHandle(self.env, self.env.backend.bot_user))

    def thread(self) -> Any:
        """The newest thread of the games channel."""
        threads = self.channel.threads
        assert threads, "no thread was opened"
        return threads[-1]


@contextlib.asynccontextmanager
async def delivered_at_once(env: Any) -> AsyncIterator[None]:
    """Make every SimCord verb inside the block return right after Discord emitted its event, without waiting for
    the bot (SimCord refuses overlapping actor operations: each verb waits until the bot is idle). This swaps
    SimCord's private settle step (simcord is pinned in pyproject), the one seam that lets simultaneous clicks and
    commands reach the real discord.py code paths together; the caller settles (or moves the clock) afterwards."""
    real = env._settle_internal

    async def deferred(*args: Any, **kwargs: Any) -> None:
        return None

    env._settle_internal = deferred
    try:
        yield
    finally:
        env._settle_internal = real


@contextlib.asynccontextmanager
async def burst(env: Any) -> AsyncIterator[None]:
    """Deliver every interaction started inside the block to the bot before it runs any of them
    (:func:`delivered_at_once`); leaving the block lets the bot handle all of them concurrently, and settles."""
    async with delivered_at_once(env):
        yield
    await env.settle()


async def move_latencies(db_path: Any, moves: int, games: tuple[str, ...] | None = None,
                         seed: int = 11, counts: dict[str, int] | None = None,
                         before_move: Callable[[int], str] | None = None,
                         by_tag: dict[str, list[float]] | None = None) -> dict[str, list[float]]:
    """Play ``moves`` moves of each game (all of the registry's by default) as two members through SimCord, each a
    slash command timed from the interaction to the reply recorded (stored, rendered, replied); matches are started
    and accepted as needed (not timed). Returns the times in milliseconds, by game; ``counts["interactions"]`` (when
    given) is set to the interactions sent in all (moves, starts, accepts). ``before_move(n)`` (when given) is called
    before the ``n``-th timed move (from 0) and returns a tag; ``by_tag`` then gets the times by tag too.

    Raises:
        RuntimeError: a start or a move was refused (the benchmark would time the wrong thing).
    """
    import random
    import time

    import simcord

    from bot.client import NapkinBot
    from bot.service import load_state
    from storage import Database, ReadTx

    db = await Database.open(db_path)
    samples: dict[str, list[float]] = {key: [] for key in games or tuple(GAMES)}
    sent = timed = 0
    try:
        async with simcord.run(NapkinBot(db)) as env:
            with env.time_context():
                world = World(env, "alice", "bob")
                rng = random.Random(seed)
                for key in samples:
                    while len(samples[key]) < moves:
                        await env.advance_time(START_SPACING)  # a member may start 10 matches a minute
                        start = await world["alice"].slash(world.channel, f"{GAMES[key].command} start",
                                                           opponent=world["bob"])
                        if start.ephemeral:
                            raise RuntimeError(f"{key}: start refused: {start.response.content}")
                        await world["bob"].click(start.response, label="Accept")
                        sent += 2
                        match_id = max(await db.read(ReadTx.all_match_ids))
                        thread = world.thread()
                        while len(samples[key]) < moves:
                            match = await db.read(ReadTx.get_match, match_id)
                            if match is None or match.status != "active":
                                break
                            state = load_state(match)
                            actor = world["alice"] if match.current_seat == 0 else world["bob"]
                            notation = state.format_move(GAMES[key].computer_move(state, "easy", rng))
                            name, options = command_for(key, state, notation)
                            tag = before_move(timed) if before_move is not None else ""
                            timed += 1
                            began = time.perf_counter()
                            result = await actor.slash(thread, name, **options)
                            samples[key].append((time.perf_counter() - began) * 1000)
                            if by_tag is not None:
                                by_tag.setdefault(tag, []).append(samples[key][-1])
                            sent += 1
                            if result.ephemeral:
                                raise RuntimeError(f"{key}: {notation} refused: {result.response.content}")
    finally:
        await db.close()
    if counts is not None:
        counts["interactions"] = sent
    return samples
