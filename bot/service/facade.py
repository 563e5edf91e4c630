"""Every match action on one object, for scripts, tests and benchmarks that drive the services without the bot.

:class:`MatchService` keeps the flat names the match lifecycle had when it was one class (``service.play``,
``service.process_due``, ``service.claim_news``...); each is the method of the service that owns it in
:class:`bot.service.Services` (the table below says which). The bot itself and its extensions use
:class:`bot.service.Services` (``bot.services.moves.play``), never this.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from bot.service.challenges import COMPUTER_NAME, ChallengeService
from bot.service.computer import ComputerPool
from bot.service.computer_turns import ComputerTurnService
from bot.service.deadlines import DeadlineService
from bot.service.endings import EndingService
from bot.service.moves import MoveService
from bot.service.outbox import OutboxService
from bot.service.premoves import PremoveService
from bot.service.reading import ReadingService
from bot.service.settings import SettingsService
from bot.service.wiring import Services
from storage import Database, Shards

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Owned(Generic[_P, _R]):
    """A flat name of :class:`MatchService`: ``method`` of the service named ``owner`` in :class:`Services`."""

    def __init__(self, owner: str, method: Callable[Concatenate[Any, _P], _R]) -> None:
        self.owner = owner
        self.name = method.__name__

    @overload
    def __get__(self, facade: None, kind: type) -> _Owned[_P, _R]: ...

    @overload
    def __get__(self, facade: MatchService, kind: type | None = None) -> Callable[_P, _R]: ...

    def __get__(self, facade: MatchService | None, kind: type | None = None) -> _Owned[_P, _R] | Callable[_P, _R]:
        if facade is None:
            return self
        bound: Callable[_P, _R] = getattr(getattr(facade.services, self.owner), self.name)
        return bound


class MatchService:
    """The services of :class:`Services` under the flat names of the one-class match lifecycle.

    Args:
        db, clock, computer, shards, computer_id, computer_name: as :class:`Services`.
        services: the services to use (default: built from the other arguments).
    """

    def __init__(self, db: Database, *, computer_id: int = 0, computer_name: str = COMPUTER_NAME,
                 clock: Callable[[], float] = time.time, computer: ComputerPool | None = None,
                 shards: Shards | None = None, services: Services | None = None) -> None:
        self.services = services or Services(db, clock=clock, computer=computer, shards=shards,
                                             computer_id=computer_id, computer_name=computer_name)

    @property
    def db(self) -> Database:
        """The database."""
        return self.services.db

    @property
    def clock(self) -> Callable[[], float]:
        """The clock (epoch seconds)."""
        return self.services.clock

    @property
    def shards(self) -> Shards | None:
        """The shards served (``None``: all)."""
        return self.services.shards

    @property
    def computer(self) -> ComputerPool:
        """Where computer moves are searched."""
        return self.services.computer

    @property
    def premoves(self) -> PremoveService:
        """The conditional moves service (:func:`bot.service.premoves.store` takes this object)."""
        return self.services.premoves

    @property
    def computer_id(self) -> int:
        """The computer's user id in seats."""
        return self.services.challenges.computer_id

    @property
    def computer_name(self) -> str:
        """The computer's name in seats."""
        return self.services.challenges.computer_name

    get_match = _Owned("reading", ReadingService.get_match)
    quarantine = _Owned("reading", ReadingService.quarantine)
    match_in_thread = _Owned("reading", ReadingService.match_in_thread)
    active_matches = _Owned("reading", ReadingService.active_matches)
    active_matches_anywhere = _Owned("reading", ReadingService.active_matches_anywhere)
    damaged_matches = _Owned("reading", ReadingService.damaged_matches)
    active_match_page = _Owned("reading", ReadingService.active_match_page)
    moves = _Owned("reading", ReadingService.moves)
    settings = _Owned("settings", SettingsService.get)
    update_settings = _Owned("settings", SettingsService.update)
    validate_variant = _Owned("challenges", ChallengeService.validate_variant)
    create_challenge = _Owned("challenges", ChallengeService.create)
    cancel_challenge = _Owned("challenges", ChallengeService.cancel)
    set_challenge_message = _Owned("challenges", ChallengeService.set_message)
    get_challenge = _Owned("challenges", ChallengeService.get)
    accept_challenge = _Owned("challenges", ChallengeService.accept)
    decline_challenge = _Owned("challenges", ChallengeService.decline)
    start_solo = _Owned("challenges", ChallengeService.start_solo)
    start_computer_duel = _Owned("challenges", ChallengeService.start_computer_duel)
    set_thread = _Owned("challenges", ChallengeService.set_thread)
    play = _Owned("moves", MoveService.play)
    computer_replies = _Owned("moves", MoveService.computer_replies)
    resign = _Owned("endings", EndingService.resign)
    abort = _Owned("endings", EndingService.abort)
    offer_draw = _Owned("endings", EndingService.offer_draw)
    decline_draw = _Owned("endings", EndingService.decline_draw)
    give_time = _Owned("endings", EndingService.give_time)
    process_due = _Owned("deadlines", DeadlineService.process_due)
    next_wakeup = _Owned("deadlines", DeadlineService.next_wakeup)
    due_news = _Owned("outbox", OutboxService.due)
    claim_news = _Owned("outbox", OutboxService.claim)
    news_done = _Owned("outbox", OutboxService.done)
    news_failed = _Owned("outbox", OutboxService.failed)
    computer_turns = _Owned("computer_turns", ComputerTurnService.waiting)
    claim_computer_turn = _Owned("computer_turns", ComputerTurnService.claim)
    release_computer_turn = _Owned("computer_turns", ComputerTurnService.release)
