"""Domain errors of the match service. ``str(error)`` is the sentence shown (ephemerally) to the member."""

from __future__ import annotations


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
