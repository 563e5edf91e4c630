"""PostgreSQL under real faults while members play and the deadline pass runs: the server ends every session
(``pg_terminate_backend``), restarts cleanly, and restarts as after a crash (``pg_ctl stop -m immediate``). Every
move is applied exactly once or refused with the truth (nothing answers with an unexpected error), the move log holds
exactly the moves that were answered as applied, every due match is settled once, and ratings count every result
once."""

from __future__ import annotations

import asyncio
import collections
import random
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from bot.service import Player, ServiceError, Services, Unavailable, load_state
from bot.service.base import UNCERTAIN
from bot.service.clock import DAY
from storage import Database, ReadTx, StorageError
from tests.postgres_cluster import Cluster, fresh_database, start_cluster
from tests.reliability._support import assert_consistent, assert_ratings_match_results, service_match

pytestmark = pytest.mark.slow  # a fault suite: a real PostgreSQL server's sessions ended, restarted, crashed

GUILD = 31
PAIRS = ((Player(1, "alice"), Player(2, "bob")), (Player(3, "carol"), Player(4, "dave")))
MATCHES_PER_PAIR = 4
IDLE = 12
"""Matches nobody plays, due for the deadline pass during the faults (half reminders, half ends)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A cluster of this module's own, which its tests restart, committing as PostgreSQL does by default (a commit
    is answered once it is in the write-ahead log: with ``synchronous_commit=off`` a server that crashes loses the
    last moments of commits by design). It does not flush to disk (``fsync=off``): only a failing machine would lose
    what the system has not written yet."""
    yield from start_cluster("-c fsync=off -c synchronous_commit=on -c full_page_writes=off -c max_connections=200")


@pytest.fixture
def url(cluster: Cluster) -> Iterator[str]:
    yield from fresh_database(cluster)


def _terminate(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                      "AND pid <> pg_backend_pid()")


async def _faults(cluster: Cluster, url: str, stop: asyncio.Event) -> list[str]:
    """Every fault in turn, a moment of play between two."""
    done = []
    for fault in ("terminate", "terminate", "restart", "terminate", "crash", "terminate"):
        await asyncio.sleep(0.4)
        if fault == "terminate":
            await asyncio.to_thread(_terminate, url)
        else:
            await asyncio.to_thread(cluster.restart, None, "fast" if fault == "restart" else "immediate")
        done.append(fault)
    await asyncio.sleep(0.4)
    stop.set()
    return done


async def _member(services: Services, player: Player, matches: list[int], stop: asyncio.Event,
                  answers: list[tuple[int, Any]], rng: random.Random) -> None:
    """Play ``player``'s moves in ``matches``, one after the other, until ``stop``; every answer kept."""
    for match_id in matches:
        while not stop.is_set():
            try:
                match = await services.db.read(ReadTx.get_match, match_id)
            except StorageError:  # the server is going away: a read is simply tried again
                await asyncio.sleep(0.05)
                continue
            assert match is not None
            if match.status != "active":
                break
            if match.seats[match.current_seat or 0].user_id != player.user_id:
                await asyncio.sleep(0.01)
                continue
            state = load_state(match)
            going = [move for move in state.legal_moves() if not state.apply(move).is_over]
            text = state.format_move(rng.choice(going or list(state.legal_moves())))
            try:
                answers.append((match_id, await services.moves.play(match_id, GUILD, player.user_id, text)))
            except ServiceError as refusal:
                answers.append((match_id, refusal))
            await asyncio.sleep(rng.uniform(0.0, 0.03))


async def _passes(services: Services, stop: asyncio.Event, settled: collections.Counter[tuple[str, int]],
                  failures: list[BaseException]) -> None:
    """The deadline pass every 50 ms, as the bot's loop runs it (a pass that fails is tried again later)."""
    while not stop.is_set():
        try:
            work = await services.deadlines.process_due()
        except (StorageError, ServiceError) as error:
            failures.append(error)
        else:
            settled.update(("reminded", m.id) for m in work.reminded)
            settled.update(("ended", m.id) for m in (*work.forfeited, *work.aborted))
        await asyncio.sleep(0.05)


async def test_members_and_the_deadline_pass_through_terminated_sessions_and_restarts(cluster: Cluster,
                                                                                      url: str) -> None:
    db = await Database.open(url)
    try:
        services = Services(db)
        now = time.time()
        matches = {pair: [(await service_match(services, "chopsticks", GUILD, pair, days=3)).id
                          for _ in range(MATCHES_PER_PAIR)] for pair in PAIRS}
        idle = [(await service_match(services, "chopsticks", GUILD, (Player(50 + n, "x"), Player(80 + n, "y")),
                                     days=3)).id for n in range(IDLE)]
        for number, match_id in enumerate(idle):  # due one after the other while the faults come: the first half
            due = now + 0.25 * number  # their reminder (a day before a deadline of 3 days), the second their deadline
            await db.write(lambda tx, m=match_id, at=due + (0 if number % 2 else DAY): tx._conn.execute(
                "UPDATE matches SET deadline = ? WHERE id = ?", (at, m)))

        stop = asyncio.Event()
        answers: list[tuple[int, Any]] = []
        settled: collections.Counter[tuple[str, int]] = collections.Counter()
        failed_passes: list[BaseException] = []
        rng = random.Random(5)
        members = [_member(services, player, matches[pair], stop, answers, random.Random(rng.random()))
                   for pair in PAIRS for player in pair]
        faults, *_ = await asyncio.gather(_faults(cluster, url, stop), _passes(services, stop, settled, failed_passes),
                                          *members)
        assert faults == ["terminate", "terminate", "restart", "terminate", "crash", "terminate"]
        while await db.read(ReadTx.due_match_ids, time.time()):  # the faults are over: the pass finishes its work
            work = await services.deadlines.process_due()
            settled.update(("reminded", m.id) for m in work.reminded)
            settled.update(("ended", m.id) for m in (*work.forfeited, *work.aborted))

        # every answer is a move applied or a refusal that says what happened; a commit whose answer was lost
        # (the connection died with it) was looked up, never left in doubt
        refusals = collections.Counter(type(a).__name__ for _, a in answers if isinstance(a, ServiceError))
        assert not [a for _, a in answers if isinstance(a, Unavailable) and str(a) == UNCERTAIN], refusals
        applied = [(match_id, a) for match_id, a in answers if not isinstance(a, ServiceError)]
        assert len(applied) >= 20, (len(applied), refusals)  # the members did play through the faults
        assert set(refusals) <= {"Unavailable", "NotYourTurn", "Outdated"}, refusals

        # the log holds exactly the moves answered as applied: none lost, none doubled
        for match_id in [m for pair in PAIRS for m in matches[pair]]:
            logged = [(m.ply, m.seat, m.notation) for m in await db.read(ReadTx.get_moves, match_id)]
            answered = sorted((r.after.ply, r.seat, r.notation) for m, r in applied if m == match_id)
            assert logged == answered, (match_id, logged, [(type(a).__name__, getattr(a, "notation", str(a)[:60]),
                                                             getattr(getattr(a, "after", None), "ply", None))
                                                            for m, a in answers if m == match_id])
            await assert_consistent(db, match_id)

        # every due thing done once (a pass whose commit's answer was lost does not report it: the database says):
        # a reminder queued for the first half, an end and its result for the second half (whose reminder, due at
        # once, is queued too unless the deadline passed before a pass came round)
        assert all(count == 1 for count in settled.values()), settled
        news = collections.Counter((kind, match_id) for match_id, kind in await db.fetchall(
            "SELECT subject_id, kind FROM outbox"))
        assert all(count == 1 for count in news.values()), news
        assert {m for kind, m in news if kind == "result"} == set(idle[1::2]), (news, failed_passes)
        assert set(idle[0::2]) <= {m for kind, m in news if kind == "reminder"} <= set(idle), (news, failed_passes)
        for match_id in idle:
            stored = await db.read(ReadTx.get_match, match_id)
            assert stored is not None and stored.status == ("aborted" if match_id in idle[1::2] else "active")
        await assert_ratings_match_results(db, GUILD)
    finally:
        await db.close()
