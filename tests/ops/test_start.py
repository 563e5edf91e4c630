"""A start that cannot run writes nothing: ``napkin run`` checks its settings, binds its metrics address and reaches
Discord (the token accepted) before it opens the database, so a taken port, an unreachable or refusing Discord or a
bad setting leaves no ``napkin.db`` behind, neither created nor migrated; ``napkin play`` binds its metrics address
before it opens its database too. Each failure is one line and exit code 1 or 2.

Discord is stood in for on this machine: its API address (discord.py's ``Route.BASE``) points at a closed port (no
answer) or at a local server answering 401, as Discord answers a revoked token."""

from __future__ import annotations

import http.server
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ops._page import ROOT, free_port

RUN_SCRIPT = '''
import sys
import discord
from bot.cli import main

discord.http.Route.BASE = sys.argv[1]  # Discord's API, as this test stands it in
raise SystemExit(main(["run"]))
'''


def _run(tmp_path: Path, api: str, **settings: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "run.py"
    script.write_text(RUN_SCRIPT)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "stand-in",
           "NAPKIN_COMPUTER_WORKERS": "1", **settings}
    return subprocess.run([sys.executable, str(script), api], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def _nothing_written(folder: Path) -> list[str]:
    """What a start left in ``folder`` besides the test's own script (the database, its WAL, anything)."""
    return sorted(path.name for path in folder.iterdir() if path.name != "run.py")


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 that another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


@pytest.fixture
def refusing_discord() -> Iterator[str]:
    """A stand-in of Discord's API on 127.0.0.1 that answers every request 401 Unauthorized (a revoked token);
    its base address."""
    class Refuse(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"message": "401: Unauthorized", "code": 0}'
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v10"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_napkin_run_with_the_metrics_port_taken_writes_nothing(tmp_path: Path, taken_port: int) -> None:
    done = _run(tmp_path, f"http://127.0.0.1:{free_port()}/api/v10", NAPKIN_METRICS_ADDR=f"127.0.0.1:{taken_port}")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"napkin run: NAPKIN_METRICS_ADDR=127.0.0.1:{taken_port} cannot be served here"), line
    assert _nothing_written(tmp_path) == []


def test_napkin_run_with_discord_unreachable_writes_nothing(tmp_path: Path) -> None:
    done = _run(tmp_path, f"http://127.0.0.1:{free_port()}/api/v10",  # nothing listens there
                NAPKIN_METRICS_ADDR=f"127.0.0.1:{free_port()}")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("napkin run: could not reach Discord ("), line
    assert _nothing_written(tmp_path) == []


def test_napkin_run_with_the_token_refused_writes_nothing(tmp_path: Path, refusing_discord: str) -> None:
    done = _run(tmp_path, refusing_discord)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "napkin run: Discord rejected the token in DISCORD_TOKEN; copy it again from the Developer Portal."]
    assert _nothing_written(tmp_path) == []


def test_an_existing_database_is_not_migrated_by_a_start_that_cannot_run(tmp_path: Path, taken_port: int) -> None:
    database = tmp_path / "old.db"
    with sqlite3.connect(database) as conn:  # a database of an older version: schema 1, one table of its own
        conn.execute("CREATE TABLE kept (id INTEGER)")
        conn.execute("PRAGMA user_version = 1")
    before = database.read_bytes()
    done = _run(tmp_path, f"http://127.0.0.1:{free_port()}/api/v10", NAPKIN_DATABASE=str(database),
                NAPKIN_METRICS_ADDR=f"127.0.0.1:{taken_port}")
    assert done.returncode == 1 and "cannot be served here" in done.stderr
    assert database.read_bytes() == before and _nothing_written(tmp_path) == ["old.db"]


def test_napkin_play_with_the_metrics_port_taken_writes_nothing(tmp_path: Path, taken_port: int) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "NAPKIN_COMPUTER_WORKERS": "1",
           "NAPKIN_METRICS_ADDR": f"127.0.0.1:{taken_port}"}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "play", "--database", str(tmp_path / "play.db")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"napkin play: NAPKIN_METRICS_ADDR=127.0.0.1:{taken_port} cannot be served here"), line
    assert _nothing_written(tmp_path) == []
