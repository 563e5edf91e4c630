"""SQLite and PostgreSQL side by side: moves through the real storage path, and the deadline pass at scale.

- Moves: writer processes (1, then 4, started together) apply random legal Chopsticks moves through
  ``MatchService.play`` (one transaction each: load, check, append to the log, version-checked update) on 1,000
  active matches, each process on its own share of them; moves per second over the slowest process, and each
  move's latency (p50/p99). Every move is counted back from the log afterwards (none lost or doubled). Then once
  more with one process and every commit flushed to disk (SQLite ``synchronous=FULL``, PostgreSQL
  ``synchronous_commit=on``, its default). Target ≥ 250 moves/s, latency p50 ≤ 10 ms and p99 ≤ 50 ms.
- The deadline pass (``MatchService.process_due``) with 10 matches due (5 reminders, 5 clocks run out) among
  1,000 / 10,000 / 100,000 active matches: it must cost what is due, not what is active. Target: p50 ≤ 100 ms at
  every size, and the 100,000 p50 within 2× of the 1,000 one.

Both backends keep the same promise on a crash: SQLite in WAL with ``synchronous=NORMAL`` (the bot's default) and
PostgreSQL with ``synchronous_commit=off`` (otherwise the server's defaults, fsync on) lose at most the last
moments of commits when the machine fails, never a committed move when only the bot's process dies. PostgreSQL
runs as a throwaway cluster of Debian's ``postgresql`` on loopback (:mod:`bench._pgcluster`); without it the
PostgreSQL rows say they were skipped. Each backend's measurements run in a fresh interpreter.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench._pgcluster import NOT_INSTALLED, Cluster, ClusterUnavailable, fresh_database, running_cluster
from bench._storage import fill_matches, throughput
from bench._timing import Row, percentile, percentile_rows, value_row

MATCHES = 1000
"""Active matches the writers share."""
MOVES = 4000
"""Moves per run, split evenly between the writer processes."""
RUNS = ((1, False), (4, False), (1, True))
"""(writer processes, every commit flushed to disk) of each moves run."""
SIZES = (1_000, 10_000, 100_000)
"""Active matches at which the deadline pass is timed."""
DUE = 10
"""Matches due at each pass: half reminders, half clocks run out."""
PASSES = 100
"""Passes timed per size (a p99 from fewer would be the slowest one)."""
NOW = 1e9
"""The service's clock during the deadline passes (epoch seconds)."""
DAY = 86400.0

MOVES_PER_S = 250.0
"""Target of every moves run, in moves per second (each move is a member's turn: even a bot with 100,000 active
matches sees a few a second)."""
MOVE_P50_MS, MOVE_P99_MS = 10.0, 50.0
PASS_P50_MS, PASS_P99_MS = 100.0, 250.0
FLATNESS = 2.0
"""Target: the pass's p50 at the largest size within this factor of its p50 at the smallest."""

NO_DRIVER = "psycopg is not installed (pip install -e '.[postgres]')"
POSTGRES_OPTIONS = "-c synchronous_commit=off -c max_connections=100"
"""The benchmark cluster: the server's defaults (fsync on) but for commits, as durable as SQLite's WAL with
``synchronous=NORMAL``."""


@dataclass
class Target:
    """A fresh database to measure: its setting, the ``synchronous`` its SQLite connections use (PostgreSQL
    ignores it) and the durability setting in force, as it is reported."""

    database: str
    synchronous: str
    setting: str


def _shape(processes: int, flushed: bool) -> str:
    return (f"{processes} writer process" + ("es" if processes > 1 else "")
            + (", every commit flushed to disk" if flushed else ""))


def _moves_rows(backend: str, target: Target, processes: int, flushed: bool) -> list[Row]:
    """Throughput and latency rows of ``processes`` writer processes on ``target`` (a fresh database)."""
    from storage import Database

    async def prepare() -> list[int]:
        db = await Database.open(target.database)
        try:
            return await db.write(fill_matches, MATCHES)
        finally:
            await db.close()

    ids = asyncio.run(prepare())
    run = throughput(target.database, ids, processes=processes, moves_per_writer=MOVES // processes,
                     synchronous=target.synchronous)
    writes = run.writes
    name = f"{backend}: moves, {_shape(processes, flushed)}"
    note = (f"{target.setting}; {writes.applied} moves on {MATCHES:,} active matches in {writes.seconds:.2f} s; "
            f"the log holds {run.logged} moves and the plies sum to {run.plies} (lost or doubled: "
            f"{run.lost_or_doubled})")
    rows = [value_row(f"{name}: moves/s", writes.applied / writes.seconds, "mv/s", MOVES_PER_S, note,
                      at_least=True)]
    rows += percentile_rows(f"{name}: latency", writes.latencies, MOVE_P50_MS, MOVE_P99_MS)
    if run.lost_or_doubled:
        for row in rows:
            row.ok = False
    return rows


def _due_now(tx: object) -> list[int]:
    """Insert the :data:`DUE` matches due at :data:`NOW`: half with their reminder due, half past their deadline."""
    half = DUE // 2
    return fill_matches(tx, DUE, guild_id=98,
                        deadline=lambda k: NOW + DAY / 2 if k < half else NOW - 60.0)


async def _pass_samples(database: str) -> tuple[dict[int, list[float]], dict[int, float]]:
    """Pass times (ms) per size and the seconds each fill took."""
    from bot.service import MatchService
    from storage import Database

    db = await Database.open(database)
    service = MatchService(db, clock=lambda: NOW)
    samples: dict[int, list[float]] = {}
    fills: dict[int, float] = {}
    filled = 0
    try:
        for size in SIZES:
            began = time.perf_counter()
            await db.write(fill_matches, size - filled)
            fills[size] = time.perf_counter() - began
            filled = size
            samples[size] = []
            for _ in range(PASSES):
                due = await db.write(_due_now)
                began = time.perf_counter()
                work = await service.process_due()
                samples[size].append((time.perf_counter() - began) * 1000)
                acted = sorted(m.id for m in (*work.reminded, *work.forfeited, *work.aborted))
                if acted != sorted(due):
                    raise RuntimeError(f"the pass acted on {acted}, not on the {DUE} due matches {due}")
    finally:
        await db.close()
    return samples, fills


def _pass_rows(backend: str, database: str) -> list[Row]:
    samples, fills = asyncio.run(_pass_samples(database))
    rows: list[Row] = []
    for size in SIZES:
        note = (f"{size:,} active at the first pass (each pass leaves its 5 reminded matches active); "
                f"filling to {size:,} took {fills[size]:.1f} s")
        rows += percentile_rows(f"{backend}: deadline pass, {DUE} due among {size:,} active matches",
                                samples[size], PASS_P50_MS, PASS_P99_MS, note)
    small, large = percentile(samples[SIZES[0]], 0.5), percentile(samples[SIZES[-1]], 0.5)
    rows.append(value_row(f"{backend}: deadline pass p50, {SIZES[-1]:,} / {SIZES[0]:,} active matches",
                          large / small, "x", FLATNESS, "the pass costs what is due, not what is active"))
    return rows


def _backend_rows(backend: str, targets: Callable[[bool], AbstractContextManager[Target]]) -> list[Row]:
    """All figures of one backend, each run on a fresh database from ``targets(flushed)``."""
    rows: list[Row] = []
    for processes, flushed in RUNS:
        with targets(flushed) as target:
            rows += _moves_rows(backend, target, processes, flushed)
    with targets(False) as target:
        rows += _pass_rows(backend, target.database)
    return rows


def sqlite_rows() -> list[Row]:
    """All SQLite figures, each on a fresh database file."""
    @contextmanager
    def targets(flushed: bool) -> Iterator[Target]:
        synchronous = "FULL" if flushed else "NORMAL"
        with tempfile.TemporaryDirectory() as folder:
            yield Target(str(Path(folder) / "bench.db"), synchronous, f"WAL, synchronous={synchronous}")

    return _backend_rows("SQLite", targets)


def _postgres_rows() -> list[Row]:
    with running_cluster(POSTGRES_OPTIONS) as cluster:
        return postgres_rows(cluster)


def postgres_rows(cluster: Cluster) -> list[Row]:
    """All PostgreSQL figures, each on a fresh database of ``cluster``."""
    import psycopg  # the PostgreSQL extra (ImportError: the rows say it is missing)

    @contextmanager
    def targets(flushed: bool) -> Iterator[Target]:
        with fresh_database(cluster, "napkin_bench") as url:
            if flushed:
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute(f'ALTER DATABASE "{url.rsplit("/", 1)[1]}" SET synchronous_commit = on')
            with psycopg.connect(url, autocommit=True) as conn:
                setting = conn.execute("SHOW synchronous_commit").fetchone()
            if setting is None or setting[0] != ("on" if flushed else "off"):
                raise RuntimeError(f"synchronous_commit is {setting}, not {'on' if flushed else 'off'}")
            yield Target(url, "NORMAL", f"synchronous_commit={setting[0]}")

    return _backend_rows("PostgreSQL", targets)


def _row_names() -> list[str]:
    """The names of one backend's rows without the backend (for the rows of a skipped backend)."""
    names = []
    for processes, flushed in RUNS:
        shape = _shape(processes, flushed)
        names += [f"moves, {shape}: moves/s", f"moves, {shape}: latency p50", f"moves, {shape}: latency p99"]
    for size in SIZES:
        names += [f"deadline pass, {DUE} due among {size:,} active matches p{p}" for p in (50, 99)]
    names.append(f"deadline pass p50, {SIZES[-1]:,} / {SIZES[0]:,} active matches")
    return names


def skipped_rows(backend: str, reason: str) -> list[Row]:
    """One row per figure of ``backend``, each saying it was skipped and why."""
    return [Row(f"{backend}: {name}", math.nan, math.nan, math.nan, "", "", None, f"skipped: {reason}")
            for name in _row_names()]


def run() -> list[Row]:
    """All rows of this module: each figure for SQLite, then for PostgreSQL."""
    by_backend: dict[str, list[Row]] = {}
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        by_backend["SQLite"] = pool.submit(sqlite_rows).result()
        try:
            by_backend["PostgreSQL"] = pool.submit(_postgres_rows).result()
        except ClusterUnavailable:
            by_backend["PostgreSQL"] = skipped_rows("PostgreSQL", NOT_INSTALLED)
        except ImportError:
            by_backend["PostgreSQL"] = skipped_rows("PostgreSQL", NO_DRIVER)
    # side by side: each figure's SQLite row, then its PostgreSQL row
    return [row for pair in zip(*by_backend.values(), strict=True) for row in pair]
