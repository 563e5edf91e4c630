"""Computer turns to resume: a crash between a member's move and the computer's reply leaves the computer to move,
and computers have no deadline; the bot resumes each such turn at start-up, under a lease so that of several
processes starting together exactly one resumes it.

No ``discord`` import.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from storage import Database, ReadTx, Shards, Tx

COMPUTER_TURN_LEASE = 120.0
"""Seconds a process holds a computer turn it resumes (:meth:`ComputerTurnService.claim`): longer than a computer
move may take (:data:`bot.service.computer.MOVE_BUDGET`) with its board posted."""


class ComputerTurnService:
    """Computer turns to resume over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        shards: the shards this process serves (``None``: all): it resumes only their servers' matches.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards

    async def waiting(self) -> list[int]:
        """Ids of active matches waiting for the computer; with :attr:`shards`, of this process's servers."""
        return await self.db.read(ReadTx.computer_to_move, self.shards)

    async def claim(self, match_id: int) -> bool:
        """Claim the resuming of the computer's turn in ``match_id`` for :data:`COMPUTER_TURN_LEASE` seconds;
        ``False`` when another process holds it. Give it back with :meth:`release`."""
        now = self.clock()
        return await self.db.write(Tx.take_lease, f"computer-turn:{match_id}", now, now + COMPUTER_TURN_LEASE)

    async def release(self, match_id: int) -> None:
        """Give back a claim of :meth:`claim`."""
        await self.db.write(Tx.drop_lease, f"computer-turn:{match_id}")
