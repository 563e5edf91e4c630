"""Timing helpers shared by the benchmark modules.

A :class:`Row` is one line of the benchmark table: a median with min and max over repeated runs, the unit,
the target it is checked against and whether it met it.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Row:
    """One benchmark figure: ``median``/``low``/``high`` in ``unit``; ``target`` is e.g. ``"<= 20 ms"``."""

    name: str
    median: float
    low: float
    high: float
    unit: str
    target: str = ""
    ok: bool | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (a figure not measured, NaN, becomes ``None``)."""
        return {key: None if isinstance(value, float) and math.isnan(value) else value
                for key, value in asdict(self).items()}


def measure_ms(fn: Callable[[], object], repeat: int = 20, warmup: int = 1) -> tuple[float, float, float]:
    """Call ``fn`` ``warmup`` times untimed, then ``repeat`` times; return (median, min, max) in milliseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples), max(samples)


def timed_row(name: str, fn: Callable[[], object], limit_ms: float | None = None, repeat: int = 20,
              note: str = "") -> Row:
    """Time ``fn`` with :func:`measure_ms` and return a row in ms checked against ``limit_ms`` (median)."""
    median, low, high = measure_ms(fn, repeat=repeat)
    ok = None if limit_ms is None else median <= limit_ms
    target = "" if limit_ms is None else f"<= {limit_ms:g} ms"
    return Row(name, median, low, high, "ms", target, ok, note)


def value_row(name: str, value: float, unit: str, limit: float | None = None, note: str = "",
              at_least: bool = False) -> Row:
    """Return a row for a single measured value (bytes, moves/s, a win rate) checked against ``limit``."""
    if limit is None:
        ok, target = None, ""
    elif at_least:
        ok, target = value >= limit, f">= {limit:g} {unit}"
    else:
        ok, target = value <= limit, f"<= {limit:g} {unit}"
    return Row(name, value, value, value, unit, target, ok, note)


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.5 = median, 0.99 = p99) of ``samples``."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def percentile_rows(name: str, samples: list[float], p50_limit: float | None = None,
                    p99_limit: float | None = None, note: str = "") -> list[Row]:
    """Two rows, ``<name> p50`` and ``<name> p99`` in ms (min and max beside them), each checked against its limit;
    the note gives the number of samples (a p99 needs at least 100 to mean what it says)."""
    detail = f"n={len(samples)}" + (f"; {note}" if note else "")
    rows = []
    for label, fraction, limit in (("p50", 0.5, p50_limit), ("p99", 0.99, p99_limit)):
        value = percentile(samples, fraction)
        rows.append(Row(f"{name} {label}", value, min(samples), max(samples), "ms",
                        "" if limit is None else f"<= {limit:g} ms", None if limit is None else value <= limit,
                        detail))
    return rows
