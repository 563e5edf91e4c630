"""The throwaway PostgreSQL cluster of :mod:`bench._pgcluster` as the tests use it.

Without the binaries the PostgreSQL cases are skipped, unless ``NAPKIN_REQUIRE_POSTGRES`` is set (``.ci/run`` sets
it), which makes them fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bench._pgcluster import NOT_INSTALLED, THROWAWAY_OPTIONS, Cluster, bindir, running_cluster
from bench._pgcluster import fresh_database as _fresh_database

__all__ = ["Cluster", "fresh_database", "start_cluster"]


def start_cluster(server_options: str = THROWAWAY_OPTIONS) -> Iterator[Cluster]:
    """Start a cluster (with ``server_options``), yield it, stop it and delete its files (skip, or fail, without
    PostgreSQL)."""
    if bindir() is None:
        if os.environ.get("NAPKIN_REQUIRE_POSTGRES"):
            pytest.fail(NOT_INSTALLED)
        pytest.skip(NOT_INSTALLED)
    with running_cluster(server_options) as cluster:
        yield cluster


def fresh_database(cluster: Cluster) -> Iterator[str]:
    """Create an empty database on ``cluster``, yield its URL, drop it."""
    with _fresh_database(cluster, "napkin_test") as url:
        yield url
