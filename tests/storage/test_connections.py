"""PostgreSQL connections: a member's move in three round trips, and what happens when connections die.

Round trips are counted at the socket by a proxy between the bot and the server (:mod:`bench._pgproxy`): each burst
of bytes the client sends after the server last spoke is one. The faults are real: the server ends the pool's
sessions (``pg_terminate_backend``), restarts, or comes back at another address; and the proxy loses a commit on its
way to the server, or its answer on the way back.
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import pytest
import pytest_asyncio

import storage.postgres
from bench._pgcluster import free_port
from bench._pgproxy import RoundTripProxy
from bot.service import NotYourTurn, Player, Services, load_state
from storage import Database, ReadTx
from tests.postgres_cluster import Cluster, fresh_database, start_cluster
from tests.reliability._support import Clock, assert_consistent, legal_texts, service_match

pytestmark = pytest.mark.slow  # the PostgreSQL runs: every test here starts a real PostgreSQL server

GUILD = 77
ALICE, BOB = Player(1, "alice"), Player(2, "bob")


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A cluster of this module's own, which its tests restart and move."""
    yield from start_cluster()


@pytest.fixture
def own_url(own_cluster: Cluster) -> Iterator[str]:
    yield from fresh_database(own_cluster)


@pytest.fixture
def proxy(postgres_cluster: Cluster) -> Iterator[RoundTripProxy]:
    with RoundTripProxy(postgres_cluster.host, postgres_cluster.port) as started:
        yield started


@pytest_asyncio.fixture
async def proxied(proxy: RoundTripProxy, postgres_url: str) -> AsyncIterator[Database]:
    """The test's database, opened through the proxy."""
    db = await Database.open(proxy.url(postgres_url))
    try:
        yield db
    finally:
        await db.close()


async def _move(services: Services, match_id: int) -> tuple[int, str]:
    """The seat to move of ``match_id`` and a legal move of theirs that hands over the turn and goes on."""
    match = await services.db.read(ReadTx.get_match, match_id)
    assert match is not None and match.current_seat is not None
    state = load_state(match)
    text = next(t for t in legal_texts(state) if not state.play(t).is_over
                and state.play(t).current_seat != state.current_seat)
    return match.seats[match.current_seat].user_id, text


async def _play(services: Services, match_id: int) -> None:
    user, text = await _move(services, match_id)
    await services.moves.play(match_id, GUILD, user, text)


def _terminate_sessions(url: str) -> int:
    """End every other session on ``url``'s database, as an administrator (or a restart) does; return how many."""
    others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    with psycopg.connect(url, autocommit=True) as admin:
        ended = len(admin.execute(f"SELECT pg_terminate_backend(pid) {others}").fetchall())
        while admin.execute(f"SELECT count(*) {others}").fetchone()[0]:  # gone, not just told to go
            time.sleep(0.01)
    return ended


async def _fill_pool(db: Database) -> None:
    """Four reads that each hold their connection until all four hold one, so that the pool has opened all
    :data:`storage.postgres.POOL_SIZE` connections (idle afterwards), however slowly it opens them: reads that
    merely overlapped for a while let a busy machine hand one connection on to the next read before the pool
    opened its last one."""
    together = threading.Barrier(storage.postgres.POOL_SIZE, timeout=60)

    def hold(tx: ReadTx) -> None:
        tx._conn.execute("SELECT 1").fetchall()
        together.wait()

    await asyncio.gather(*(db.read(hold) for _ in range(storage.postgres.POOL_SIZE)))
    connections = db.connections()
    assert connections is not None and (connections.in_use, connections.idle) == (0, storage.postgres.POOL_SIZE)


async def _quiet(proxy: RoundTripProxy) -> int:
    """The proxy's round trips once nothing has passed it for 50 ms: the proxy notes a message when its thread reads
    it, a moment after the client sent it, and the pool may be opening a connection in the background."""
    last = proxy.round_trips
    while True:
        await asyncio.sleep(0.05)
        if (now := proxy.round_trips) == last:
            return now
        last = now


async def test_a_members_move_takes_three_round_trips(proxied: Database, proxy: RoundTripProxy) -> None:
    services = Services(proxied)
    match = await service_match(services, "chopsticks", GUILD, (ALICE, BOB), days=3)
    await _play(services, match.id)  # the statements' first use (psycopg prepares them from the fifth)
    counts, reads = [], []
    for _ in range(8):
        user, text = await _move(services, match.id)
        before = await _quiet(proxy)
        await services.moves.play(match.id, GUILD, user, text)
        counts.append(await _quiet(proxy) - before)
        before = await _quiet(proxy)
        await proxied.read(ReadTx.get_match, match.id)
        reads.append(await _quiet(proxy) - before)
    # The proxy counts a round trip when the client sends after the server did: a pipelined send that reaches it
    # just after an answer counts one too many, and two sends that go together one too few, as the machine's load
    # falls. So the typical move and read (the median of eight) are counted exactly, and none more than one over.
    # A move: lock, match and conditional moves + BEGIN; the move and the update; COMMIT.
    assert statistics.median(counts) == 3 and max(counts) <= 4, counts
    assert statistics.median(reads) == 2 and max(reads) <= 3, reads  # the snapshot's BEGIN with the read; its end
    await assert_consistent(proxied, match.id)


@pytest.mark.parametrize("connect_seconds", [0.0, 0.2])
async def test_sessions_the_server_ended_are_replaced_not_handed_out(postgres_url: str, connect_seconds: float,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # a busy machine opened the pool's connections slowly: it held 3 of its 4 ("assert 3 >= 4")
    real = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]

    def slow(cls: type, *args: Any, **kwargs: Any) -> Any:
        time.sleep(connect_seconds)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(slow))
    db = await Database.open(postgres_url)
    try:
        services = Services(db)
        matches = [await service_match(services, "chopsticks", GUILD, (ALICE, BOB), days=3) for _ in range(2)]
        await _fill_pool(db)
        assert await asyncio.to_thread(_terminate_sessions, postgres_url) >= 4  # every pooled connection
        for number in range(4):  # each would have met a dead connection
            await _play(services, matches[number % 2].id)
        for match in matches:
            assert len(await assert_consistent(db, match.id)) == 3  # two moves each, once
    finally:
        await db.close()


@pytest.mark.slow  # a fault suite: a real PostgreSQL server restarted and moved
async def test_moves_go_on_after_a_restart_and_a_failover_to_a_new_address(own_cluster: Cluster,
                                                                            own_url: str) -> None:
    first, spare = own_cluster.port, free_port()
    # the URL names both addresses: libpq takes the first that answers and accepts writes
    name = own_url.rsplit("/", 1)[1]
    url = (f"postgresql://{own_cluster.user}@{own_cluster.host}:{first},{own_cluster.host}:{spare}/{name}"
           "?target_session_attrs=read-write")
    db = await Database.open(url)
    try:
        services = Services(db)
        match = await service_match(services, "chopsticks", GUILD, (ALICE, BOB), days=3)
        await _play(services, match.id)
        await _fill_pool(db)
        await asyncio.to_thread(own_cluster.restart)  # the same address
        await _play(services, match.id)
        await _fill_pool(db)
        await asyncio.to_thread(own_cluster.restart, spare)  # the same data at the second address
        await _play(services, match.id)
        assert own_cluster.port == spare
        assert len(await assert_consistent(db, match.id)) == 4
    finally:
        await db.close()
        await asyncio.to_thread(own_cluster.restart, first)


@pytest.mark.parametrize("lost", ["request", "answer"])
async def test_a_move_whose_commit_is_lost_on_the_way_is_applied_once(
        proxied: Database, proxy: RoundTripProxy, monkeypatch: pytest.MonkeyPatch, lost: str) -> None:
    clock = Clock()
    services = Services(proxied, clock=clock)
    match = await service_match(services, "chopsticks", GUILD, (ALICE, BOB), days=3)
    real_commit = storage.postgres._commit
    armed = []

    def losing_commit(conn: storage.postgres.PgConnection) -> None:
        if not armed:  # the next commit (the move's) is lost: the request before the server sees it, or its answer
            armed.append(lost)
            if lost == "request":
                proxy.lose_next_request()
            else:
                proxy.lose_next_answer()
        real_commit(conn)

    user, text = await _move(services, match.id)
    monkeypatch.setattr(storage.postgres, "_commit", losing_commit)
    clock.now += 60
    result = await services.moves.play(match.id, GUILD, user, text)
    assert armed == [lost]
    assert result.notation == text and result.match.ply == 1
    moves = await proxied.read(ReadTx.get_moves, match.id)
    assert [(m.ply, m.notation, m.created_at) for m in moves] == [(1, text, clock.now)]  # stored once
    with pytest.raises(NotYourTurn):  # and it is the opponent's turn, once
        await services.moves.play(match.id, GUILD, user, text)
    await assert_consistent(proxied, match.id)

