"""What the log lines of an interaction carry: the shard, server, match and command it is about.

They are context variables, set once where the client receives an interaction (:mod:`bot.ops.interactions`): every
task discord.py starts for it copies them, so every line logged while handling it, in any module, carries them.
:class:`ContextFilter` puts them on the log records (the JSON log lines show them as fields).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager

FIELDS = ("shard", "guild", "match", "command")
"""The context a log line may carry, in the order the JSON lines show it."""

_VARS: dict[str, contextvars.ContextVar[int | str | None]] = {
    name: contextvars.ContextVar(f"napkin_{name}", default=None) for name in FIELDS}


def current() -> dict[str, int | str]:
    """The context set now (only the fields that are known)."""
    return {name: value for name, var in _VARS.items() if (value := var.get()) is not None}


@contextmanager
def bound(**values: int | str | None) -> Iterator[None]:
    """Set the given fields (names from :data:`FIELDS`) for the code inside the block and the tasks it starts.

    Raises:
        KeyError: a name that is not one of :data:`FIELDS`.
    """
    tokens = [(_VARS[name], _VARS[name].set(value)) for name, value in values.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


class ContextFilter(logging.Filter):
    """Adds the known context fields to every record as attributes (``record.guild``, …); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in current().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True
