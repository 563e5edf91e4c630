"""A throwaway PostgreSQL cluster: Debian's binaries, a temporary folder, loopback only, a random port.

Used by the tests (``tests/postgres_cluster.py`` wraps it in pytest fixtures) and by the benchmarks. PostgreSQL
refuses to run as root, so under root the server runs as the ``postgres`` user (``runuser``).

.. code-block:: python

    with running_cluster() as cluster, fresh_database(cluster) as url:
        db = await Database.open(url)
"""

from __future__ import annotations

import contextlib
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

NOT_INSTALLED = "PostgreSQL is not installed (apt-get install postgresql)"
"""Why no cluster can start on this machine, when :func:`bindir` finds nothing."""

THROWAWAY_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
"""Server options for a cluster thrown away after the run: it needs no durability."""


class ClusterUnavailable(RuntimeError):
    """No PostgreSQL binaries on this machine (the message is :data:`NOT_INSTALLED`)."""


@dataclass
class Cluster:
    """A running cluster: ``url(name)`` is the URL of database ``name`` on it; :meth:`restart` stops it and starts it
    again (on another port: the same data at a new address, as after a failover)."""

    host: str
    port: int
    user: str
    data: Path | None = None
    """The cluster's data folder (``None``: a cluster this code did not start, which it cannot restart)."""
    options: str = ""
    """The server options it was started with."""

    def url(self, name: str) -> str:
        """``postgresql://user@host:port/name``."""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{name}"

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``pg_ctl stop -m mode``: ``fast`` ends every session, ``immediate`` as a crash does)."""
        _pg_ctl(self, "-m", mode, "stop")

    def start(self, port: int | None = None) -> None:
        """Start the stopped server again, on ``port`` when given (a new address for the same data)."""
        if port is not None:
            self.port = port
        assert self.data is not None, "not a cluster started here"
        _pg_ctl(self, "-l", str(self.data.parent / "server.log"), "-w", "-o",
                f"-h {self.host} -p {self.port} -k {self.data.parent} {self.options}", "start")

    def restart(self, port: int | None = None, mode: str = "fast") -> None:
        """:meth:`stop`, then :meth:`start` (on ``port`` when given)."""
        self.stop(mode)
        self.start(port)


def free_port() -> int:
    """A TCP port free on loopback now."""
    return _free_port()


def _run_as() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _pg_ctl(cluster: Cluster, *arguments: str) -> None:
    binaries = bindir()
    if binaries is None or cluster.data is None:
        raise ClusterUnavailable(NOT_INSTALLED)
    subprocess.run([*_run_as(), str(binaries / "pg_ctl"), "-D", str(cluster.data), *arguments], check=True,
                   capture_output=True)


def bindir() -> Path | None:
    """The folder of the newest installed PostgreSQL's server binaries (``/usr/lib/postgresql/<n>/bin`` on Debian,
    else where ``pg_ctl`` is on the ``PATH``), or ``None`` when there is none."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[4]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).resolve().parent if pg_ctl else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running_cluster(server_options: str = THROWAWAY_OPTIONS) -> Iterator[Cluster]:
    """Start a cluster (``initdb`` as user ``napkin`` with trust authentication, then ``pg_ctl start`` with
    ``server_options``), yield it, stop it and delete its files.

    Raises:
        ClusterUnavailable: PostgreSQL is not installed.
        subprocess.CalledProcessError: ``initdb`` or ``pg_ctl`` failed.
    """
    binaries = bindir()
    if binaries is None:
        raise ClusterUnavailable(NOT_INSTALLED)
    run_as = _run_as()
    base = Path(tempfile.mkdtemp(prefix="napkin-pg-"))
    if run_as:
        shutil.chown(base, "postgres")
    data, port = base / "data", _free_port()
    try:
        subprocess.run([*run_as, str(binaries / "initdb"), "-D", str(data), "-U", "napkin", "--auth=trust", "-E",
                        "UTF8", "--no-sync", "--no-instructions"], check=True, capture_output=True)
        subprocess.run([*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(base / "server.log"), "-w",
                        "-o", f"-h 127.0.0.1 -p {port} -k {base} {server_options}", "start"],
                       check=True, capture_output=True)
        try:
            yield Cluster("127.0.0.1", port, "napkin", data, server_options)
        finally:
            subprocess.run([*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                           check=False, capture_output=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


_numbers = itertools.count(1)


@contextlib.contextmanager
def fresh_database(cluster: Cluster, prefix: str = "napkin") -> Iterator[str]:
    """Create an empty database on ``cluster``, yield its URL, drop it (closing any connection still open)."""
    import psycopg  # the PostgreSQL extra; only needed once a cluster runs

    name = f"{prefix}_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield cluster.url(name)
    finally:
        with psycopg.connect(cluster.url("postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
