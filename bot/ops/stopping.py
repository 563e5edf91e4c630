"""SIGTERM and SIGINT stop the bot cleanly, within a bound; a second signal stops it at once.

SIGTERM is what systemd, Docker and Kubernetes send to stop a service. discord.py leaves it to the bot by design
(discord.py issue 8998), so :class:`GracefulStop` adds the handlers to the event loop (``loop.add_signal_handler``)
and on the first signal:

1. closes the interaction gate: any interaction arriving from then on is answered, only to its member, that the bot
   is restarting (:data:`bot.ops.interactions.RESTARTING`);
2. lets the interactions under way finish (a move, the computer's answer, a review) for up to ``grace`` seconds;
   those still running then are cancelled;
3. calls ``finish`` with the seconds left of the bound (at least one), which stops the computer's workers and closes
   the client; the caller then closes the database and logs the one "stopped" line.

From the first signal on, SIGTERM and SIGINT have a plain handler instead, run by the interpreter between two steps
of whatever the bot does (it needs no turn of the event loop, which might be what is stuck): it writes one line to
standard error and ends the process at once, exit code 128 + the signal's number, as a shell reports it. The
computer's workers end with it (:func:`bot.workers.exit_with_parent`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from types import FrameType

from bot.ops.interactions import InteractionGate

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class GracefulStop:
    """The stop on SIGTERM or SIGINT (see the module's docstring).

    Args:
        gate: the bot's interaction gate.
        grace: seconds the interactions under way get to finish (``NAPKIN_STOP_SECONDS``).
        finish: ``await finish(seconds_left)`` once they finished or the time ran out.
    """

    def __init__(self, gate: InteractionGate, *, grace: float,
                 finish: Callable[[float], Awaitable[None]]) -> None:
        self.gate = gate
        self.grace = grace
        self.finish = finish
        self.received: signal.Signals | None = None
        """The signal that started the stop, once one did."""
        self.task: asyncio.Task[None] | None = None
        """The stop under way, once a signal started it."""
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> None:
        """Handle SIGTERM and SIGINT in the running event loop (which must run in the main thread)."""
        self._loop = asyncio.get_running_loop()
        for number in SIGNALS:
            self._loop.add_signal_handler(number, self._first, number)

    def uninstall(self) -> None:
        """Give SIGTERM and SIGINT back their usual handlers (ending the process; Ctrl-C's KeyboardInterrupt)."""
        if self._loop is not None:
            for number in SIGNALS:
                self._loop.remove_signal_handler(number)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def _first(self, number: signal.Signals) -> None:
        assert self._loop is not None
        self.received = signal.Signals(number)
        log.info("%s received: stopping; %d interaction(s) under way get up to %g s to finish", self.received.name,
                 self.gate.in_flight, self.grace)
        self.gate.close()
        for other in SIGNALS:
            self._loop.remove_signal_handler(other)
            signal.signal(other, _at_once)
        self.task = self._loop.create_task(self._stop(), name="napkin-graceful-stop")

    async def _stop(self) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        if not await self.gate.drain(self.grace):
            cut = self.gate.cancel()
            log.warning("%d interaction(s) still under way after %g s: cut short", cut, self.grace)
            await self.gate.drain(1.0)
        await self.finish(max(1.0, self.grace - (loop.time() - began)))


def _at_once(number: int, frame: FrameType | None) -> None:
    """The second signal: one line, and the process ends now."""
    os.write(2, f"napkin: {signal.Signals(number).name} again: stopping at once\n".encode())
    os._exit(128 + number)
