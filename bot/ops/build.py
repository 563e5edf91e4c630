"""What build of the bot is running: its version, the commit it was built from and the Python that runs it, for
``napkin --version`` and the ``napkin_build_info`` metric.

The commit is, in this order: ``NAPKIN_COMMIT`` from the environment (the container build sets it from its build
argument of the same name: ``docker build --build-arg NAPKIN_COMMIT=$(git rev-parse HEAD)``); the commit checked out
where the code runs from, when that is a git checkout (``make run``, an editable install); otherwise ``unknown``.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

UNKNOWN = "unknown"
_COMMIT = re.compile(r"[0-9a-f]{7,64}")
SOURCE = Path(__file__).resolve().parents[2]
"""The folder the bot's packages are in: a git checkout when it runs from one."""


@dataclass(frozen=True)
class BuildInfo:
    """The build: ``version`` (the package's), ``commit`` (a git hash, or ``unknown``), ``python`` (``3.11.7``)."""

    version: str
    commit: str
    python: str

    def line(self) -> str:
        """What ``napkin --version`` prints: ``napkin 0.1.0 (commit 6177f8e…, Python 3.11.7)``."""
        return f"napkin {self.version} (commit {self.commit}, Python {self.python})"


@functools.cache
def build_info() -> BuildInfo:
    """This process's build (read once)."""
    try:
        version = metadata.version("napkin-games")
    except metadata.PackageNotFoundError:
        version = UNKNOWN
    return BuildInfo(version, _commit(), platform.python_version())


def _commit() -> str:
    given = os.environ.get("NAPKIN_COMMIT", "").strip().lower()
    if given:
        return given if _COMMIT.fullmatch(given) else UNKNOWN
    git = shutil.which("git")
    if git is None or not (SOURCE / ".git").exists():
        return UNKNOWN
    try:
        done = subprocess.run([git, "-C", str(SOURCE), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return UNKNOWN
    found = done.stdout.strip().lower()
    return found if done.returncode == 0 and _COMMIT.fullmatch(found) else UNKNOWN
