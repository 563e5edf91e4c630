"""Match lifecycle without Discord: challenges, seats, turns, deadlines, ratings (see :mod:`.matches`)."""

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
)
from bot.service.matches import (
    DAYS_PER_MOVE_CHOICES,
    EXTRA_TIME_LIMIT,
    ChallengeResult,
    DueWork,
    MatchService,
    MoveResult,
    Player,
    load_state,
    replay,
)

__all__ = [
    "DAYS_PER_MOVE_CHOICES",
    "EXTRA_TIME_LIMIT",
    "BadOption",
    "ChallengeClosed",
    "ChallengeResult",
    "Damaged",
    "DueWork",
    "LimitReached",
    "MatchOver",
    "MatchService",
    "MoveResult",
    "NotAllowed",
    "NotFound",
    "NotYourTurn",
    "Outdated",
    "Player",
    "ServiceError",
    "TimeRanOut",
    "load_state",
    "replay",
]
