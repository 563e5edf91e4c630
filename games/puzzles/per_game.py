"""What makes a puzzle in each game: one :class:`PuzzleRules` per game that has puzzles (:data:`RULES`).

Each says, for its game (``seeds/puzzles.md`` gives the reasons):

* how a position met in a match becomes the puzzle's position (:meth:`PuzzleRules.position`: Chopsticks starts
  afresh from the hands, so that the match's history, its repetitions and its move count, play no part);
* the exact values of a position's moves (:meth:`PuzzleRules.values`: the game's own exact search,
  :meth:`games.declaration.Game.exact_move_values`);
* when two moves are *equivalent*: they lead to the same position up to the game's symmetry, once moves that are
  the only legal move are played (:meth:`PuzzleRules.equivalence`);
* the *glance*: what a player sees of a move without looking past it (:meth:`PuzzleRules.glance`); the answer is
  obvious when the best glance finds it for certain;
* its own themes (:meth:`PuzzleRules.themes`) and when two positions are the same puzzle (:meth:`PuzzleRules.identity`);
* what the generator plays and examines (:attr:`PuzzleRules.plan`, :meth:`PuzzleRules.in_range`).

Napkin Chess has none: its moves are points of a continuous napkin and its search values a sampled graph of
placements, never the napkin itself, so no position is proven to have exactly one best placement.

Pure Python: no I/O.
"""

from __future__ import annotations

import abc
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from games.chopsticks import GAME as CHOPSTICKS
from games.chopsticks.rules import ChopsticksState, SelfTap, Split, Tap
from games.declaration import Game
from games.differences import GAME as DIFFERENCES
from games.differences.rules import DifferencesState
from games.groebner_nim import GAME as GROEBNER_NIM
from games.groebner_nim import computer as groebner_computer
from games.groebner_nim.rules import GroebnerNimState
from games.polygons import GAME as POLYGONS
from games.polygons.rules import PolygonsState
from games.search import Level
from games.state import State
from games.values import GameValue

GROEBNER_PUZZLE_NODES = 5_000
"""Positions the exact search of Gröbner Nim may expand for all the moves of one solver step of a puzzle (a quarter
of a review's budget, :data:`games.groebner_nim.computer.REVIEW_NODES`): a puzzle is proven again every time it could
be served, so its proof must stay cheap."""
DIFFERENCES_MARKS_LEFT = 6
"""The generator's puzzles of the Grid Game of Differences have 2 to this many marks left (the exact search takes a
few milliseconds there, and positions with more marks left almost never have one best square)."""
POLYGONS_DOTS_LEFT = 7
"""The generator's puzzles of Polygons & Dots leave at most this many dots to connect before the move (and a first
segment only where at most 8 dots are placed), where the exact search takes a few tens of milliseconds."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What the generator plays for one game.

    Attributes:
        variants: the variants of the self-play matches, taken in turn (match ``k`` plays ``variants[k % len]``).
        levels: the computer levels a seat is drawn from (mixed, so that mistakes happen); only levels whose moves
            depend on the seed alone (no CPU-time cap), so that the generator is reproducible.
        quota: puzzles of this game in the shipped set (``napkin puzzles generate`` without ``--count``).
        max_matches: self-play matches at most (the generator stops there even short of its quota).
    """

    variants: tuple[Mapping[str, Any], ...]
    levels: tuple[Level, ...]
    quota: int
    max_matches: int = 20_000


class PuzzleRules(abc.ABC):
    """The puzzle knowledge of one game (see the module docstring)."""

    game: Game[Any, Any]
    plan: Plan

    def position(self, state: State[Any]) -> State[Any]:
        """The puzzle's position made from ``state``, a position met in a match (default: ``state`` itself)."""
        return state

    def values(self, state: State[Any]) -> dict[Any, GameValue] | None:
        """The exact value of every legal move of a running ``state`` for the seat to move, or ``None`` where the
        game's exact search does not settle them (default: :meth:`Game.exact_move_values`)."""
        return self.game.exact_move_values(state)

    @abc.abstractmethod
    def equivalence(self, state: State[Any]) -> Hashable:
        """A key of the position ``state`` up to the game's symmetry: two moves of a position are equivalent when
        the positions they lead to (each once its only legal moves are played) have the same key."""

    @abc.abstractmethod
    def glance(self, state: State[Any], move: Any) -> int:
        """What ``move`` is worth to the mover of ``state`` at a glance, without looking past it (higher is
        better)."""

    def themes(self, state: State[Any], move: Any, obvious_best: bool) -> list[str]:
        """The game's own themes of the answer ``move`` in ``state`` (``obvious_best``: the answer is among the
        moves of best glance). Default: none."""
        return []

    def identity(self, state: State[Any]) -> Any:
        """A JSON-safe key of the puzzle position ``state``: two positions with the same key are the same puzzle
        (default: the state's dict)."""
        return state.to_dict()

    def in_range(self, state: State[Any]) -> bool:
        """Whether the generator examines ``state`` (a running position): where the exact search is cheap and a
        puzzle can be (default: always)."""
        return True


def _live(hands: tuple[int, int]) -> int:
    return sum(1 for count in hands if count)


class ChopsticksPuzzles(PuzzleRules):
    """Chopsticks: the whole game is solved; positions start afresh from their hands."""

    game = CHOPSTICKS
    plan = Plan(
        variants=({}, {"rollover": True}, {"self_taps": False}, {"splits": "even"}, {"splits": "none"},
                  {"suicide": True}, {"rollover": True, "self_taps": False}, {"swaps": True}),
        levels=("easy", "medium", "hard"),
        quota=200,
    )

    def position(self, state: State[Any]) -> ChopsticksState:
        """The hands and the seat to move of ``state`` as a fresh start: the puzzle does not carry the match's
        repetitions or its move count (a Chopsticks position is its hands)."""
        assert isinstance(state, ChopsticksState)
        return ChopsticksState.start(state.variant, state.hands, state.seat_to_move)

    def equivalence(self, state: State[Any]) -> Hashable:
        """Each seat's hands as an unordered pair (left and right are mirror images), the seat to move and the
        result."""
        assert isinstance(state, ChopsticksState)
        result = state.result
        return (tuple(sorted(state.hands[0])), tuple(sorted(state.hands[1])), state.seat_to_move,
                None if result is None else (result.winner, result.draw))

    def glance(self, state: State[Any], move: Any) -> int:
        """2 for a move that wins at once (both of the opponent's hands dead), 1 for one that kills a hand of the
        opponent's, else 0."""
        assert isinstance(state, ChopsticksState)
        seat = state.seat_to_move
        after = state.apply(move)
        theirs = after.hands[1 - seat]
        if theirs == (0, 0):
            return 2
        return 1 if _live(theirs) < _live(state.hands[1 - seat]) else 0

    def themes(self, state: State[Any], move: Any, obvious_best: bool) -> list[str]:
        """``split``, ``self-tap``, ``kill`` (the answer kills a hand of the opponent's), ``sacrifice`` (it empties a
        hand of the mover's own) and ``quiet move`` (a hand could be killed, and the answer does not)."""
        assert isinstance(state, ChopsticksState)
        seat = state.seat_to_move
        after = state.apply(move)
        found = []
        if isinstance(move, Split):
            found.append("split")
        if isinstance(move, SelfTap):
            found.append("self-tap")
        if isinstance(move, Tap) and _live(after.hands[1 - seat]) < _live(state.hands[1 - seat]):
            found.append("kill")
        if _live(after.hands[seat]) < _live(state.hands[seat]):
            found.append("sacrifice")
        if not obvious_best:
            found.append("quiet move")
        return found

    def identity(self, state: State[Any]) -> Any:
        """The rule set and each side's hands as unordered pairs, the mover's first (the seat does not matter)."""
        assert isinstance(state, ChopsticksState)
        seat = state.seat_to_move
        return [state.variant.to_dict(), sorted(state.hands[seat]), sorted(state.hands[1 - seat])]


def _placement(state: DifferencesState) -> tuple[int, ...]:
    return tuple(-1 if row is None else row for row in state.rows_by_column)


def _symmetric(placement: tuple[int, ...], n: int) -> tuple[int, ...]:
    """The least of the placement's four images under the grid's symmetries that keep both players' scores: the
    columns reversed, the rows reversed, both."""
    flipped = tuple(-1 if row < 0 else n - 1 - row for row in placement)
    return min(placement, placement[::-1], flipped, flipped[::-1])


class DifferencesPuzzles(PuzzleRules):
    """The Grid Game of Differences: exact in the last marks."""

    game = DIFFERENCES
    plan = Plan(
        variants=({}, {"n": 6}, {"n": 7}, {"unique": True}, {"n": 10}, {"n": 7, "unique": True}),
        levels=("easy", "medium", "medium"),
        quota=350,
    )

    def equivalence(self, state: State[Any]) -> Hashable:
        """The marks up to the grid's symmetries that keep both scores: reversing the columns (left to right reads
        the same differences) and reversing the rows (bottom to top likewise); a transposition would swap the
        players' lists, so it is not one."""
        assert isinstance(state, DifferencesState)
        return _symmetric(_placement(state), state.n)

    def glance(self, state: State[Any], move: Any) -> int:
        """The mover's running score minus the opponent's after the mark (what the ``medium`` player maximises)."""
        assert isinstance(state, DifferencesState)
        seat = state.ply % 2
        scores = state.apply(move).scores
        return scores[seat] - scores[1 - seat]

    def themes(self, state: State[Any], move: Any, obvious_best: bool) -> list[str]:
        """``sacrifice`` (another square scores more at once) and ``last choice`` (two marks left: the answer decides
        the full grid)."""
        assert isinstance(state, DifferencesState)
        found = []
        if not obvious_best:
            found.append("sacrifice")
        if state.n - state.ply == 2:
            found.append("last choice")
        return found

    def identity(self, state: State[Any]) -> Any:
        """The variant and the marks up to the grid's symmetries (who placed which mark does not matter)."""
        assert isinstance(state, DifferencesState)
        return [state.variant, list(_symmetric(_placement(state), state.n))]

    def in_range(self, state: State[Any]) -> bool:
        """From :data:`DIFFERENCES_MARKS_LEFT` marks left down to 2 (with one left the mark is forced)."""
        assert isinstance(state, DifferencesState)
        return 2 <= state.n - state.ply <= DIFFERENCES_MARKS_LEFT


class PolygonsPuzzles(PuzzleRules):
    """Polygons & Dots: exact once the path is started and at most 8 dots are left to connect."""

    game = POLYGONS
    plan = Plan(
        variants=({}, {"dots": 4}, {"dots": 6}, {"dots": 3}, {"dots": 4, "komi": 1}),
        levels=("easy", "medium", "medium"),
        quota=350,
    )

    def equivalence(self, state: State[Any]) -> Hashable:
        """The path so far (the dots are the same for every move); a closed path by its segments, whichever way it
        was drawn."""
        assert isinstance(state, PolygonsState)
        if state.phase != "over":
            return state.path
        path = state.path
        return frozenset(frozenset((a, b)) for a, b in zip(path, (*path[1:], path[0]), strict=True))

    def glance(self, state: State[Any], move: Any) -> int:
        """The mover's faces minus the opponent's on the drawing after the segment (what the ``medium`` player
        maximises); 0 for every first segment (no face is closed yet)."""
        assert isinstance(state, PolygonsState)
        if not state.path:
            return 0
        seat = state.current_seat
        odd, even = state.apply(move).scores
        return odd - even if seat == 0 else even - odd

    def themes(self, state: State[Any], move: Any, obvious_best: bool) -> list[str]:
        """``first segment``, ``last segment`` (two dots left to connect: the last segment anyone chooses, the rest
        closes itself) and ``sacrifice`` (another segment leaves more faces at once)."""
        assert isinstance(state, PolygonsState)
        found = []
        if not state.path:
            found.append("first segment")
        elif len(state.points) - len(state.path) == 2:
            found.append("last segment")
        if not obvious_best and state.path:
            found.append("sacrifice")
        return found

    def identity(self, state: State[Any]) -> Any:
        """The variant, the dots and the path."""
        assert isinstance(state, PolygonsState)
        return [state.variant, [list(point) for point in state.points], list(state.path)]

    def in_range(self, state: State[Any]) -> bool:
        """Drawing: a started path with 2 to :data:`POLYGONS_DOTS_LEFT` dots left to connect, or the first segment
        with at most 8 dots in all."""
        assert isinstance(state, PolygonsState)
        if state.phase != "draw":
            return False
        if not state.path:
            return len(state.points) <= 8
        return 2 <= len(state.points) - len(state.path) <= POLYGONS_DOTS_LEFT


class GroebnerNimPuzzles(PuzzleRules):
    """Gröbner Nim: duels and solitaire, where the exact search settles every pair within its budget."""

    game = GROEBNER_NIM
    plan = Plan(
        variants=({}, {"order": "lex"}, {"mode": "solitaire", "sticks": 3}, {"order": "lex", "bonus_turn": True},
                  {"bonus_turn": True}, {"mode": "solitaire", "sticks": 3, "order": "lex"}),
        levels=("easy", "medium", "medium"),
        quota=300,
    )

    def values(self, state: State[Any]) -> dict[Any, GameValue] | None:
        """The game's exact values (:func:`games.groebner_nim.computer.move_values`) within
        :data:`GROEBNER_PUZZLE_NODES` positions."""
        assert isinstance(state, GroebnerNimState)
        return groebner_computer.move_values(state, nodes=GROEBNER_PUZZLE_NODES)

    def equivalence(self, state: State[Any]) -> Hashable:
        """The sticks, the pairs picked so far (by number) and the seat to move: two pairs that add the same stick,
        or that both add none, lead to the same sticks and leave as many pairs that add nothing."""
        assert isinstance(state, GroebnerNimState)
        return (tuple(state.sticks), state.ply, state.current_seat)

    def glance(self, state: State[Any], move: Any) -> int:
        """1 for a pair that adds a stick (a duel's three points; in solitaire a pair that adds nothing wastes a
        turn), else 0."""
        assert isinstance(state, GroebnerNimState)
        return 1 if len(state.apply(move).sticks) > len(state.sticks) else 0

    def themes(self, state: State[Any], move: Any, obvious_best: bool) -> list[str]:
        """``pass`` (the answer adds no stick) and ``last stick`` (the answer completes the Gröbner basis)."""
        assert isinstance(state, GroebnerNimState)
        after = state.apply(move)
        found = []
        if len(after.sticks) == len(state.sticks):
            found.append("pass")
        elif after.basis:
            found.append("last stick")
        return found

    def identity(self, state: State[Any]) -> Any:
        """The variant, the sticks, the picked pairs and the scores."""
        assert isinstance(state, GroebnerNimState)
        data = state.to_dict()
        return [data["variant"], data["sticks"], sorted(data["picked"]), data["scores"], data["current_seat"]]


RULES: dict[str, PuzzleRules] = {rules.game.key: rules for rules in (
    ChopsticksPuzzles(), DifferencesPuzzles(), PolygonsPuzzles(), GroebnerNimPuzzles())}
"""The puzzle rules by game key: the games that have puzzles (Napkin Chess has none)."""
