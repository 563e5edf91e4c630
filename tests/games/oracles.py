"""Reference implementations that the game tests check the production code against: plain, slow or built on
another library, and used by tests only (none of them ships in ``games/``)."""

from __future__ import annotations

from games.base import IllegalMove
from games.differences.computer import solve
from games.differences.rules import DifferencesState, Square


def differences_best_moves(state: DifferencesState) -> tuple[int, list[Square]]:
    """``(solve(state), every legal move that keeps that value)``, the moves by column then row: one exact solve per
    legal move.

    Raises:
        IllegalMove: the game is over.
    """
    if state.current_seat is None:
        raise IllegalMove(f"The game is over: all {state.n} marks are placed.")
    value = solve(state)
    return value, [move for move in state.legal_moves() if solve(state.apply(move)) == value]
