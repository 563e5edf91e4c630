"""Log lines as text (discord.py's format) or as JSON, one object a line (``NAPKIN_LOG_FORMAT=json``), at the levels
the settings name.

The bot's own loggers (:data:`OWN_LOGGERS`: ``bot``, ``games``, ``renderers``, ``storage``) log at
``NAPKIN_LOG_LEVEL``; every other logger (discord.py, aiosqlite, psycopg, asyncio, Pillow, markdown-it, SimCord…)
logs ``WARNING`` and above unless ``NAPKIN_LOG_LEVELS`` names it with a level. So ``NAPKIN_LOG_LEVEL=DEBUG``, what an
admin sets to look at a problem, adds the bot's own lines and not every library's.

``DEBUG`` lines written while an interaction is handled (they carry its context, :mod:`bot.ops.context`) are held to
:data:`INTERACTION_DEBUG_PER_SECOND` a second, with bursts of up to :data:`INTERACTION_DEBUG_BURST`
(:class:`InteractionDebugLimit`): on a busy bot a DEBUG log stays a few megabytes in ten minutes, and the next line
let through says how many were left out before it.

JSON lines come from python-json-logger: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, and while an
interaction is handled its context (``shard``, ``guild``, ``match``, ``command``); a traceback comes as ``exc_info``.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import IO

import discord
from pythonjsonlogger.json import JsonFormatter

from bot.ops import context
from bot.ops.context import ContextFilter

JSON_FIELDS = "{levelname}{name}{message}"
"""The record fields every JSON line has (renamed ``level``, ``logger``, ``message``), after ``time``."""
OWN_LOGGERS = ("bot", "games", "renderers", "storage")
"""The loggers ``NAPKIN_LOG_LEVEL`` sets: the bot's own packages (every module logs under its ``__name__``)."""
LIBRARY_LEVEL = logging.WARNING
"""The level of every other logger unless ``NAPKIN_LOG_LEVELS`` names it."""
INTERACTION_DEBUG_PER_SECOND = 10.0
"""``DEBUG`` lines of interactions let through a second, on average (:class:`InteractionDebugLimit`)."""
INTERACTION_DEBUG_BURST = 20
"""``DEBUG`` lines of interactions let through at once after a quiet spell."""


class InteractionDebugLimit(logging.Filter):
    """Holds ``DEBUG`` records written while an interaction is handled to ``rate`` a second, bursts of ``burst``
    (a token bucket); other records always pass. The first record let through after some were left out says how
    many (``left_out`` on the record, and in its message).

    Args:
        rate: records a second, on average (> 0).
        burst: records let through at once after a quiet spell (≥ 1).
        clock: monotonic seconds (the tests' stand-in).
    """

    def __init__(self, rate: float = INTERACTION_DEBUG_PER_SECOND, burst: int = INTERACTION_DEBUG_BURST, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.left_out = 0
        """Records left out since the last one let through."""
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()  # records may come from any thread (the storage's worker threads)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.DEBUG or not context.current():
            return True
        with self._lock:
            now = self.clock()
            self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
            self._last = now
            if self._tokens < 1.0:
                self.left_out += 1
                return False
            self._tokens -= 1.0
            left_out, self.left_out = self.left_out, 0
        if left_out:  # the note holds no "%": the message formats with its arguments as before
            record.left_out = left_out
            record.msg = (f"{record.msg} [{left_out} DEBUG lines of interactions left out before this one: more "
                          f"than {self.rate:g} a second]")
        return True


def json_formatter() -> logging.Formatter:
    """The formatter of JSON lines."""
    return JsonFormatter(JSON_FIELDS, style="{", timestamp="time",
                         rename_fields={"levelname": "level", "name": "logger"}, json_ensure_ascii=False)


_installed: list[tuple[logging.Logger, logging.Handler]] = []
_leveled: list[str] = []


def configure_logging(level: str | int, log_format: str = "text", stream: IO[str] | None = None, *,
                      levels: Mapping[str, str | int] | None = None) -> None:
    """Send log records to ``stream`` (standard error) in ``log_format``: ``text`` (discord.py's own lines,
    :func:`discord.utils.setup_logging`) or ``json``. The bot's own loggers (:data:`OWN_LOGGERS`) pass records of
    ``level`` and above, every other logger :data:`LIBRARY_LEVEL` and above, except the loggers ``levels`` names
    (name to level). Records carry the interaction's context either way (:class:`bot.ops.context.ContextFilter`);
    only the JSON lines show it. ``DEBUG`` records of interactions are rate-limited (:class:`InteractionDebugLimit`).

    Calling it again replaces what an earlier call set up (its handler and its levels).

    Raises:
        ValueError: ``log_format`` is neither ``text`` nor ``json``, or a level is not a logging level's name.
    """
    if log_format not in ("text", "json"):
        raise ValueError(f"log format {log_format!r} is neither text nor json")
    numbers = {name: _number(named) for name, named in {**dict.fromkeys(OWN_LOGGERS, level), **(levels or {})}.items()}
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(ContextFilter())
    handler.addFilter(InteractionDebugLimit())
    unconfigure_logging()
    if log_format == "json":
        discord.utils.setup_logging(handler=handler, formatter=json_formatter(), level=LIBRARY_LEVEL)
    else:
        discord.utils.setup_logging(handler=handler, level=LIBRARY_LEVEL)
    _installed.append((logging.getLogger(), handler))
    for name, number in numbers.items():
        logging.getLogger(name).setLevel(number)
        _leveled.append(name)


def unconfigure_logging() -> None:
    """Undo :func:`configure_logging`: its handler removed, the loggers it set back to their parents' level (the
    root logger's level stays as it was set)."""
    for logger, old in _installed:
        logger.removeHandler(old)
    _installed.clear()
    for name in _leveled:
        logging.getLogger(name).setLevel(logging.NOTSET)
    _leveled.clear()


def _number(level: str | int) -> int:
    if isinstance(level, int):
        return level
    number = logging.getLevelName(level.strip().upper())
    if not isinstance(number, int):
        raise ValueError(f"{level!r} is not a logging level")
    return number
