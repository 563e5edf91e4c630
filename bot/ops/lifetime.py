"""What ``napkin run`` and ``napkin play`` wrap the running bot in: the health and metrics endpoint when
``NAPKIN_METRICS_ADDR`` names an address, and the graceful stop on SIGTERM and SIGINT (``NAPKIN_STOP_SECONDS``).

Before the bot opens its database both check what could still stop them (:func:`reserve_endpoint`: the metrics
address is bound; :func:`reach_discord`: Discord answers and accepts the token), so that a start that fails writes
nothing: no database file is created or migrated by a start that could not have run."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot.ops.metrics import Health, MetricsServer, bind
from bot.ops.stopping import GracefulStop

log = logging.getLogger(__name__)


class EndpointUnavailable(RuntimeError):
    """``NAPKIN_METRICS_ADDR`` cannot be served here (the port is taken, the host is not this machine's)."""


def reserve_endpoint(metrics_address: tuple[str, int] | None) -> socket.socket | None:
    """The metrics address bound now, before anything else starts (``None`` when there is none): the socket that
    :func:`operated` serves. The caller closes it if the bot never gets that far.

    Raises:
        EndpointUnavailable: the address cannot be bound (the message says which and why).
    """
    if metrics_address is None:
        return None
    host, port = metrics_address
    try:
        return bind(host, port)
    except OSError as error:
        raise EndpointUnavailable(f"NAPKIN_METRICS_ADDR={host}:{port} cannot be served here "
                                  f"({error.strerror or error})") from error


async def reach_discord(token: str) -> None:
    """Log in to Discord's HTTP API once with ``token`` (``GET /users/@me``) and log out: Discord answers and
    accepts the token. What ``napkin run`` checks before it opens the database.

    Raises:
        discord.LoginFailure: Discord refused the token.
        discord.HTTPException: Discord answered with another error.
        aiohttp.ClientError, OSError, TimeoutError: Discord could not be reached.
    """
    import discord

    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
    finally:
        await http.close()


@contextlib.asynccontextmanager
async def operated(bot: Any, *, metrics_address: tuple[str, int] | None, stop_seconds: float,
                   finish: Callable[[float], Awaitable[None]],
                   endpoint: socket.socket | None = None) -> AsyncIterator[GracefulStop]:
    """Serve ``/healthz`` and ``/metrics`` for ``bot`` on ``metrics_address`` (if any; on ``endpoint`` when it was
    bound already by :func:`reserve_endpoint`) and stop it gracefully on SIGTERM or SIGINT, calling ``finish`` (see
    :class:`bot.ops.stopping.GracefulStop`), while the block runs. Afterwards the signals have their usual handlers
    again and the endpoint is closed.

    Raises:
        EndpointUnavailable: the metrics address cannot be bound (the message says which and why).
    """
    server = None
    if metrics_address is not None:
        host, port = metrics_address
        sock = endpoint if endpoint is not None else reserve_endpoint(metrics_address)
        server = MetricsServer(bot.metrics, Health(bot), host, port, sock=sock)
        try:
            await server.start()
        except OSError as error:
            raise EndpointUnavailable(f"NAPKIN_METRICS_ADDR={host}:{port} cannot be served here "
                                      f"({error.strerror or error})") from error
        log.info("health and metrics on http://%s:%d/healthz and /metrics", host, port)
    stop = GracefulStop(bot.interactions, grace=stop_seconds, finish=finish)
    stop.install()
    try:
        yield stop
    finally:
        stop.uninstall()
        if stop.task is not None:
            await stop.task
        if server is not None:
            await server.close()


async def stop_bot(bot: Any, seconds_left: float) -> None:
    """How ``napkin run`` finishes a graceful stop: the computer's workers (a search still running after
    ``seconds_left`` is ended), then the client (its gateway connections and its HTTP session)."""
    await bot.computer.close(grace=seconds_left)
    await bot.close()
