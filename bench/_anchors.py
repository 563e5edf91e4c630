"""What the storage benchmarks hold the service's moves against: the engine doing the same work with nothing of ours
around it, and the round trips a move takes.

- :func:`raw_sqlite_moves`: plain :mod:`sqlite3`, one thread, the statements a member's move sends on SQLite
  (:func:`move_statements`: ``BEGIN IMMEDIATE``, the match's conditional moves, the match with its seats, the move
  appended, the match updated with its version checked, ``COMMIT``) with the same pragmas, on the same matches.
  :func:`check_same_writes` first plays one move through the service and the same move here, each with SQLite
  tracing every statement with its values, and fails unless the two lists are identical.
- :func:`pgbench_moves`: ``pgbench`` (PostgreSQL's own load generator, C and libpq) running those statements with
  prepared statements: one per round trip, as a client that waits for each, or in the pipelines the service sends
  them in (three round trips), the engine's floor.
- :func:`service_round_trips` and :func:`pgbench_round_trips`: round trips counted at the socket by
  :class:`bench._pgproxy.RoundTripProxy`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._storage import Writes, fill_matches
from games import GAMES

NOW = 1.7e9
"""The clock of every anchored move (epoch seconds)."""
DAYS = 3
"""Days per move of the benchmark's matches (:func:`bench._storage.fill_matches`)."""
NOTATION = "LL"
"""The move the anchors log (a Chopsticks move; the anchors do not check rules)."""


@dataclass(frozen=True)
class MoveStatements:
    """The statements of one member's move, in the order the service sends them, with ``?`` placeholders."""

    lock: str | None
    """PostgreSQL's lock of the match row (SQLite's ``BEGIN IMMEDIATE`` holds every writer off instead)."""
    premoves: str
    match: str
    insert: str
    update: str


def move_statements(backend: str) -> MoveStatements:
    """The statements of a move on ``backend`` (``"sqlite"`` or ``"postgresql"``), written from the storage
    module's own text."""
    from storage.dialect import POSTGRESQL, SQLITE
    from storage.queries.matches import _MATCH_SELECTS, _PREMOVE_COLUMNS

    dialect = SQLITE if backend == "sqlite" else POSTGRESQL
    lock = f"SELECT id FROM matches WHERE id = ?{dialect.for_update('matches')}"  # noqa: S608 - module constants
    return MoveStatements(
        lock=lock if dialect.for_update_sql else None,
        premoves=f"SELECT {_PREMOVE_COLUMNS} FROM premoves WHERE match_id = ? "  # noqa: S608 - module constants
                 "ORDER BY seat, created_at, if_move",
        match=f"{_MATCH_SELECTS[dialect]} WHERE id = ?",
        insert="INSERT INTO moves (match_id, ply, seat, notation, created_at) VALUES (?, ?, ?, ?, ?)",
        update="UPDATE matches SET state = ?, ply = ?, current_seat = ?, updated_at = ?, reminded = ?, "
               "draw_offer_seat = ?, deadline = ?, version = version + 1 WHERE id = ? AND version = ?",
    )


def state_text(state: dict[str, Any] | None = None) -> str:
    """A state as the service stores it (compact JSON); by default Chopsticks' start, the size of every state the
    benchmark's moves write."""
    return json.dumps(GAMES["chopsticks"].new_state({}).to_dict() if state is None else state,
                      separators=(",", ":"))


# ---------------------------------------------------------------- SQLite


def _sqlite(path: str, synchronous: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    for pragma in ("journal_mode=WAL", "foreign_keys=ON", f"synchronous={synchronous}", "busy_timeout=30000"):
        conn.execute(f"PRAGMA {pragma}")
    return conn


def _raw_move(conn: sqlite3.Connection, statements: MoveStatements, match_id: int, version: int, state: str,
              now: float) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(statements.premoves, (match_id,)).fetchall()
    conn.execute(statements.match, (match_id,)).fetchone()
    conn.execute(statements.insert, (match_id, version + 1, version % 2, NOTATION, now))
    updated = conn.execute(statements.update, (state, version + 1, (version + 1) % 2, now, 0, None,
                                               now + DAYS * 86400.0, match_id, version)).rowcount
    if updated != 1:
        conn.execute("ROLLBACK")
        raise RuntimeError(f"match {match_id} was not at version {version}")
    conn.execute("COMMIT")


def raw_sqlite_moves(path: str, match_ids: Sequence[int], moves: int, synchronous: str = "NORMAL") -> Writes:
    """Apply ``moves`` moves with plain :mod:`sqlite3` on ``path`` (whose ``match_ids`` have no moves yet), going
    round ``match_ids``; time each."""
    statements = move_statements("sqlite")
    state = state_text()
    versions = dict.fromkeys(match_ids, 0)
    latencies = []
    conn = _sqlite(path, synchronous)
    try:
        began = time.perf_counter()
        for number in range(moves):
            match_id = match_ids[number % len(match_ids)]
            start = time.perf_counter()
            _raw_move(conn, statements, match_id, versions[match_id], state, NOW + number)
            latencies.append((time.perf_counter() - start) * 1000)
            versions[match_id] += 1
        seconds = time.perf_counter() - began
    finally:
        conn.close()
    return Writes(moves, seconds, latencies)


def check_same_writes(folder: str | os.PathLike[str]) -> int:
    """Play one move through the service and the same move with :func:`raw_sqlite_moves`'s statements, each on a
    fresh database in ``folder`` with SQLite tracing every statement as it runs (with its values); return how many
    statements they sent.

    Raises:
        RuntimeError: the two sent different statements (the anchor no longer does what a move does).
    """
    from bot.service import Services
    from storage import Database
    from storage.sqlite import _in_thread

    traced: list[list[str]] = [[], []]

    async def through_service() -> dict[str, Any]:
        db = await Database.open(Path(folder, "service.db"))
        try:
            (match_id,) = await db.write(fill_matches, 1)
            await _in_thread(db._writer, lambda conn: conn.set_trace_callback(traced[0].append))  # type: ignore[attr-defined]
            moved = await Services(db, clock=lambda: NOW).moves.play(match_id, 99, 1000, NOTATION)
            await _in_thread(db._writer, lambda conn: conn.set_trace_callback(None))  # type: ignore[attr-defined]
            return moved.after.to_dict()
        finally:
            await db.close()

    after = asyncio.run(through_service())
    path = str(Path(folder, "raw.db"))
    asyncio.run(_filled(path, 1))
    conn = _sqlite(path, "NORMAL")
    try:
        conn.set_trace_callback(traced[1].append)
        _raw_move(conn, move_statements("sqlite"), 1, 0, state_text(after), NOW)
    finally:
        conn.close()
    service, raw = ([" ".join(statement.split()) for statement in sent] for sent in traced)
    if service != raw:
        raise RuntimeError(f"a move through the service sent {service}, the anchor {raw}")
    return len(raw)


async def _filled(database: str, count: int) -> list[int]:
    from storage import Database

    db = await Database.open(database)
    try:
        return await db.write(fill_matches, count)
    finally:
        await db.close()


# ---------------------------------------------------------------- PostgreSQL


def _pgbench_script(statements: MoveStatements, pipelined: bool) -> str:
    """The move as a pgbench script, on each client's own matches in turn (``:n`` counts the client's moves; pgbench
    keeps a client's variables from one transaction to the next): in the service's three round trips (two pipelines
    and the commit) when ``pipelined``, else one statement per round trip, as a client that waits for each one."""
    def named(sql: str, *names: str) -> str:
        for name in names:
            sql = sql.replace("?", f":{name}", 1)
        return sql + ";"

    return "\n".join([
        "\\set n :n + 1",
        "\\set done (:n - 1) / :per",
        "\\set mid :first + :client_id * :per + (:n - 1) % :per",
        "\\set ply :done + 1",
        "\\set seat :done % 2",
        "\\set next :ply % 2",
        "\\set now :n + 1700000000",
        "\\set deadline :now + 259200",
        *(["\\startpipeline"] if pipelined else []),
        "BEGIN;",
        named(statements.lock or "", "mid"),
        named(statements.premoves, "mid"),
        named(statements.match, "mid"),
        *(["\\endpipeline", "\\startpipeline"] if pipelined else []),
        named(statements.insert, "mid", "ply", "seat", "notation", "now"),
        named(statements.update.replace("draw_offer_seat = ?", "draw_offer_seat = NULL"), "state", "ply", "next",
              "now", "reminded", "deadline", "mid", "done"),
        *(["\\endpipeline"] if pipelined else []),
        "COMMIT;",
        "",
    ])


def pgbench_moves(url: str, match_ids: Sequence[int], moves: int, *, pipelined: bool = True,
                  clients: int = 1) -> Writes:
    """Run ``moves`` moves with ``pgbench`` (``clients`` connections, each on its share of ``match_ids``, which must
    be consecutive and have no moves yet), in the service's pipelines or one statement per round trip
    (:func:`_pgbench_script`); moves per second as pgbench reports them (without its connection time), and each
    move's latency from its transaction log.

    Raises:
        RuntimeError: pgbench failed or reported failed transactions.
    """
    per = len(match_ids) // clients
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder, "move.sql")
        script.write_text(_pgbench_script(move_statements("postgresql"), pipelined), encoding="utf-8")
        done = subprocess.run(
            ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(clients), "-t", str(moves // clients),
             "-D", "n=0", "-D", f"first={match_ids[0]}", "-D", f"per={per}", "-D", f"state={state_text()}",
             "-D", f"notation={NOTATION}", "-D", "reminded=0", "-l", "--log-prefix", str(Path(folder, "log")),
             "-f", str(script), url], capture_output=True, text=True, check=False)
        found = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", done.stdout)
        failed = re.search(r"number of failed transactions: (\d+)", done.stdout)
        if done.returncode or not found or (failed and int(failed.group(1))):
            raise RuntimeError(f"pgbench failed: {done.stdout[-400:]} {done.stderr[-400:]}")
        latencies = [int(line.split()[2]) / 1000 for log in Path(folder).glob("log*") for line in
                     log.read_text(encoding="utf-8").splitlines()]
    applied = clients * (moves // clients)
    return Writes(applied, applied / float(found.group(1)), latencies)


def pgbench_round_trips(proxy: Any, url: str, match_ids: Sequence[int], moves: int, *, pipelined: bool) -> float:
    """Round trips per move of :func:`pgbench_moves` through ``proxy``: a run of ``moves + 1`` moves less a run of
    one (each connects and prepares its statements once), over ``moves``."""
    counts = []
    for count, ids in ((1, match_ids[:1]), (moves + 1, match_ids[1:])):
        before = proxy.round_trips
        pgbench_moves(proxy.url(url), ids, count, pipelined=pipelined)
        counts.append(proxy.round_trips - before)
    return (counts[1] - counts[0]) / moves


async def service_round_trips(proxy: Any, url: str, match_ids: Sequence[int], moves: int) -> list[int]:
    """The round trips of each of ``moves`` members' moves through the service (``Services.moves.play``), on ``url``
    reached through ``proxy``, after one move per match to warm up; one count per move."""
    from bot.service import Services, load_state
    from storage import Database, ReadTx

    db = await Database.open(proxy.url(url))
    services = Services(db)
    counts = []
    try:
        for number in range(moves + len(match_ids)):
            match = await db.read(ReadTx.get_match, match_ids[number % len(match_ids)])
            assert match is not None and match.current_seat is not None
            state = load_state(match)
            text = next(state.format_move(move) for move in state.legal_moves()
                        if not state.apply(move).is_over)
            before = proxy.round_trips
            await services.moves.play(match.id, match.guild_id, match.seats[match.current_seat].user_id, text)
            if number >= len(match_ids):
                counts.append(proxy.round_trips - before)
    finally:
        await db.close()
    return counts
