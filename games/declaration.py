"""The declaration through which a game describes itself: :class:`Game` and the pieces it is made of.

A :class:`Game` is the one place that says everything about a game: its key and title, its command group, how
many seats a variant has, its variant options as a declarative spec (:class:`games.options.Option`: type, range,
default, description; validation, the start command's options and the rules' option table all come from it), the
commands that play a move and how a move's text is assembled from their options (:class:`MoveCommand`), the
matches the demo plays (:class:`DemoMatch`), the players' rules text and the source document. It is the game
type beside the state (OpenSpiel's ``pyspiel.GameType`` apart from its ``State``): the registry
(:data:`games.GAMES`) finds games by it; nothing else keeps a list of them. It names none of its consumers: the
renderers and the bot find a game's board and Discord pieces by its key, where they live.

This package is pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar, cast

from games.errors import IllegalMove
from games.options import Option, check_options
from games.outcome import Outcome
from games.search import LEVELS, Level, collector_paused
from games.state import MoveT, State
from games.values import Estimate, GameValue, MoveValues
from i18n import Text, _, gettext

StateT = TypeVar("StateT", bound="State[Any]")
"""A game's state type."""


# ------------------------------------------------------------------------------------------------ commands


@dataclass(frozen=True, slots=True)
class MoveParam:
    """One option of a move command (always typed by players as text, checked by the rules core).

    Attributes:
        name: the option name (``"square"``, ``"x"``); Python keywords are allowed (``"from"``).
        description: one line for players (at most 100 characters).
        required: whether the option must be given.
        suggest: autocomplete: ``suggest(state, filled)`` returns what to offer given the options already filled
            in, each a value or a ``(label, value)`` pair (the first 25 that match what is typed are shown);
            ``None`` for no autocomplete.
    """

    name: str
    description: str
    required: bool = True
    suggest: Callable[[Any, Mapping[str, str]], Sequence[str | tuple[str, str]]] | None = None


@dataclass(frozen=True, slots=True)
class MoveCommand:
    """A subcommand of the game's group that plays a move (``/differences mark square:e5``).

    Attributes:
        name: the subcommand (``"mark"``).
        description: one line for players (at most 100 characters).
        params: its options, in order.
        assemble: builds the move's text in the game's notation from the options as typed
            (``{"size": "3", "x": "12.5", "y": "7"}`` → ``"3@12.5,7"``); may raise :class:`InvalidMove` quoting
            what the player typed.
    """

    name: str
    description: str
    params: tuple[MoveParam, ...]
    assemble: Callable[[Mapping[str, str]], str]


@dataclass(frozen=True, slots=True)
class DemoMatch:
    """A computer-versus-computer match the offline demo (and the generic suites) play.

    Attributes:
        label: what the demo prints (``"rollover, no self-taps"``).
        variant: the variant options.
        levels: the computer level per seat (one entry for a solitaire variant).
    """

    label: str
    variant: Mapping[str, Any] = field(default_factory=dict)
    levels: tuple[Level, ...] = ("hard", "medium")


class Game(abc.ABC, Generic[StateT, MoveT]):
    """Everything about one game: metadata, variants, commands, the start position and the computer player."""

    key: ClassVar[str]
    """Registry key (``"chopsticks"``): the state's ``game`` and the stored matches' game."""
    title: ClassVar[str]
    """Display name, spelled the same everywhere (``"Chopsticks"``, ``"Gröbner Nim"``)."""
    command: ClassVar[str]
    """The Discord command group (``"chopsticks"``, ``"napkin"``): lower case, at most 32 characters."""
    source: ClassVar[str]
    """The source document the rules follow, for players (``"Leroy Quet, Grid Game Of Differences (2010)"``)."""
    natural_end: ClassVar[str]
    """How the game's own end reads in a sentence (``"both hands are dead"``, ``"no coin fits"``)."""
    rules: ClassVar[str] = ""
    """The rules for players (Markdown, our commands and notation with examples); sections are separated by
    blank lines starting with ``**Heading**``."""
    drawable: ClassVar[bool] = True
    """Whether players may agree to a draw."""
    state_class: ClassVar[type[State[Any]]]
    """The game's state class."""
    options: ClassVar[tuple[Option, ...]] = ()
    """The variant options, in the order the start command shows them."""
    moves: ClassVar[tuple[MoveCommand, ...]] = ()
    """The commands that play a move."""
    demo: ClassVar[tuple[DemoMatch, ...]] = (DemoMatch("default rules"),)
    """The matches ``napkin demo`` plays (the first also serves the generic test suites)."""
    level_descriptions: ClassVar[Mapping[Level, str]] = {
        "easy": "plays a random legal move",
        "medium": "looks one move ahead",
        "hard": "searches as deep as its time allows",
    }
    """What each computer level of this game does, in words for players (``/help`` and ``/rules`` show them), weakest
    first: one phrase each, without the level's name or a final stop (``"medium": "looks one move ahead"``). Its keys
    are the levels the game has; ``perfect`` is among them only for a game that is solved for some variants, and
    :meth:`levels_for` says for which."""

    # ---- variants

    def variant(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return the full variant for ``options`` as chosen by a player (missing ones take their defaults).

        The default checks ``options`` against :attr:`options` and then :meth:`check_variant`; games whose stored
        variant differs from the options players set (Napkin Chess's presets) override it.

        Raises:
            InvalidVariant: an unknown option or an illegal value or combination; the message names it.
        """
        full = check_options(self.options, options)
        self.check_variant(full)
        return full

    def check_variant(self, variant: Mapping[str, Any]) -> None:
        """Checks across options, after each was checked alone (default: none).

        Raises:
            InvalidVariant: an illegal combination.
        """

    def variant_defaults(self) -> dict[str, Any]:
        """Return the full default variant (every option the game accepts)."""
        return self.variant({})

    def seats_for(self, variant: Mapping[str, Any] | None = None) -> int:
        """Number of seats a match with ``variant`` has (2 unless the game has a solitaire mode)."""
        return 2

    @abc.abstractmethod
    def new_state(self, variant: Mapping[str, Any] | None = None, rng: random.Random | None = None) -> StateT:
        """Return the start position for ``variant`` (missing options take their defaults).

        ``rng`` drives random starts (Gröbner Nim) and must make the start reproducible.

        Raises:
            InvalidVariant: an option is unknown or out of range; the message names it and its legal values.
        """

    # ---- the computer

    def plays_perfectly(self, state: StateT) -> bool:
        """Whether the computer plays ``state``'s variant perfectly from its start (the game is solved for it, within
        the computer's budget): then the ``perfect`` level is offered for it (default: ``False``)."""
        return False

    def levels_for(self, state: StateT) -> tuple[Level, ...]:
        """The levels a match from ``state`` (its variant) can be played at, weakest first: those of
        :attr:`level_descriptions`, ``perfect`` only where :meth:`plays_perfectly`."""
        perfect = self.plays_perfectly(state)
        return tuple(level for level in LEVELS if level in self.level_descriptions
                     and (level != "perfect" or perfect))

    def computer_move(self, state: State[Any], level: Level, rng: random.Random) -> MoveT:
        """Choose a legal move for ``state.current_seat`` at ``level`` (``easy``/``medium``/``hard``, and ``perfect``
        where :meth:`levels_for` offers it).

        The checks every game shares, then :meth:`choose_move`, with Python's cyclic garbage collector paused
        (:func:`collector_paused`). Deterministic for a given ``rng`` seed.

        Raises:
            TypeError: ``state`` is not a state of this game.
            ValueError: ``level`` is not one of :data:`LEVELS`, or not one this variant is played at.
            IllegalMove: the game is over.
        """
        if not isinstance(state, self.state_class):
            raise TypeError(f"computer_move of {self.title} needs a {self.title} state, not {type(state).__name__}.")
        if level not in LEVELS:
            offered = [name for name in LEVELS if name in self.level_descriptions]
            raise ValueError(f"Unknown level {level!r}; the levels are {', '.join(offered)}.")
        levels = self.levels_for(cast(StateT, state))
        if level not in levels:
            raise ValueError(f"{self.title} has no {level} level with these options; the levels are "
                             f"{', '.join(levels)}.")
        if state.is_over:
            raise IllegalMove(_("The game is over; there is no move to choose."))
        # The isinstance check above is what makes ``state`` a StateT; mypy cannot narrow to a type variable.
        with collector_paused():
            return self.choose_move(cast(StateT, state), level, rng)

    @abc.abstractmethod
    def choose_move(self, state: StateT, level: Level, rng: random.Random) -> MoveT:
        """The game's own computer player: a legal move in a running ``state`` of this game at a level
        :meth:`levels_for` offers."""

    # ---- review

    def exact_value(self, state: StateT, seat: int) -> GameValue | None:
        """The exact value of ``state`` for ``seat`` under perfect play (a finished state: its result), or ``None``
        when the game has no solver or this position is beyond what it solves quickly (the default: ``None``).

        Reviews (:func:`games.review.review`) call it through :meth:`exact_move_values`.
        """
        return None

    def exact_move_values(self, state: StateT) -> dict[MoveT, GameValue] | None:
        """The exact value, for the seat to move, of every legal move of a running ``state`` (the value of the
        position each leads to, for the mover), or ``None`` when any of them is not solved.

        The default asks :meth:`exact_value` of each child; games whose solver shares work between the children
        override it.
        """
        seat = state.current_seat
        if seat is None:
            return None
        values: dict[MoveT, GameValue] = {}
        for move in state.legal_moves():
            value = self.exact_value(cast(StateT, state.apply(move)), seat)
            if value is None:
                return None
            values[move] = value
        return values

    def exact_move(self, state: StateT, move: MoveT) -> MoveValues[MoveT] | None:
        """The exact values of the legal ``move`` in the running ``state`` for the seat to move, or ``None`` when
        they are not solved. The default takes them from :meth:`exact_move_values` (every move that keeps the best
        value is named); games whose solver finds the best value and one best move faster override it.
        """
        values = self.exact_move_values(state)
        if values is None or move not in values:
            return None
        best = max(value.rank for value in values.values())
        keeping = tuple(other for other, value in values.items() if value.rank == best)
        return MoveValues(values[keeping[0]], values[move], keeping)

    def estimate(self, state: StateT, seat: int, rng: random.Random) -> Estimate | None:
        """The ``hard`` computer player's evaluation of ``state`` for ``seat`` (deterministic for ``rng``), or
        ``None`` for a game whose computer player has no evaluation (the default)."""
        return None

    # ---- storage

    def load(self, data: Mapping[str, Any]) -> StateT:
        """Rebuild a state of this game from ``to_dict`` output (raises :class:`InvalidState`)."""
        # ``state_class`` is the class of StateT (a class variable cannot be typed with a type variable).
        return cast(StateT, self.state_class.from_dict(data))

    # ---- commands

    def command_for(self, state: StateT, notation: str) -> tuple[str, dict[str, str]]:
        """Return the move subcommand and its options that play ``notation`` (a legal move's canonical text) in
        ``state``: the inverse of :attr:`MoveCommand.assemble`, used by the generic test suites and benchmarks.

        The default serves a game with one move command of one option.

        Raises:
            ValueError: the notation has no command form.
        """
        if len(self.moves) != 1 or len(self.moves[0].params) != 1:
            raise NotImplementedError(f"{self.title} must say which command plays a move")
        command = self.moves[0]
        return command.name, {command.params[0].name: notation}

    def describe_end(self, outcome: Outcome) -> str:
        """Why the match ended, as a phrase (``"both hands are dead"``, ``"out of time"``), in the language being
        spoken (:func:`i18n.speaking`)."""
        return outcome.termination.phrase(self.natural_end)

    @property
    def title_text(self) -> Text:
        """The game's title as a placeholder value, rendered in the sentence's language (``Baguettes`` in French)."""
        return Text(self.title)

    @property
    def local_title(self) -> str:
        """The game's title in the language being spoken (:func:`i18n.speaking`): ``Baguettes`` for Chopsticks in
        French."""
        return gettext(self.title)

    def start_note(self, state: StateT) -> str | None:
        """A sentence players should read about a start position before they play it (for example that perfect
        play wins it for one side), or ``None`` (the default)."""
        return None

    def move_help(self) -> str:
        """One line telling a player how to move (the first board shows it): the commands with examples."""
        return " · ".join(f"`/{self.command} {command.name}`" for command in self.moves)
