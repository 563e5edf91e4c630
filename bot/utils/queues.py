"""Bounded heavy work: GIF replays wait for one of a few global slots, and each member has a small share of them, so
a flood of heavy work never starves the event loop (whose first answer to any interaction must come within Discord's
3 seconds) nor grows memory without bound. Computer searches have a per-member share only: the computer pool's
scheduler orders and bounds the searches themselves (:mod:`bot.service.computer`), and a global gate in front of
it would keep a quick move waiting behind slow ones before the scheduler could put it first."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import weakref
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from bot.service import LimitReached

COMPUTER_PER_MEMBER = 1
"""Computer searches one member's moves may run at once (their further matches wait)."""
REPLAY_SLOTS = 2
"""GIF replays drawn at once."""
REPLAY_PER_MEMBER = 1
"""Replays one member may have waiting or drawing (a further ``/match history`` is refused until it is done)."""


class WorkQueue:
    """At most ``slots`` pieces of work at once; per member at most ``per_member`` running or waiting.

    Args:
        slots: global concurrency (``None``: no global limit, the member's share only). per_member: each member's
            share. refuse: when a member's share is taken, refuse a further piece (:class:`LimitReached`) instead of
            letting it wait. what: the work, in words.
    """

    def __init__(self, slots: int | None, per_member: int, *, refuse: bool, what: str) -> None:
        self.slots = slots
        self.per_member = per_member
        self.refuse = refuse
        self.what = what
        self._global: asyncio.Semaphore | contextlib.nullcontext[None] | None = None
        self._members: dict[int, asyncio.Semaphore] = {}
        self._held: Counter[int] = Counter()
        self.running = 0
        """Pieces of work running now (for tests and benchmarks)."""

    @contextlib.asynccontextmanager
    async def slot(self, member_id: int) -> AsyncIterator[None]:
        """Hold a slot for ``member_id``'s work (waiting for one).

        Raises:
            LimitReached: ``refuse`` is set and the member already has ``per_member`` pieces waiting or running.
        """
        if self.refuse and self._held[member_id] >= self.per_member:
            raise LimitReached(f"Your previous {self.what} is still being made; try again when it is posted.")
        if self._global is None:  # created in the running loop
            self._global = asyncio.Semaphore(self.slots) if self.slots is not None else contextlib.nullcontext()
        member = self._members.setdefault(member_id, asyncio.Semaphore(self.per_member))
        self._held[member_id] += 1
        try:
            async with member, self._global:
                self.running += 1
                try:
                    yield
                finally:
                    self.running -= 1
        finally:
            self._held[member_id] -= 1
            if not self._held[member_id]:
                del self._held[member_id]
                self._members.pop(member_id, None)


def computer_queue() -> WorkQueue:
    """A queue for computer searches: each member's wait their turn; the pool's scheduler orders them all."""
    return WorkQueue(None, COMPUTER_PER_MEMBER, refuse=False, what="computer move")


def replay_queue() -> WorkQueue:
    """A queue for GIF replays (a member's second one at once is refused)."""
    return WorkQueue(REPLAY_SLOTS, REPLAY_PER_MEMBER, refuse=True, what="replay")


_QUEUES: weakref.WeakKeyDictionary[object, tuple[WorkQueue, WorkQueue]] = weakref.WeakKeyDictionary()


def queues(bot: object) -> tuple[WorkQueue, WorkQueue]:
    """The bot's computer queue and replay queue (made on first use)."""
    found = _QUEUES.get(bot)
    if found is None:
        found = _QUEUES[bot] = (computer_queue(), replay_queue())
    return found


_SCOPES: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()
_NEXT_SCOPE = itertools.count(1)


def member_key(interaction: Any) -> tuple[int, int | None, int]:
    """A per-member cooldown key for ``interaction``: (this bot instance, server, member). Discord's ids repeat
    across bot instances in one process (the offline harness), so each instance keeps its own buckets."""
    if interaction.client not in _SCOPES:
        _SCOPES[interaction.client] = next(_NEXT_SCOPE)
    return _SCOPES[interaction.client], interaction.guild_id, interaction.user.id
