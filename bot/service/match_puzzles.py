"""A server's finished matches yield their puzzles: every match that ends in a game with exact values is examined in
the background, and the puzzles it holds are kept for its server's ``/puzzle``, as a reviewed match's are.

The examination is the review's (:func:`bot.service.reviews.review_match`, one piece per move in the computer's long
lane), then :func:`games.puzzles.from_match` on it, in the same job; ``/match review`` keeps the puzzles of the
review it just made through the same :meth:`MatchPuzzleService.keep`, so a match reviewed by hand is found the same
way. The background work is the lowest of the long lane (:meth:`bot.service.computer.ComputerPool.long_work` with
``background``): members' reviews go first, one examination runs at a time, and like all long work it never takes
the worker kept for the computer's quick moves, so it never delays a player's move.

Every queue has a cap: at most :data:`WAITING` ended matches wait for their examination; a match that ends beyond
that is not examined (logged, and counted in :attr:`MatchPuzzleService.dropped`), and its puzzles are still kept if
a member reviews it. The line lives in memory only: a restart forgets the matches that were waiting (they are not
examined again at start-up; a review by hand still keeps their puzzles), so a restart never replays old work in a
burst.
"""

from __future__ import annotations

import collections
import functools
import logging
from collections.abc import Callable, Sequence

from bot.service.base import MatchEnds
from bot.service.computer import ComputerPool
from bot.service.computer_scheduler import LongWork
from bot.service.computer_workers import ComputerStopped, WorkerLost
from bot.service.errors import LimitReached
from bot.service.puzzles import PuzzleService
from bot.service.reviews import review_match
from games import RulesError
from games.puzzles import RULES, from_match
from games.review import Review
from storage import Database, MatchRecord, ReadTx

log = logging.getLogger(__name__)

WAITING = 200
"""Ended matches waiting for their examination at most; one that ends beyond is not examined (logged, counted)."""


class MatchPuzzleService:
    """Finds and keeps the puzzles of a server's finished matches (see the module's docstring).

    Args:
        db: the database (the match's moves are read from it).
        computer: the pool whose long lane runs the examinations.
        puzzles: where the puzzles found are kept (:meth:`PuzzleService.add_from_match`).
        ends: told of every match that ends (:class:`bot.service.base.MatchEnds`); this service listens.
        wake: called when a match waits for its examination (the task that runs :meth:`examine_waiting` answers).
        waiting: the cap on matches waiting (:data:`WAITING`).
    """

    def __init__(self, db: Database, *, computer: ComputerPool, puzzles: PuzzleService, ends: MatchEnds,
                 wake: Callable[[], None], waiting: int = WAITING) -> None:
        self.db = db
        self.computer = computer
        self.puzzles = puzzles
        self.wake = wake
        self.cap = waiting
        self.dropped = 0
        """Ended matches not examined because :attr:`cap` matches were waiting already."""
        self.examined = 0
        """Matches examined in the background since start-up (whether they held puzzles or not)."""
        self._line: collections.deque[MatchRecord] = collections.deque()
        ends.listen(self.ended)

    @property
    def waiting(self) -> int:
        """Ended matches waiting for their examination."""
        return len(self._line)

    def ended(self, match: MatchRecord) -> None:
        """A match ended (a :class:`bot.service.base.MatchEnds` listener: returns at once): put it in line when its
        game has exact values and a move was played; beyond :attr:`cap` waiting it is dropped, logged and counted."""
        if match.game not in RULES or match.ply == 0:
            return
        if len(self._line) >= self.cap:
            self.dropped += 1
            log.warning("match %s is not examined for puzzles: %d matches are waiting already (%d dropped so far)",
                     match.id, len(self._line), self.dropped)
            return
        self._line.append(match)
        self.wake()

    async def examine_waiting(self) -> None:
        """Examine the waiting matches one after the other, oldest first, each as a job of background long work of
        its server, and keep what they hold. A match that cannot be examined (the long lane full, its workers lost,
        it does not replay) is logged and skipped; the pool being stopped ends the pass (the rest stays waiting).
        """
        while self._line:
            match = self._line.popleft()
            try:
                async with self.computer.long_work(server=match.guild_id, background=True, what="examination") as job:
                    moves = await self.db.read(ReadTx.get_moves, match.id)
                    notations = [move.notation for move in moves]
                    reviewed = await review_match(job, match.game, match.initial_state, notations,
                                                  seed=f"review:{match.id}")
                    await self.keep(job, match, notations, reviewed)
            except ComputerStopped:
                self._line.appendleft(match)
                return
            except (LimitReached, WorkerLost, RulesError, ValueError) as error:
                log.warning("match %s was not examined for puzzles: %s", match.id, error)
            self.examined += 1

    async def keep(self, job: LongWork, match: MatchRecord, notations: Sequence[str], reviewed: Review) -> int:
        """The puzzles ``match`` holds (moves where a player gave value away and exactly one move kept it:
        :func:`games.puzzles.from_match` on its review ``reviewed`` of ``notations``, in ``job``), kept for its
        server's ``/puzzle``. Returns how many were new; a failure (the workers lost or stopped, the match does not
        replay) is logged and keeps none (0)."""
        try:
            found = await job.run(functools.partial(from_match, initial_state=match.initial_state,
                                                    match_id=match.id, reviewed=reviewed), match.game, list(notations))
            return await self.puzzles.add_from_match(match.guild_id, found)
        except (WorkerLost, ComputerStopped, RulesError, ValueError) as error:
            log.warning("no puzzles kept from match %s: %s", match.id, error)
            return 0
