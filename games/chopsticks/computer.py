"""The computer of Chopsticks: every position of a rule set solved by retrograde analysis, and the players on it.

Rules follow ``seeds/chopsticks.md``; this module only reads positions built with :mod:`games.chopsticks.rules`
(which never imports it). :func:`solve` gives every position's game-graph value (cycles as draws) and distance;
:func:`choose_move` plays per level from it and :func:`exact_value` is a position's value for reviews.
"""

from __future__ import annotations

import functools
import random
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from games.chopsticks.rules import FINGERS, MAX_PLIES, ChopsticksState, Hands, Move, Variant, successors
from games.search import Level
from games.values import GameValue

MEDIUM_PERFECT = 0.7
"""Probability that the ``medium`` computer plays the perfect move rather than a random legal one."""


# ----------------------------------------------------------------------------------------------- solver

Value = Literal["win", "loss", "draw"]
_WIN, _LOSS, _DRAW = 1, -1, 0
_VALUE_NAMES: dict[int, Value] = {_WIN: "win", _LOSS: "loss", _DRAW: "draw"}
_HANDS: tuple[Hands, ...] = tuple((left, right) for left in range(FINGERS) for right in range(FINGERS))


class Evaluation(NamedTuple):
    """The game-graph value of a position for the seat to move, and the plies to the end under perfect play
    (winner: fastest win; loser: slowest loss); ``distance`` is ``None`` for a draw."""

    value: Value
    distance: int | None


def _index(mine: Hands, theirs: Hands) -> int:
    return ((mine[0] * FINGERS + mine[1]) * FINGERS + theirs[0]) * FINGERS + theirs[1]


@dataclass(frozen=True, slots=True)
class Solution:
    """Every position of one rule set solved by retrograde analysis.

    Positions are seen from the seat to move: ``mine`` (the mover's ``(left, right)``) against ``theirs``.
    Positions on cycles that neither side can force its way out of are draws; the repetition and 200-ply
    rules are not part of the value. Positions where the opponent already has two dead hands are not
    positions of the game and are not solved.
    """

    variant: Variant
    values: tuple[int | None, ...]
    distances: tuple[int, ...]

    def lookup(self, mine: Hands, theirs: Hands) -> Evaluation:
        """Return the value for the mover holding ``mine`` against ``theirs``.

        Raises:
            KeyError: a count is outside 0-4, or ``theirs`` is ``(0, 0)`` (the game already ended).
        """
        if not all(0 <= count < FINGERS for count in (*mine, *theirs)):
            raise KeyError(f"hands {mine}, {theirs} are outside 0-{FINGERS - 1}")
        index = _index((mine[0], mine[1]), (theirs[0], theirs[1]))
        code = self.values[index]
        if code is None:
            raise KeyError(f"{theirs} has two dead hands: the game is already over")
        return Evaluation(_VALUE_NAMES[code], None if code == _DRAW else self.distances[index])

    def evaluate(self, hands: Sequence[Hands], seat: int) -> Evaluation:
        """Return the value for ``seat`` to move in ``hands`` (per seat ``(left, right)``)."""
        mine, theirs = hands[seat], hands[1 - seat]
        return self.lookup((mine[0], mine[1]), (theirs[0], theirs[1]))

    def items(self) -> Iterator[tuple[Hands, Hands, Evaluation]]:
        """Yield ``(mine, theirs, evaluation)`` for every solved position (mover's view)."""
        for mine in _HANDS:
            for theirs in _HANDS:
                if theirs != (0, 0):
                    yield mine, theirs, self.lookup(mine, theirs)


def solve_uncached(variant: Variant) -> Solution:
    """Solve ``variant`` afresh, without the cache (benchmarks; everything else calls :func:`solve`).

    Retrograde analysis over the 600 mover-relative positions: positions where the mover has two dead hands
    are lost in 0 plies; working backwards in order of distance, a position with a lost child is won (fastest
    win), a position whose children are all won is lost (slowest loss); whatever is left is drawn.
    """
    size = FINGERS**4
    values: list[int | None] = [None] * size
    distances = [0] * size
    remaining = [0] * size
    parents: list[list[int]] = [[] for _ in range(size)]
    queue: deque[int] = deque()
    unknown = _DRAW + 2  # placeholder code for "not yet known"
    for mine in _HANDS:
        for theirs in _HANDS:
            if theirs == (0, 0):
                continue
            index = _index(mine, theirs)
            if mine == (0, 0):
                values[index] = _LOSS
                queue.append(index)
                continue
            values[index] = unknown
            children = {_index(new_theirs, new_mine) for _, new_mine, new_theirs in successors(mine, theirs, variant)}
            remaining[index] = len(children)
            for child in children:
                parents[child].append(index)
    while queue:
        child = queue.popleft()
        distance = distances[child] + 1
        if values[child] == _LOSS:
            for parent in parents[child]:
                if values[parent] == unknown:
                    values[parent] = _WIN
                    distances[parent] = distance
                    queue.append(parent)
        else:
            for parent in parents[child]:
                if values[parent] == unknown:
                    remaining[parent] -= 1
                    if not remaining[parent]:
                        values[parent] = _LOSS
                        distances[parent] = distance
                        queue.append(parent)
    final = tuple(_DRAW if value == unknown else value for value in values)
    return Solution(variant, final, tuple(distances))


@functools.lru_cache(maxsize=64)
def _solve_cached(variant: Variant) -> Solution:
    return solve_uncached(variant)


def solve(variant: Variant | Mapping[str, Any] | None = None) -> Solution:
    """Solve every position of the rule set ``variant`` by retrograde analysis (cached per rule set).

    Raises:
        InvalidVariant: see :meth:`Variant.from_mapping`.
    """
    return _solve_cached(Variant.from_mapping(variant))


# --------------------------------------------------------------------------------------------- computer


def ranked_moves(state: ChopsticksState) -> list[tuple[Move, tuple[int, int]]]:
    """Return each legal move with a rank for the mover, best first (higher is better).

    The rank is ``(category, tie-break)``: 3 = a win (immediate or by the solver; the fewer plies the
    better), 2 = a drawn position that keeps the game going, 1 = a move that ends the game drawn by
    repetition or the ply limit, 0 = a loss (the more plies the better).
    """
    solution = solve(state.variant)
    ranked = []
    for move in state.legal_moves():
        child = state.apply(move)
        outcome = child.outcome
        if outcome is not None and outcome.winner is not None:
            rank = (3, -1)
        elif outcome is not None:
            rank = (1, 0)
        else:
            value, distance = solution.evaluate(child.hands, child.seat_to_move)
            if value == "loss":
                rank = (3, -(distance or 0) - 1)
            elif value == "draw":
                rank = (2, 0)
            else:
                rank = (0, (distance or 0) + 1)
        ranked.append((move, rank))
    ranked.sort(key=lambda item: item[1], reverse=True)
    return ranked


def best_moves(state: ChopsticksState) -> list[Move]:
    """Return every move of the best rank in :func:`ranked_moves` (empty once the game is over)."""
    ranked = ranked_moves(state)
    return [move for move, rank in ranked if rank == ranked[0][1]]


def choose_move(state: ChopsticksState, level: Level, rng: random.Random) -> Move:
    """The computer's move for the seat to move of a running ``state`` at ``level`` (deterministic for ``rng``):
    ``easy`` uniformly at random, ``hard`` and ``perfect`` perfectly (a random one of :func:`best_moves`), ``medium``
    the hard move with probability :data:`MEDIUM_PERFECT`, else a random legal move."""
    legal = state.legal_moves()
    if level == "easy":
        return rng.choice(legal)
    if level == "medium" and rng.random() >= MEDIUM_PERFECT:
        return rng.choice(legal)
    return rng.choice(best_moves(state))


def exact_value(state: ChopsticksState, seat: int) -> GameValue:
    """The value of ``state`` for ``seat`` (kind ``"outcome"``): a finished game's result, else the retrograde
    solution of the variant (:func:`solve`, the game graph's value with cycles as draws), with ``distance`` the
    plies to the end under perfect play.

    The 200-ply rule is applied: a win or loss whose perfect play would end after ply 200 is a draw. Earlier
    repetitions are not (the solver's value, as the ``hard`` player uses it): the winning side's fastest line
    never repeats a position of its own, so only a line through a position already seen twice before could
    differ.
    """
    outcome = state.result
    if outcome is not None:
        amount = 0 if outcome.winner is None else 1 if outcome.winner == seat else -1
        return GameValue("outcome", amount, 0)
    evaluation = solve(state.variant).evaluate(state.hands, state.seat_to_move)
    distance = evaluation.distance
    if distance is None or state.ply + distance > MAX_PLIES:
        return GameValue("outcome", 0, None)
    amount = 1 if evaluation.value == "win" else -1
    return GameValue("outcome", amount if seat == state.seat_to_move else -amount, distance)
