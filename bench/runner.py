"""Runs every ``bench/bench_<name>.py`` module, prints one table and writes it as JSON.

Timings are medians of repeated runs with min and max, measured on this machine; a target is met when the
median (or the single value) satisfies it.
"""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import bench
from bench._timing import Row


def discover() -> list[str]:
    """Names of the benchmark modules (``bench_*``), sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))


def _fmt(value: float) -> str:
    if math.isnan(value):  # not measured (the row's note says why)
        return "-"
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def main(only: Sequence[str] | None = None, json_path: str = "bench/results.json") -> int:
    """Run the benchmarks (optionally ``only`` some modules, by name without ``bench_``); return 0."""
    modules = discover()
    if only:
        wanted = {f"bench_{name.removeprefix('bench_')}" for name in only}
        modules = [m for m in modules if m in wanted]
    results: dict[str, list[dict[str, object]]] = {}
    started = time.perf_counter()
    header = f"{'benchmark':<92} {'median':>10} {'min':>10} {'max':>10} {'unit':<6} {'target':<16} ok"
    print(header)
    print("-" * len(header))
    for name in modules:
        module_started = time.perf_counter()
        rows: list[Row] = importlib.import_module(f"bench.{name}").run()
        results[name] = [row.to_dict() for row in rows]
        for row in rows:
            ok = "" if row.ok is None else ("yes" if row.ok else "NO")
            print(f"{row.name[:92]:<92} {_fmt(row.median):>10} {_fmt(row.low):>10} {_fmt(row.high):>10} "
                  f"{row.unit:<6} {row.target:<16} {ok}")
            if row.note:
                print(f"    {row.note}")
        print(f"    ({name}: {time.perf_counter() - module_started:.1f} s)")
        sys.stdout.flush()
    total = time.perf_counter() - started
    print(f"total {total:.1f} s on {platform.machine()} / Python {platform.python_version()}")
    path = Path(json_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seconds": total, "python": platform.python_version(), "results": results},
                               indent=1))
    return 0
