"""A running ``napkin play`` driven as its page drives it, over the page's own HTTP protocol (SimCord Preview's,
protocol version 3), without a browser: open a page as a player, run a slash command, wait for its answer. The tests of
the process as a service use it (tests/browser drives the same page in Chromium).

Also: starting ``napkin play`` (with the slowed Chopsticks player, :mod:`tests.ops._play`), reading its lines, and
the process tree it leaves."""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90.0
"""How long ``napkin play`` may take to print its address on a loaded machine."""
_URL = re.compile(r"open (http://127\.0\.0\.1:\d+)/#(\S+)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def http_get(url: str, timeout: float = 10.0) -> tuple[int, str]:
    """``GET url``: (status, body), an error status included."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def samples(exposition: str, name: str) -> dict[str, float]:
    """The samples of metric ``name`` (e.g. ``napkin_interactions_total``) in a ``/metrics`` body, by their label
    text (``command="/help",outcome="ok"``; ``""`` without labels)."""
    found = {}
    for line in exposition.splitlines():
        matched = re.fullmatch(rf"{re.escape(name)}(?:\{{(.*)\}})? (\S+)", line)
        if matched:
            found[matched[1] or ""] = float(matched[2])
    return found


@dataclass
class PlayProcess:
    """A ``napkin play`` process started by :func:`start_play`: its page, its output lines so far."""

    process: subprocess.Popen[str]
    base: str
    capability: str
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)

    def workers(self) -> list[psutil.Process]:
        """Its computer worker processes alive now (``multiprocessing`` spawn children; the resource tracker is
        not one)."""
        found = []
        for child in psutil.Process(self.process.pid).children(recursive=True):
            try:
                if "spawn_main" in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                    found.append(child)
            except psutil.NoSuchProcess:
                continue
        return found

    def page(self, viewer: str | None = None) -> Page:
        """A new page (browser tab) of the play page, viewing as ``viewer`` (a player's name; default the first)."""
        return Page(self, viewer)


def _pump(stream: Any, into: list[str], lines: queue.Queue[str | None] | None) -> None:
    for line in stream:
        into.append(line.rstrip("\n"))
        if lines is not None:
            lines.put(line.rstrip("\n"))
    if lines is not None:
        lines.put(None)


def start_play(database: Path, env: dict[str, str], *, players: str = "alice,bob") -> PlayProcess:
    """Start ``napkin play`` on ``database`` (via :mod:`tests.ops._play`) with ``env`` added to this process's
    environment, and wait for its address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.ops._play", "--database", str(database), "--players", players],
        cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1", **env}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)  # its own process group, as in a terminal
    lines: queue.Queue[str | None] = queue.Queue()
    out: list[str] = []
    err: list[str] = []
    threading.Thread(target=_pump, args=(process.stdout, out, lines), daemon=True).start()
    threading.Thread(target=_pump, args=(process.stderr, err, None), daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=START_SECONDS)
        except queue.Empty:
            process.kill()
            raise AssertionError("napkin play printed no address:\n" + "\n".join(out + err)) from None
        if line is None:
            process.wait(10)
            raise AssertionError("napkin play ended before printing its address:\n" + "\n".join(out + err))
        found = _URL.search(line)
        if found:
            return PlayProcess(process, found[1], found[2], out, err)


class Page:
    """One page of ``napkin play`` (as a browser tab is), viewing as one player."""

    def __init__(self, play: PlayProcess, viewer: str | None) -> None:
        self.play = play
        opened = self._call("POST", "/api/pages", {})
        self.context = opened["context"]["id"]
        self.sequence = 0
        if viewer is not None:
            chosen = next(v["id"] for v in opened["viewers"] if v["name"] == viewer)
            self._act({"kind": "viewer", "viewer_id": chosen})
        self.catalog = self._call("GET", "/api/commands")
        self.bot_id = self.catalog["application"]["id"]
        """The bot's id: the ``opponent`` that means the computer."""

    def _call(self, method: str, path: str, body: Any = None, timeout: float = 120.0) -> Any:
        request = urllib.request.Request(self.play.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header("X-Simcord-Capability", self.play.capability)
        request.add_header("Content-Type", "application/json")
        if hasattr(self, "context"):
            request.add_header("X-Simcord-Context", self.context)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def _act(self, action: dict[str, Any]) -> dict[str, Any]:
        state = self._call("GET", "/api/state")
        self.sequence += 1
        body = {"protocol_version": 3, "generation": state["context"]["generation"],
                "bot_generation": state["botGeneration"], "published_revision": state["publishedRevision"],
                "sequence": self.sequence, "request_id": uuid.uuid4().hex, **action}
        result: dict[str, Any] = self._call("POST", "/api/action", body)
        assert not result.get("rejected"), result.get("diagnostics")
        return result

    def command(self, invocation: str, **options: str | int) -> dict[str, Any]:
        """Run ``/invocation`` with ``options`` (a member option takes a user id) and wait for the bot to settle;
        the page's answer."""
        entry = next(e for e in self.catalog["entries"] if e["invocation"] == invocation)
        return self._act({"kind": "run_command", "command_id": entry["commandId"], "path": entry["path"],
                          "schema_fingerprint": entry["schemaFingerprint"], "options": options})

