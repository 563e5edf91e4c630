"""The rules-core interface every game implements.

The shape follows OpenSpiel's Python games and python-chess: an immutable :class:`State` per game with
``current_seat``, ``legal_moves``, ``parse_move``/``format_move`` (the game's notation, round-tripping),
``apply`` returning a new state or raising :class:`IllegalMove`, ``outcome`` and dict (de)serialisation that
rejects impossible data with :class:`InvalidState`. A :class:`Game` describes one game: its key, its
variants, how to start a state and how the computer chooses a move at each :data:`Level`.

This package is pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

Level = Literal["easy", "medium", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard")


class RulesError(ValueError):
    """Base of every error the rules core raises; ``str(error)`` is a sentence fit to show a player."""


class InvalidMove(RulesError):
    """The text is not a move in the game's notation at all (malformed, empty, out of range)."""


class IllegalMove(RulesError):
    """The move is well formed but not legal in this position (wrong phase, occupied, game over...)."""


class InvalidState(RulesError):
    """A serialised state is impossible or inconsistent; raised by ``State.from_dict``."""


class InvalidVariant(RulesError):
    """A variant option is unknown or out of range; raised by ``Game.new_state``."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: the winning seat (0-based), or ``None`` for a draw or a solitaire game.
        draw: ``True`` when the game ended drawn (never for solitaire).
        scores: final score per seat (solitaire: ``(turns,)``), or ``None`` for games without scores.
        reason: a short phrase such as ``"both hands dead"``, ``"third repetition"``, ``"no coin fits"``.
    """

    winner: int | None
    draw: bool
    scores: tuple[int, ...] | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "winner": self.winner,
            "draw": self.draw,
            "scores": list(self.scores) if self.scores is not None else None,
            "reason": self.reason,
        }


class State(abc.ABC):
    """An immutable game position. Subclasses are frozen dataclasses or equivalent.

    ``Move`` is game-specific (a small frozen, hashable value). Every state knows its variant (it is part of
    ``to_dict``), the number of plies played and the last move (for highlighting), so that a state alone can
    be rendered, resumed and validated.
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
    def last_move(self) -> Any | None:
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
    def legal_moves(self) -> Sequence[Any]:
        """All legal moves of the seat to move, in a stable order; empty when the game is over.

        Games with a continuous move set (Napkin Chess) return a finite sample of legal moves instead and
        say so in their docstring.
        """

    @abc.abstractmethod
    def parse_move(self, text: str) -> Any:
        """Parse ``text`` in the game's notation into a move.

        Raises:
            InvalidMove: the text is malformed. Legality is *not* checked here (``apply`` does that).
        """

    @abc.abstractmethod
    def format_move(self, move: Any) -> str:
        """Return the canonical notation of ``move``; ``parse_move(format_move(m)) == m``."""

    @abc.abstractmethod
    def apply(self, move: Any) -> State:
        """Return the state after ``move``.

        Raises:
            IllegalMove: the move is not legal here; the message says why and, where short, what is legal.
        """

    def play(self, text: str) -> State:
        """Parse ``text`` and apply it (raises :class:`InvalidMove` or :class:`IllegalMove`)."""
        return self.apply(self.parse_move(text))

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict from which :meth:`from_dict` rebuilds an equal state."""

    @classmethod
    @abc.abstractmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """Rebuild a state.

        Raises:
            InvalidState: the data is malformed or describes an impossible position.
        """


class Game(abc.ABC):
    """Description of one game: metadata, variants, the start position and the computer player."""

    key: ClassVar[str]
    """Registry key, also the Discord command group name's basis (``"chopsticks"``)."""
    title: ClassVar[str]
    """Display name (``"Chopsticks"``)."""
    source: ClassVar[str]
    """The source document the rules follow (``"seeds/chopsticks.md"``)."""
    drawable: ClassVar[bool] = True
    """Whether players may agree to a draw."""
    state_class: ClassVar[type[State]]

    @abc.abstractmethod
    def variant_defaults(self) -> dict[str, Any]:
        """Return the default variant options as a JSON-safe dict (every option the game accepts)."""

    @abc.abstractmethod
    def new_state(self, variant: Mapping[str, Any] | None = None, rng: random.Random | None = None) -> State:
        """Return the start position for ``variant`` (missing options take their defaults).

        ``rng`` drives random starts (Gröbner Nim) and must make the start reproducible.

        Raises:
            InvalidVariant: an option is unknown or out of range; the message names it and its legal values.
        """

    def seats_for(self, variant: Mapping[str, Any] | None = None) -> int:
        """Number of seats a match with ``variant`` has (2 unless the game has a solitaire mode)."""
        return 2

    @abc.abstractmethod
    def computer_move(self, state: State, level: Level, rng: random.Random) -> Any:
        """Choose a legal move for ``state.current_seat`` at ``level`` (``easy``/``medium``/``hard``).

        Deterministic for a given ``rng`` seed. Raises ``IllegalMove`` if the game is over.
        """

    def load(self, data: Mapping[str, Any]) -> State:
        """Rebuild a state of this game from ``to_dict`` output (raises :class:`InvalidState`)."""
        return self.state_class.from_dict(data)
