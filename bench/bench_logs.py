"""What logging costs a busy bot: the move-latency loop of bench_bot (every game's moves through SimCord, back to back,
as fast as one process serves them) with its log lines written as JSON to a file, at ``NAPKIN_LOG_LEVEL=INFO`` and at
``DEBUG``, and, for comparison, at DEBUG the way it was before the libraries were held at WARNING (every logger at
DEBUG, no rate on the DEBUG lines of interactions).

- Move latency at DEBUG within 1.2× of INFO (p50 and p99): one run in which the bot's loggers switch between INFO
  and DEBUG before every move, so that both levels meet the same machine (on a shared one, runs minutes apart do
  not), the DEBUG moves writing to the same file with the rate on their lines as configured.
- The log written at DEBUG: bytes per interaction, and what ten minutes of this loop's rate write. Target ≤ 5 MB. The
  loop is closed (each interaction waits for the one before), so its rate is what one process can serve: a busier
  bot than any single server makes.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench._timing import Row, percentile, value_row

MOVES = 60
"""Moves timed per game and run."""
PAIRED_MOVES = 100
"""Moves timed per game in the run that alternates the levels (half at each)."""
RUNS = ("INFO", "DEBUG", "DEBUG", "INFO", "INFO", "DEBUG", "DEBUG, every logger (before)")
"""The runs, in order: each level three times, in ABBA order (a machine that slows down or speeds up during the runs
weighs on both alike), then the old behaviour once."""
TEN_MINUTES = 600.0
RATIO = 1.2
MEGABYTES = 5.0


def _run(mode: str, folder: str) -> dict[str, Any]:
    """One run in this (fresh) interpreter: logging configured for ``mode`` into a file; the latencies (ms), the
    interactions sent, the wall time (s) and the bytes written."""
    from bench._harness import move_latencies
    from bot.ops.logs import InteractionDebugLimit, configure_logging

    path = Path(folder) / f"{mode.split(',')[0]}-{time.monotonic_ns()}.log"
    with path.open("w", encoding="utf-8") as stream:
        configure_logging("DEBUG" if mode.startswith("DEBUG") else "INFO", "json", stream)
        if mode.endswith("(before)"):
            logging.getLogger().setLevel(logging.DEBUG)  # what NAPKIN_LOG_LEVEL=DEBUG did to every library
            for handler in logging.getLogger().handlers:
                for held in [item for item in handler.filters if isinstance(item, InteractionDebugLimit)]:
                    handler.removeFilter(held)
        counts: dict[str, int] = {}
        began = time.perf_counter()
        samples = asyncio.run(move_latencies(Path(folder) / f"{path.stem}.db", MOVES, counts=counts))
        wall = time.perf_counter() - began
        stream.flush()
    return {"mode": mode, "latencies": [value for values in samples.values() for value in values],
            "interactions": counts["interactions"], "seconds": wall, "bytes": path.stat().st_size}


def _paired(folder: str) -> dict[str, list[float]]:
    """One run in this (fresh) interpreter, logging at DEBUG into a file, the bot's loggers set to INFO before every
    even move and to DEBUG before every odd one: the latencies (ms) by level."""
    from bench._harness import move_latencies
    from bot.ops.logs import OWN_LOGGERS, configure_logging

    def level(move: int) -> str:
        chosen = "DEBUG" if move % 2 else "INFO"
        for name in OWN_LOGGERS:
            logging.getLogger(name).setLevel(chosen)
        return chosen

    by_level: dict[str, list[float]] = {}
    with (Path(folder) / "paired.log").open("w", encoding="utf-8") as stream:
        configure_logging("DEBUG", "json", stream)
        asyncio.run(move_latencies(Path(folder) / "paired.db", PAIRED_MOVES, before_move=level, by_tag=by_level))
    return by_level


def measure() -> tuple[list[dict[str, Any]], dict[str, list[float]]]:
    """Every run of :data:`RUNS` and the paired run, each in a fresh interpreter."""
    results = []
    with tempfile.TemporaryDirectory() as folder:
        spawn = multiprocessing.get_context("spawn")
        for mode in RUNS:
            with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
                results.append(pool.submit(_run, mode, folder).result())
        with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
            paired = pool.submit(_paired, folder).result()
    return results, paired


def rows(results: list[dict[str, Any]], paired: dict[str, list[float]]) -> list[Row]:
    """The table's rows from :func:`measure`'s runs."""
    by_mode: dict[str, dict[str, Any]] = {}
    for run in results:
        merged = by_mode.setdefault(run["mode"], {"latencies": [], "interactions": 0, "seconds": 0.0, "bytes": 0})
        merged["latencies"] += run["latencies"]
        for key in ("interactions", "seconds", "bytes"):
            merged[key] += run[key]
    table: list[Row] = []
    for mode, run in by_mode.items():
        samples = run["latencies"]
        rate = run["interactions"] / run["seconds"]
        note = (f"n={len(samples)} moves; {run['interactions']} interactions in {run['seconds']:.1f} s "
                f"({rate:.1f}/s); {run['bytes']:,} bytes of log")
        for label, fraction in (("p50", 0.5), ("p99", 0.99)):
            table.append(Row(f"logs at {mode}: move latency {label}", percentile(samples, fraction), min(samples),
                             max(samples), "ms", "", None, note))
        per = run["bytes"] / run["interactions"]
        table.append(value_row(f"logs at {mode}: bytes per interaction", per, "B"))
        table.append(value_row(f"logs at {mode}: written in 10 min at {rate:.0f} interactions/s",
                               per * rate * TEN_MINUTES / 1e6, "MB", MEGABYTES if mode == "DEBUG" else None,
                               "bytes per interaction × this loop's rate × 600 s"))
    info, debug = paired["INFO"], paired["DEBUG"]
    for label, fraction in (("p50", 0.5), ("p99", 0.99)):
        ratio = percentile(debug, fraction) / percentile(info, fraction)
        table.append(value_row(f"logs: move latency {label} at DEBUG / at INFO, levels alternating move by move",
                               ratio, "x", RATIO, f"INFO {percentile(info, fraction):.1f} ms (n={len(info)}), DEBUG "
                               f"{percentile(debug, fraction):.1f} ms (n={len(debug)})"))
    return table


def run() -> list[Row]:
    """All rows of this module."""
    return rows(*measure())
