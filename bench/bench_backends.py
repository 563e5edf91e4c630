"""SQLite and PostgreSQL side by side: moves through the real storage path, and the deadline pass at scale.

- Moves next to their anchor: one writer process applies random legal Chopsticks moves through ``Services.moves.play``
  (one transaction each: lock and load, check, append to the log, version-checked update) on 1,000 active matches;
  moves per second and each move's latency (p50/p99), every move counted back from the log afterwards (none lost or
  doubled). Then, on a fresh database, the engine doing the same writes with nothing of ours around it
  (:mod:`bench._anchors`): plain ``sqlite3`` sending the statements a move sends (checked statement for statement,
  values included, against a traced move of the service), and ``pgbench`` running them in the same pipelines; the
  service's share of the anchor's moves per second (targets: ≥ 25% on SQLite, ≥ 60% on PostgreSQL), and on
  PostgreSQL the round trips per move of each, counted at the socket (target ≤ 3).
- Moves from 4 writer processes started together, each on its own share of the matches, then from one process with
  every commit flushed to disk (SQLite ``synchronous=FULL``, PostgreSQL ``synchronous_commit=on``, its default).
  Target ≥ 250 moves/s, latency p50 ≤ 10 ms and p99 ≤ 50 ms.
- The deadline pass (``Services.deadlines.process_due``) with 10 matches due (5 reminders, 5 clocks run out) among
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
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench._anchors import (
    check_same_writes,
    pgbench_moves,
    pgbench_round_trips,
    raw_sqlite_moves,
    service_round_trips,
)
from bench._pgcluster import NOT_INSTALLED, Cluster, ClusterUnavailable, fresh_database, running_cluster
from bench._pgproxy import RoundTripProxy
from bench._storage import Throughput, Writes, fill_matches, throughput
from bench._timing import Row, percentile, percentile_rows, value_row

MATCHES = 1000
"""Active matches the writers share."""
MOVES = 4000
"""Moves per run, split evenly between the writer processes."""
RUNS = ((4, False), (1, True))
"""(writer processes, every commit flushed to disk) of each moves run besides the anchored one (1, not flushed)."""
ROUND_TRIP_MOVES = 200
"""Moves whose round trips are counted (PostgreSQL)."""
SQLITE_SHARE, POSTGRES_SHARE = 25.0, 60.0
"""Targets: the service's moves per second as a share of its anchor's, in percent."""
ROUND_TRIPS = 3.0
"""Target: round trips per member's move on PostgreSQL."""
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
    ids = asyncio.run(_fill(target.database))
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


def _service_run(target: Target) -> tuple[Throughput, list[int]]:
    """One writer process's moves through the service on ``target`` (a fresh database), and the match ids."""
    ids = asyncio.run(_fill(target.database))
    return throughput(target.database, ids, processes=1, moves_per_writer=MOVES, synchronous=target.synchronous), ids


def _rate_inside(writes: Writes) -> float:
    """Moves per second inside the calls: moves over the time spent in them (the benchmark's own work between two
    moves, choosing the next one with the rules, is neither the service's nor the anchor's)."""
    return len(writes.latencies) / (sum(writes.latencies) / 1000)


def _service_rows(backend: str, service: Throughput) -> list[Row]:
    """The service's moves per second and latency (p50, p99) of the anchored run."""
    name = f"{backend}: moves, 1 writer process"
    lost = (f"{service.writes.applied} moves on {MATCHES:,} active matches in {service.writes.seconds:.2f} s; the log "
            f"holds {service.logged} moves and the plies sum to {service.plies} (lost or doubled: "
            f"{service.lost_or_doubled})")
    rows = [value_row(f"{name}: moves/s", service.writes.applied / service.writes.seconds, "mv/s", MOVES_PER_S,
                      lost, at_least=True)]
    rows += percentile_rows(f"{name}: latency", service.writes.latencies, MOVE_P50_MS, MOVE_P99_MS)
    if service.lost_or_doubled:
        for row in rows:
            row.ok = False
    return rows


def _anchor_rows(backend: str, service: Throughput, anchor: Writes, anchor_name: str, share: float | None,
                 note: str) -> list[Row]:
    """An anchor's moves per second and latency p50, and the service's share of its moves per second."""
    name = f"{backend}: moves, 1 writer process, {anchor_name}"
    inside, anchor_inside = _rate_inside(service.writes), _rate_inside(anchor)
    return [value_row(f"{name}: moves/s", anchor.applied / anchor.seconds, "mv/s", note=note),
            percentile_rows(f"{name}: latency", anchor.latencies)[0],
            value_row(f"{name}: the service's share of its moves/s", 100 * inside / anchor_inside, "%", share,
                      f"moves per second inside the calls: {inside:,.0f} through the service, {anchor_inside:,.0f} "
                      "of the anchor (the benchmark's own choice of the next move left out)", at_least=True)]


def _sqlite_anchor(targets: Callable[[bool], AbstractContextManager[Target]]) -> list[Row]:
    with targets(False) as target:
        service, ids = _service_run(target)
    with targets(False) as target, tempfile.TemporaryDirectory() as folder:
        statements = check_same_writes(folder)
        asyncio.run(_fill(target.database))
        raw = raw_sqlite_moves(target.database, ids, MOVES, target.synchronous)
    return _service_rows("SQLite", service) + _anchor_rows(
        "SQLite", service, raw, "raw sqlite3", SQLITE_SHARE,
        f"the same {statements} statements with the same values as a move of the service (checked against a traced "
        "move); one thread, no rules, no records")


def _postgres_anchor(cluster: Cluster, targets: Callable[[bool], AbstractContextManager[Target]]) -> list[Row]:
    with targets(False) as target:
        service, ids = _service_run(target)
    anchors = {}
    for pipelined in (False, True):
        with targets(False) as target:
            asyncio.run(_fill(target.database))
            anchors[pipelined] = pgbench_moves(target.database, ids, MOVES, pipelined=pipelined)
    with targets(False) as target, RoundTripProxy(cluster.host, cluster.port) as proxy:
        ids = asyncio.run(_fill(target.database))
        third = len(ids) // 3  # the service's matches, then each pgbench script's (their first for a one-move run)
        counted = asyncio.run(service_round_trips(proxy, target.database, ids[:third], ROUND_TRIP_MOVES))
        trips = {pipelined: pgbench_round_trips(proxy, target.database, ids[third * (1 + pipelined):][:third],
                                                ROUND_TRIP_MOVES, pipelined=pipelined) for pipelined in (False, True)}
    rows = _service_rows("PostgreSQL", service)
    rows += _anchor_rows("PostgreSQL", service, anchors[False], "pgbench, one statement a round trip", POSTGRES_SHARE,
                         "pgbench (-M prepared, 1 client) running the statements of a move, each waited for, as a "
                         "client without pipelines does; no rules, no records")
    rows += _anchor_rows("PostgreSQL", service, anchors[True], "pgbench, the service's pipelines", None,
                         "pgbench (-M prepared, 1 client) running them in the pipelines the service sends them in: the "
                         "engine's floor (C and libpq, no Python)")
    rows += [value_row("PostgreSQL: round trips per move through the service (median)",
                       statistics.median(counted),
                       "trips", ROUND_TRIPS,
                       f"counted at the socket over {len(counted)} moves: from {min(counted)} to {max(counted)}, mean "
                       f"{sum(counted) / len(counted):.2f} (a pipelined send that crosses an answer in the proxy "
                       "counts one off)"),
             value_row("PostgreSQL: round trips per move of pgbench, one statement a round trip", trips[False],
                       "trips"),
             value_row("PostgreSQL: round trips per move of pgbench, the service's pipelines", trips[True], "trips")]
    return rows


async def _fill(database: str) -> list[int]:
    from storage import Database

    db = await Database.open(database)
    try:
        return await db.write(fill_matches, MATCHES)
    finally:
        await db.close()


def _due_now(tx: object) -> list[int]:
    """Insert the :data:`DUE` matches due at :data:`NOW`: half with their reminder due, half past their deadline."""
    half = DUE // 2
    return fill_matches(tx, DUE, guild_id=98,
                        deadline=lambda k: NOW + DAY / 2 if k < half else NOW - 60.0)


async def _pass_samples(database: str) -> tuple[dict[int, list[float]], dict[int, float]]:
    """Pass times (ms) per size and the seconds each fill took."""
    from bot.service import Services
    from storage import Database

    db = await Database.open(database)
    services = Services(db, clock=lambda: NOW)
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
                work = await services.deadlines.process_due()
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


def _backend_rows(backend: str, targets: Callable[[bool], AbstractContextManager[Target]],
                  anchored: Callable[[], list[Row]]) -> list[Row]:
    """All figures of one backend, each run on a fresh database from ``targets(flushed)``: first the anchored ones
    (``anchored()``), then the others."""
    rows = anchored()
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

    return _backend_rows("SQLite", targets, lambda: _sqlite_anchor(targets))


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

    return _backend_rows("PostgreSQL", targets, lambda: _postgres_anchor(cluster, targets))


def _anchored_names(backend: str) -> list[str]:
    """The names of ``backend``'s anchored rows, without the backend."""
    name = "moves, 1 writer process"
    anchors = (["raw sqlite3"] if backend == "SQLite" else
               ["pgbench, one statement a round trip", "pgbench, the service's pipelines"])
    names = [f"{name}: moves/s", f"{name}: latency p50", f"{name}: latency p99"]
    for anchor in anchors:
        names += [f"{name}, {anchor}: moves/s", f"{name}, {anchor}: latency p50",
                  f"{name}, {anchor}: the service's share of its moves/s"]
    if backend == "PostgreSQL":
        names += ["round trips per move through the service (median)"]
        names += [f"round trips per move of {anchor}" for anchor in anchors]
    return names


def _row_names(backend: str) -> list[str]:
    """The names of one backend's rows without the backend (for the rows of a skipped backend)."""
    names = _anchored_names(backend)
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
            for name in _row_names(backend)]


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
    # each backend's anchored figures, then the others side by side: each figure's SQLite row, then its PostgreSQL row
    anchored = {backend: len(_anchored_names(backend)) for backend in by_backend}
    rows = [row for backend, found in by_backend.items() for row in found[:anchored[backend]]]
    others = [found[anchored[backend]:] for backend, found in by_backend.items()]
    return rows + [row for pair in zip(*others, strict=True) for row in pair]
