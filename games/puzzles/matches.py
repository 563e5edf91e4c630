"""Puzzles from a finished match: the moments a player missed the only move that kept their value.

:func:`from_match` replays the match, reviews it with :func:`games.review.review` (which marks every move by the
exact values before and after it, where the game's search settles them) and, at every move that gave value away,
asks :func:`games.puzzles.judge.find_puzzle` whether the position before it is a puzzle: exactly one class of moves
kept the value the player had, and it was not the obvious move. Each such position is a puzzle "from move N" of
the match (its :class:`~games.puzzles.record.Source` names the match and the ply).

Pure Python: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.puzzles.judge import MAX_SOLVER_MOVES, find_puzzle
from games.puzzles.per_game import RULES
from games.puzzles.record import Puzzle, Source
from games.review import REVIEW_SECONDS, Review, review
from games.state import State


def replay(game_key: str, moves: Sequence[str], *, variant: Mapping[str, Any] | None = None,
           initial_state: Mapping[str, Any] | None = None) -> list[State[Any]]:
    """The states of a match: its start (``initial_state``, a state dict, else the start of ``variant``), then the
    state after each move of ``moves`` (the game's notation).

    A random start (Gröbner Nim's, unless its variant has a ``start``) must be given as ``initial_state``.

    Raises:
        KeyError: no such game. games.InvalidState, games.InvalidVariant, games.InvalidMove, games.IllegalMove: the
            start or a move is not valid.
    """
    from games import GAMES

    game = GAMES[game_key]
    start = game.load(initial_state) if initial_state is not None else game.new_state(variant)
    states: list[State[Any]] = [start]
    for notation in moves:
        states.append(states[-1].play(notation))
    return states


def from_match(game_key: str, moves: Sequence[str], *, variant: Mapping[str, Any] | None = None,
               initial_state: Mapping[str, Any] | None = None, match_id: int | None = None,
               seconds: float = REVIEW_SECONDS, depth: int = MAX_SOLVER_MOVES,
               reviewed: Review | None = None) -> list[Puzzle]:
    """The puzzles of a finished (or running) match, in move order: every position where the player to move gave
    value away (the review's exact marks) and the position is a puzzle (:func:`~games.puzzles.judge.find_puzzle`).

    Args:
        game_key: the game.
        moves: the match's moves from its start, in the game's notation.
        variant, initial_state: the start (see :func:`replay`).
        match_id: the match's number, kept in each puzzle's source.
        seconds: the review's budget of work seconds (:func:`games.review.review`); moves beyond it are not looked at.
        depth: solver moves a line holds at most.
        reviewed: the match's review when it was made already (the same moves); else it is made here.

    Raises:
        ValueError: ``reviewed`` is not a review of these moves. Otherwise as :func:`replay`.
    """
    if game_key not in RULES:
        return []
    from games import GAMES

    game = GAMES[game_key]
    states = replay(game_key, moves, variant=variant, initial_state=initial_state)
    marks = reviewed if reviewed is not None else review(game, states, seconds=seconds, seed=f"puzzles:{match_id}")
    if len(marks.moves) != len(moves):
        raise ValueError(f"the review has {len(marks.moves)} moves, the match {len(moves)}")
    found: list[Puzzle] = []
    seen: set[str] = set()
    for mark in marks.moves:
        if not mark.exact or mark.before is None or mark.after is None or mark.after.rank >= mark.before.rank:
            continue
        puzzle = find_puzzle(game_key, states[mark.ply - 1], Source("match", mark.ply - 1, match=match_id),
                             depth=depth)
        if puzzle is not None and puzzle.id not in seen:
            seen.add(puzzle.id)
            found.append(puzzle)
    return found
