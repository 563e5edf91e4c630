"""What the computer's pool reports as it happens, to whoever watches it (the bot's metrics,
:class:`bot.ops.metrics.Metrics`): waits for a worker, and moves played at the ``easy`` level instead of the level
asked."""

from __future__ import annotations

from typing import Literal, Protocol

from bot.service.computer_lines import Lane

QuickReason = Literal["overloaded", "queue_full", "worker_lost"]
"""Why a move was played at the ``easy`` level: not answered within the budget; too many moves waiting; its workers
died :data:`bot.service.computer_scheduler.MAX_DEATHS` times."""


class PoolObserver(Protocol):
    """What the pool reports as it happens (the bot's metrics, :class:`bot.ops.metrics.Metrics`)."""

    def waited(self, lane: Lane, seconds: float) -> None:
        """A move or a pairing got a worker, or a job of long work its turn, after ``seconds`` of waiting."""

    def fell_back(self, game: str, reason: QuickReason) -> None:
        """A move of ``game`` was played at the ``easy`` level for ``reason``."""


class Unobserved:
    """The observer of a pool nobody watches: every report is dropped."""

    def waited(self, lane: Lane, seconds: float) -> None:
        """Nobody watches."""

    def fell_back(self, game: str, reason: QuickReason) -> None:
        """Nobody watches."""
