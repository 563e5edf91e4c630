"""The errors of the rules core: every one a :class:`RulesError` (a ``ValueError``) whose text is a sentence fit to
show a player, after python-chess's ``IllegalMoveError`` and ``InvalidMoveError``."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the rules core raises; ``str(error)`` is a sentence fit to show a player."""


class InvalidMove(RulesError):
    """The text is not a move in the game's notation at all (malformed, empty, out of range)."""


class IllegalMove(RulesError):
    """The move is well formed but not legal in this position (wrong phase, occupied, game over...)."""


class InvalidState(RulesError):
    """A serialised state is impossible or inconsistent; raised by ``State.from_dict``."""


class InvalidVariant(RulesError):
    """A variant option is unknown or out of range; raised by ``Game.variant`` and ``Game.new_state``."""
