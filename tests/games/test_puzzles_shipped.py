"""The shipped puzzles (games/puzzles/puzzles.jsonl): at least 1,000 across four games, every one proven again by
today's rules and searches, and the file generated again from its seed byte for byte (seeds/puzzles.md).

The two whole-set checks are marked ``slow`` (a minute or more of CPU); ``make test`` runs them."""

from __future__ import annotations

import collections
import functools
import time

import pytest

from games import GAMES
from games.puzzles import RULES, Puzzle, shipped, shipped_text, verify
from games.puzzles.generate import generate, text

SEED = "1"
"""The seed the shipped set was generated from (seeds/puzzles.md)."""
PREFIX = 25
"""Puzzles per game that the quick check generates again."""


@functools.cache
def _shipped() -> tuple[Puzzle, ...]:
    return tuple(shipped())


def test_the_shipped_set_holds_at_least_1000_puzzles_across_four_games_sorted_once_each() -> None:
    puzzles = _shipped()
    counts = collections.Counter(puzzle.game for puzzle in puzzles)
    assert len(puzzles) >= 1000 and len(counts) >= 4
    assert counts == {key: rules.plan.quota for key, rules in RULES.items()}
    assert "napkin_chess" not in counts
    ids = [puzzle.id for puzzle in puzzles]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert shipped_text() == text(puzzles)  # the file is exactly its puzzles, one canonical line each
    for puzzle in puzzles:
        assert puzzle.source.kind == "self-play" and puzzle.source.seed == SEED
        assert GAMES[puzzle.game].load(puzzle.position).to_dict() == puzzle.position


def _first(puzzles: tuple[Puzzle, ...], per_game: int) -> list[Puzzle]:
    """The first ``per_game`` puzzles of each game in the order the generator found them (match, then ply)."""
    found: list[Puzzle] = []
    for key in RULES:
        mine = sorted((p for p in puzzles if p.game == key), key=lambda p: (p.source.match, p.source.ply))
        found.extend(mine[:per_game])
    return sorted(found, key=lambda puzzle: puzzle.id)


@pytest.mark.slow  # equivalence: the generator run again against the shipped file
def test_the_first_puzzles_of_each_game_are_generated_again_byte_for_byte() -> None:
    again = generate(SEED, count=PREFIX, seconds=None)
    assert len(again) == PREFIX * len(RULES)
    assert text(again) == text(_first(_shipped(), PREFIX))


@pytest.mark.slow
def test_every_shipped_puzzle_is_proven_again() -> None:
    """Every root move's exact value equals the stored proof at every solver step, exactly one class keeps the best
    value, the answer is not obvious, each defence is the chosen one, and the themes and rating follow."""
    started = time.process_time()
    failures = {puzzle.id: reason for puzzle in _shipped() if (reason := verify(puzzle)) is not None}
    assert failures == {}
    assert time.process_time() > started  # the proofs ran


@pytest.mark.slow
def test_the_whole_shipped_set_is_generated_again_byte_for_byte() -> None:
    assert text(generate(SEED, seconds=None)) == shipped_text()
