"""The bot under SimCord for one test, from its start to its end.

SimCord's :meth:`simcord.env.Env.shutdown` detaches the bot (its tasks cancelled, the fakes removed) but never ends
it: discord.py's ``Client.close``, which stops the computer's worker processes (:meth:`bot.client.NapkinBot.close`),
is its runner's to call, as ``napkin run`` and ``napkin play`` do. A test that starts a bot ends it here, every
generation of it: the one it started with and each one :meth:`simcord.env.Env.restart_bot` attached in place of
another (the replaced one ends right away, as the process it stands for would), so that no worker outlives its bot.

SimCord brings a bot it attaches (at the start, and at each restart) to READY within a fixed 5 s, the bot's start-up
work included: a restarted bot resumes the computer turns a crash left, which starts worker interpreters, loads the
games and draws boards, and on a loaded machine that takes longer than 5 s. Here an attach waits as long as every
other settling of the environment (its ``settle_timeout``): bounded, but not by the machine's luck.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from simcord.env import Env

from bot.client import NapkinBot

ATTACH_SETTLE = 5.0
"""The seconds SimCord's attach gives the bot to settle (``simcord/_runtime.py``, pinned in pyproject)."""


@contextlib.asynccontextmanager
async def simcord_session(bot: NapkinBot, **options: Any) -> AsyncIterator[Env]:
    """A started :class:`simcord.env.Env` around ``bot`` (``options`` as ``Env`` takes them); on leaving, the
    environment is shut down and every bot it ran is closed."""
    env = Env(bot, **options)
    ran: list[Any] = [bot]
    attaching = False
    settle, start, restart = env._settle_internal, env.start, env.restart_bot

    async def settle_in_time(*, timeout: float | None = None, **named: Any) -> None:  # noqa: ASYNC109 - SimCord's
        if attaching and timeout == ATTACH_SETTLE:
            timeout = None  # the environment's settle_timeout
        await settle(timeout=timeout, **named)

    async def attached(attach: Any, *args: Any) -> None:
        nonlocal attaching
        attaching = True
        try:
            await attach(*args)
        finally:
            attaching = False

    async def restart_bot(new: Any = None) -> None:
        old = env.bot
        await attached(restart, new)
        if new is not None and new is not old:
            ran.append(new)
            await old.close()  # the replaced generation ends, its workers with it

    env._settle_internal = settle_in_time  # type: ignore[method-assign]  # SimCord's one seam (bench/_harness.py)
    env.restart_bot = restart_bot  # type: ignore[method-assign]
    await attached(start)
    try:
        yield env
    finally:
        try:
            await env.shutdown()
        finally:
            for each in ran:
                await each.close()  # (idempotent)
