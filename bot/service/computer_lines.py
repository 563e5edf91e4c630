"""The lines the computer's work waits in, and the order they keep: fair between servers.

Work waits in one of three lanes (:data:`Lane`): the computer's moves, the pairing of a tournament's round, and long
work such as reviews (see :mod:`bot.service.computer_scheduler` for the order between the lanes).

Fair order between servers is start-time fair queueing with unit costs: each waiting item gets a tag one above its
server's previous item and never below the tag of the last item served, and items are served by tag (then by
arrival). One server's ten reviews thus take turns with another server's one: the other's waits for at most one of
them. A job's place in line (:attr:`bot.service.computer_scheduler.LongWork.ahead`) is what ``/match review`` shows
its member.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator
from typing import Generic, Literal, TypeVar

I = TypeVar("I")  # noqa: E741 - an item of a line

Lane = Literal["move", "long", "pair"]
"""The lanes the computer's work waits in: its moves, long work (reviews), the pairing of a tournament's round."""
LANES: tuple[Lane, ...] = ("move", "long", "pair")


class FairLine(Generic[I]):
    """Items waiting in fair order between servers: start-time fair queueing with unit costs (see the module's
    docstring). An item's rank comes first (a lower rank is served before any higher one), then its tag, then its
    arrival."""

    def __init__(self) -> None:
        self._items: list[tuple[tuple[int, int, int], I]] = []
        self._servers: dict[int, int] = {}  # id(item) -> server
        self._last: dict[int, int] = {}  # server -> its latest tag
        self._virtual = 0  # the tag of the last item served
        self._arrivals = itertools.count()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[I]:
        return (item for _, item in self._items)

    def push(self, item: I, server: int, rank: int = 0) -> None:
        """Add ``item`` of ``server``; rank below 0 (work run again after its worker died) skips the tags."""
        tag = 0
        if rank >= 0:
            tag = max(self._virtual, self._last.get(server, 0) + 1)
            self._last[server] = tag
        bisect.insort(self._items, ((rank, tag, next(self._arrivals)), item), key=lambda entry: entry[0])
        self._servers[id(item)] = server

    def pop(self, eligible: Callable[[I], bool] = lambda item: True) -> I | None:
        """Take the first item that is ``eligible`` (``None`` when none is)."""
        for index, (key, item) in enumerate(self._items):
            if eligible(item):
                del self._items[index]
                del self._servers[id(item)]
                self._virtual = max(self._virtual, key[1])
                return item
        return None

    def remove(self, item: I) -> bool:
        """Take ``item`` out of the line; ``False`` if it was not in it."""
        for index, (_, found) in enumerate(self._items):
            if found is item:
                del self._items[index]
                del self._servers[id(item)]
                return True
        return False

    def ahead(self, item: I) -> int:
        """How many items are before ``item``.

        Raises:
            ValueError: ``item`` is not in the line.
        """
        for index, (_, found) in enumerate(self._items):
            if found is item:
                return index
        raise ValueError("not in the line")

    def server_count(self, server: int) -> int:
        """Items of ``server`` in the line."""
        return sum(1 for found in self._servers.values() if found == server)


