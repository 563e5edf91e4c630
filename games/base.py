"""The rules-core interface every game implements, and the declaration through which a game describes itself.

The shape follows OpenSpiel's Python games and python-chess: an immutable :class:`State` per game with
``current_seat``, ``legal_moves``, ``parse_move``/``format_move`` (the game's notation, round-tripping),
``apply`` returning a new state or raising :class:`IllegalMove`, ``outcome`` (a small value with a typed
:class:`Termination`) and dict (de)serialisation that rejects impossible data with :class:`InvalidState`.

A :class:`Game` is the one place that says everything about a game: its key and title, its command group, how
many seats a variant has, its variant options as a declarative spec (:class:`Option`: type, range, default,
description; validation, the start command's options and the rules' option table all come from it), the
commands that play a move and how a move's text is assembled from their options (:class:`MoveCommand`), the
matches the demo plays (:class:`DemoMatch`), the players' rules text and the source document. The registry
(:data:`games.GAMES`) finds games by itself; nothing else keeps a list of them.

This package is pure Python: no I/O, no ``discord``, no storage.
"""

from __future__ import annotations

import abc
import contextlib
import enum
import gc
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar, cast

Level = Literal["easy", "medium", "hard", "perfect"]
"""A computer player's strength. ``perfect`` exists only where a game is solved (:meth:`Game.levels_for`)."""
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard", "perfect")
"""Every level, weakest first."""


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


# ------------------------------------------------------------------------------------------------ outcome


class Termination(enum.StrEnum):
    """Why a match ended. Stored by value in every outcome; texts, renderers and ratings read it, never prose.

    ``NATURAL`` is the end the game's own rules give (each game names it in :attr:`Game.natural_end`: "both
    hands are dead", "the grid is full", "no coin fits", ...), so a new game needs no new member here.
    """

    NATURAL = "natural"
    """The game's own end (its :attr:`Game.natural_end`)."""
    REPETITION = "repetition"
    """A position occurred the third time (a draw)."""
    MOVE_LIMIT = "move_limit"
    """The game reached its move limit (a draw)."""
    RESIGNED = "resigned"
    """The seat that is not the winner resigned (solitaire: the player gave up)."""
    OUT_OF_TIME = "out_of_time"
    """The seat to move passed its deadline."""
    DRAW_AGREED = "draw_agreed"
    """Both players agreed to a draw."""
    ABORTED = "aborted"
    """Called off before both sides moved; counts for nobody."""

    def phrase(self, natural_end: str) -> str:
        """How this termination reads in a sentence (``"third repetition"``, ``"out of time"``): ``natural_end`` (the
        game's :attr:`Game.natural_end`) for ``NATURAL``, else :data:`TERMINATION_PHRASES`."""
        return natural_end if self is Termination.NATURAL else TERMINATION_PHRASES[self]

    @property
    def by_player(self) -> bool:
        """``True`` when a player's action ended the match (resigned, out of time, agreed, aborted)."""
        return self in (Termination.RESIGNED, Termination.OUT_OF_TIME, Termination.DRAW_AGREED, Termination.ABORTED)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: the winning seat (0-based), or ``None`` for a draw, an aborted match or a solitaire game.
        draw: ``True`` when the game ended drawn (never for solitaire).
        scores: final score per seat (solitaire: ``(turns,)``), or ``None`` for games without scores.
        termination: why it ended.
        loser: the seat that resigned or ran out of time (``None`` otherwise); in solitaire the winner is
            ``None``, so this is the only record of who gave up.
    """

    winner: int | None
    draw: bool
    scores: tuple[int, ...] | None
    termination: Termination
    loser: int | None = None

    def result(self, names: Sequence[str], end: str, *, winner_style: Callable[[str], str] | None = None) -> str:
        """The result sentence, the one way a finished match's result is phrased (as python-chess's
        ``Outcome.result()``): who won or that it was drawn, and why it ended.

        Args:
            names: display name per seat (``["Ann", "Bob"]``; one name in solitaire).
            end: how the game's own end reads, :meth:`Game.describe_end` of this outcome (``"both hands are dead"``,
                ``"third repetition"``, ``"the sticks form a Gröbner basis in 5 turns"``).
            winner_style: how the winner's name is set (a message's ``**bold**``); unchanged by default.

        Returns:
            One line without a final stop: ``"Ann wins: both hands are dead"``, ``"Draw: third repetition"``,
            ``"Finished: the sticks form a Gröbner basis in 5 turns"`` (solitaire), ``"Bob resigned: Ann wins"``,
            ``"Ann ran out of time: Bob wins"``, ``"Ann resigned"`` (solitaire), ``"Draw agreed"``, ``"Aborted"``.
            A winner or loser seat outside ``names`` is left unnamed.
        """
        termination = self.termination
        if termination is Termination.ABORTED:
            return "Aborted"
        if termination is Termination.DRAW_AGREED:
            return "Draw agreed"
        winner = names[self.winner] if self.winner is not None and 0 <= self.winner < len(names) else None
        if winner is not None and winner_style is not None:
            winner = winner_style(winner)
        if termination in (Termination.RESIGNED, Termination.OUT_OF_TIME) and self.loser is not None \
                and 0 <= self.loser < len(names):
            done = "resigned" if termination is Termination.RESIGNED else "ran out of time"
            return f"{names[self.loser]} {done}" + (f": {winner} wins" if winner is not None else "")
        if self.draw:
            return f"Draw: {end}"
        if winner is None:
            return f"Finished: {end}"
        return f"{winner} wins: {end}"

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (``termination`` by its value)."""
        return {
            "winner": self.winner,
            "draw": self.draw,
            "scores": list(self.scores) if self.scores is not None else None,
            "termination": self.termination.value,
            "loser": self.loser,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Rebuild an outcome from :meth:`to_dict` output.

        Raises:
            InvalidState: a field is missing or of the wrong kind, or the termination is unknown.
        """
        try:
            termination = Termination(data["termination"])
            winner, draw, scores, loser = data["winner"], data["draw"], data["scores"], data.get("loser")
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidState(f"An outcome needs winner, draw, scores and a known termination ({error}).") from None
        if (winner is not None and type(winner) is not int) or (loser is not None and type(loser) is not int):
            raise InvalidState("An outcome's winner and loser are seat numbers or empty.")
        if type(draw) is not bool:
            raise InvalidState("An outcome's draw is true or false.")
        if scores is not None and (not isinstance(scores, list | tuple) or any(type(s) is not int for s in scores)):
            raise InvalidState("An outcome's scores are a list of whole numbers or empty.")
        return cls(winner, draw, tuple(scores) if scores is not None else None, termination, loser)


def stored_outcome_agrees(stored: Any, outcome: Outcome | None) -> bool:
    """Whether a stored outcome dict (``Outcome.to_dict`` output, or ``None``) is ``outcome`` (re-derived by replay),
    for the ``from_dict`` checks of states that store their outcome."""
    if outcome is None or stored is None:
        return stored is None and outcome is None
    return bool(stored == outcome.to_dict())


# ------------------------------------------------------------------------------------------------ values


ValueKind = Literal["outcome", "margin", "turns"]


@dataclass(frozen=True, slots=True)
class GameValue:
    """The exact value of a position for one seat under perfect play by every seat (what a solver proves).

    Attributes:
        kind: ``"outcome"`` for games without scores: ``amount`` is 1 (a win), 0 (a draw) or -1 (a loss);
            ``"margin"`` for games that score: ``amount`` is the seat's final points minus its opponent's;
            ``"turns"`` for solitaire: ``amount`` is the turns the whole game takes (fewer is better).
        amount: see ``kind``.
        distance: plies left to the end under perfect play (the winner fastest, the loser slowest) where the
            solver knows it, else ``None``.
    """

    kind: ValueKind
    amount: int
    distance: int | None = None

    @property
    def rank(self) -> int:
        """A number that is higher the better the value is for the seat (``turns``: the amount negated)."""
        return -self.amount if self.kind == "turns" else self.amount

    @property
    def result(self) -> Literal["win", "draw", "loss"] | None:
        """``"win"``, ``"draw"`` or ``"loss"`` by the sign of the amount; ``None`` for ``turns``."""
        if self.kind == "turns":
            return None
        return "win" if self.amount > 0 else "loss" if self.amount < 0 else "draw"

    def short(self) -> str:
        """The value in a word or two: ``win``, ``draw``, ``loss``; ``+3``, ``0``, ``−2`` (points); ``5 turns``."""
        if self.kind == "outcome":
            return self.result or ""
        if self.kind == "margin":
            return f"+{self.amount}" if self.amount > 0 else f"−{-self.amount}" if self.amount < 0 else "0"
        return f"{self.amount} turn{'s' if self.amount != 1 else ''}"

    def describe(self) -> str:
        """The value in words: ``a win``, ``a draw``, ``a loss by 2 points``, ``5 turns``."""
        if self.kind == "turns":
            return self.short()
        if self.kind == "outcome" or self.amount == 0:
            return f"a {self.result}"
        points = abs(self.amount)
        return f"a {self.result} by {points} point{'s' if points != 1 else ''}"


@dataclass(frozen=True, slots=True)
class Estimate:
    """An estimated value of a position for one seat (a computer player's evaluation, not a proof).

    Attributes:
        kind: ``"margin"``: ``amount`` is the expected final points of the seat minus its opponent's;
            ``"outcome"``: ``amount`` is the expected result from -1 (a sure loss) to 1 (a sure win).
        amount: see ``kind``.
    """

    kind: Literal["outcome", "margin"]
    amount: float

    def short(self) -> str:
        """``≈ +2.5`` (points) or ``≈ 70% to win``."""
        if self.kind == "margin":
            return f"≈ {self.amount:+.1f}".replace("-", "−")
        return f"≈ {round(50 * (self.amount + 1))}% to win"


# ------------------------------------------------------------------------------------------------ state

MoveT = TypeVar("MoveT")
"""A game's move type: a small frozen, hashable value."""
StateT = TypeVar("StateT", bound="State[Any]")


@dataclass(frozen=True, slots=True)
class MoveValues(Generic[MoveT]):
    """A move's exact values for the player who made it (see :meth:`Game.exact_move`).

    Attributes:
        before: the value of the position before the move: the best the mover could get.
        after: the value of the position the move led to.
        keeping: moves that keep ``before`` (at least one, when ``after`` is worse), in the order of
            ``legal_moves``.
    """

    before: GameValue
    after: GameValue
    keeping: tuple[MoveT, ...]


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


# ------------------------------------------------------------------------------------------------ options


@dataclass(frozen=True, slots=True)
class Option:
    """One variant option, declared once: validation, the start command's option, and the rules' table.

    Attributes:
        name: the key in the variant dict and the start command's option name (``snake_case``).
        description: one line for players (at most 100 characters: Discord's limit), without the legal values or
            the default: the pickers (:meth:`command_description`) and the rules' table add them.
        default: the value when the player leaves the option out (``None``: "not set", for options whose
            default comes from another option, such as a preset).
        unset: what a ``None`` default means, in words for the rules' table (``"as the preset says"``).
        kind: ``"bool"``, ``"int"`` (``minimum``..``maximum`` inclusive), ``"choice"`` (one of ``choices``) or
            ``"text"`` (at most ``max_length`` characters).
    """

    name: str
    description: str
    default: Any
    kind: Literal["bool", "int", "choice", "text"]
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    max_length: int = 400
    unset: str = "not set"

    def check(self, value: Any) -> Any:
        """Return ``value`` if it is legal for this option (``None`` only where the default is ``None``).

        Raises:
            InvalidVariant: the value is of the wrong kind or out of range; the message names the option and
                its legal values.
        """
        if value is None and self.default is None:
            return None
        if self.kind == "bool":
            if type(value) is not bool:
                raise InvalidVariant(f"Option `{self.name}` must be true or false, not `{value}`.")
        elif self.kind == "int":
            low, high = self.minimum, self.maximum
            if type(value) is not int or (low is not None and value < low) or (high is not None and value > high):
                raise InvalidVariant(f"Option `{self.name}` must be a whole number from {low} to {high}, "
                                     f"not `{value}`.")
        elif self.kind == "choice":
            if value not in self.choices:
                raise InvalidVariant(f"Option `{self.name}` must be one of {', '.join(self.choices)}, not `{value}`.")
        elif not isinstance(value, str) or len(value) > self.max_length:
            raise InvalidVariant(f"Option `{self.name}` must be text of at most {self.max_length} characters.")
        return value

    def command_description(self) -> str:
        """The option's text in the pickers of the start and tournament commands: :attr:`description`, then the range
        of an ``int`` and the default of an ``int`` or a ``choice`` (``"Grid size n×n (4–15, default 8)"``), which a
        picker would not show otherwise. The rules' option table gives these in words instead
        (:meth:`describe_values`). Discord allows 100 characters; the declarations test holds every game to it."""
        hints = []
        if self.kind == "int":
            hints.append(f"{self.minimum}–{self.maximum}")
        if self.default is not None and self.kind in ("int", "choice"):
            hints.append(f"default {self.default}")
        return f"{self.description} ({', '.join(hints)})" if hints else self.description

    def describe_values(self) -> str:
        """The legal values in words, for the rules' option table (``"true or false"``, ``"4 to 15"``, ...)."""
        if self.kind == "bool":
            return "on or off"
        if self.kind == "int":
            return f"{self.minimum} to {self.maximum}"
        if self.kind == "choice":
            return ", ".join(self.choices)
        return f"text (up to {self.max_length} characters)"


_OPTION_NAME = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_]*)\s*:")
TRUE_WORDS = ("true", "yes", "on")
FALSE_WORDS = ("false", "no", "off")


def _typed(text: str, limit: int = 40) -> str:
    """``text`` as quoted back in a message: cut to ``limit`` characters, backticks made apostrophes."""
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[:limit] + "…"


def parse_option(option: Option, text: str) -> Any:
    """The value of ``option`` written as ``text`` (``"true"``/``"on"``/``"yes"``, a whole number, one of its choices
    in any case, or text), checked by :meth:`Option.check`.

    Raises:
        InvalidVariant: the text is not a value of the option; the message quotes it and names the legal values.
    """
    text = text.strip()
    if option.kind == "bool":
        if text.lower() in TRUE_WORDS:
            return True
        if text.lower() in FALSE_WORDS:
            return False
        raise InvalidVariant(f"Option `{option.name}` is true or false, not `{_typed(text)}`.")
    if option.kind == "int":
        if not text.lstrip("-").isdecimal() or len(text) > 12:
            raise InvalidVariant(f"Option `{option.name}` is a whole number from {option.minimum} to "
                                 f"{option.maximum}, not `{_typed(text)}`.")
        return option.check(int(text))
    if option.kind == "choice":
        chosen = next((choice for choice in option.choices if choice.lower() == text.lower()), None)
        if chosen is None:
            raise InvalidVariant(f"Option `{option.name}` is one of {', '.join(option.choices)}, not "
                                 f"`{_typed(text)}`.")
        return chosen
    return option.check(text)


def parse_options(options: Sequence[Option], text: str) -> dict[str, Any]:
    """Read options written as a start command shows them typed, ``"n:6 unique:true"``, into their values.

    Each option is ``name:value``; a value runs to the next ``name:`` (so a text value may hold spaces and commas:
    ``start:x^3+1, x*y^2+y^3``). Options left out are not in the result (their defaults apply later).

    Raises:
        InvalidVariant: text that is not ``name:value``, an option named twice or unknown (the message lists the
            known ones), or a value that is not legal for its option; the message quotes what was typed.
    """
    text = text.strip()
    found = list(_OPTION_NAME.finditer(text))
    if text and (not found or found[0].start(1) != 0):
        example = f" such as `{options[0].name}:…`" if options else ""
        raise InvalidVariant(f"`{_typed(text)}` is not a list of options{example}: write each as name:value.")
    by_name = {option.name: option for option in options}
    values: dict[str, Any] = {}
    for index, match in enumerate(found):
        name = match.group(1)
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        value = text[match.end():end].strip()
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            raise InvalidVariant(f"There is no option `{_typed(name)}`; the options are {known}.")
        if name in values:
            raise InvalidVariant(f"Option `{name}` is given twice.")
        if not value:
            raise InvalidVariant(f"Option `{name}` has no value: write it as `{name}:…`.")
        values[name] = parse_option(by_name[name], value)
    return values


def check_options(options: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``given`` against ``options``: every key known, every value legal; missing ones take defaults.

    Returns the full dict (one entry per option, in declaration order).

    Raises:
        InvalidVariant: an unknown option (the message lists the known ones) or an illegal value.
    """
    if given is not None and not isinstance(given, Mapping):
        raise InvalidVariant("A variant must be a set of named options.")
    given = dict(given or {})
    names = [option.name for option in options]
    unknown = sorted(str(key) for key in given if key not in names)
    if unknown:
        known = ", ".join(names) or "none"
        raise InvalidVariant(f"There is no option `{unknown[0]}`; the options are {known}.")
    return {option.name: option.check(given.get(option.name, option.default)) for option in options}


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


# ------------------------------------------------------------------------------------------------ game


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (:func:`gc.disable`) for the block, and restore it after.

    A search allocates hundreds of thousands of memo entries in a second, and each time the heap grows by a quarter
    the collector walks every object the process holds (the computer's caches included): in Gröbner Nim's arena
    that tripled hard's median CPU per move. Memory is freed by reference counting meanwhile; what the block (or
    another thread) leaves in reference cycles is collected after it ends. Nested blocks leave the collector paused
    until the outermost ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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
    renderer: ClassVar[str] = ""
    """The module that draws the board (``render(state, names) -> bytes``); default ``renderers.<key>``."""
    extension: ClassVar[str] = ""
    """The module with the game's own Discord pieces (buttons, extra commands); default ``bot.games.<key>``."""
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
            raise IllegalMove("The game is over; there is no move to choose.")
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
        """Why the match ended, as a phrase (``"both hands are dead"``, ``"out of time"``)."""
        return outcome.termination.phrase(self.natural_end)

    def renderer_module(self) -> str:
        """The dotted name of the module that draws this game's boards (:attr:`renderer` or ``renderers.<key>``)."""
        return self.renderer or f"renderers.{self.key}"

    def extension_module(self) -> str:
        """The dotted name of this game's Discord module (:attr:`extension` or ``bot.games.<key>``)."""
        return self.extension or f"bot.games.{self.key}"

    def start_note(self, state: StateT) -> str | None:
        """A sentence players should read about a start position before they play it (for example that perfect
        play wins it for one side), or ``None`` (the default)."""
        return None

    def move_help(self) -> str:
        """One line telling a player how to move (the first board shows it): the commands with examples."""
        return " · ".join(f"`/{self.command} {command.name}`" for command in self.moves)


TERMINATION_PHRASES: dict[Termination, str] = {
    Termination.NATURAL: "the game is over",
    Termination.REPETITION: "third repetition",
    Termination.MOVE_LIMIT: "move limit",
    Termination.RESIGNED: "resignation",
    Termination.OUT_OF_TIME: "out of time",
    Termination.DRAW_AGREED: "draw agreed",
    Termination.ABORTED: "aborted",
}
"""How each termination reads in a sentence (``NATURAL``: the game's own :attr:`Game.natural_end`)."""
