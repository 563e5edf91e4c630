"""Log lines as text (discord.py's format) or as JSON, one object a line (``NAPKIN_LOG_FORMAT=json``).

JSON lines come from python-json-logger: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, and while an
interaction is handled its context (:mod:`bot.ops.context`: ``shard``, ``guild``, ``match``, ``command``); a
traceback comes as ``exc_info``.
"""

from __future__ import annotations

import logging
import sys
from typing import IO

import discord
from pythonjsonlogger.json import JsonFormatter

from bot.ops.context import ContextFilter

JSON_FIELDS = "{levelname}{name}{message}"
"""The record fields every JSON line has (renamed ``level``, ``logger``, ``message``), after ``time``."""


def json_formatter() -> logging.Formatter:
    """The formatter of JSON lines."""
    return JsonFormatter(JSON_FIELDS, style="{", timestamp="time",
                         rename_fields={"levelname": "level", "name": "logger"}, json_ensure_ascii=False)


def configure_logging(level: str | int, log_format: str = "text", stream: IO[str] | None = None) -> None:
    """Send every log record of ``level`` and above to ``stream`` (standard error) in ``log_format``: ``text``
    (discord.py's own lines, :func:`discord.utils.setup_logging`) or ``json``. Records carry the interaction's
    context either way (:class:`bot.ops.context.ContextFilter`); only the JSON lines show it.

    Raises:
        ValueError: ``log_format`` is neither ``text`` nor ``json``.
    """
    if log_format not in ("text", "json"):
        raise ValueError(f"log format {log_format!r} is neither text nor json")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(ContextFilter())
    number = getattr(logging, level.upper(), logging.INFO) if isinstance(level, str) else level
    if log_format == "json":
        discord.utils.setup_logging(handler=handler, formatter=json_formatter(), level=number)
    else:
        discord.utils.setup_logging(handler=handler, level=number)
