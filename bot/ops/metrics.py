"""The bot's Prometheus metrics, and the HTTP endpoint that serves them with ``/healthz`` (``NAPKIN_METRICS_ADDR``).

Every bot has its own registry (:class:`Metrics`), so several bots in one process (the tests) never mix their counts.
What is measured here is what the client sees without looking into the services: interactions by command and
outcome with their duration, those under way, unexpected errors by type, each shard's gateway connection and
latency, and the computer's workers and the work asked of them (read from :class:`bot.service.computer.ComputerPool`
at each scrape; its waits and quick moves as they happen), the moves stored and the time a member's took, the
deadline passes and what they did (the services' observers: :class:`bot.service.moves.MoveObserver`,
:class:`bot.service.deadlines.DeadlineObserver`), the database's pool (:meth:`storage.Database.connections`, read at
each scrape), plus the process's own CPU, memory and open files (prometheus-client's process collector).

The endpoint is an aiohttp application in the bot's own event loop (aiohttp comes with discord.py): ``/healthz``
awaits a read of the bot's database directly and stops with the bot, in order, which prometheus-client's own
threaded server could do neither of. ``/metrics`` is prometheus-client's exposition of the registry.
"""

from __future__ import annotations

import asyncio
import logging
import math
import socket
from collections.abc import Iterator
from concurrent.futures import BrokenExecutor
from typing import TYPE_CHECKING, Any, get_args

import discord
from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from bot.ops.build import build_info
from bot.service.computer_observer import QuickReason
from bot.service.computer_workers import ComputerStopped, WorkerLost
from games import GAMES
from storage import StorageError

if TYPE_CHECKING:
    from bot.service.deadlines import DueWork
    from bot.service.moves import Mover

log = logging.getLogger(__name__)

# No `_created` series beside every counter and histogram (the text format's readers ignore them).
disable_created_metrics()  # type: ignore[no-untyped-call]

DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Upper bounds (seconds) of the interaction duration histogram: a first answer is due within 3 s, a computer move
within 30 s, a review within a minute."""
WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
"""Upper bounds (seconds) of the computer's wait histogram: a move should get a worker within a few hundredths of a
second, a review its turn within minutes."""
DEADLINE_ACTIONS = {"reminder": "reminded", "forfeit": "forfeited", "abort": "aborted", "expiry": "expired",
                    "quarantine": "quarantined"}
"""The ``action`` label of ``napkin_deadline_actions_total``, and the list of :class:`bot.service.deadlines.DueWork`
it counts."""
ERROR_KINDS = ("database", "discord", "timeout", "computer", "other")
"""The ``kind`` label of ``napkin_errors_total`` (:func:`error_kind`); each series exists from the start, at 0."""
_DATABASE_MODULES = ("storage", "sqlite3", "aiosqlite", "psycopg", "psycopg_pool")
HEALTH_TIMEOUT = 2.0
"""Seconds the database has to answer ``/healthz``'s read."""


def error_kind(error: BaseException) -> str:
    """The ``kind`` of an unexpected error (:data:`ERROR_KINDS`): ``database`` (the storage's errors and its
    drivers'), ``discord`` (an error of discord.py, a request Discord refused included), ``timeout``, ``computer``
    (its workers lost or stopped), ``other`` (anything else: a bug)."""
    if isinstance(error, StorageError) or type(error).__module__.split(".")[0] in _DATABASE_MODULES:
        return "database"
    if isinstance(error, discord.DiscordException):
        return "discord"
    if isinstance(error, TimeoutError):
        return "timeout"
    if isinstance(error, WorkerLost | ComputerStopped | BrokenExecutor):
        return "computer"
    return "other"


class Metrics:
    """The metrics of one bot, in their own :class:`prometheus_client.CollectorRegistry`.

    Labels come from closed sets: ``command`` (a command of the bot's tree, a persistent button's kind, or
    ``other``), ``outcome`` (:data:`bot.ops.interactions.OUTCOMES`), ``kind`` (:data:`ERROR_KINDS`), ``game`` (the
    registry's), ``shard``; never a member or a match. The counters alerts read exist from the start at 0
    (``napkin_errors_total`` by kind, ``napkin_computer_fallbacks_total`` by game and reason,
    ``napkin_deadline_actions_total`` by action); ``napkin_build_info`` says which build runs.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.interactions = Counter(
            "napkin_interactions", "Interactions handled (autocomplete excepted), by command and outcome: ok; "
            "rejected (the member was told what was wrong); failed (an unexpected error); restarting (arrived while "
            "the bot stops); cancelled (cut short); ignored (nothing of the bot took it: a forged or unknown id).",
            ["command", "outcome"], registry=self.registry)
        self.interaction_seconds = Histogram(
            "napkin_interaction_duration_seconds", "Time from an interaction's arrival to the end of its handling "
            "(the computer's answer included), by command.", ["command"], buckets=DURATION_BUCKETS,
            registry=self.registry)
        self.in_flight = Gauge("napkin_interactions_in_flight", "Interactions being handled now.",
                               registry=self.registry)
        self.errors = Counter(
            "napkin_errors", "Unexpected errors while handling interactions, by kind: database, discord, timeout, "
            "computer, other (a bug: the log has its traceback).", ["kind"], registry=self.registry)
        for kind in ERROR_KINDS:
            self.errors.labels(kind)
        self.build = Info("napkin_build", "The running build: version, commit (unknown when not known) and Python.",
                          registry=self.registry)
        info = build_info()
        self.build.info({"version": info.version, "commit": info.commit, "python": info.python})
        self.computer_wait = Histogram(
            "napkin_computer_wait_seconds", "Time the computer's work waited, by lane: move (a search, until a worker "
            "took it) or long (a review, until its turn came).", ["lane"], buckets=WAIT_BUCKETS,
            registry=self.registry)
        self.computer_fallbacks = Counter(
            "napkin_computer_fallbacks", "Computer moves played at the easy level instead of a search at their own, "
            "by game and reason: overloaded (no answer within the budget), queue_full (too many moves waiting), "
            "worker_lost (its workers died).", ["game", "reason"], registry=self.registry)
        for game in GAMES:
            for reason in get_args(QuickReason):
                self.computer_fallbacks.labels(game, reason)
        self.moves = Counter(
            "napkin_moves", "Moves stored, by game and by whom: member, computer, or conditional (a member's "
            "conditional move played for them).", ["game", "by"], registry=self.registry)
        self.move_seconds = Histogram(
            "napkin_move_duration_seconds", "Time from a member's move reaching the move service to its stored "
            "result (the conditional reply stored with it included), by game.", ["game"], registry=self.registry)
        self.deadline_pass_seconds = Histogram(
            "napkin_deadline_pass_seconds", "Time one deadline pass took, from finding what is due to the last of it "
            "settled.", registry=self.registry)
        self.deadline_actions = Counter(
            "napkin_deadline_actions", "What the deadline passes did, by action: reminder, forfeit, abort (a side "
            "never moved), expiry (a challenge), quarantine (a damaged match set aside).", ["action"],
            registry=self.registry)
        for action in DEADLINE_ACTIONS:
            self.deadline_actions.labels(action)
        ProcessCollector(registry=self.registry)

    def watch(self, bot: Any) -> None:
        """Also report ``bot``'s gateway shards, computer pool and database pool, read at every scrape
        (:class:`BotCollector`), and as they happen the computer's waits and quick moves, the moves stored and the
        deadline passes (this object is the observer of the computer pool, the move service and the deadline
        service)."""
        self.registry.register(BotCollector(bot))
        bot.computer.observer = self
        bot.services.moves.observer = self
        bot.services.deadlines.observer = self

    def waited(self, lane: str, seconds: float) -> None:
        """The computer's work of ``lane`` waited ``seconds`` (:class:`bot.service.computer_observer.PoolObserver`)."""
        self.computer_wait.labels(lane).observe(seconds)

    def fell_back(self, game: str, reason: str) -> None:
        """A computer move of ``game`` was played at the easy level for ``reason``."""
        self.computer_fallbacks.labels(game, reason).inc()

    def moved(self, game: str, by: Mover) -> None:
        """A move of ``game`` played ``by`` a member, the computer or a conditional move was stored."""
        self.moves.labels(game, by).inc()

    def move_took(self, game: str, seconds: float) -> None:
        """A member's move of ``game`` took ``seconds`` from the service's call to its stored result."""
        self.move_seconds.labels(game).observe(seconds)

    def passed(self, seconds: float, work: DueWork) -> None:
        """A deadline pass did ``work`` in ``seconds``."""
        self.deadline_pass_seconds.observe(seconds)
        for action, done in DEADLINE_ACTIONS.items():
            if count := len(getattr(work, done)):
                self.deadline_actions.labels(action).inc(count)

    def exposition(self) -> bytes:
        """Every metric in Prometheus' text format."""
        return generate_latest(self.registry)


class BotCollector(Collector):
    """Gauges read from the bot when scraped: each shard's gateway connection and latency, the computer's workers,
    the database's pool (no samples on SQLite, which has none)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def collect(self) -> Iterator[Metric]:
        connected = GaugeMetricFamily("napkin_gateway_connected", "1 while the shard's gateway connection is open.",
                                      labels=["shard"])
        latency = GaugeMetricFamily("napkin_gateway_latency_seconds", "Time between the shard's last heartbeat "
                                    "and its acknowledgement.", labels=["shard"])
        for shard_id, shard in sorted(self.bot.shards.items()):
            connected.add_metric([str(shard_id)], 0.0 if shard.is_closed() else 1.0)
            if math.isfinite(shard.latency):
                latency.add_metric([str(shard_id)], shard.latency)
        yield connected
        yield latency
        pool = self.bot.computer
        yield GaugeMetricFamily("napkin_computer_workers", "Worker processes the computer may use "
                                "(NAPKIN_COMPUTER_WORKERS).", value=pool.workers)
        yield GaugeMetricFamily("napkin_computer_processes", "Worker processes alive now (they start as work "
                                "comes).", value=pool.processes)
        requests = GaugeMetricFamily("napkin_computer_requests", "Work asked of the computer and not answered yet, "
                                     "running or waiting: move (a search) or review.", labels=["kind"])
        requests.add_metric(["move"], pool.searches)
        requests.add_metric(["review"], pool.reviews)
        yield requests
        depth = GaugeMetricFamily("napkin_computer_queue_depth", "The computer's work waiting, by lane: move "
                                  "(searches waiting for a worker) or long (reviews waiting for their turn, and their "
                                  "pieces for a worker).", labels=["lane"])
        running = GaugeMetricFamily("napkin_computer_running", "Workers running the computer's work now, by lane: "
                                    "move (searches) or long (pieces of reviews).", labels=["lane"])
        for lane in ("move", "long"):
            depth.add_metric([lane], pool.waiting(lane))
            running.add_metric([lane], pool.busy(lane))
        yield depth
        yield running
        connections = GaugeMetricFamily("napkin_db_connections", "The database's connection pool (PostgreSQL; none on "
                                        "SQLite), by state: in_use (lent out), idle (open in the pool), waiting "
                                        "(requests waiting for a connection).", labels=["state"])
        pooled = self.bot.db.connections()
        if pooled is not None:
            for state in ("in_use", "idle", "waiting"):
                connections.add_metric([state], getattr(pooled, state))
        yield connections


class Health:
    """What ``/healthz`` answers: the bot's gateway is connected and its database answers a trivial read.

    Args:
        bot: the running bot (its ``shards``, ``db`` and ``interactions`` gate).
        timeout: seconds the database has to answer (:data:`HEALTH_TIMEOUT`).
    """

    def __init__(self, bot: Any, *, timeout: float = HEALTH_TIMEOUT) -> None:
        self.bot = bot
        self.timeout = timeout
        self._read: asyncio.Task[object] | None = None

    async def problems(self) -> list[str]:
        """What is wrong, one short sentence each; empty when healthy. At most one database read runs at a time:
        a check arriving while one is still waiting shares it."""
        found = []
        if not self.bot.interactions.open:
            found.append("stopping")
        shards = self.bot.shards
        closed = sorted(shard_id for shard_id, shard in shards.items() if shard.is_closed())
        if not shards or not self.bot.is_ready() or self.bot.is_closed():
            found.append("gateway: not connected")
        elif closed:
            found.append(f"gateway: shard {', '.join(map(str, closed))} not connected")
        if self._read is None or self._read.done():
            self._read = asyncio.ensure_future(self.bot.db.fetchone("SELECT 1"))
        try:
            await asyncio.wait_for(asyncio.shield(self._read), self.timeout)
        except TimeoutError:
            found.append(f"database: no answer within {self.timeout:g} s")
        except Exception as error:  # noqa: BLE001 - any failure of the read is the answer
            reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
            found.append(f"database: {type(error).__name__}{': ' + reason if reason else ''}")
        return found


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (IPv4 or IPv6, as the host names it), as aiohttp's own site would
    open it: what :class:`MetricsServer` serves, bound before anything else starts so that a taken port is found
    before the bot writes anything.

    Raises:
        OSError: the address cannot be bound (taken, not this machine's, a name that does not resolve).
    """
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class MetricsServer:
    """``/healthz`` and ``/metrics`` over HTTP on ``host:port``, in the running event loop.

    ``/healthz`` answers 200 ``ok`` or 503 with one problem a line (:meth:`Health.problems`); ``/metrics`` answers
    the registry in Prometheus' text format.
    """

    def __init__(self, metrics: Metrics, health: Health, host: str, port: int, *,
                 sock: socket.socket | None = None) -> None:
        self.metrics = metrics
        self.health = health
        self.host = host
        self.port = port
        self.sock = sock
        """A socket already bound to the address (:func:`bind`), served instead of binding it again."""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen on the address (on :attr:`sock` when given).

        Raises:
            OSError: the address cannot be bound (taken, not this machine's).
        """
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = (web.SockSite(runner, self.sock) if self.sock is not None
                    else web.TCPSite(runner, self.host, self.port))
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner

    async def close(self) -> None:
        """Stop listening (idempotent)."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _healthz(self, request: web.Request) -> web.Response:
        problems = await self.health.problems()
        if problems:
            return web.Response(status=503, text="\n".join(problems) + "\n")
        return web.Response(text="ok\n")

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=self.metrics.exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST})
