"""Bounded heavy work: GIF replays are built one at a time in order of arrival from a line of bounded length, so
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
from i18n import Text, _, n_

COMPUTER_PER_MEMBER = 1
"""Computer searches one member's moves may run at once (their further matches wait)."""
REPLAY_SLOTS = 1
"""GIF replays built at once in a process (a replay is drawn frame by frame in one thread: one at a time keeps the
memory replays take to one replay's, and each still takes well under a second)."""
REPLAY_LINE = 6
"""GIF replays building or waiting in a process: a further ``/match history`` is refused until the line is shorter
(six members asking at once are all served, one after the other)."""
REPLAY_PER_MEMBER = 1
"""Replays one member may have waiting or building (a further ``/match history`` is refused until it is done)."""


def _still_making(what: str) -> Text:
    """The refusal of a member's second piece of work ``what`` (``replay``, ``computer move``) while one is made."""
    if what == "replay":
        return _("Your previous replay is still being made; try again when it is posted.")
    return _("Your previous computer move is still being made; try again when it is posted.")


def _busy(what: str, count: int) -> Text:
    """The refusal of a piece of work ``what`` when ``count`` of them fill the line."""
    if what == "replay":
        return n_("Sorry, the bot is busy making {count} replay right now; please try again in a minute.",
                  "Sorry, the bot is busy making {count} replays right now; please try again in a minute.", count)
    return n_("Sorry, the bot is busy making {count} computer move right now; please try again in a minute.",
              "Sorry, the bot is busy making {count} computer moves right now; please try again in a minute.", count)


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
            raise LimitReached(_still_making(self.what))
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


class Line:
    """Pieces of work taken in order of arrival, ``slots`` at a time; at most ``length`` in the line (running or
    waiting) and at most ``per_member`` of one member. Joining never waits, so a command can be refused or
    acknowledged at once and then wait for its turn, telling the member how many pieces are ahead of theirs.

    Args:
        slots: pieces running at once. length: pieces running or waiting at most. per_member: each member's share.
        what: the work in words ("replay"), for refusals.
    """

    def __init__(self, slots: int, length: int, per_member: int, *, what: str) -> None:
        if not 1 <= slots <= length:
            raise ValueError(f"a line of {length} cannot run {slots} at once")
        self.slots = slots
        self.length = length
        self.per_member = per_member
        self.what = what
        self._places: list[Place] = []

    @property
    def running(self) -> int:
        """Pieces running now."""
        return min(self.slots, len(self._places))

    @property
    def waiting(self) -> int:
        """Pieces waiting for a slot."""
        return len(self._places) - self.running

    def join(self, member_id: int) -> Place:
        """A place at the end of the line for ``member_id``'s piece of work (leave it with ``with`` or
        :meth:`Place.leave`).

        Raises:
            LimitReached: the member already has ``per_member`` pieces in the line, or the line is full.
        """
        if sum(place.member_id == member_id for place in self._places) >= self.per_member:
            raise LimitReached(_still_making(self.what))
        if len(self._places) >= self.length:
            raise LimitReached(_busy(self.what, self.length))
        place = Place(self, member_id)
        self._places.append(place)
        return place

    def _ahead(self, place: Place) -> int:
        return max(0, self._places.index(place) - self.slots + 1) if place in self._places else 0

    def _leave(self, place: Place) -> None:
        if place in self._places:
            self._places.remove(place)
            for other in self._places:
                other._moved.set()


class Place:
    """One piece of work's place in a :class:`Line`, from :meth:`Line.join` until it leaves."""

    def __init__(self, line: Line, member_id: int) -> None:
        self.line = line
        self.member_id = member_id
        self._moved = asyncio.Event()

    @property
    def ahead(self) -> int:
        """Pieces that must finish before this one runs (0: it runs now)."""
        return self.line._ahead(self)

    async def turns(self) -> AsyncIterator[int]:
        """Wait for this piece's turn: yields the number of pieces ahead (≥ 1) first and whenever it changes, and
        ends once the piece may run."""
        shown = 0
        while (ahead := self.ahead) > 0:
            if ahead != shown:
                shown = ahead
                yield ahead
            self._moved.clear()
            if self.ahead == ahead:
                await self._moved.wait()

    def leave(self) -> None:
        """Leave the line (done, refused or cancelled); the pieces behind move up. Leaving twice is harmless."""
        self.line._leave(self)

    def __enter__(self) -> Place:
        return self

    def __exit__(self, *_: object) -> None:
        self.leave()


def computer_queue() -> WorkQueue:
    """A queue for computer searches: each member's wait their turn; the pool's scheduler orders them all."""
    return WorkQueue(None, COMPUTER_PER_MEMBER, refuse=False, what="computer move")


def replay_queue() -> Line:
    """A line for GIF replays: one built at a time, :data:`REPLAY_LINE` at most, a member's second one at once
    refused."""
    return Line(REPLAY_SLOTS, REPLAY_LINE, REPLAY_PER_MEMBER, what="replay")


_QUEUES: weakref.WeakKeyDictionary[object, tuple[WorkQueue, Line]] = weakref.WeakKeyDictionary()


def queues(bot: object) -> tuple[WorkQueue, Line]:
    """The bot's computer queue and replay line (made on first use)."""
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
