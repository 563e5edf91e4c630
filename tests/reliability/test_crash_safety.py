"""Crash safety: short-lived driver processes apply moves through the service on one database file and are killed
with SIGKILL at random points (also while opening and migrating the file). After every kill the database is
reopened, as a restarted bot would, and checked: ``PRAGMA integrity_check`` is ok, every move the driver
reported is in the log, no move is half applied (``matches.ply`` = logged moves, version = ply + 1 for a
resignation), every match's log replays to its stored state, and results and ratings agree."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storage import Database
from tests.reliability._crash_driver import GUILD
from tests.reliability._support import assert_consistent, assert_ratings_match_results

KILLS = 60
REPO = Path(__file__).resolve().parents[2]

# SQLite only: it kills processes writing to one database file and checks what the file kept (WAL recovery).
pytestmark = [pytest.mark.slow,  # a fault suite: processes killed with SIGKILL, again and again
              pytest.mark.skipif(not hasattr(os, "fork"), reason="the driver processes are forked")]


class ForkServer:
    """The driver's fork server (see ``_crash_driver``), one fresh interpreter for the whole test."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability._crash_driver"], cwd=REPO, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the fork server died"
        return answer.split()[1]

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def _wait_ready(out: Path, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = out.read_text() if out.exists() else ""
        if "ready" in text or "error" in text:
            assert "error" not in text, text
            return
        time.sleep(0.002)
    pytest.fail("the driver never opened the database")


class Reported:
    """What the drivers said they had done (each line written after its transaction committed)."""

    def __init__(self) -> None:
        self.moves: dict[tuple[int, int], str] = {}
        self.resigned: set[int] = set()
        self.aborted: set[int] = set()
        """Matches a resignation aborted (it came before both sides had moved)."""
        self.started: set[int] = set()
        self.premoves: dict[tuple[int, int, str], str] = {}
        """(match, ply, expected move) -> the conditional reply."""
        self.triggered: set[tuple[int, int]] = set()
        """(match, ply) of lines whose expected move was played, checked to be answered in the log."""
        self.vacations: dict[int, str] = {}
        """vacation id -> ``start`` or ``end``: the last thing a driver reported of it."""

    def read(self, out: Path) -> None:
        if not out.exists():  # killed before it opened its output file
            return
        for line in out.read_text().splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "move":
                match_id, ply, notation = rest.split(" ", 2)
                self.moves[int(match_id), int(ply)] = notation
            elif kind == "resign":
                self.resigned.add(int(rest))
            elif kind == "abort":
                self.aborted.add(int(rest))
            elif kind == "start":
                self.started.add(int(rest))
            elif kind == "premove":
                match_id, ply, expected, reply = rest.split(" ", 3)
                self.premoves[int(match_id), int(ply), expected] = reply
            elif kind == "vacation":
                what, vacation_id, _ = rest.split(" ", 2)
                self.vacations[int(vacation_id)] = what
            elif kind == "error":
                pytest.fail(f"the driver failed on its own: {rest}")


async def _verify(db_path: Path, reported: Reported, checked: dict[int, int], ratings: bool) -> None:
    db = await Database.open(db_path)  # the restart: recovery of the WAL, migrations if a kill interrupted them
    try:
        assert await db.integrity_check() == "ok"
        assert (await db.fetchone("PRAGMA foreign_key_check")) is None
        logged = {(r[0], r[1]): r[2] for r in await db.fetchall("SELECT match_id, ply, notation FROM moves")}
        missing = {key: text for key, text in reported.moves.items() if logged.get(key) != text}
        assert not missing, f"reported moves lost: {missing}"
        rows = await db.fetchall("SELECT id, version, ply, status, end_reason FROM matches")
        ids = {r[0] for r in rows}
        assert reported.started <= ids
        for match_id, version, ply, status, end_reason in rows:
            resigned = status == "finished" and "resigned" in (end_reason or "")
            aborted = status == "aborted"
            assert version == ply + int(resigned or aborted), f"match {match_id}: version {version}, ply {ply}, " \
                                                               f"{end_reason}"
            if match_id in reported.resigned:
                assert resigned
            if match_id in reported.aborted:
                assert aborted
            if checked.get(match_id) != version:
                await assert_consistent(db, match_id)
                checked[match_id] = version
        for (match_id, ply, expected), reply in reported.premoves.items():
            if logged.get((match_id, ply + 1)) == expected:  # the line was stored when its move came: answered
                assert logged.get((match_id, ply + 2)) == reply, f"match {match_id}: {expected} unanswered"
                reported.triggered.add((match_id, ply))
        lines = await db.fetchall("SELECT p.match_id, p.seat, p.ply, m.status, m.ply, m.current_seat FROM premoves p "
                                  "JOIN matches m ON m.id = p.match_id")
        for match_id, seat, ply, status, current_ply, current_seat in lines:
            assert status == "active" and ply == current_ply and seat != current_seat, f"stale line in {match_id}"
        await _verify_vacations(db, reported)
        challenges = await db.fetchall("SELECT status, match_id FROM challenges")
        accepted = [m for s, m in challenges if s == "accepted"]
        assert all(m in ids for m in accepted) and len(set(accepted)) == len(accepted)
        assert all(m is None for s, m in challenges if s != "accepted")
        if ratings:
            await assert_ratings_match_results(db, GUILD)
    finally:
        await db.close()


async def _verify_vacations(db: Database, reported: Reported) -> None:
    """Every reported vacation start and end is stored, and a vacation's deadlines moved with it: each running
    match whose player to move is away has its deadline past the end of the vacation (the drivers' allowance is a
    year, their matches' time 3 days), and no other deadline is further away than 3 days and the time paused."""
    rows = {r[0]: r[1:] for r in await db.fetchall("SELECT id, user_id, started_at, ends_by, ended_at FROM vacations")}
    for vacation_id, what in reported.vacations.items():
        assert vacation_id in rows, f"reported vacation {vacation_id} lost"
        if what == "end":
            assert rows[vacation_id][3] is not None, f"reported end of vacation {vacation_id} lost"
    away = {user: ends_by for user, _, ends_by, ended_at in rows.values() if ended_at is None}
    paused = sum((ended_at or time.time()) - started_at for _, started_at, _, ended_at in rows.values())
    running = await db.fetchall("SELECT m.id, m.deadline, s.user_id FROM matches m JOIN seats s ON s.match_id = m.id "
                                "AND s.seat = m.current_seat WHERE m.status = 'active' AND s.level IS NULL "
                                "AND m.deadline IS NOT NULL")
    for match_id, deadline, user in running:
        if user in away:
            assert deadline > away[user], f"match {match_id}: the deadline of a member away was not paused"
        else:
            assert deadline <= time.time() + 3 * 86400 + paused + 1, f"match {match_id}: a deadline still paused"


def test_sigkill_at_random_points_loses_no_reported_move(tmp_path: Path) -> None:
    db_path = tmp_path / "crash.db"
    rng = random.Random(20240609)
    reported = Reported()
    checked: dict[int, int] = {}
    server = ForkServer()
    kills = early = 0
    pid = None
    try:
        for run in range(KILLS):
            out = tmp_path / f"driver-{run}.out"
            pid = int(server.ask(f"run {run} {db_path} {out}"))
            if rng.random() < 0.15:  # kill while the database is still being opened (or migrated, at first)
                time.sleep(rng.uniform(0.0, 0.02))
                early += 1
            else:
                _wait_ready(out)
                time.sleep(rng.uniform(0.0, 0.2))
            os.kill(pid, signal.SIGKILL)
            status = int(server.ask(f"wait {pid}"))
            pid = None
            reported.read(out)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"driver {run} exited itself"
            kills += 1
            asyncio.run(_verify(db_path, reported, checked, ratings=run % 10 == 9))
    finally:
        if pid is not None:  # a failure while a driver ran: do not leave it playing on its own
            os.kill(pid, signal.SIGKILL)
            server.ask(f"wait {pid}")
        server.close()
    asyncio.run(_verify(db_path, reported, {}, ratings=True))  # everything once more, from scratch
    assert kills >= 50
    assert len(reported.moves) >= 3 * kills, "the drivers hardly moved before being killed"
    assert len(reported.triggered) >= 10, "the drivers hardly played a conditional move"
    assert len(reported.vacations) >= 5, "the drivers hardly went on vacation"
    print(f"\ncrash safety: {kills} kills survived ({early} while opening), {len(reported.moves)} reported moves "
          f"all in the log, {len(checked)} matches replayed, {len(reported.premoves)} conditional moves stored, "
          f"{len(reported.triggered)} answered in the transaction of their move, {len(reported.vacations)} vacations "
          "begun or ended with their deadlines")
