"""A throwaway PostgreSQL cluster for the tests: Debian's binaries, a temporary folder, loopback only, a random port.

PostgreSQL refuses to run as root, so under root (CI) the server runs as the ``postgres`` user (``runuser``).
Without the binaries the PostgreSQL cases are skipped, unless ``NAPKIN_REQUIRE_POSTGRES`` is set (``.ci/run`` sets
it), which makes them fail instead.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

_SERVER_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
"""A cluster thrown away after the run needs no durability."""


@dataclass
class Cluster:
    """A running cluster: ``url(name)`` is the URL of database ``name`` on it."""

    host: str
    port: int
    user: str

    def url(self, name: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{name}"


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[4]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).resolve().parent if pg_ctl else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_cluster() -> Iterator[Cluster]:
    """Start a cluster, yield it, stop it and delete its files."""
    bindir = _bindir()
    if bindir is None:
        if os.environ.get("NAPKIN_REQUIRE_POSTGRES"):
            pytest.fail("PostgreSQL is not installed (apt-get install postgresql)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    base = Path(tempfile.mkdtemp(prefix="napkin-pg-"))
    if run_as:
        shutil.chown(base, "postgres")
    data, port = base / "data", _free_port()
    try:
        subprocess.run([*run_as, str(bindir / "initdb"), "-D", str(data), "-U", "napkin", "--auth=trust", "-E",
                        "UTF8", "--no-sync", "--no-instructions"], check=True, capture_output=True)
        subprocess.run([*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-l", str(base / "server.log"), "-w",
                        "-o", f"-h 127.0.0.1 -p {port} -k {base} {_SERVER_OPTIONS}", "start"],
                       check=True, capture_output=True)
        try:
            yield Cluster("127.0.0.1", port, "napkin")
        finally:
            subprocess.run([*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                           check=False, capture_output=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


_numbers = itertools.count(1)


def fresh_database(cluster: Cluster) -> Iterator[str]:
    """Create an empty database on ``cluster``, yield its URL, drop it."""
    name = f"napkin_test_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield cluster.url(name)
    finally:
        with psycopg.connect(cluster.url("postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
