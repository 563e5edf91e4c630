"""What ``napkin run`` and ``napkin play`` wrap the running bot in: the health and metrics endpoint when
``NAPKIN_METRICS_ADDR`` names an address, and the graceful stop on SIGTERM and SIGINT (``NAPKIN_STOP_SECONDS``)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from bot.ops.metrics import Health, MetricsServer
from bot.ops.stopping import GracefulStop

log = logging.getLogger(__name__)


class EndpointUnavailable(RuntimeError):
    """``NAPKIN_METRICS_ADDR`` cannot be served here (the port is taken, the host is not this machine's)."""


@contextlib.asynccontextmanager
async def operated(bot: Any, *, metrics_address: tuple[str, int] | None, stop_seconds: float,
                   finish: Callable[[float], Awaitable[None]]) -> AsyncIterator[GracefulStop]:
    """Serve ``/healthz`` and ``/metrics`` for ``bot`` on ``metrics_address`` (if any) and stop it gracefully on
    SIGTERM or SIGINT, calling ``finish`` (see :class:`bot.ops.stopping.GracefulStop`), while the block runs.
    Afterwards the signals have their usual handlers again and the endpoint is closed.

    Raises:
        EndpointUnavailable: the metrics address cannot be bound (the message says which and why).
    """
    server = None
    if metrics_address is not None:
        host, port = metrics_address
        server = MetricsServer(bot.metrics, Health(bot), host, port)
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
