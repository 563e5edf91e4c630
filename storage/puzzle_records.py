"""The puzzles' records (:mod:`storage.queries.puzzles`): a stored puzzle, a member's puzzle rating, an attempt, and
a server's daily puzzle. Plain values; nothing here knows the games (a puzzle's record is its JSON text)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PuzzleRecord:
    """A stored puzzle (:mod:`storage.queries.puzzles`): its record as the games write it (``record``: one JSON
    object, ``games.puzzles.Puzzle.to_json``), that text's digest, and its Glicko-2 rating.

    Attributes:
        id: the puzzle's id (``"<game>-<10 hex digits>"``). game: its game's key.
        rating, deviation, volatility: its Glicko-2 rating (points), rating deviation (points) and volatility.
        plays: rated attempts so far.
        guild_id: the server whose finished match it came from (served there only), ``None`` for the shipped set.
        retired_at: when its proof was found no longer to hold (epoch seconds), ``None`` while it is served;
        retired_why: why, in a sentence.
    """

    id: str
    game: str
    record: str
    digest: str
    rating: float
    deviation: float
    volatility: float
    plays: int = 0
    retired_at: float | None = None
    retired_why: str | None = None
    guild_id: int | None = None


@dataclass
class PuzzlePlayerRecord:
    """A member's puzzle rating, one for the whole bot (Glicko-2: rating and deviation in points, volatility), with
    their rated attempts, those solved, the current streak of puzzles solved at the first try and the best one."""

    user_id: int
    rating: float
    deviation: float
    volatility: float
    rated: int = 0
    solved: int = 0
    streak: int = 0
    best_streak: int = 0
    updated_at: float = 0.0


@dataclass
class PuzzleAttemptRecord:
    """One member's try at one puzzle, alone (``daily_id`` 0) or as a server's daily puzzle.

    Attributes:
        progress: the solver moves of the line found so far (the position shown is the line's after them).
        tries: answers given (right and wrong). answer: the last answer typed.
        solved: ``True`` when the whole line was found with no wrong answer, ``False`` after a wrong answer or the
            answer shown, ``None`` while neither (the attempt is rated once, when it first becomes one of them).
        finished: the line was completed (found, or shown). shown: the answer was shown.
        rating_before, rating_after: the member's puzzle rating around the rated result (``None`` for an unrated
            attempt: a daily puzzle, or one still open).
        started_at, finished_at: epoch seconds.
    """

    id: int
    user_id: int
    puzzle_id: str
    daily_id: int
    guild_id: int | None
    display_name: str
    progress: int = 0
    tries: int = 0
    answer: str | None = None
    solved: bool | None = None
    finished: bool = False
    shown: bool = False
    rating_before: float | None = None
    rating_after: float | None = None
    started_at: float = 0.0
    finished_at: float | None = None


@dataclass
class DailyPuzzleRecord:
    """A server's puzzle of one day: posted at ``post_at`` in ``channel_id`` (``message_id`` and ``thread_id`` once
    posted), its answer and solvers revealed at ``reveal_at`` (epoch seconds; ``revealed`` once done); ``day`` is the
    UTC date of ``post_at`` (``"2026-12-06"``)."""

    id: int
    guild_id: int
    day: str
    puzzle_id: str
    channel_id: int
    post_at: float
    reveal_at: float
    message_id: int | None = None
    thread_id: int | None = None
    revealed: bool = False
