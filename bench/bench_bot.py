"""Benchmarks of the whole bot: interaction latency through SimCord, GIF replays, storage throughput, memory.

- Interaction latency: a move from interaction to reply recorded (stored, rendered, replied), per game, through
  the real discord.py code paths offline, 100 moves per game. Target p50 ≤ 50 ms, p99 ≤ 150 ms.
- GIF replay of a 60-ply match: ≤ 2 s and ≤ 8 MB.
- Storage: moves per second applied by the service with 1,000 active matches and 2 writer processes, under
  WAL with ``synchronous=NORMAL`` and ``FULL``; every move is counted back from the log (none lost or doubled).
  Target ≥ 1,000 moves/s.
- Memory: resident memory of a bot process holding all 10,000 active matches of its database as loaded states,
  after serving a move in each game.
  Target ≤ 200 MB.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench._harness import move_latencies
from bench._storage import throughput
from bench._timing import Row, percentile_rows, value_row
from games import GAMES

LATENCY_MOVES = 100
"""Moves timed per game (a p99 from fewer than 100 samples would be the slowest one)."""
MATCHES = 1000
MOVES_PER_WRITER = 1500


async def _latency(db_path: Path) -> dict[str, list[float]]:
    return await move_latencies(db_path, LATENCY_MOVES)


def _gif_row() -> list[Row]:
    import renderers

    game = GAMES["chopsticks"]
    rng = random.Random(2)
    while True:
        states = [game.new_state({}, rng)]
        while not states[-1].is_over and len(states) < 61:
            states.append(states[-1].apply(game.computer_move(states[-1], "easy", rng)))
        if len(states) == 61:
            break
    began = time.perf_counter()
    gif = renderers.render_replay(states, ["alice", "bob"])
    seconds = time.perf_counter() - began
    return [value_row("GIF replay, 60-ply Chopsticks match: build time", seconds, "s", 2.0),
            value_row("GIF replay, 60-ply Chopsticks match: size", len(gif) / 1e6, "MB", 8.0)]


async def _prepare(db_path: Path, synchronous: str) -> list[int]:
    from bot.service import Player, Services
    from storage import Database

    db = await Database.open(db_path, synchronous=synchronous)
    services = Services(db)
    await services.settings.update(1, max_active=100, days_per_move=3)
    ids = []
    for number in range(MATCHES):
        a, b = Player(10_000 + number, f"p{number}"), Player(20_000 + number, f"q{number}")
        challenge = await services.challenges.create(guild_id=1, channel_id=2, game="chopsticks", variant={},
                                                     challenger=a, opponent=b)
        ids.append((await services.challenges.accept(challenge.id, 1, b)).match.id)
    await db.close()
    return ids


def _storage_rows(synchronous: str, processes: bool) -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "throughput.db"
        ids = asyncio.run(_prepare(db_path, synchronous))
        run = throughput(str(db_path), ids, processes=2 if processes else 0, moves_per_writer=MOVES_PER_WRITER,
                         synchronous=synchronous, writers=2)
        shape = "2 writer processes" if processes else "2 concurrent writers in the bot's process"
    applied, seconds, moves, plies = run.writes.applied, run.writes.seconds, run.logged, run.plies
    note = (f"{applied} moves, {shape}, {MATCHES} active matches, {seconds:.2f} s; the log holds {moves} moves and "
            f"the matches' plies sum to {plies} (lost or doubled: {abs(moves - applied) + abs(plies - applied)})")
    name = f"storage, WAL synchronous={synchronous}: moves/s, {shape}"
    return [value_row(name, applied / seconds, "mv/s", 1000 if not processes else None, note, at_least=True)]


def _memory_row() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        output = subprocess.run([sys.executable, "-m", "bench.memory_probe", str(Path(folder) / "memory.db")],
                                check=True, capture_output=True, text=True, timeout=600)
    rss = float(output.stdout.strip().splitlines()[-1])
    return [value_row("memory: bot RSS, 10,000 active matches loaded as states, a move per game", rss, "MB", 200)]


def run() -> list[Row]:
    """All rows of this module."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        samples = asyncio.run(_latency(Path(folder) / "latency.db"))
    for key, values in samples.items():
        rows += percentile_rows(f"interaction -> stored, rendered, replied: {key}", values, 50, 150,
                                note="plies from 1, near-empty database; bench_scale has long matches and 100k")
    rows += _gif_row()
    # Each storage measurement runs in a fresh interpreter: nothing earlier in this run (SimCord's clock hooks,
    # warmed caches) may help or hinder it.
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        for synchronous, processes in (("NORMAL", False), ("FULL", False), ("NORMAL", True)):
            rows += pool.submit(_storage_rows, synchronous, processes).result()
    rows += _memory_row()
    return rows
