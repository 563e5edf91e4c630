"""The match lifecycle without Discord, one small module per player action over a shared leaf.

Layers, from the bottom (import-linter keeps them): :mod:`.errors`, :mod:`.clock` (the correspondence clock),
:mod:`.states` (the state cache), :mod:`.ratings`, :mod:`.computer`; then :mod:`.base` (what every action shares:
loading a match for an action or for reading, who hears that a match ended); :mod:`.finisher` (the one place a match
ends) and :mod:`.premoves`; the actions — :mod:`.challenges`, :mod:`.moves`, :mod:`.endings`, :mod:`.deadlines`,
:mod:`.outbox` (the one outbox of news posted later), :mod:`.computer_turns`, :mod:`.reading`, :mod:`.reviews`,
:mod:`.settings`, :mod:`.vacations`; the tournaments over them, after lichess's swiss module —
:mod:`.tournament_results` (what a game's end scores; who is withdrawn), :mod:`.tournament_director` (pairs a round
and turns it into games, or finishes), :mod:`.tournament_rounds` (reacts to events: a game's end, a start time, a
lease run out) under :mod:`.tournaments` (entries, start, withdrawals, organizer actions, reading), with the plain
computations :mod:`.pairing` and :mod:`.standings`, and :mod:`.seasons` and :mod:`.uncertainty` beneath
:mod:`.ratings`; and on top :mod:`.wiring` (:class:`Services`, every service built once). The bot, scripts, tests
and benchmarks all call an action the one way: ``services.<service>.<method>`` (``services.moves.play``).
"""

from bot.service.base import ChallengeResult, MoveResult, Player
from bot.service.clock import DAYS_PER_MOVE_CHOICES, EXTRA_TIME_LIMIT, CorrespondenceClock
from bot.service.deadlines import DueWork
from bot.service.errors import (
    BadOption,
    ChallengeClosed,
    Damaged,
    LimitReached,
    MatchOver,
    NotAllowed,
    NotFound,
    NotYourTurn,
    Outdated,
    ServiceError,
    TimeRanOut,
    Unavailable,
)
from bot.service.states import load_state, replay, replay_states
from bot.service.wiring import Services

__all__ = [
    "DAYS_PER_MOVE_CHOICES",
    "EXTRA_TIME_LIMIT",
    "BadOption",
    "ChallengeClosed",
    "ChallengeResult",
    "CorrespondenceClock",
    "Damaged",
    "DueWork",
    "LimitReached",
    "MatchOver",
    "MoveResult",
    "NotAllowed",
    "NotFound",
    "NotYourTurn",
    "Outdated",
    "Player",
    "ServiceError",
    "Services",
    "TimeRanOut",
    "Unavailable",
    "load_state",
    "replay",
    "replay_states",
]
