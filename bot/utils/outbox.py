"""What the outbox's delivery (:mod:`bot.exts.outbox`) asks of each kind of news: its :class:`Poster`, which the
feature that owns the kind registers when it loads (``bot.posters.register``), as python-discord's features give
its one scheduler what to do while the scheduler owns when.

A poster posts one claimed news (from the messages its earlier attempts already posted: ``news.parts_done``,
noting each message it posts with ``progress``) and says, once Discord has refused it for good, who should be told.
It raises what Discord raised; the delivery decides what a refusal means, the same way for every kind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from storage import OutboxRecord

Progress = Callable[[int], Awaitable[None]]
"""Note that the first ``n`` messages of the news are posted (:meth:`bot.service.outbox.OutboxService.progress`)."""


@dataclass(frozen=True)
class Poster:
    """How one kind of news is posted.

    Attributes:
        post: ``await post(news, progress)`` posts ``news``; ``True`` when posted, ``False`` when it is no longer true
            or its subject is gone (nothing posted). Raises :class:`discord.HTTPException` or
            :class:`discord.ClientException` when Discord refuses.
        given_up: ``await given_up(news, gone)``: Discord refused ``news`` for good (``gone``: its channel does not
            exist; else no access to it): tell whoever it was for, where they can be reached (a failure is only
            logged).
    """

    post: Callable[[OutboxRecord, Progress], Awaitable[bool]]
    given_up: Callable[[OutboxRecord, bool], Awaitable[None]]


class Posters:
    """The posters by kind of news, registered by the features as they load."""

    def __init__(self) -> None:
        self._by_kind: dict[str, Poster] = {}

    def register(self, kind: str, poster: Poster) -> None:
        """Post news of ``kind`` with ``poster`` (a kind has one poster: registering again replaces it, as a reloaded
        extension does)."""
        self._by_kind[kind] = poster

    def get(self, kind: str) -> Poster | None:
        """The poster of ``kind``, or ``None``."""
        return self._by_kind.get(kind)

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds that have a poster."""
        return frozenset(self._by_kind)
