"""What transaction bodies publish (:meth:`storage.Tx.publish`), told to the database's listeners once the
transaction has committed — never when it rolled back, and never twice when a body ran twice (only the run that
committed counts). Events are the caller's own objects: storage neither reads nor stores them.

As Django's ``transaction.on_commit`` and lichess's bus after a save: a step deep inside a body (a match ending, in
:mod:`bot.service.finisher`) can make sure its consequences are heard without every caller remembering to say so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger(__name__)

Listener = Callable[[object], None]


@dataclass(frozen=True)
class NewsQueued:
    """What a transaction that queued news in the outbox publishes (:meth:`storage.Tx.add_outbox`): ``kind`` news
    due at ``next_at`` (epoch seconds)."""

    kind: str
    next_at: float


class CommitEvents:
    """The listeners of one database's committed events."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(event)`` for every event a committed transaction published, in order, from the task that
        ran the write, right after the commit. A listener must return at once (note the event, wake a worker); what
        it raises is logged, never passed to the writer (the transaction is committed already)."""
        self._listeners.append(listener)

    def deliver(self, events: Iterable[object]) -> None:
        """Tell every listener each of ``events`` (published by a transaction that committed)."""
        for event in events:
            for listener in self._listeners:
                try:
                    listener(event)
                except Exception:
                    log.exception("a listener failed on %r", event)
