"""Match lifecycle without Discord: challenges, seats, turns, deadlines, ratings (see :mod:`.matches`)."""

from bot.service.errors import (
    BadOption,
    ChallengeClosed,
    LimitReached,
    MatchOver,
    NotAllowed,
    NotFound,
    NotYourTurn,
    Outdated,
    ServiceError,
)
from bot.service.matches import (
    DAYS_PER_MOVE_CHOICES,
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
    "BadOption",
    "ChallengeClosed",
    "ChallengeResult",
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
    "load_state",
    "replay",
]
