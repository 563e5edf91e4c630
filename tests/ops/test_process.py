"""``napkin play`` as a real process, as an admin runs the bot: its settings, its health and metrics endpoint, its
JSON logs, SIGTERM while a move and a hard search are under way, a second SIGTERM, and no worker process left
behind, SIGKILL included. The page is driven over its own HTTP protocol (tests/ops/_page.py); Chopsticks' ``hard``
player is slowed down by :data:`tests.ops.slow_search.SLOW_SECONDS` so that a search is reliably under way."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.ops._page import ROOT, PlayProcess, free_port, http_get, samples, start_play

STOP_SECONDS = 10.0
"""The graceful stop's bound (NAPKIN_STOP_SECONDS' default)."""
CLOSING_SECONDS = 5.0
"""What closing the page, the simulated Discord and the database may add to the bound on a loaded machine."""
GONE_SECONDS = 5.0
"""How soon a worker must be gone once its bot is."""


def _stored(database: Path) -> list[tuple[int, int, str]]:
    """Every stored move: (match, ply, notation)."""
    with sqlite3.connect(database) as conn:
        return [tuple(row) for row in conn.execute("SELECT match_id, ply, notation FROM moves ORDER BY match_id, ply")]


def _only_match(database: Path) -> int:
    with sqlite3.connect(database) as conn:
        (found,) = conn.execute("SELECT id FROM matches").fetchall()
    return int(found[0])


def _metrics(port: int) -> str:
    status, body = http_get(f"http://127.0.0.1:{port}/metrics")
    assert status == 200
    return body


def _gone(processes: list[psutil.Process], within: float) -> bool:
    """``True`` once every process in ``processes`` has ended (a zombie has ended), within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = []
        for process in processes:
            try:
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(process)
            except psutil.NoSuchProcess:
                continue
        if not alive:
            return True
        time.sleep(0.1)
    return False


def _stop(play: PlayProcess) -> int:
    if play.process.poll() is None:
        play.process.send_signal(signal.SIGTERM)
    try:
        return play.process.wait(STOP_SECONDS + CLOSING_SECONDS)
    except subprocess.TimeoutExpired:
        play.process.kill()
        play.process.wait()
        raise


def _move_under_way(play: PlayProcess, port: int, database: Path) -> tuple[threading.Thread, dict[str, Any]]:
    """alice starts a match against the hard computer and plays ``LL``; return once the move is stored and the
    computer's (slowed) search is under way in a worker: the thread waiting for the page's answer, and the
    answer once it came."""
    page = play.page("alice")
    page.command("chopsticks start", opponent=page.bot_id, level="hard")  # alice moves first
    answer: dict[str, Any] = {}

    def move() -> None:
        try:
            answer.update(page.command("chopsticks move", notation="LL"))
        except OSError as error:  # the process ended before answering (the tests that end it at once)
            answer["error"] = error

    mover = threading.Thread(target=move)
    mover.start()
    deadline = time.monotonic() + 60
    while samples(_metrics(port), "napkin_computer_requests").get('kind="move"') != 1:
        assert time.monotonic() < deadline, "the computer's search never started"
        time.sleep(0.05)
    assert len(_stored(database)) == 1  # alice's move is in; the computer's answer is being searched
    return mover, answer


@pytest.mark.slow  # a second process: napkin play started and stopped
def test_settings_health_metrics_and_json_logs_of_napkin_play(tmp_path: Path) -> None:
    database, port = tmp_path / "play.db", free_port()
    play = start_play(database, {"NAPKIN_COMPUTER_WORKERS": "1", "NAPKIN_METRICS_ADDR": f"127.0.0.1:{port}",
                                 "NAPKIN_LOG_FORMAT": "json", "NAPKIN_LOG_LEVEL": "DEBUG"})
    try:
        assert http_get(f"http://127.0.0.1:{port}/healthz") == (200, "ok\n")  # the simulated gateway is connected
        before = _metrics(port)
        page = play.page("alice")
        page.command("help")
        page.command("chopsticks start", opponent=page.bot_id, level="easy", seat="second")  # the computer moves
        after = _metrics(port)
        workers = play.workers()
    finally:
        code = _stop(play)
    assert code == 0
    old, new = samples(before, "napkin_interactions_total"), samples(after, "napkin_interactions_total")
    assert {key: value - old.get(key, 0) for key, value in new.items()} == {
        'command="/help",outcome="ok"': 1, 'command="/chopsticks start",outcome="ok"': 1}
    assert samples(after, "napkin_computer_workers") == {"": 1}
    assert len(workers) == 1 and samples(after, "napkin_computer_processes") == {"": 1}  # one worker, counted
    assert [notation for _, _, notation in _stored(database)] != []  # the computer's first move is stored
    records = [json.loads(line) for line in play.stderr]  # every log line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    start = next(record for record in records if record["logger"] == "bot.ops.interactions"
                 and record["command"] == "/chopsticks start")
    assert start["guild"] and start["shard"] == 0 and start["message"].startswith("interaction /chopsticks start")
    assert any(record["logger"] == "bot.ops.stopping" and "SIGTERM" in record["message"] for record in records)
    assert play.stdout[-1] == "napkin play: stopped."


@pytest.mark.parametrize(("variable", "value", "problem"), [
    ("NAPKIN_COMPUTER_WORKERS", "0", "greater than or equal to 1"),
    ("NAPKIN_COMPUTER_WORKERS", "abc", "valid integer"),
    ("NAPKIN_COMPUTER_WORKERS", "-3", "greater than or equal to 1"),
    ("NAPKIN_REVIEW_SLOTS", "2", "at most 1 with NAPKIN_COMPUTER_WORKERS=2"),
    ("NAPKIN_METRICS_ADDR", "9108", "is not host:port"),
    ("NAPKIN_LOG_LEVEL", "verbose", "'verbose' is not a logging level (DEBUG, INFO, WARNING, ERROR, CRITICAL)"),
    ("NAPKIN_LOG_LEVELS", "discord.gateway", "'discord.gateway' is not logger=LEVEL"),
    ("NAPKIN_LOG_LEVELS", "discord.gateway=DEBUG,aiosqlite=LOUD", "'LOUD' is not a logging level"),
])
@pytest.mark.slow  # second processes: napkin started once per bad setting
@pytest.mark.parametrize("command", ["run", "play"])
def test_a_bad_size_setting_stops_the_start_with_its_name(tmp_path: Path, command: str, variable: str, value: str,
                                                           problem: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DISCORD_TOKEN": "x", "NAPKIN_COMPUTER_WORKERS": "2",
           variable: value}
    done = subprocess.run([sys.executable, "-m", "bot.cli", command, "--database", str(tmp_path / "x.db")]
                          if command == "play" else [sys.executable, "-m", "bot.cli", command],
                          cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode in (1, 2) and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"napkin {command}: {variable}=") and problem in line
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "napkin.db").exists()


@pytest.mark.slow  # a fault suite: a real process stopped by signals mid-search
@pytest.mark.parametrize("stop", ["SIGTERM to the process", "Ctrl-C: SIGINT to its process group"])
def test_a_signal_lets_the_move_and_the_hard_search_under_way_finish_then_stops_cleanly(tmp_path: Path,
                                                                                        stop: str) -> None:
    database, port = tmp_path / "play.db", free_port()
    play = start_play(database, {"NAPKIN_COMPUTER_WORKERS": "1", "NAPKIN_METRICS_ADDR": f"127.0.0.1:{port}"})
    try:
        mover, answer = _move_under_way(play, port, database)
        workers = play.workers()
        assert len(workers) == 1
        tree = psutil.Process(play.process.pid).children(recursive=True)
        began = time.monotonic()
        if stop.startswith("SIGTERM"):
            play.process.send_signal(signal.SIGTERM)
        else:  # the worker gets it too, and leaves it to the bot
            os.killpg(play.process.pid, signal.SIGINT)
        code = play.process.wait(STOP_SECONDS + CLOSING_SECONDS)
        took = time.monotonic() - began
        mover.join(30)
    finally:
        _stop(play)
    assert code == 0 and took < STOP_SECONDS + CLOSING_SECONDS
    match = _only_match(database)
    assert [(ply, match_id) for match_id, ply, _ in _stored(database)] == [(1, match), (2, match)]
    assert answer.get("settlement") == "settled"  # alice's page got its answer: the board with both moves
    assert play.stdout[-1] == "napkin play: stopped."
    assert play.stderr == []  # no warning, no leaked semaphore, no traceback
    assert _gone(tree, 0.5)  # the workers and the resource tracker ended with it, not after


@pytest.mark.slow  # a fault suite: a real process signalled twice
def test_a_second_sigterm_stops_at_once_and_leaves_no_worker(tmp_path: Path) -> None:
    database, port = tmp_path / "play.db", free_port()
    play = start_play(database, {"NAPKIN_COMPUTER_WORKERS": "1", "NAPKIN_METRICS_ADDR": f"127.0.0.1:{port}"})
    try:
        mover, answer = _move_under_way(play, port, database)
        workers = play.workers()
        play.process.send_signal(signal.SIGTERM)
        time.sleep(0.5)  # the graceful stop is waiting for the search
        assert play.process.poll() is None
        began = time.monotonic()
        play.process.send_signal(signal.SIGTERM)
        code = play.process.wait(5)
        took = time.monotonic() - began
        mover.join(30)
    finally:
        _stop(play)
    assert "error" in answer  # the page's move was cut off with the process
    assert code == 128 + signal.SIGTERM and took < 1.0
    assert any("SIGTERM again: stopping at once" in line for line in play.stderr)
    assert workers and _gone(workers, GONE_SECONDS)


@pytest.mark.slow  # a fault suite: a real process killed with SIGKILL
def test_workers_end_within_seconds_after_a_sigkill_of_napkin_play(tmp_path: Path) -> None:
    database, port = tmp_path / "play.db", free_port()
    play = start_play(database, {"NAPKIN_COMPUTER_WORKERS": "1", "NAPKIN_METRICS_ADDR": f"127.0.0.1:{port}"})
    try:
        mover, _ = _move_under_way(play, port, database)  # the worker is busy searching when its bot dies
        workers = play.workers()
        play.process.send_signal(signal.SIGKILL)
        play.process.wait(5)
        mover.join(30)
    finally:
        _stop(play)
    assert len(workers) == 1 and _gone(workers, GONE_SECONDS)


@pytest.mark.slow  # a fault suite: a real process killed with SIGKILL
def test_workers_end_after_a_sigkill_without_the_kernels_help(tmp_path: Path) -> None:
    """A pool started outside the main thread does not ask Linux for a parent-death signal (which would follow that
    thread): its workers notice the dead parent themselves."""
    script = tmp_path / "pool.py"
    script.write_text(POOL_SCRIPT)
    process = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                               env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    try:
        assert process.stdout is not None
        pids = json.loads(process.stdout.readline())
        workers = [psutil.Process(pid) for pid in pids]
        assert len(workers) == 2 and all(worker.ppid() == process.pid for worker in workers)
        process.send_signal(signal.SIGKILL)
        process.wait(5)
    finally:
        process.kill()
        process.wait()
    assert _gone(workers, GONE_SECONDS)


POOL_SCRIPT = '''
import asyncio, json, threading
import psutil
from bot.service.computer import ComputerPool
from games import GAMES


async def main():
    pool = ComputerPool(2)
    pool.start()
    state = GAMES["chopsticks"].new_state({}).to_dict()
    await asyncio.gather(*(pool.choose("chopsticks", state, "easy", str(n)) for n in range(8)))
    workers = [child.pid for child in psutil.Process().children() if "spawn_main" in " ".join(child.cmdline())]
    print(json.dumps(workers), flush=True)
    await asyncio.sleep(3600)

if __name__ == "__main__":
    thread = threading.Thread(target=asyncio.run, args=(main(),))
    thread.start()
    thread.join()
'''


RUN_SCRIPT = '''
import asyncio, sys
import discord
from bot.cli import main


async def login(self, token):  # no Discord here: the client logs in to nothing
    self.computer.start()


async def static_login(self, token):  # and the start's own check of the token is answered as Discord would
    return {"id": "1", "username": "napkin"}


async def connect(self, *, reconnect=True):  # and stays "connected" until closed, as discord.py's loop does
    while not self.is_closed():
        await asyncio.sleep(0.05)

discord.Client.login = login
discord.http.HTTPClient.static_login = static_login
discord.AutoShardedClient.connect = connect
if __name__ == "__main__":
    print("starting", flush=True)
    raise SystemExit(main(["run"]))
'''


def test_napkin_run_stops_on_sigterm_with_one_stopped_line(tmp_path: Path) -> None:
    """``napkin run``'s own path (Discord's login and gateway stood in for): JSON logs, /healthz saying the gateway
    is not connected, SIGTERM, one "stopped" line, exit 0."""
    script, port = tmp_path / "run.py", free_port()
    script.write_text(RUN_SCRIPT)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "stand-in",
           "NAPKIN_DATABASE": str(tmp_path / "bot.db"), "NAPKIN_LOG_FORMAT": "json",
           "NAPKIN_METRICS_ADDR": f"127.0.0.1:{port}", "NAPKIN_COMPUTER_WORKERS": "1"}
    process = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline() == "starting\n"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = http_get(f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None, "the endpoint never answered"
                time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=STOP_SECONDS + CLOSING_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert health == (503, "gateway: not connected\n")
    assert process.returncode == 0
    records = [json.loads(line) for line in err.splitlines()]
    assert [record["message"] for record in records if record["logger"] == "bot.cli"] == ["stopped"]
    assert records[-1]["message"] == "stopped" and records[-1]["level"] == "INFO"
    assert any(record["message"].startswith("SIGTERM received: stopping") for record in records)
    assert not [record for record in records if record["level"] in ("WARNING", "ERROR", "CRITICAL")]
