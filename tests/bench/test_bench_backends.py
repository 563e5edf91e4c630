"""The SQLite-and-PostgreSQL benchmark at a tiny size on each backend: every figure measured from real moves and
passes (none lost or doubled), the durability setting it asks for in force, and its rows named as the rows of a
skipped backend are (``run`` pairs them up figure by figure)."""

from __future__ import annotations

import math

import pytest

from bench import bench_backends
from bench._timing import Row
from tests.postgres_cluster import Cluster


@pytest.fixture(autouse=True)
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_backends, "MATCHES", 12)
    monkeypatch.setattr(bench_backends, "MOVES", 8)
    monkeypatch.setattr(bench_backends, "ROUND_TRIP_MOVES", 5)
    monkeypatch.setattr(bench_backends, "RUNS", ((2, True),))
    monkeypatch.setattr(bench_backends, "SIZES", (20, 60))
    monkeypatch.setattr(bench_backends, "PASSES", 3)


def _check(rows: list[Row], backend: str, flushed_setting: str) -> None:
    assert [row.name for row in rows] == [row.name for row in bench_backends.skipped_rows(backend, "absent")]
    assert all(math.isfinite(row.median) and row.median > 0 for row in rows)
    anchored = len(bench_backends._anchored_names(backend))
    served, p50, p99 = rows[:3]
    assert served.name == f"{backend}: moves, 1 writer process: moves/s"
    assert served.note.startswith("8 moves on 12 active matches")
    assert "the log holds 8 moves and the plies sum to 8 (lost or doubled: 0)" in served.note
    assert p50.note == p99.note == "n=8"
    shares = [row for row in rows[:anchored] if row.name.endswith("the service's share of its moves/s")]
    assert shares and all(row.unit == "%" and "inside the calls" in row.note for row in shares)
    anchors = [row for row in rows[:anchored] if row.name.endswith(": moves/s")][1:]
    assert len(anchors) == len(shares) and all(row.median > 0 for row in anchors)
    if backend == "SQLite":
        assert "the same 6 statements with the same values as a move of the service" in anchors[0].note
    else:
        trips = {row.name: row.median for row in rows[:anchored] if row.unit == "trips"}
        service = trips.pop("PostgreSQL: round trips per move through the service (median)")
        # A pipelined send that crosses an answer in the proxy counts one off (either way): the median of an odd count.
        assert service in (2.0, 3.0)
        assert trips == {"PostgreSQL: round trips per move of pgbench, one statement a round trip": 7.0,
                         "PostgreSQL: round trips per move of pgbench, the service's pipelines": 3.0}
    others = rows[anchored:]
    throughput, p50, p99 = others[:3]
    assert throughput.name == f"{backend}: moves, 2 writer processes, every commit flushed to disk: moves/s"
    assert throughput.note.startswith(f"{flushed_setting}; 8 moves on 12 active matches")
    assert "the log holds 8 moves and the plies sum to 8 (lost or doubled: 0)" in throughput.note
    assert p50.note == p99.note == "n=8"
    passes = others[3:7]
    assert [row.name for row in passes] == [f"{backend}: deadline pass, 10 due among {size} active matches {p}"
                                            for size in (20, 60) for p in ("p50", "p99")]
    assert all(row.note.startswith("n=3; ") for row in passes)
    assert others[7].unit == "x"


def test_sqlite_figures() -> None:
    _check(bench_backends.sqlite_rows(), "SQLite", "WAL, synchronous=FULL")


@pytest.mark.slow  # the PostgreSQL run: the benchmarks against a real server
def test_postgres_figures(postgres_cluster: Cluster) -> None:
    _check(bench_backends.postgres_rows(postgres_cluster), "PostgreSQL", "synchronous_commit=on")


def test_skipped_rows_say_why() -> None:
    rows = bench_backends.skipped_rows("PostgreSQL", bench_backends.NOT_INSTALLED)
    assert rows and all(row.note == f"skipped: {bench_backends.NOT_INSTALLED}" and math.isnan(row.median)
                        and row.to_dict()["median"] is None for row in rows)
