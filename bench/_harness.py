"""Driving the bot through SimCord for benchmarks and tests: a server with members, the slash command that plays a
move given in a game's notation, and a burst of interactions that reach the bot before it handles any of them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from games import GAMES, State


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
