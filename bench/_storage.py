"""Storage workloads shared by the benchmark modules, for any database setting (a SQLite path or a PostgreSQL URL).

- :func:`fill_matches`: active matches inserted in bulk (one ``executemany`` per table in the caller's write), so
  that 100,000 of them take seconds on either backend.
- :func:`throughput`: moves applied through the real path (``Services.moves.play``: load, check, append to the log,
  version-checked update, one transaction each) by writer processes, each timing every move; then every move is
  counted back from the log.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Barrier
from typing import Any

from games import GAMES

FAR_DEADLINE = 1e12
"""A deadline (epoch seconds) nothing reaches during a benchmark: the match is active but nothing falls due."""
WRITER_TIMEOUT = 600
"""Seconds to wait for a writer process's figures before giving up on it."""


def fill_matches(tx: Any, count: int, *, guild_id: int = 99, game: str = "chopsticks",
                 deadline: Callable[[int], float] = lambda number: FAR_DEADLINE + number, days_per_move: int = 3,
                 now: float = 1.0) -> list[int]:
    """Insert ``count`` active two-seat matches of ``game`` (default rules, first seat to move, ply 0) in
    ``guild_id`` within the write ``tx`` (a :class:`storage.Tx`); return their ids in order.

    Match ``k`` (from 0) gets ``deadline(k)``; its seats are members ``1000 + k % 2000`` and ``3000 + 7k % 2000``.
    Rows are written as :meth:`storage.Tx.insert_match` writes them, with one ``executemany`` per table.
    """
    conn = tx._conn
    state = json.dumps(GAMES[game].new_state({}).to_dict(), separators=(",", ":"))
    first = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()[0])
    conn.executemany(
        "INSERT INTO matches (guild_id, channel_id, game, variant, initial_state, state, status, current_seat, "
        "days_per_move, deadline, rated, created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?, 'active', 0, ?, ?, 1, "
        "?, ?)",
        [(guild_id, guild_id + 1, game, state, state, days_per_move, deadline(k), now, now) for k in range(count)])
    ids = [int(row[0]) for row in conn.execute("SELECT id FROM matches WHERE id > ? ORDER BY id", (first,))]
    if len(ids) != count:
        raise RuntimeError(f"{count} matches inserted but {len(ids)} found after them")
    seats = []
    for k, match_id in enumerate(ids):
        a, b = 1000 + k % 2000, 3000 + (k * 7) % 2000
        seats += [(match_id, 0, a, f"m{a}", None), (match_id, 1, b, f"m{b}", None)]
    conn.executemany("INSERT INTO seats (match_id, seat, user_id, display_name, level) VALUES (?, ?, ?, ?, ?)",
                     seats)
    return ids


@dataclass
class Writes:
    """What writers did: ``applied`` moves in ``seconds`` (the slowest writer's), each move's latency in ms."""

    applied: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def add(self, other: Writes) -> None:
        """Fold another writer's figures in (moves add up, time is the slowest writer's)."""
        self.applied += other.applied
        self.seconds = max(self.seconds, other.seconds)
        self.latencies += other.latencies


async def write_moves(database: str, match_ids: Sequence[int], moves: int, seed: int, *, synchronous: str = "NORMAL",
                      writers: int = 1, barrier: Barrier | None = None) -> Writes:
    """Apply ``moves`` random legal moves per writer (``writers`` concurrent tasks on one service, each on its share
    of ``match_ids``) on ``database`` (a SQLite path or a PostgreSQL URL); time each. Each writer keeps the states
    the service returned, as the bot keeps nothing but what the service hands back. With ``barrier``, the clock
    starts once every process sharing it has opened the database."""
    from bot.service import Services, load_state
    from storage import Database, ReadTx

    db = await Database.open(database, synchronous=synchronous)  # type: ignore[arg-type]
    services = Services(db)
    latencies: list[float] = []

    async def writer(ids: Sequence[int], rng: random.Random) -> int:
        states: dict[int, Any] = {}
        users: dict[int, list[int]] = {}
        guilds: dict[int, int] = {}
        applied, index = 0, 0
        while applied < moves:
            match_id = ids[index % len(ids)]
            index += 1
            if match_id not in states:
                match = await db.read(ReadTx.get_match, match_id)
                assert match is not None
                states[match_id] = load_state(match)
                users[match_id] = [seat.user_id for seat in match.seats]
                guilds[match_id] = match.guild_id
            state = states[match_id]
            if state.is_over:
                continue
            move = state.format_move(rng.choice(list(state.legal_moves())))
            user = users[match_id][state.current_seat]
            began = time.perf_counter()
            states[match_id] = (await services.moves.play(match_id, guilds[match_id], user, move)).after
            latencies.append((time.perf_counter() - began) * 1000)
            applied += 1
        return applied

    try:
        if barrier is not None:
            await asyncio.to_thread(barrier.wait)
        began = time.perf_counter()
        counts = await asyncio.gather(*(writer(match_ids[i::writers], random.Random(seed * 10 + i))
                                        for i in range(writers)))
        seconds = time.perf_counter() - began
    finally:
        await db.close()
    return Writes(sum(counts), seconds, latencies)


def _writer_process(database: str, match_ids: Sequence[int], moves: int, synchronous: str, seed: int,
                    barrier: Barrier, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put(asyncio.run(write_moves(database, match_ids, moves, seed, synchronous=synchronous, barrier=barrier)))


def count_moves(database: str) -> tuple[int, int]:
    """(moves in the log, sum of the matches' plies) of ``database``."""
    from storage import Database

    async def count() -> tuple[int, int]:
        db = await Database.open(database)
        try:
            moves = (await db.fetchone("SELECT COUNT(*) FROM moves"))[0]
            plies = (await db.fetchone("SELECT SUM(ply) FROM matches"))[0]
        finally:
            await db.close()
        return int(moves), int(plies or 0)

    return asyncio.run(count())


@dataclass
class Throughput:
    """A throughput run: the writers' figures and what the log holds afterwards."""

    writes: Writes
    logged: int
    plies: int

    @property
    def lost_or_doubled(self) -> int:
        """Moves missing from or extra in the log or the matches' plies (0 when every move counted once)."""
        return abs(self.logged - self.writes.applied) + abs(self.plies - self.writes.applied)


def throughput(database: str, match_ids: Sequence[int], *, processes: int, moves_per_writer: int,
               synchronous: str = "NORMAL", writers: int = 1) -> Throughput:
    """Apply moves on ``database`` (whose matches so far have no moves) from ``processes`` writer processes, each
    writing to its share of ``match_ids`` and starting together; ``processes=0`` writes from ``writers`` concurrent
    tasks in this process instead. Each writer applies ``moves_per_writer`` moves."""
    if processes == 0:
        writes = asyncio.run(write_moves(database, match_ids, moves_per_writer, 1, synchronous=synchronous,
                                         writers=writers))
    else:
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        barrier = context.Barrier(processes)
        workers = [context.Process(target=_writer_process, args=(database, list(match_ids[i::processes]),
                                                                 moves_per_writer, synchronous, i, barrier, queue))
                   for i in range(processes)]
        for worker in workers:
            worker.start()
        writes = Writes()
        for _ in workers:
            writes.add(queue.get(timeout=WRITER_TIMEOUT))
        for worker in workers:
            worker.join()
    logged, plies = count_moves(database)
    return Throughput(writes, logged, plies)
