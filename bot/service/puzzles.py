"""Puzzles for members (``/puzzle``), over the proven puzzles of :mod:`games.puzzles`.

No ``discord`` import. The decisions (``seeds/puzzles.md``, "Puzzles for players", says why):

* **Stored once, proven before served.** :meth:`PuzzleService.load` stores the shipped set (idempotent: a puzzle is
  written again only when its record changed). Before a puzzle is first served by this process it is proven again
  with today's rules (:func:`games.puzzles.verify`); one whose proof no longer holds is retired, with why, and never
  served (another is chosen).
* **The next puzzle** is the one nearest the member's puzzle rating (of a game, or of any game) among those they
  never attempted, picked at random among the :data:`NEAREST` nearest. A member has one open puzzle at a time:
  asking again shows it again (showing the answer is how to leave it; it counts as not solved).
* **Judging.** An answer is read with the game's own notation (``State.parse_move``) in the position of the line so
  far; a malformed or illegal move is refused with what was typed, and nothing changes. A move of the step's
  ``accepted`` class is right: the bot plays the line's defence and asks for the next move, until the line ends
  (solved). Any other move is wrong: the member is told what it is worth against the best, and may try again.
* **Ratings** (Glicko-2, the ``glicko2`` library, as lichess rates puzzles): a member's first result on a puzzle of
  their own is rated once, in the transaction that judges it — a win for the member when the whole line was found
  with no wrong answer, a loss at the first wrong answer or when the answer is shown — and the puzzle's rating moves
  the other way. A daily puzzle is not rated (it is a server's event; its table counts solvers and tries).

The daily puzzle of a server is :mod:`bot.service.daily_puzzles`'s, over this service.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import glicko2  # type: ignore[import-untyped]

from bot.service.base import write
from bot.service.errors import BadOption, MatchOver, NotAllowed, NotFound
from bot.texts import quote
from games import GAMES, RulesError, State
from games.puzzles import Puzzle, forced, shipped, verify
from games.values import GameValue
from i18n import Text, Textual, _
from storage import (
    DailyPuzzleRecord,
    Database,
    PuzzleAttemptRecord,
    PuzzlePlayerRecord,
    PuzzleRecord,
    ReadTx,
    Shards,
    Tx,
)

log = logging.getLogger(__name__)

START_RATING, START_DEVIATION, START_VOLATILITY = 1500.0, 350.0, 0.06
"""A member's first puzzle rating (Glicko-2 points, deviation in points, volatility): the library's defaults."""
PUZZLE_DEVIATION = 350.0
"""A new puzzle's rating deviation (points): its starting rating is a rule's estimate (``seeds/puzzles.md``)."""
NEAREST = 5
"""The next puzzle is picked at random among this many nearest in rating."""
DAY = 86400.0
"""Seconds in a day."""

Verdict = Literal["right", "solved", "wrong", "shown"]


@dataclass(frozen=True)
class Served:
    """A puzzle put before a member.

    Attributes:
        attempt: their attempt. puzzle: the puzzle. state: the position to move in (the line's after the solver
        moves found so far). again: it was open already (asked again). rating: the member's puzzle rating (``None``
        before their first rated result). daily: the daily puzzle this is, if it is one.
    """

    attempt: PuzzleAttemptRecord
    puzzle: Puzzle
    state: State[Any]
    again: bool = False
    rating: PuzzlePlayerRecord | None = None
    daily: DailyPuzzleRecord | None = None

    @property
    def solver_seat(self) -> int:
        """The seat the member plays."""
        return solver_seat(self.puzzle)


@dataclass(frozen=True)
class Judged:
    """What an answer (or "show the answer") did.

    Attributes:
        verdict: ``"right"`` (the line goes on: the bot played ``defence``), ``"solved"`` (the line is complete),
            ``"wrong"`` (not the best move: ``worth`` against ``best``), ``"shown"`` (the answer was shown).
        attempt: the attempt after it. puzzle: the puzzle. move: the answer in the game's notation (``None`` when
            shown). defence: the bot's reply, when the line goes on. state: the position now (after the defence;
            after the whole line and what follows by force (:func:`forced`) when solved or shown).
        worth, best: for a wrong answer, the exact value of the move played and of the best move, for the member.
        rating_before, rating_after: the member's puzzle rating around this result when it was the rated one.
        player: the member's puzzle rating after it (``None`` when they have none).
        players: when the puzzle came from a match whose every seat's member allows it (``/notify puzzle_names``,
            :func:`named_players`), their names by seat, for its source ("from alice vs bob, move 14"); else empty.
    """

    verdict: Verdict
    attempt: PuzzleAttemptRecord
    puzzle: Puzzle
    move: str | None
    defence: str | None
    state: State[Any]
    worth: GameValue | None = None
    best: GameValue | None = None
    rating_before: float | None = None
    rating_after: float | None = None
    player: PuzzlePlayerRecord | None = None
    players: tuple[str, ...] = ()


def named_players(tx: ReadTx, puzzle: Puzzle) -> tuple[str, ...]:
    """The names, by seat, under which ``puzzle``'s source may name its match's players: only a match's puzzle, only
    when every seat is a member (never the computer) who allows it (``MemberPrefs.puzzle_names``, off by default),
    read as the preferences stand now; else ``()`` (the source then says "match #N, move K")."""
    if puzzle.source.kind != "match" or puzzle.source.match is None:
        return ()
    match = tx.get_match(puzzle.source.match)
    if match is None or not match.seats:
        return ()
    if any(seat.level is not None or not tx.member_prefs(seat.user_id).puzzle_names for seat in match.seats):
        return ()
    return tuple(seat.display_name for seat in match.seats)


@dataclass(frozen=True)
class PuzzleStats:
    """A member's puzzles: their rating (``None`` before the first rated result) and, per game, ``(rated attempts,
    solved at the first try)``."""

    player: PuzzlePlayerRecord | None
    by_game: dict[str, tuple[int, int]]


def _why(error: RulesError) -> Textual:
    """The rules core's reason: its :class:`i18n.Text` when it carries one (in the reader's language), else its
    words."""
    first = error.args[0] if error.args else None
    return first if isinstance(first, Text) else str(error)


def puzzle_state(puzzle: Puzzle) -> State[Any]:
    """The puzzle's first position, loaded by its game."""
    state: State[Any] = GAMES[puzzle.game].load(puzzle.position)
    return state


def solver_seat(puzzle: Puzzle) -> int:
    """The seat the member plays: the one to move in the puzzle's first position."""
    seat = puzzle_state(puzzle).current_seat
    assert seat is not None, "a puzzle's position is running"
    return seat


def line_state(puzzle: Puzzle, plies: int) -> State[Any]:
    """The position after the first ``plies`` moves of the puzzle's line."""
    state = puzzle_state(puzzle)
    for notation in puzzle.line[:plies]:
        state = state.apply(state.parse_move(notation))
    return state


def record_of(puzzle: Puzzle, *, guild_id: int | None = None) -> PuzzleRecord:
    """The stored form of ``puzzle``: its JSON line and that line's digest (SHA-256), rated from its starting rating;
    ``guild_id``: the server whose match it came from (``None``: the shipped set)."""
    text = puzzle.to_json()
    return PuzzleRecord(puzzle.id, puzzle.game, text, hashlib.sha256(text.encode()).hexdigest(),
                        float(puzzle.rating), PUZZLE_DEVIATION, START_VOLATILITY, guild_id=guild_id)


def rate(player: PuzzlePlayerRecord, puzzle: PuzzleRecord, solved: bool) -> tuple[tuple[float, float, float],
                                                                                   tuple[float, float, float]]:
    """One rated result between a member and a puzzle by Glicko-2 (the ``glicko2`` library): the member scores 1 when
    ``solved``, else 0, and the puzzle the other. Returns ``((rating, deviation, volatility) of the member, (...) of
    the puzzle)`` after it (points)."""
    member = glicko2.Player(player.rating, player.deviation, player.volatility)
    problem = glicko2.Player(puzzle.rating, puzzle.deviation, puzzle.volatility)
    member.update_player([puzzle.rating], [puzzle.deviation], [1 if solved else 0])
    problem.update_player([player.rating], [player.deviation], [0 if solved else 1])
    return ((float(member.getRating()), float(member.getRd()), float(member.vol)),
            (float(problem.getRating()), float(problem.getRd()), float(problem.vol)))


class PuzzleService:
    """Puzzles over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        shards: the Discord shards this process serves (the daily puzzles of their servers only), or ``None``.
        rng: picks among the nearest puzzles (a seeded one in tests).
        source: the puzzles to store before the first is served (:meth:`load`, once per process; default the
            shipped set, :func:`games.puzzles.shipped`).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None,
                 rng: random.Random | None = None, source: Callable[[], Sequence[Puzzle]] = shipped) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards
        self.rng = rng or random.Random()
        self.source = source
        self._loaded = False
        self._loading = asyncio.Lock()
        self._proven: set[str] = set()
        """Puzzles (by id and digest) proven again by this process."""

    async def ensure_loaded(self) -> None:
        """Store the :attr:`source` puzzles once per process (:meth:`load`), before the first is served."""
        async with self._loading:
            if not self._loaded:
                await self.load(await asyncio.to_thread(self.source))
                self._loaded = True

    async def load(self, puzzles: Sequence[Puzzle]) -> int:
        """Store ``puzzles`` (the shipped set): new ones, and those whose record changed (their rating is kept).
        Idempotent; returns how many rows were written."""
        records = [record_of(puzzle) for puzzle in puzzles]
        now = self.clock()

        def body(tx: Tx) -> int:
            stored = tx.puzzle_digests()
            return sum(tx.put_puzzle(record, now) for record in records if stored.get(record.id) != record.digest)

        written = await write(self.db, body)
        if written:
            log.info("stored %d puzzles", written)
        return written

    async def add_from_match(self, guild_id: int, puzzles: Sequence[Puzzle]) -> int:
        """Store the puzzles found in a finished match of server ``guild_id`` (:func:`games.puzzles.from_match`),
        served to that server's members only (never naming its players: the source says "match #N, move K"); a
        position stored already (shipped, or met before) is left as it is. Returns how many were new."""
        records = [record_of(puzzle, guild_id=guild_id) for puzzle in puzzles]
        now = self.clock()
        written = await write(self.db, lambda tx: sum(tx.put_puzzle(record, now) for record in records))
        if written:
            log.info("stored %d puzzles from a match of server %s", written, guild_id)
        return written

    async def counts(self) -> dict[str, int]:
        """Puzzles served, by game."""
        await self.ensure_loaded()
        return await self.db.read(ReadTx.puzzle_counts)

    async def proven(self, record: PuzzleRecord) -> Puzzle | None:
        """The puzzle of ``record`` once proven again by this process, or ``None`` after retiring it (its proof no
        longer holds, or its record no longer reads)."""
        try:
            puzzle = Puzzle.from_json(record.record)
        except RulesError as error:
            why: str | None = f"its record no longer reads: {error}"
        else:
            key = f"{record.id}:{record.digest}"
            if key in self._proven:
                return puzzle
            why = await asyncio.to_thread(verify, puzzle)
            if why is None:
                self._proven.add(key)
                return puzzle
        log.warning("retired the puzzle %s: %s", record.id, why)
        await write(self.db, lambda tx: tx.retire_puzzle(record.id, str(why), self.clock()))
        return None

    async def next(self, user_id: int, name: str, *, game: str | None = None,
                   guild_id: int | None = None) -> Served:
        """The member's open puzzle (``again``), or a new one near their rating that they never attempted (of
        ``game``, or of any game; the shipped ones, and in a server its own matches' too), proven again first.

        Raises:
            BadOption: ``game`` has no puzzles.
            NotFound: no puzzle is left for them.
        """
        if game is not None and game not in GAMES:
            raise BadOption(_("`{game}` is not a game.", game=quote(game)))
        await self.ensure_loaded()
        player = await self.db.read(ReadTx.puzzle_player, user_id)
        open_attempt = await self.db.read(ReadTx.open_attempt, user_id)
        if open_attempt is not None:
            return await self._served(open_attempt, again=True, player=player)
        rating = player.rating if player is not None else START_RATING
        while True:
            near = await self.db.read(ReadTx.nearest_puzzles, user_id, rating, game, NEAREST, guild_id)
            if not near:
                if game is None:
                    raise NotFound(_("You have tried every puzzle there is. New ones come with the bot's updates."))
                if not (await self.counts()).get(game):
                    raise BadOption(_("{game} has no puzzles (seeds/puzzles.md says why).",
                                      game=GAMES[game].title_text))
                raise NotFound(_("You have tried every {game} puzzle there is. New ones come with the bot's updates.",
                                 game=GAMES[game].title_text))
            record = self.rng.choice(near)
            puzzle = await self.proven(record)
            if puzzle is not None:
                break
        attempt = await write(self.db, lambda tx: tx.add_attempt(user_id, record.id, name, self.clock(),
                                                                 guild_id=guild_id))
        return Served(attempt, puzzle, puzzle_state(puzzle), rating=player)

    async def _served(self, attempt: PuzzleAttemptRecord, *, again: bool = False,
                      player: PuzzlePlayerRecord | None = None, daily: DailyPuzzleRecord | None = None) -> Served:
        puzzle = await self.puzzle(attempt.puzzle_id)
        return Served(attempt, puzzle, line_state(puzzle, 2 * attempt.progress), again, player, daily)

    async def puzzle(self, puzzle_id: str) -> Puzzle:
        """A stored puzzle (retired or not).

        Raises:
            NotFound: no such puzzle.
        """
        record = await self.db.read(ReadTx.get_puzzle, puzzle_id)
        if record is None:
            raise NotFound(_("That puzzle is gone."))
        return Puzzle.from_json(record.record)

    async def attempt(self, attempt_id: int, user_id: int) -> Served:
        """A member's attempt as it stands (to answer it).

        Raises:
            NotFound: no such attempt. NotAllowed: it is someone else's. MatchOver: it is finished, or it is a daily
                puzzle whose day is over.
        """
        attempt = await self.db.read(ReadTx.get_attempt, attempt_id)
        self._check(attempt, user_id)
        assert attempt is not None
        daily = await self.db.read(ReadTx.get_daily, attempt.daily_id) if attempt.daily_id else None
        if daily is not None and (daily.revealed or self.clock() >= daily.reveal_at):
            raise MatchOver(_("That daily puzzle's day is over and its answer is revealed."))
        return await self._served(attempt, daily=daily)

    @staticmethod
    def _check(attempt: PuzzleAttemptRecord | None, user_id: int) -> None:
        if attempt is None:
            raise NotFound(_("That puzzle attempt does not exist."))
        if attempt.user_id != user_id:
            raise NotAllowed(_("This is {name}'s puzzle. `/puzzle next` gives you one of your own.",
                               name=attempt.display_name))
        if attempt.finished:
            raise MatchOver(_("This puzzle is finished. `/puzzle next` gives you another."))

    async def answer(self, attempt_id: int, user_id: int, text: str) -> Judged:
        """Judge ``text`` (a move in the game's notation) as the member's next move of the line, in one transaction
        with its rating when it is the rated result.

        Raises:
            NotFound, NotAllowed, MatchOver: as :meth:`attempt`.
            BadOption: ``text`` is not a legal move in the position (the message quotes it); nothing changed.
        """
        typed = " ".join(text.split())[:100]
        served = await self.attempt(attempt_id, user_id)
        state = served.state
        try:
            move = state.parse_move(typed)
            after = state.apply(move)
        except RulesError as error:
            raise BadOption(_("`{move}` is not a move here: {reason}", move=typed or " ", reason=_why(error))) from None
        notation = state.format_move(move)
        puzzle = served.puzzle
        progress = served.attempt.progress
        step = puzzle.proof[progress]
        now = self.clock()
        if notation in step.accepted:
            progress += 1
            done = progress == len(puzzle.proof)
            defence = None if done else puzzle.line[2 * progress - 1]
            shown = forced(after) if defence is None else after.apply(after.parse_move(defence))
            return await self._settle(served, "solved" if done else "right", notation, defence, shown, now,
                                      progress=progress)
        return await self._settle(served, "wrong", notation, None, state, now, worth=step.value_of(notation),
                                  best=step.best)

    async def show(self, attempt_id: int, user_id: int) -> Judged:
        """Show the answer: the attempt is finished, and counts as not solved (rated so when it is the rated one).

        Raises:
            NotFound, NotAllowed, MatchOver: as :meth:`attempt`.
        """
        served = await self.attempt(attempt_id, user_id)
        return await self._settle(served, "shown", None, None,
                                  forced(line_state(served.puzzle, len(served.puzzle.line))), self.clock())

    async def _settle(self, served: Served, verdict: Verdict, move: str | None, defence: str | None,
                      state: State[Any], now: float, *, progress: int | None = None, worth: GameValue | None = None,
                      best: GameValue | None = None) -> Judged:
        """Store what an answer did, and the rating when it is the attempt's rated result (one transaction)."""
        attempt_id, rated = served.attempt.id, not served.attempt.daily_id

        def body(tx: Tx) -> Judged:
            attempt = tx.lock_attempt(attempt_id)
            self._check(attempt, served.attempt.user_id)
            assert attempt is not None
            if attempt.progress != served.attempt.progress:  # another answer landed first
                raise MatchOver(_("This puzzle moved on meanwhile (another answer of yours landed first): look again."))
            changes: dict[str, Any] = {}
            if verdict != "shown":
                changes["tries"] = attempt.tries + 1
                changes["answer"] = move
            if progress is not None:
                changes["progress"] = progress
            if verdict in ("solved", "shown"):
                changes.update(finished=True, finished_at=now, shown=verdict == "shown")
            before = after = None
            player = None
            if attempt.solved is None and verdict != "right":
                solved = verdict == "solved"
                changes["solved"] = solved
                if rated:
                    player, before, after = self._rate(tx, attempt, solved, now)
                    changes.update(rating_before=before, rating_after=after)
            tx.update_attempt(attempt_id, **changes)
            stored = tx.get_attempt(attempt_id)
            assert stored is not None
            players = named_players(tx, served.puzzle) if verdict in ("solved", "shown") else ()
            return Judged(verdict, stored, served.puzzle, move, defence, state, worth, best, before, after,
                          player or tx.puzzle_player(attempt.user_id), players)

        return await write(self.db, body)

    @staticmethod
    def _rate(tx: Tx, attempt: PuzzleAttemptRecord, solved: bool,
              now: float) -> tuple[PuzzlePlayerRecord, float, float]:
        """Rate the attempt's result: the member and the puzzle move by Glicko-2, the streak counts."""
        player = tx.lock_puzzle_player(PuzzlePlayerRecord(attempt.user_id, START_RATING, START_DEVIATION,
                                                          START_VOLATILITY, updated_at=now))
        puzzle = tx.lock_puzzle(attempt.puzzle_id)
        assert puzzle is not None
        (rating, deviation, volatility), problem = rate(player, puzzle, solved)
        before = player.rating
        player.rating, player.deviation, player.volatility = rating, deviation, volatility
        player.rated += 1
        player.solved += int(solved)
        player.streak = player.streak + 1 if solved else 0
        player.best_streak = max(player.best_streak, player.streak)
        player.updated_at = now
        tx.put_puzzle_player(player)
        tx.put_puzzle_rating(puzzle.id, *problem)
        return player, before, rating

    async def stats(self, user_id: int) -> PuzzleStats:
        """A member's puzzle rating and results by game."""
        player = await self.db.read(ReadTx.puzzle_player, user_id)
        rows = await self.db.read(ReadTx.puzzle_stats, user_id)
        return PuzzleStats(player, {game: (rated, solved) for game, rated, solved in rows})
