"""Puzzles: positions from real play where exactly one move (or one class of equivalent moves) keeps the best value,
proven by the game's exact search.

* :mod:`games.puzzles.record`: the record (:class:`Puzzle`, its proof :class:`Step` per solver move, its
  :class:`Source`), with ``to_dict``/``from_dict`` and one JSON line each;
* :mod:`games.puzzles.per_game`: what makes a puzzle in each game (:data:`RULES`; Napkin Chess has none);
* :mod:`games.puzzles.judge`: whether a position is a puzzle (:func:`find_puzzle`), its line, themes and starting
  rating, and :func:`verify`, which proves a stored puzzle again;
* :mod:`games.puzzles.matches`: the puzzles a finished match holds (:func:`from_match`);
* :mod:`games.puzzles.generate`: ``napkin puzzles generate``, puzzles from the computer's self-play, reproducible
  from a seed; its output for the seed of ``seeds/puzzles.md`` is the shipped set (:func:`shipped`).

The decisions behind them are written down in ``seeds/puzzles.md``. Pure Python, importing nothing of ours outside
``games``; only :mod:`games.puzzles.generate` reads and writes files.
"""

from __future__ import annotations

from importlib import resources

from games.puzzles.judge import MAX_SOLVER_MOVES, analyse, defence, find_puzzle, forced, verify
from games.puzzles.matches import from_match
from games.puzzles.per_game import RULES, PuzzleRules
from games.puzzles.record import InvalidPuzzle, Puzzle, Source, Step, read_lines

SHIPPED = "puzzles.jsonl"
"""The shipped set's file name, beside this module (package data)."""


def shipped_text() -> str:
    """The shipped set as stored: one puzzle a line, sorted by game then id."""
    return resources.files(__name__).joinpath(SHIPPED).read_text(encoding="utf-8")


def shipped() -> list[Puzzle]:
    """The shipped set of puzzles (:func:`shipped_text`, read).

    Raises:
        InvalidPuzzle: a line is not a puzzle.
    """
    return read_lines(shipped_text().splitlines())


__all__ = [
    "MAX_SOLVER_MOVES",
    "RULES",
    "SHIPPED",
    "InvalidPuzzle",
    "Puzzle",
    "PuzzleRules",
    "Source",
    "Step",
    "analyse",
    "defence",
    "find_puzzle",
    "forced",
    "from_match",
    "read_lines",
    "shipped",
    "shipped_text",
    "verify",
]
