"""Bounded heavy work: computer searches and GIF replays wait for one of a few global slots, and each member has
a small share of them, so a flood of heavy work never starves the event loop (whose first answer to any
interaction must come within Discord's 3 seconds) nor grows memory without bound."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot.service import LimitReached

COMPUTER_SLOTS = 2
"""Computer searches running at once (the others wait their turn, oldest first)."""
COMPUTER_PER_MEMBER = 1
"""Computer searches one member's moves may run at once (their further matches wait)."""
REPLAY_SLOTS = 2
"""GIF replays drawn at once."""
REPLAY_PER_MEMBER = 1
"""Replays one member may have waiting or drawing (a further ``/match history`` is refused until it is done)."""


Admitted = Callable[[int], Awaitable[None]]
"""Told, when a piece of work is taken in, how many pieces are ahead of it."""


class WorkQueue:
    """At most ``slots`` pieces of work at once; per member at most ``per_member`` running or waiting.

    Args:
        slots: global concurrency. per_member: each member's share. refuse: when a member's share is taken,
            refuse a further piece (:class:`LimitReached`) instead of letting it wait. what: the work, in words.
    """

    def __init__(self, slots: int, per_member: int, *, refuse: bool, what: str) -> None:
        self.slots = slots
        self.per_member = per_member
        self.refuse = refuse
        self.what = what
        self._global: asyncio.Semaphore | None = None
        self._members: dict[int, asyncio.Semaphore] = {}
        self._held: Counter[int] = Counter()
        self.running = 0
        """Pieces of work running now (for tests and benchmarks)."""
        self.waiting = 0
        """Pieces of work waiting for a slot now."""

    @contextlib.asynccontextmanager
    async def slot(self, member_id: int, admitted: Admitted | None = None) -> AsyncIterator[None]:
        """Hold a slot for ``member_id``'s work (waiting for one). ``admitted`` is awaited once the work is taken
        in, before any wait, with the number of pieces ahead of it (running or waiting; 0: it runs at once): where
        the member's answer stands.

        Raises:
            LimitReached: ``refuse`` is set and the member already has ``per_member`` pieces waiting or running.
        """
        if self.refuse and self._held[member_id] >= self.per_member:
            raise LimitReached(f"Your previous {self.what} is still being made; try again when it is posted.")
        if self._global is None:  # created in the running loop
            self._global = asyncio.Semaphore(self.slots)
        member = self._members.setdefault(member_id, asyncio.Semaphore(self.per_member))
        self._held[member_id] += 1
        self.waiting += 1
        entered = False
        try:
            if admitted is not None:
                must_wait = self._global.locked() or member.locked()
                await admitted(self.running + self.waiting - 1 if must_wait else 0)
            async with member, self._global:
                self.waiting -= 1
                entered = True
                self.running += 1
                try:
                    yield
                finally:
                    self.running -= 1
        finally:
            if not entered:
                self.waiting -= 1
            self._held[member_id] -= 1
            if not self._held[member_id]:
                del self._held[member_id]
                self._members.pop(member_id, None)


def computer_queue() -> WorkQueue:
    """A queue for computer searches (members wait their turn)."""
    return WorkQueue(COMPUTER_SLOTS, COMPUTER_PER_MEMBER, refuse=False, what="computer move")


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
