"""The computer's work in worker processes, behind a scheduler: moves for waiting members first, then the pairing of
a tournament's round, long work (reviews) in a lane of its own that never takes the last worker, fair between
servers.

A ``hard`` search is pure Python: run in a thread it holds the interpreter lock against the event loop, and every
member's command waits behind it. :class:`ComputerPool` is what the services ask the computer's work of: its moves
(:meth:`ComputerPool.move`), a round's pairing (:meth:`ComputerPool.pair`) and long work cut into pieces
(:meth:`ComputerPool.long_work`, :meth:`ComputerPool.run`). It runs them in worker processes
(:mod:`bot.service.computer_workers`), in the order its scheduler keeps (:mod:`bot.service.computer_scheduler`: the
lanes, the worker kept for quick moves, work run again when its worker dies), fair between servers
(:mod:`bot.service.computer_lines`), and tells its observer what happened (:mod:`bot.service.computer_observer`).

Every queue has a cap: beyond :attr:`ComputerPool.move_queue` waiting moves a move is played at once at the ``easy``
level; long work beyond its caps (per member, per server, in all) and pairings beyond :data:`PAIR_QUEUE` are refused
with :class:`LimitReached`, whose text says why.

**Never silently weaker.** Every game bounds its own search by work, not by the clock (Monte-Carlo iterations and
rollouts, node budgets), so a move is reproducible from its seed. :attr:`ComputerPool.budget` is the wall-clock guard
above that: a move not answered within it (the bot overloaded far beyond its means), one that waits behind a full
queue, or one whose workers died :data:`bot.service.computer_scheduler.MAX_DEATHS` times is played at the ``easy``
level, which costs next to nothing, and says so: :attr:`ComputerMove.quick` names the reason, the board tells the
players, and the pool's observer counts it (``napkin_computer_fallbacks_total``).

``workers=0`` runs the work in a thread of the event loop's process instead: what a process without an event loop to
protect uses (``napkin demo``, the service used alone in tests), and what :class:`ComputerPool` falls back to before
:meth:`ComputerPool.start` and after :meth:`ComputerPool.close` (long work still takes its turn).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import statistics
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

from bot.service.computer_observer import QuickReason
from bot.service.computer_scheduler import LongWork, Scheduler
from bot.service.computer_workers import ComputerStopped, WorkerLost
from bot.service.errors import LimitReached
from bot.workers import choose_notation, cpu_bounded
from games import Level
from i18n import Text, _, n_

log = logging.getLogger(__name__)
T = TypeVar("T")
LongKind = Literal["review", "examination", "job"]
"""What a job of long work is, as its refusals name it: a member's review, a match's examination for puzzles, any
other job."""

MOVE_BUDGET = 30.0
"""Seconds a computer move may take, from the request to the answer, before an ``easy`` move is played instead."""
QUICK_SECONDS = 0.05
"""A move whose game and level took at most this many CPU seconds of a worker (the median of the latest
:data:`COST_SAMPLES`; or that was never measured) is quick: it goes before the other moves, which are slow."""
MOVE_QUEUE = 256
"""Moves waiting for a worker beyond which a move is played at the ``easy`` level at once."""
LONG_PER_MEMBER = 1
"""Jobs of long work (reviews) one member may have waiting or running."""
LONG_QUEUE_PER_SERVER = 10
"""Jobs of long work one server may have waiting for their turn."""
LONG_QUEUE_PER_SLOT = 20
"""Jobs of long work that may wait for their turn, per review slot (so that the last one's wait stays bounded)."""
PAIR_QUEUE = 64
"""Pairings waiting for a worker beyond which another is refused (:class:`LimitReached`; its round is paired later)."""
PAIR_WALL_FACTOR = 5.0
"""A pairing not answered within this many times its CPU budget of wall-clock time (its wait included) is given up
all the same: a worker that no longer gets the CPU at all is something its CPU budget cannot see."""
COST_SAMPLES = 9
"""The latest searches of a game and level whose median CPU seconds tells whether its next is expected to be quick
(a median: the first search in a fresh worker, which fills the game's caches, says little of the next ones)."""


def _still_made(what: LongKind) -> Text:
    """The refusal of a member's second job of long work of kind ``what`` while the first is under way."""
    if what == "examination":
        return _("Your previous examination is still being made; it is posted when it is ready.")
    if what == "job":
        return _("Your previous job is still being done; its answer comes when it is ready.")
    return _("Your previous review is still being made; it is posted when it is ready.")


def _waiting_here(what: LongKind, count: int) -> Text:
    """The refusal when ``count`` jobs of long work of the server wait already (``what``: the one refused)."""
    if what == "examination":
        return n_("{count} examination is already waiting in this server; please try again in a few minutes.",
                  "{count} examinations are already waiting in this server; please try again in a few minutes.",
                  count)
    if what == "job":
        return n_("{count} job is already waiting in this server; please try again in a few minutes.",
                  "{count} jobs are already waiting in this server; please try again in a few minutes.", count)
    return n_("{count} review is already waiting in this server; please try again in a few minutes.",
              "{count} reviews are already waiting in this server; please try again in a few minutes.", count)


def _waiting_everywhere(what: LongKind, count: int) -> Text:
    """The refusal when ``count`` jobs of long work wait already in the whole lane (``what``: the one refused)."""
    if what == "examination":
        return n_("The computer has {count} examination waiting; please try again in a few minutes.",
                  "The computer has {count} examinations waiting; please try again in a few minutes.", count)
    if what == "job":
        return n_("The computer has {count} job waiting; please try again in a few minutes.",
                  "The computer has {count} jobs waiting; please try again in a few minutes.", count)
    return n_("The computer has {count} review waiting; please try again in a few minutes.",
              "The computer has {count} reviews waiting; please try again in a few minutes.", count)


@dataclass(frozen=True)
class ComputerMove:
    """The computer's answer: the move's notation, and why it is a quick move instead of a search at the level asked
    (:data:`QuickReason`), if it is one."""

    notation: str
    quick: QuickReason | None = None


class ComputerPool(Scheduler):
    """Where the computer's work runs: its moves, and long work such as reviews (see the module's docstring).

    Args:
        workers: worker processes (``None``: one per CPU, :func:`bot.service.computer_workers.machine_workers`;
            ``0``: a thread instead).
        budget: seconds before a move is given up for an ``easy`` one (:data:`MOVE_BUDGET`).
        review_slots: jobs of long work (reviews) running at once (``None``: every worker but one, at least one).
        per_server: jobs of long work of one server running at once (``None``: half the review slots, at least one).
        move_queue: moves waiting beyond which a move is played at the ``easy`` level (:data:`MOVE_QUEUE`).

    Raises:
        ValueError: ``workers`` below 0; ``review_slots`` below 1, or above ``workers - 1`` with several workers;
            ``per_server`` below 1 or above the review slots.
    """

    def __init__(self, workers: int | None = None, *, budget: float = MOVE_BUDGET,
                 review_slots: int | None = None, per_server: int | None = None,
                 move_queue: int = MOVE_QUEUE) -> None:
        super().__init__(workers, review_slots=review_slots, per_server=per_server)
        self.budget = budget
        self.move_queue = move_queue
        self.long_queue = LONG_QUEUE_PER_SLOT * self.review_slots
        """Jobs of long work that may wait for their turn, in all."""
        self.searches = 0
        """Computer moves asked for and not answered yet (running in a worker or waiting for one)."""
        self.reviews = 0
        """Jobs of long work (reviews) waiting for their turn or running."""
        self.pairings = 0
        """Pairings asked for and not answered yet (running in a worker or waiting for one)."""
        self._per_member: collections.Counter[int] = collections.Counter()
        self._costs: dict[tuple[str, str], collections.deque[float]] = {}
        self._measuring: set[tuple[str, str]] = set()  # kinds of move never measured, one of which is running

    # ------------------------------------------------------------------------------------------ moves

    def measured_slow(self, game_key: str, level: Level) -> bool | None:
        """Whether ``level`` moves of ``game_key`` count as slow: the median CPU seconds of the last
        :data:`COST_SAMPLES` of them above :data:`QUICK_SECONDS`; ``None`` before one was measured."""
        costs = self._costs.get((game_key, level))
        return statistics.median(costs) > QUICK_SECONDS if costs else None

    async def move(self, game_key: str, state: dict[str, Any], level: Level, seed: str, *,
                   server: int = 0) -> ComputerMove:
        """The computer's move at ``level`` in ``state`` (``to_dict()`` form) of a match of ``server``, searched in a
        worker within :attr:`budget` seconds; deterministic for ``seed``. Past the budget, behind a full queue, or
        after its workers died :data:`~bot.service.computer_scheduler.MAX_DEATHS` times, the ``easy`` move instead,
        marked :attr:`ComputerMove.quick`.

        Raises:
            games.InvalidState, games.IllegalMove: as :func:`choose_notation`.
            ComputerStopped: the pool was closed while the move waited or ran.
        """
        self.searches += 1
        try:
            return await self._move(game_key, state, level, seed, server)
        finally:
            self.searches -= 1

    async def _move(self, game_key: str, state: dict[str, Any], level: Level, seed: str,
                    server: int) -> ComputerMove:
        if not self.running:
            return ComputerMove(await asyncio.to_thread(choose_notation, game_key, state, level, seed))
        reason: QuickReason
        if len(self._moves) >= self.move_queue:
            reason = "queue_full"
        else:
            key = (game_key, level)
            costs = self._costs.setdefault(key, collections.deque(maxlen=COST_SAMPLES))
            # never measured: quick, but only the first one until it is (others of its kind may be slow)
            measured = self.measured_slow(game_key, level)
            slow = key in self._measuring if measured is None else measured
            first = not costs and not slow
            if first:
                self._measuring.add(key)
            if not slow:
                self._quick_asked = time.perf_counter()
            try:
                async with asyncio.timeout(self.budget):
                    notation, seconds = await self._piece("move", choose_notation, (game_key, state, level, seed),
                                                          server=server, slow=slow)
            except TimeoutError:
                reason = "overloaded"
            except WorkerLost:
                reason = "worker_lost"
            else:
                costs.append(seconds)
                return ComputerMove(notation)
            finally:
                if first:
                    self._measuring.discard(key)
        notation = await asyncio.to_thread(choose_notation, game_key, state, "easy", seed)
        if level == "easy":  # the move the worker would have played
            return ComputerMove(notation)
        log.warning("a %s move of %s played at the easy level: %s", level, game_key, reason)
        self.observer.fell_back(game_key, reason)
        return ComputerMove(notation, reason)

    async def choose(self, game_key: str, state: dict[str, Any], level: Level, seed: str) -> str:
        """The notation of :meth:`move` (for callers that need not know whether it was a quick move)."""
        return (await self.move(game_key, state, level, seed)).notation

    # ------------------------------------------------------------------------------------------ long work

    @contextlib.asynccontextmanager
    async def long_work(self, *, server: int = 0, member: int | None = None, what: LongKind = "review",
                        background: bool = False) -> AsyncIterator[LongWork]:
        """A job of long work of ``server`` (for ``member``, if a member asked for it), in line from the moment the
        block is entered; it leaves the line, or gives its place to the next job, when the block ends. Inside, wait
        for its turn (:meth:`LongWork.turn`) and run its pieces (:meth:`LongWork.run`). A ``background`` job (work
        nobody waits for) has its turn after every other job waiting, and gives it back between two of its pieces
        whenever another job waits.

        Raises:
            LimitReached: the member already has :data:`LONG_PER_MEMBER` jobs, the server
                :data:`LONG_QUEUE_PER_SERVER` waiting, or the lane :attr:`long_queue` waiting (``what`` names the
                work in the message).
        """
        if member is not None and self._per_member[member] >= LONG_PER_MEMBER:
            raise LimitReached(_still_made(what))
        waiting = self._jobs.server_count(server)
        if waiting >= LONG_QUEUE_PER_SERVER:
            raise LimitReached(_waiting_here(what, waiting))
        if len(self._jobs) >= self.long_queue:
            raise LimitReached(_waiting_everywhere(what, len(self._jobs)))
        job = LongWork(self, server, member, background)
        if member is not None:
            self._per_member[member] += 1
        self.reviews += 1
        self._jobs.push(job, server, int(background))
        self._dispatch(moved=True)
        try:
            yield job
        finally:
            self.reviews -= 1
            if member is not None:
                self._per_member[member] -= 1
                if not self._per_member[member]:
                    del self._per_member[member]
            if job in self._started_jobs:
                self._started_jobs.discard(job)
                self._per_server[server] -= 1
                if not self._per_server[server]:
                    del self._per_server[server]
            else:
                self._jobs.remove(job)
                if not job._turn.done():
                    job._turn.cancel()
            self._dispatch(moved=True)

    async def run(self, function: Callable[..., T], *args: Any, budget: float, server: int = 0) -> T:
        """Run ``function(*args)`` (a module-level function with picklable arguments and result) as one job of long
        work of ``server`` (0: the bot's own), in a worker process, or in a thread without workers.

        Raises:
            TimeoutError: no answer within ``budget`` seconds, waiting for its turn included (the work itself should
                bound its own time). LimitReached: the long lane has :attr:`long_queue` jobs waiting.
            WorkerLost, ComputerStopped: as :meth:`LongWork.run`.
            Exception: whatever ``function`` raises.
        """
        async with asyncio.timeout(budget), self.long_work(server=server, what="job") as job:
            return await job.run(function, *args)

    # ------------------------------------------------------------------------------------------ pairings

    async def pair(self, function: Callable[..., T], *args: Any, budget: float) -> T:
        """Pair a tournament's round: run ``function(*args)`` (a module-level function with picklable arguments and
        result, such as :func:`bot.service.pairing.pair_round`) in a worker process, before any other slow work
        that waits (it waits for at most the work under way on a worker, never behind reviews), within ``budget``
        CPU seconds of its worker, counted from its start (:func:`bot.workers.cpu_bounded`); given up all the same
        after :data:`PAIR_WALL_FACTOR` times ``budget`` of wall-clock time, its wait included. Without workers (or
        before :meth:`start`) it runs in a thread, within ``budget`` seconds of wall-clock time.

        Raises:
            TimeoutError: the pairing used its budget (:class:`bot.workers.CpuBudgetSpent`, a ``TimeoutError``), or
                the wall-clock bound passed. LimitReached: :data:`PAIR_QUEUE` pairings wait already.
            WorkerLost, ComputerStopped: as :meth:`move`'s search (its workers died; the pool was closed).
            Exception: whatever ``function`` raises.
        """
        self.pairings += 1
        try:
            if not self.running:
                if self._closing:
                    raise ComputerStopped("the computer's workers were stopped")
                async with asyncio.timeout(budget):
                    return await asyncio.to_thread(function, *args)
            if len(self._pairings) >= PAIR_QUEUE:
                raise LimitReached(n_("The computer has {count} pairing waiting; this round is paired a little "
                                      "later.",
                                      "The computer has {count} pairings waiting; this round is paired a little "
                                      "later.", len(self._pairings)))
            async with asyncio.timeout(budget * PAIR_WALL_FACTOR):
                value, _spent = await self._piece("pair", cpu_bounded, (budget, function, *args), server=0)
            return cast(T, value)
        finally:
            self.pairings -= 1
