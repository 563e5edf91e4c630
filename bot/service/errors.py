"""Domain errors of the match service. ``str(error)`` is the sentence shown (ephemerally) to the member."""

from __future__ import annotations

from i18n import Textual, _


class ServiceError(Exception):
    """Base class: an action was refused; nothing stored changed."""


class NotFound(ServiceError):
    """No such match or challenge (or it belongs to another server)."""


class NotAllowed(ServiceError):
    """The member may not do this (not seated, not invited, not an admin...)."""


class NotYourTurn(ServiceError):
    """A seated player tried to move out of turn."""


class MatchOver(ServiceError):
    """The match is finished or aborted."""


class Outdated(ServiceError):
    """The board the member acted on is no longer the current one (another move landed first)."""


class ChallengeClosed(ServiceError):
    """The challenge was already accepted, declined, cancelled or has expired."""


class LimitReached(ServiceError):
    """The member has too many active matches in this server."""


class BadOption(ServiceError):
    """An option value is malformed or out of range (days per move, a match reference...)."""


class Unavailable(ServiceError):
    """The database could not be reached for this action (its connection dropped, twice, or while the commit was on
    its way); the message says whether anything may have been stored."""


class Damaged(ServiceError):
    """A stored match cannot be loaded (its row is damaged): it is quarantined and shown as such.

    Attributes:
        match_id: the match. reason: what is wrong with its row (for the log and the admin).
    """

    def __init__(self, match_id: int, reason: str) -> None:
        super().__init__(_("Match #{match} is damaged and cannot be played; an admin can inspect it with "
                           "`napkin inspect {match}`.", match=str(match_id)))
        self.match_id = match_id
        self.reason = reason


class TimeRanOut(MatchOver):
    """A move came after the mover's deadline: the match was forfeited (on time) instead of taking the move.

    Attributes:
        match: the finished match.
    """

    def __init__(self, message: Textual, match: object) -> None:
        super().__init__(message)
        self.match = match
