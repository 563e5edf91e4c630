"""The bot's own metrics, health and log lines, with the real client under SimCord: /metrics scraped over HTTP
before and after a few interactions, moves (a member's, the computer's, a conditional one) and deadline passes moves
by exactly what happened, the PostgreSQL pool's connections are read at each scrape, /healthz follows the database
and the gateway, JSON log lines carry the interaction's context, and interactions arriving while the bot stops are
refused."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from bot.client import NapkinBot
from bot.ops.interactions import RESTARTING
from bot.ops.logs import configure_logging, unconfigure_logging
from bot.ops.metrics import Health, MetricsServer
from storage import Database, ReadTx
from storage.postgres import POOL_SIZE
from tests.bot.helpers import World, only_match_id, stored
from tests.ops._page import free_port, samples

DAY = 86400


@pytest_asyncio.fixture
async def endpoint(simcord_env: Any, simcord_bot: NapkinBot) -> AsyncIterator[str]:
    """The bot's /healthz and /metrics served on a free loopback port; the base address."""
    port = free_port()
    server = MetricsServer(simcord_bot.metrics, Health(simcord_bot), "127.0.0.1", port)
    await server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await server.close()


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def _scrape(endpoint: str) -> str:
    status, body = await _get(f"{endpoint}/metrics")
    assert status == 200
    return body


def _moved(before: str, after: str, name: str) -> dict[str, float]:
    """How much each sample of ``name`` grew between two scrapes (only those that did)."""
    old, new = samples(before, name), samples(after, name)
    return {key: value - old.get(key, 0.0) for key, value in new.items() if value != old.get(key, 0.0)}


@pytest.mark.tolerates(errors=(RuntimeError,))
async def test_interaction_counters_move_by_exactly_what_happened(simcord_env: Any, db: Database, endpoint: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(simcord_env, "alice", "bob")
    alice, bob = world["alice"], world["bob"]
    before = await _scrape(endpoint)
    challenge = await alice.slash(world.channel, "chopsticks start", opponent=bob)
    await bob.click(challenge.response, label="Accept")
    thread = world.thread()
    refused = await alice.slash(thread, "chopsticks move", notation="zz")
    assert refused.ephemeral and "'zz' is not a Chopsticks move" in refused.response.content
    moved = await alice.slash(thread, "chopsticks move", notation="LL")
    assert not moved.ephemeral
    await bob.slash(world.channel, "help")

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(simcord_env.bot.services.reading, "active_match_page", broken)
    failed = await alice.slash(world.channel, "match list")
    assert failed.ephemeral and "Something went wrong" in failed.response.content
    after = await _scrape(endpoint)

    assert _moved(before, after, "napkin_interactions_total") == {
        'command="/chopsticks start",outcome="ok"': 1,
        'command="button:ch",outcome="ok"': 1,
        'command="/chopsticks move",outcome="rejected"': 1,
        'command="/chopsticks move",outcome="ok"': 1,
        'command="/help",outcome="ok"': 1,
        'command="/match list",outcome="failed"': 1,
    }
    assert _moved(before, after, "napkin_errors_total") == {'kind="other"': 1}  # a bug: RuntimeError
    assert _moved(before, after, "napkin_interaction_duration_seconds_count") == {
        'command="/chopsticks start"': 1, 'command="button:ch"': 1, 'command="/chopsticks move"': 2,
        'command="/help"': 1, 'command="/match list"': 1}
    assert samples(after, "napkin_interactions_in_flight") == {"": 0}
    assert samples(after, "napkin_gateway_connected") == {'shard="0"': 1}
    assert set(samples(after, "napkin_gateway_latency_seconds")) == {'shard="0"'}
    assert samples(after, "napkin_computer_workers")[""] == simcord_env.bot.computer.workers
    assert (await stored(db, await only_match_id(db))).ply == 1  # the one good move, and only it
    assert _moved(before, after, "napkin_moves_total") == {'by="member",game="chopsticks"': 1}
    assert _moved(before, after, "napkin_move_duration_seconds_count") == {'game="chopsticks"': 1}
    assert samples(after, "napkin_db_connections") == {}  # SQLite has no pool
    assert "# TYPE napkin_db_connections gauge" in after


async def test_health_follows_the_gateway(simcord_env: Any, simcord_bot: NapkinBot, endpoint: str) -> None:
    assert await _get(f"{endpoint}/healthz") == (200, "ok\n")
    gateway = simcord_bot.shards[0]._parent.ws  # the shard's connection, as discord.py sees it
    gateway.open = False  # what a dropped connection looks like until discord.py reconnects
    try:
        status, body = await _get(f"{endpoint}/healthz")
        scraped = await _scrape(endpoint)
    finally:
        gateway.open = True
    assert status == 503 and body.splitlines() == ["gateway: shard 0 not connected"]
    assert samples(scraped, "napkin_gateway_connected") == {'shard="0"': 0}
    assert await _get(f"{endpoint}/healthz") == (200, "ok\n")


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_health_turns_503_while_the_database_refuses_connections_and_back_after(
        simcord_env: Any, db: Database, endpoint: str, postgres_cluster: Any) -> None:
    import psycopg

    name = str(db.path).rsplit("/", 1)[1]
    assert await _get(f"{endpoint}/healthz") == (200, "ok\n")
    with psycopg.connect(postgres_cluster.url("postgres"), autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        status, body = await _get(f"{endpoint}/healthz")
        assert status == 503 and body.startswith("database: "), body
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    for _ in range(120):  # the pool connects again by itself, with backoff
        status, body = await _get(f"{endpoint}/healthz")
        if status == 200:
            break
        assert body.startswith("database: "), body
        await asyncio.sleep(0.5)
    assert (status, body) == (200, "ok\n")


async def test_json_log_lines_carry_the_interaction_context(simcord_env: Any, db: Database) -> None:
    lines = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    configure_logging("DEBUG", "json", lines, levels={"discord": "DEBUG"})  # discord.py's lines too, named
    try:
        world = World(simcord_env, "alice", "bob")
        challenge = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
        await world["bob"].click(challenge.response, label="Accept")
        match_id = await only_match_id(db)
        await world["alice"].slash(world.thread(), "match board", match=str(match_id))
        logging.getLogger("napkin.test").warning("outside any interaction")
    finally:
        unconfigure_logging()
        root.handlers[:] = handlers
        root.setLevel(level)
    records = [json.loads(line) for line in lines.getvalue().splitlines()]  # every line is one JSON object
    assert records and all({"time", "level", "logger", "message"} <= set(record) for record in records)
    ends = {record["command"]: record for record in records if record["logger"] == "bot.ops.interactions"}
    guild = world.channel.guild.id
    assert ends["/chopsticks start"]["guild"] == guild and ends["/chopsticks start"]["shard"] == 0
    assert "match" not in ends["/chopsticks start"]  # no match named yet
    assert ends["/match board"]["match"] == match_id and ends["/match board"]["guild"] == guild
    assert ends["/match board"]["message"].startswith("interaction /match board: ok in ")
    assert ends["button:ch"]["level"] == "DEBUG"
    inside = [record for record in records if record.get("command") == "/chopsticks start"]
    assert {record["logger"].split(".")[0] for record in inside} == {"bot", "discord"}  # other modules' lines carry it
    outside = next(record for record in records if record["message"] == "outside any interaction")
    assert outside["level"] == "WARNING" and not {"guild", "match", "command", "shard"} & set(outside)


async def test_interactions_arriving_while_the_bot_stops_are_told_to_come_back(
        simcord_env: Any, db: Database, endpoint: str) -> None:
    world = World(simcord_env, "alice", "bob")
    simcord_env.bot.interactions.close()
    before = await _scrape(endpoint)
    answer = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert answer.ephemeral and answer.response.content == RESTARTING
    assert await db.read(lambda tx: tx.all_match_ids()) == []  # nothing of the command ran
    assert _moved(before, await _scrape(endpoint), "napkin_interactions_total") == {
        'command="/chopsticks start",outcome="restarting"': 1}
    status, body = await _get(f"{endpoint}/healthz")
    assert status == 503 and body.splitlines() == ["stopping"]


async def test_the_computers_waits_and_quick_moves_are_counted_and_a_quick_move_says_so(
        simcord_env: Any, db: Database, endpoint: str) -> None:
    world = World(simcord_env, "alice")
    alice, pool = world["alice"], simcord_env.bot.computer
    before = await _scrape(endpoint)
    pool.budget = 0.0  # the bot overloaded: no search answers in time, the computer plays a quick move
    started = await alice.slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="hard",
                                seat="second")
    assert "starts" in started.response.content
    match = await stored(db, await only_match_id(db))
    assert match.ply == 1
    computer = match.seats[0].display_name
    boards = [message.content for message in world.thread().history() if "played" in message.content]
    assert any(f"{computer} played a quick move because the bot is overloaded." in board.splitlines()
               for board in boards), boards
    pool.budget = 30.0
    moved = await alice.slash(world.thread(), "chopsticks move", notation="LL")
    assert not moved.ephemeral and "quick move" not in moved.response.content  # searched at its level again
    assert (await stored(db, match.id)).ply == 3
    for _ in range(600):  # the search given up keeps its worker until it ends (a new worker process starts first)
        if not pool.busy("move"):
            break
        await asyncio.sleep(0.05)
    after = await _scrape(endpoint)
    assert _moved(before, after, "napkin_computer_fallbacks_total") == {'game="chopsticks",reason="overloaded"': 1}
    assert _moved(before, after, "napkin_moves_total") == {'by="computer",game="chopsticks"': 2,
                                                           'by="member",game="chopsticks"': 1}
    # both searches got a worker at once (a free one): the first then ran past its budget of no time at all
    assert _moved(before, after, "napkin_computer_wait_seconds_count") == {'lane="move"': 2}
    assert _moved(before, after, 'napkin_computer_wait_seconds_bucket') == {'lane="move",le="0.01"': 2, **{
        f'lane="move",le="{bound}"': 2 for bound in ("0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0",
                                                      "30.0", "60.0", "300.0", "+Inf")}}
    assert samples(after, "napkin_computer_queue_depth") == {'lane="move"': 0, 'lane="long"': 0}
    assert samples(after, "napkin_computer_running") == {'lane="move"': 0, 'lane="long"': 0}


async def test_moves_are_counted_by_game_and_by_whom_and_a_members_move_is_timed(
        simcord_env: Any, db: Database, endpoint: str) -> None:
    world = World(simcord_env, "alice", "bob")
    alice, bob = world["alice"], world["bob"]
    challenge = await alice.slash(world.channel, "differences start", opponent=bob)
    await bob.click(challenge.response, label="Accept")
    thread = world.thread()
    before = await _scrape(endpoint)
    await alice.slash(thread, "differences mark", square="a1")
    stored_line = await alice.slash(thread, "match premove", if_they_play="b2", reply="c3")
    assert stored_line.ephemeral and "you play `c3`" in stored_line.response.content
    refused = await bob.slash(thread, "differences mark", square="a1")  # taken: no move
    assert refused.ephemeral
    await bob.slash(thread, "differences mark", square="b2")  # answered at once by alice's conditional c3
    after = await _scrape(endpoint)
    assert [move.notation for move in await db.read(ReadTx.get_moves, await only_match_id(db))] == ["a1", "b2", "c3"]
    assert _moved(before, after, "napkin_moves_total") == {'by="member",game="differences"': 2,
                                                           'by="conditional",game="differences"': 1}
    assert _moved(before, after, "napkin_move_duration_seconds_count") == {'game="differences"': 2}
    assert _moved(before, after, "napkin_move_duration_seconds_sum")['game="differences"'] > 0
    assert _moved(before, after, "napkin_deadline_actions_total") == {}


def _reminders(world: World) -> int:
    return sum("a third of your time" in message.content for thread in world.channel.threads
               for message in thread.history())


async def test_the_deadline_passes_are_timed_and_their_actions_counted(
        simcord_env: Any, db: Database, endpoint: str) -> None:
    world = World(simcord_env, "alice", "bob", "carol", "dave")
    alice = world["alice"]
    for opponent in ("bob", "carol"):
        challenge = await alice.slash(world.channel, "chopsticks start", opponent=world[opponent], days=1)
        await world[opponent].click(challenge.response, label="Accept")
    forfeited, aborted = sorted(await db.read(ReadTx.all_match_ids))
    thread = next(thread for thread in world.channel.threads if "bob" in thread.name)
    for actor, move in ((alice, "LL"), (world["bob"], "LL"), (alice, "RR")):  # both sides moved: bob forfeits
        await actor.slash(thread, "chopsticks move", notation=move)
    unanswered = await alice.slash(world.channel, "chopsticks start", opponent=world["dave"], days=1)
    assert not unanswered.ephemeral

    before = await _scrape(endpoint)
    await simcord_env.advance_time(DAY * 2 / 3 + 60)  # a third of a day left in both matches
    reminded = await _scrape(endpoint)
    assert _reminders(world) == 2
    assert _moved(before, reminded, "napkin_deadline_actions_total") == {'action="reminder"': 2}
    await simcord_env.advance_time(DAY / 3 + 60)  # past both deadlines and the challenge's day
    after = await _scrape(endpoint)
    assert _reminders(world) == 2
    assert [(await stored(db, match_id)).status for match_id in (forfeited, aborted)] == ["finished", "aborted"]
    assert _moved(reminded, after, "napkin_deadline_actions_total") == {
        'action="forfeit"': 1, 'action="abort"': 1, 'action="expiry"': 1}
    assert samples(after, "napkin_deadline_actions_total")['action="quarantine"'] == 0
    passes = _moved(before, after, "napkin_deadline_pass_seconds_count")[""]
    assert passes >= 2 and _moved(before, after, 'napkin_deadline_pass_seconds_bucket')['le="+Inf"'] == passes


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_the_postgresql_pools_connections_are_read_at_each_scrape(
        simcord_env: Any, db: Database, endpoint: str) -> None:
    release = threading.Event()
    held = [asyncio.ensure_future(db.read(lambda tx: release.wait(30))) for _ in range(POOL_SIZE + 1)]
    try:
        for _ in range(200):  # the pool opens its connections as they are asked for
            busy = samples(await _scrape(endpoint), "napkin_db_connections")
            if busy == {'state="in_use"': POOL_SIZE, 'state="idle"': 0, 'state="waiting"': 1}:
                break
            await asyncio.sleep(0.05)
        assert busy == {'state="in_use"': POOL_SIZE, 'state="idle"': 0, 'state="waiting"': 1}
    finally:
        release.set()
        assert await asyncio.gather(*held) == [True] * (POOL_SIZE + 1)
    assert samples(await _scrape(endpoint), "napkin_db_connections") == {
        'state="in_use"': 0, 'state="idle"': POOL_SIZE, 'state="waiting"': 0}
