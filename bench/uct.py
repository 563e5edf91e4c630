"""The yardsticks of the arena: a random mover and a plain UCT player that knows nothing of any game.

:class:`UctPlayer` is Monte-Carlo tree search as Kocsis and Szepesvári define it (UCB1 applied to trees) over the
rules core's generic interface alone: ``legal_moves``, ``apply``, ``outcome``. Play-outs are uniformly random legal
moves to the end of the game, a play-out is worth 1 to the winner, ½ to each seat for a draw, and the most visited
move at the root is played. It spends a budget of CPU time per move (``time.process_time``), so that it can be given
exactly what the player it is measured against spends: a strong player of ours has to beat this with the same CPU,
by knowing its game. It lives in ``bench/`` because it is a measuring stick, never a level players meet.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from games import State

UCB_C = math.sqrt(2)
"""The exploration constant of UCB1 (rewards in [0, 1])."""


def random_player(state: State[Any], rng: random.Random) -> Any:
    """A uniformly random legal move (for Napkin Chess: of its sample of legal placements)."""
    return rng.choice(state.legal_moves())


class _Node:
    __slots__ = ("children", "move", "mover", "state", "total", "untried", "visits")

    def __init__(self, state: State[Any], move: Any, mover: int | None, rng: random.Random) -> None:
        self.state = state
        self.move = move
        self.mover = mover  # the seat that made ``move`` (None at the root)
        self.untried: list[Any] = [] if state.is_over else list(state.legal_moves())
        rng.shuffle(self.untried)
        self.children: list[_Node] = []
        self.visits = 0
        self.total = 0.0  # rewards of ``mover``


def _rewards(state: State[Any]) -> tuple[float, float]:
    """Seat 0's and seat 1's reward for a finished game: 1 / ½ / 0."""
    outcome = state.outcome
    assert outcome is not None
    if outcome.winner is None:
        return 0.5, 0.5
    return (1.0, 0.0) if outcome.winner == 0 else (0.0, 1.0)


class UctPlayer:
    """Plain UCT with uniformly random play-outs, ``budget_ms`` of CPU time per move.

    Args:
        budget_ms: CPU milliseconds per move, or a function returning them (the arena passes the mean CPU per move
            of the player this one is measured against, so far).
        c: the UCB1 exploration constant.

    Attributes:
        iterations: play-outs of the last move (for the arena's report).
    """

    def __init__(self, budget_ms: float | Callable[[], float], c: float = UCB_C) -> None:
        self.budget_ms = budget_ms
        self.c = c
        self.iterations = 0

    def budget(self) -> float:
        """This move's CPU budget in milliseconds."""
        return self.budget_ms() if callable(self.budget_ms) else self.budget_ms

    def __call__(self, state: State[Any], rng: random.Random) -> Any:
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        deadline = time.process_time() + self.budget() / 1000.0
        root = _Node(state, None, None, rng)
        self.iterations = 0
        while True:
            self._iterate(root, rng)
            self.iterations += 1
            if time.process_time() >= deadline:
                break
        return max(root.children, key=lambda child: child.visits).move

    def _iterate(self, root: _Node, rng: random.Random) -> None:
        node = root
        path = [root]
        while not node.untried and node.children:
            log_visits = math.log(node.visits)
            c = self.c
            node = max(node.children,
                       key=lambda child: child.total / child.visits + c * math.sqrt(log_visits / child.visits))
            path.append(node)
        if node.untried:
            move = node.untried.pop()
            mover = node.state.current_seat
            child = _Node(node.state.apply(move), move, mover, rng)
            node.children.append(child)
            path.append(child)
            node = child
        state = node.state
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_moves()))
        rewards = _rewards(state)
        for visited in path:
            visited.visits += 1
            if visited.mover is not None:
                visited.total += rewards[visited.mover]
