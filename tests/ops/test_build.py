"""The operator's details: ``napkin --version`` and the ``napkin_build_info`` metric say which build runs (version,
commit, Python), and the counters that alerts read exist at 0 from the start, before anything happened."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from bot.client import NapkinBot
from bot.ops.metrics import ERROR_KINDS
from games import GAMES
from storage import Database
from tests.ops._page import samples

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _version(**environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "--version"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **environment})


def test_napkin_version_says_the_version_the_commit_and_the_python() -> None:
    done = _version(NAPKIN_COMMIT=COMMIT)  # what the container build sets
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == (f"napkin {metadata.version('napkin-games')} (commit {COMMIT}, Python "
                           f"{platform.python_version()})\n")
    from_git = _version()  # this checkout's own commit
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert f"(commit {head}, " in from_git.stdout
    assert "(commit unknown, " in _version(NAPKIN_COMMIT="not a commit; rm -rf /").stdout


async def test_a_fresh_bot_exports_its_build_and_the_alerts_counters_at_zero(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "bot.db")
    try:
        exposition = NapkinBot(db).metrics.exposition().decode()
    finally:
        await db.close()
    (build,) = samples(exposition, "napkin_build_info").items()
    assert build[1] == 1.0
    assert f'python="{platform.python_version()}"' in build[0]
    assert f'version="{metadata.version("napkin-games")}"' in build[0] and 'commit="' in build[0]
    assert samples(exposition, "napkin_errors_total") == {f'kind="{kind}"': 0.0 for kind in ERROR_KINDS}
    fallbacks = samples(exposition, "napkin_computer_fallbacks_total")
    assert fallbacks == {f'game="{game}",reason="{reason}"': 0.0 for game in GAMES
                         for reason in ("overloaded", "queue_full", "worker_lost")}
    assert set(samples(exposition, "napkin_deadline_actions_total").values()) == {0.0}
