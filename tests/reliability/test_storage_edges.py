"""Storage at the edges: a file that is not a database, and a read-only database, are refused at start with a
clear message."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from storage import Database, StorageError

pytestmark = pytest.mark.both_backends


# ---------------------------------------------------------------- storage at the edges


ACCEPTED_LOGIN = """
import sys
import discord
from bot.cli import main


async def static_login(self, token):  # Discord takes the token: the start goes on to open the database
    return {"id": "1", "username": "napkin"}

discord.http.HTTPClient.static_login = static_login
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_file_that_is_not_a_database_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "napkin.db"
    path.write_bytes(b"this is a spreadsheet, not a database\n" * 200)
    script = tmp_path / "run.py"
    script.write_text(ACCEPTED_LOGIN)
    done = subprocess.run([sys.executable, str(script), "run"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DISCORD_TOKEN": "not-a-real-token", "NAPKIN_DATABASE": str(path),
                               "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
                          cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not a SQLite database" in lines[0], done.stderr


def _open_as_nobody(path: Path) -> str:
    """Open the database at ``path`` in a forked child running as the unprivileged user 65534 (everything it needs
    is already imported, so the checkout itself need not be readable by that user); return what it reported."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, open, report, exit
        report = "opened"
        try:
            os.setgid(65534)
            os.setuid(65534)
            outcome: list[str] = []

            def attempt() -> None:  # a thread of its own: no event loop is running there
                try:
                    asyncio.run(Database.open(path))
                except StorageError as error:
                    outcome.append(str(error))

            worker = threading.Thread(target=attempt)
            worker.start()
            worker.join(30)
            report = outcome[0] if outcome else "opened"
        finally:
            os.write(write, report.encode()[:1000])
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as answer:
        return answer.read()


async def test_a_read_only_database_is_refused_at_open() -> None:
    folder = Path(tempfile.mkdtemp(prefix="napkin-ro-"))
    os.chmod(folder, 0o755)
    path = folder / "napkin.db"
    db = await Database.open(path)  # a sound, migrated database
    await db.close()
    if os.geteuid() == 0:  # root writes any file: open it as an unprivileged user instead
        assert "cannot be written" in _open_as_nobody(path)
    else:
        os.chmod(path, 0o444)
        os.chmod(folder, 0o555)
        with pytest.raises(StorageError, match="cannot be written"):
            await Database.open(path)
