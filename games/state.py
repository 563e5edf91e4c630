"""The rules-core interface every game's position implements: an immutable :class:`State`, after OpenSpiel's Python
games (``current_player``, ``legal_actions``, ``apply_action``, ``returns``) and python-chess's ``Board`` (a move
notation that round-trips, ``outcome()`` a small value, a loader that rejects impossible data).

A state knows its rules only: it imports the errors and the outcome, never the declaration that describes the game
(:mod:`games.declaration`) nor what a position is worth (:mod:`games.values`). This package is pure Python: no
I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from games.errors import InvalidState, RulesError
from games.outcome import Outcome

MoveT = TypeVar("MoveT")
"""A game's move type: a small frozen, hashable value."""


class State(abc.ABC, Generic[MoveT]):
    """An immutable game position. Subclasses are frozen dataclasses or equivalent.

    Every state knows its variant (it is part of ``to_dict``), the number of plies played and the last move (for
    highlighting), so that a state alone can be rendered, resumed and validated.
    """

    game: ClassVar[str]
    """The registry key of the game (``"chopsticks"``, ...)."""

    @property
    def seats(self) -> int:
        """Number of seats in this match: 2 unless a game overrides it (1 for a solitaire game)."""
        return 2

    @property
    @abc.abstractmethod
    def current_seat(self) -> int | None:
        """The seat to move (0-based), or ``None`` once the game is over."""

    @property
    @abc.abstractmethod
    def ply(self) -> int:
        """Number of moves applied since the start."""

    @property
    @abc.abstractmethod
    def last_move(self) -> MoveT | None:
        """The move that produced this state, or ``None`` at the start."""

    @property
    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """The outcome once the game is over, else ``None``."""

    @property
    @abc.abstractmethod
    def scores(self) -> tuple[int, ...] | None:
        """Running score per seat (solitaire: turns so far), or ``None`` for games without scores."""

    @property
    def is_over(self) -> bool:
        """``True`` once the game has an outcome."""
        return self.outcome is not None

    @abc.abstractmethod
    def legal_moves(self) -> Sequence[MoveT]:
        """All legal moves of the seat to move, in a stable order; empty when the game is over.

        Games with a continuous move set (Napkin Chess) return a finite sample of legal moves instead and
        say so in their docstring.
        """

    @abc.abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """Parse ``text`` in the game's notation into a move.

        Raises:
            InvalidMove: the text is malformed. Legality is *not* checked here (``apply`` does that).
        """

    @abc.abstractmethod
    def format_move(self, move: MoveT) -> str:
        """Return the canonical notation of ``move``; ``parse_move(format_move(m)) == m``."""

    @abc.abstractmethod
    def apply(self, move: MoveT) -> State[MoveT]:
        """Return the state after ``move``.

        Raises:
            IllegalMove: the move is not legal here; the message says why and, where short, what is legal.
        """

    def play(self, text: str) -> State[MoveT]:
        """Parse ``text`` and apply it (raises :class:`InvalidMove` or :class:`IllegalMove`)."""
        return self.apply(self.parse_move(text))

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict from which :meth:`from_dict` rebuilds an equal state."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State[MoveT]:
        """Rebuild a state: the frame every game shares, around the game's own :meth:`_from_fields`.

        Checks that ``data`` is a mapping with every key of :attr:`required_keys`, that it names this game, and
        turns any error of the game's own checks (including :class:`InvalidVariant` and :class:`InvalidMove`
        while replaying) into :class:`InvalidState`.

        Raises:
            InvalidState: the data is malformed or describes an impossible position.
        """
        if not isinstance(data, Mapping):
            raise InvalidState(f"A {cls.game} state must be a dict, not {type(data).__name__}.")
        missing = [name for name in cls.required_keys if name not in data]
        if missing:
            raise InvalidState(f"The {cls.game} state lacks {', '.join(missing)}.")
        if data["game"] != cls.game:
            raise InvalidState(f"This is a {data['game']!r} state, not a {cls.game} state.")
        try:
            return cls._from_fields(data)
        except InvalidState:
            raise
        except (RulesError, KeyError, TypeError, ValueError, IndexError) as error:
            raise InvalidState(f"The {cls.game} state is invalid: {error}") from None

    required_keys: ClassVar[tuple[str, ...]] = ("game",)
    """Keys :meth:`from_dict` requires before calling :meth:`_from_fields`."""

    @classmethod
    @abc.abstractmethod
    def _from_fields(cls, data: Mapping[str, Any]) -> State[MoveT]:
        """The game's own part of :meth:`from_dict`: ``data`` is a mapping holding :attr:`required_keys` and
        naming this game. Raise :class:`InvalidState` (or any :class:`RulesError`) for impossible data."""
