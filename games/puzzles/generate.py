"""``napkin puzzles generate``: puzzles from the computer's self-play, reproducible byte for byte from a seed.

For each game with puzzles (:data:`games.puzzles.per_game.RULES`, in registry order, or those asked for), self-play
matches ``0, 1, 2, ...`` are played: match ``k`` plays the variant ``plan.variants[k % len]`` with a level drawn for
each seat from ``plan.levels`` (mixed, so that mistakes happen), every random choice from
``random.Random(f"{seed}:{game}:{k}")``. Every position of the match that the game's rules put in range
(:meth:`~games.puzzles.per_game.PuzzleRules.in_range`) and that is not the same puzzle as one examined before is
examined by :func:`games.puzzles.judge.find_puzzle`; the first ``count`` puzzles found (the game's quota by default)
are kept, then the next game. The result is sorted by id (the game's key, then a digest), one JSON line each
(:meth:`~games.puzzles.record.Puzzle.to_json`).

Reproducible: the levels used have no CPU-time cap, every exact search is bounded by work (marks or dots left, a node
budget), never by the clock, and the puzzles of a game are found in match order, so a smaller ``count`` gives the
first puzzles of a larger one. A position whose examination takes longer than ``seconds`` (the bound on time per
position) stops the run with an error rather than being skipped, since skipping would make the file depend on the
machine.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from games.puzzles.judge import MAX_SOLVER_MOVES, find_puzzle, puzzle_id
from games.puzzles.per_game import RULES
from games.puzzles.record import InvalidPuzzle, Puzzle, Source, read_lines
from games.search import Level
from games.state import State

SECONDS_PER_POSITION = 120.0
"""Default bound on the time one position's examination may take (seconds of wall-clock time)."""
PROGRESS_EVERY = 25
"""Puzzles found between two progress lines."""


class GenerationError(Exception):
    """The generator cannot go on (a position took too long, or the output file is not a puzzles file)."""


class _TooLong(Exception):
    pass


@contextlib.contextmanager
def _bounded(seconds: float | None) -> Iterator[None]:
    """Raise :class:`_TooLong` inside the block once ``seconds`` have passed (a real-time timer; only in the main
    thread, where signals are delivered; elsewhere, or with ``None``, unbounded)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _TooLong

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _matches(count: int) -> str:
    return f"{count} match{'es' if count != 1 else ''}"


def _games(keys: Sequence[str] | None) -> list[str]:
    from games import GAMES

    order = [key for key in GAMES if key in RULES]
    if not keys:
        return order
    unknown = [key for key in keys if key not in GAMES]
    if unknown:
        raise GenerationError(f"unknown game {unknown[0]!r}; the games are {', '.join(GAMES)}")
    without = [key for key in keys if key not in RULES]
    if without:
        raise GenerationError(f"{without[0]} has no puzzles (see seeds/puzzles.md); the games with puzzles are "
                              f"{', '.join(order)}")
    return [key for key in order if key in keys]


def self_play(key: str, seed: str, match: int) -> Iterator[tuple[State[Any], tuple[Level, ...]]]:
    """The running positions of self-play match ``match`` of ``key`` under ``seed``, from its start, each with the
    level of every seat: the variant ``plan.variants[match % len]``, the levels drawn from ``plan.levels``, every
    random choice from ``random.Random(f"{seed}:{key}:{match}")``. The next move is chosen only when the next position
    is asked for."""
    from games import GAMES

    game, plan = GAMES[key], RULES[key].plan
    rng = random.Random(f"{seed}:{key}:{match}")
    state: State[Any] = game.new_state(plan.variants[match % len(plan.variants)], rng)
    levels = tuple(rng.choice(plan.levels) for _ in range(state.seats))
    while not state.is_over:
        yield state, levels
        seat = state.current_seat
        assert seat is not None  # a running position
        state = state.apply(game.computer_move(state, levels[seat], rng))


def generate_game(key: str, seed: str, count: int | None = None, *, seconds: float | None = SECONDS_PER_POSITION,
                  progress: Callable[[str], None] | None = None, depth: int = MAX_SOLVER_MOVES) -> list[Puzzle]:
    """The first ``count`` puzzles (the game's quota by default) of ``key``'s self-play under ``seed``, in the order
    they were found (match, then ply).

    Raises:
        GenerationError: a position took longer than ``seconds`` to examine.
    """
    rules = RULES[key]
    wanted = rules.plan.quota if count is None else count
    found: list[Puzzle] = []
    examined: set[str] = set()
    started = time.monotonic()
    match = 0
    while len(found) < wanted and match < rules.plan.max_matches:
        for state, levels in self_play(key, seed, match):
            if len(found) >= wanted:
                break
            if rules.in_range(state):
                ident = puzzle_id(rules, rules.position(state))
                if ident not in examined:
                    examined.add(ident)
                    try:
                        with _bounded(seconds):
                            puzzle = find_puzzle(key, state, Source("self-play", state.ply, seed, match, levels),
                                                 depth=depth)
                    except _TooLong:
                        raise GenerationError(
                            f"{key}: examining match {match} move {state.ply + 1} took more than {seconds:g} s; "
                            "a larger bound (--seconds) reproduces the same file") from None
                    if puzzle is not None:
                        found.append(puzzle)
                        if progress is not None and (len(found) % PROGRESS_EVERY == 0 or len(found) == wanted):
                            progress(f"{key}: {len(found)}/{wanted} puzzles from {_matches(match + 1)} "
                                     f"({time.monotonic() - started:.1f} s)")
        match += 1
    if progress is not None and len(found) < wanted:
        progress(f"{key}: only {len(found)}/{wanted} puzzles in {_matches(match)} (the plan's limit)")
    return found


def order(puzzles: Sequence[Puzzle]) -> list[Puzzle]:
    """``puzzles`` sorted as the file is: by id (which starts with the game's key)."""
    return sorted(puzzles, key=lambda puzzle: puzzle.id)


def generate(seed: str, games: Sequence[str] | None = None, count: int | None = None, *,
             seconds: float | None = SECONDS_PER_POSITION, progress: Callable[[str], None] | None = None,
             depth: int = MAX_SOLVER_MOVES) -> list[Puzzle]:
    """The puzzles of every game asked for (every game with puzzles by default), ``count`` per game (each game's quota
    by default), sorted as the file is (:func:`order`).

    Raises:
        GenerationError: an unknown game or one without puzzles, or a position took longer than ``seconds``.
    """
    found: list[Puzzle] = []
    for key in _games(games):
        found.extend(generate_game(key, seed, count, seconds=seconds, progress=progress, depth=depth))
    return order(found)


def text(puzzles: Sequence[Puzzle]) -> str:
    """The file: one JSON line per puzzle, each ending with a newline."""
    return "".join(f"{puzzle.to_json()}\n" for puzzle in puzzles)


def check_target(path: Path) -> None:
    """Refuse to write ``path`` unless it is new or a puzzles file (empty, or every line a puzzle).

    Raises:
        GenerationError: ``path`` is a folder, or exists and is not a puzzles file.
    """
    if path.is_dir():
        raise GenerationError(f"{path} is a folder; give a file name")
    if path.exists():
        try:
            read_lines(path.read_text(encoding="utf-8").splitlines())
        except (InvalidPuzzle, UnicodeDecodeError) as error:
            reason = str(error).rstrip(".")
            raise GenerationError(f"{path} exists and is not a puzzles file ({reason}); it is left as it is") from None


def write(path: Path, puzzles: Sequence[Puzzle]) -> None:
    """Write ``puzzles`` to ``path`` (through a temporary file beside it, then renamed). An existing file is replaced
    only when it is a puzzles file (empty, or every line a puzzle): nothing else is ever overwritten.

    Raises:
        GenerationError: ``path`` exists and is not a puzzles file, or is a folder.
    """
    check_target(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text(puzzles), encoding="utf-8")
    temporary.replace(path)


def main(seed: str, out: str, games: Sequence[str] | None = None, count: int | None = None,
         seconds: float | None = SECONDS_PER_POSITION) -> int:
    """``napkin puzzles generate``: generate, write ``out``, report on standard error; return the exit code (0, or 1
    with one line on standard error)."""

    def say(line: str) -> None:
        print(f"napkin puzzles: {line}", file=sys.stderr, flush=True)

    if count is not None and count < 1:
        say(f"--count must be at least 1, not {count}")
        return 1
    started = time.monotonic()
    try:
        check_target(Path(out))
        puzzles = generate(seed, games, count, seconds=seconds, progress=say)
        write(Path(out), puzzles)
    except GenerationError as error:
        say(str(error))
        return 1
    counts: dict[str, int] = {}
    for puzzle in puzzles:
        counts[puzzle.game] = counts.get(puzzle.game, 0) + 1
    per_game = ", ".join(f"{key} {number}" for key, number in counts.items())
    say(f"wrote {len(puzzles)} puzzles ({per_game}) to {out} in {time.monotonic() - started:.1f} s")
    return 0
