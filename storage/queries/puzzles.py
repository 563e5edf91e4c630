"""The puzzles' queries: the puzzles with their ratings (``puzzles``, retired ones kept but never served), members'
puzzle ratings (``puzzle_players``), attempts (``puzzle_attempts``) and servers' daily puzzles (``daily_puzzles``).

A puzzle's record is stored as the games write it (one JSON object) with its digest, so that loading the shipped set
again writes only what changed (:meth:`PuzzleWrites.put_puzzle`). The next puzzle for a member is the nearest in
rating among those served and never attempted by them (:meth:`PuzzleReads.nearest_puzzles`, on the partial indexes
``puzzles_by_rating`` and ``puzzles_any_rating``).
"""

from __future__ import annotations

from typing import Any

from storage.puzzle_records import DailyPuzzleRecord, PuzzleAttemptRecord, PuzzlePlayerRecord, PuzzleRecord
from storage.queries.base import Publisher, Queries, shard_where
from storage.records import Row, Shards

_PUZZLE = "id, game, record, digest, rating, deviation, volatility, plays, retired_at, retired_why, guild_id"
_PLAYER = "user_id, rating, deviation, volatility, rated, solved, streak, best_streak, updated_at"
_ATTEMPT = ("id, user_id, puzzle_id, daily_id, guild_id, display_name, progress, tries, answer, solved, finished, "
            "shown, rating_before, rating_after, started_at, finished_at")
_DAILY = "id, guild_id, day, puzzle_id, channel_id, post_at, reveal_at, message_id, thread_id, revealed"
_ATTEMPT_FIELDS = frozenset({"progress", "tries", "answer", "solved", "finished", "shown", "rating_before",
                             "rating_after", "finished_at"})
_NOT_ATTEMPTED = "NOT EXISTS (SELECT 1 FROM puzzle_attempts a WHERE a.puzzle_id = p.id AND a.user_id = ?)"


def _puzzle(row: Row) -> PuzzleRecord:
    return PuzzleRecord(row["id"], row["game"], row["record"], row["digest"], row["rating"], row["deviation"],
                        row["volatility"], row["plays"], row["retired_at"], row["retired_why"], row["guild_id"])


def _player(row: Row) -> PuzzlePlayerRecord:
    return PuzzlePlayerRecord(row["user_id"], row["rating"], row["deviation"], row["volatility"], row["rated"],
                              row["solved"], row["streak"], row["best_streak"], row["updated_at"])


def _attempt(row: Row) -> PuzzleAttemptRecord:
    solved = row["solved"]
    return PuzzleAttemptRecord(row["id"], row["user_id"], row["puzzle_id"], row["daily_id"], row["guild_id"],
                               row["display_name"], row["progress"], row["tries"], row["answer"],
                               None if solved is None else bool(solved), bool(row["finished"]), bool(row["shown"]),
                               row["rating_before"],
                               row["rating_after"], row["started_at"], row["finished_at"])


def _daily(row: Row) -> DailyPuzzleRecord:
    return DailyPuzzleRecord(row["id"], row["guild_id"], row["day"], row["puzzle_id"], row["channel_id"],
                             row["post_at"], row["reveal_at"], row["message_id"], row["thread_id"],
                             bool(row["revealed"]))


class PuzzleReads(Queries):
    """Reading puzzles, members' puzzle ratings, attempts and daily puzzles."""

    def get_puzzle(self, puzzle_id: str) -> PuzzleRecord | None:
        """One puzzle (retired or not), or ``None``."""
        row = self._one(f"SELECT {_PUZZLE} FROM puzzles WHERE id = ?", (puzzle_id,))  # noqa: S608 - module constants
        return None if row is None else _puzzle(row)

    def puzzle_digests(self) -> dict[str, str]:
        """The digest of every stored puzzle's record, by id."""
        return {str(row[0]): str(row[1]) for row in self._all("SELECT id, digest FROM puzzles")}

    def puzzle_counts(self) -> dict[str, int]:
        """Puzzles served (not retired), by game."""
        rows = self._all("SELECT game, COUNT(*) FROM puzzles WHERE retired_at IS NULL GROUP BY game ORDER BY game")
        return {str(row[0]): int(row[1]) for row in rows}

    def nearest_puzzles(self, user_id: int, rating: float, game: str | None, limit: int,
                        guild_id: int | None = None) -> list[PuzzleRecord]:
        """Up to ``limit`` served puzzles (of ``game``, or of any game; the shipped ones, and those of ``guild_id``'s
        own matches) that ``user_id`` never attempted, nearest in rating to ``rating`` first (ties: lower rating,
        then id): ``limit`` from above and ``limit`` from below are read along the rating index, then merged."""
        where = "p.retired_at IS NULL" + (" AND p.game = ?" if game is not None else "")
        where += " AND (p.guild_id IS NULL OR p.guild_id = ?)" if guild_id is not None else " AND p.guild_id IS NULL"
        args: tuple[Any, ...] = ((game,) if game is not None else ()) + ((guild_id,) if guild_id is not None else ())
        above = self._all(f"SELECT {_PUZZLE} FROM puzzles p WHERE {where} AND p.rating >= ? AND {_NOT_ATTEMPTED} "  # noqa: S608 - module constants
                          "ORDER BY p.rating, p.id LIMIT ?", (*args, rating, user_id, limit))
        below = self._all(f"SELECT {_PUZZLE} FROM puzzles p WHERE {where} AND p.rating < ? AND {_NOT_ATTEMPTED} "  # noqa: S608 - module constants
                          "ORDER BY p.rating DESC, p.id LIMIT ?", (*args, rating, user_id, limit))
        found = [_puzzle(row) for row in (*above, *below)]
        found.sort(key=lambda puzzle: (abs(puzzle.rating - rating), puzzle.rating, puzzle.id))
        return found[:limit]

    def puzzle_player(self, user_id: int) -> PuzzlePlayerRecord | None:
        """A member's puzzle rating, or ``None`` before their first rated attempt."""
        row = self._one(f"SELECT {_PLAYER} FROM puzzle_players WHERE user_id = ?", (user_id,))  # noqa: S608 - module constants
        return None if row is None else _player(row)

    def get_attempt(self, attempt_id: int) -> PuzzleAttemptRecord | None:
        """One attempt, or ``None``."""
        row = self._one(f"SELECT {_ATTEMPT} FROM puzzle_attempts WHERE id = ?", (attempt_id,))  # noqa: S608 - module constants
        return None if row is None else _attempt(row)

    def attempt_of(self, user_id: int, puzzle_id: str, daily_id: int = 0) -> PuzzleAttemptRecord | None:
        """A member's attempt at a puzzle (alone: ``daily_id`` 0; or as that daily puzzle), or ``None``."""
        row = self._one(f"SELECT {_ATTEMPT} FROM puzzle_attempts WHERE user_id = ? AND puzzle_id = ? "  # noqa: S608 - module constants
                        "AND daily_id = ?", (user_id, puzzle_id, daily_id))
        return None if row is None else _attempt(row)

    def open_attempt(self, user_id: int) -> PuzzleAttemptRecord | None:
        """A member's unfinished attempt at a puzzle of their own (not a daily puzzle), newest first, or ``None``."""
        row = self._one(f"SELECT {_ATTEMPT} FROM puzzle_attempts WHERE user_id = ? AND daily_id = 0 "  # noqa: S608 - module constants
                        "AND finished = 0 ORDER BY id DESC LIMIT 1", (user_id,))
        return None if row is None else _attempt(row)

    def puzzle_stats(self, user_id: int) -> list[tuple[str, int, int]]:
        """``(game, rated attempts, solved at the first try)`` of a member's own puzzles, by game."""
        rows = self._all("SELECT p.game, COUNT(*), SUM(CASE WHEN a.solved = 1 THEN 1 ELSE 0 END) "
                         "FROM puzzle_attempts a JOIN puzzles p ON p.id = a.puzzle_id "
                         "WHERE a.user_id = ? AND a.daily_id = 0 AND a.solved IS NOT NULL "
                         "GROUP BY p.game ORDER BY p.game", (user_id,))
        return [(str(row[0]), int(row[1]), int(row[2] or 0)) for row in rows]


class DailyPuzzleReads(Queries):
    """Reading servers' daily puzzles, their attempts and the monthly table."""

    def get_daily(self, daily_id: int) -> DailyPuzzleRecord | None:
        """One daily puzzle, or ``None``."""
        row = self._one(f"SELECT {_DAILY} FROM daily_puzzles WHERE id = ?", (daily_id,))  # noqa: S608 - module constants
        return None if row is None else _daily(row)

    def latest_daily(self, guild_id: int) -> DailyPuzzleRecord | None:
        """A server's newest daily puzzle, or ``None``."""
        row = self._one(f"SELECT {_DAILY} FROM daily_puzzles WHERE guild_id = ? ORDER BY post_at DESC, id DESC "  # noqa: S608 - module constants
                        "LIMIT 1", (guild_id,))
        return None if row is None else _daily(row)

    def daily_puzzle_ids(self, guild_id: int) -> set[str]:
        """The puzzles a server has had as its daily puzzle."""
        return {str(row[0]) for row in self._all("SELECT puzzle_id FROM daily_puzzles WHERE guild_id = ?",
                                                 (guild_id,))}

    def puzzle_guilds(self, shards: Shards | None = None) -> list[tuple[int, int, int]]:
        """``(guild_id, channel_id, hour)`` of every server with a daily puzzle channel (with ``shards``, of their
        servers)."""
        rows = self._all("SELECT guild_id, puzzle_channel_id, puzzle_hour FROM guild_settings "  # noqa: S608 - module constants
                         f"WHERE puzzle_channel_id IS NOT NULL{shard_where(shards)} ORDER BY guild_id")
        return [(int(row[0]), int(row[1]), int(row[2])) for row in rows]

    def daily_attempts(self, daily_id: int) -> list[PuzzleAttemptRecord]:
        """Every attempt at a daily puzzle, those who found the line first (fewest tries, then earliest)."""
        rows = self._all(f"SELECT {_ATTEMPT} FROM puzzle_attempts WHERE daily_id = ? "  # noqa: S608 - module constants
                         "ORDER BY (CASE WHEN finished = 1 AND shown = 0 THEN 0 ELSE 1 END), "
                         "tries, finished_at, id", (daily_id,))
        return [_attempt(row) for row in rows]

    def month_table(self, guild_id: int, since: float, until: float, limit: int) -> list[tuple[int, str, int, int]]:
        """``(user_id, name, daily puzzles solved, tries they took)`` of a server's daily puzzles posted in
        ``[since, until)`` (epoch seconds), most solved first, then fewest tries, then name; ``limit`` rows."""
        rows = self._all(
            "SELECT a.user_id, MAX(a.display_name), COUNT(*), SUM(a.tries) FROM puzzle_attempts a "
            "JOIN daily_puzzles d ON d.id = a.daily_id "
            "WHERE d.guild_id = ? AND d.post_at >= ? AND d.post_at < ? AND a.finished = 1 AND a.shown = 0 "
            "GROUP BY a.user_id ORDER BY COUNT(*) DESC, SUM(a.tries), MAX(a.display_name), a.user_id LIMIT ?",
            (guild_id, since, until, limit))
        return [(int(row[0]), str(row[1]), int(row[2]), int(row[3])) for row in rows]


class PuzzleWrites(PuzzleReads, Publisher):
    """Storing puzzles, ratings, attempts and daily puzzles."""

    def put_puzzle(self, puzzle: PuzzleRecord, now: float) -> bool:
        """Store a puzzle; ``True`` when a row was written. A shipped puzzle (``guild_id`` ``None``) replaces the
        stored record when its digest changed (its rating and plays are kept, a puzzle retired before is served
        again: the new record is proven again before it is served), also a server's puzzle of the same position
        (which becomes everyone's); a server's puzzle (from its match) never replaces one already stored."""
        conflict = ("DO UPDATE SET record = excluded.record, digest = excluded.digest, game = excluded.game, "
                    "guild_id = NULL, retired_at = NULL, retired_why = NULL WHERE puzzles.digest <> excluded.digest"
                    if puzzle.guild_id is None else "DO NOTHING")
        cursor = self._conn.execute(
            "INSERT INTO puzzles (id, game, record, digest, rating, deviation, volatility, added_at, guild_id) "  # noqa: S608 - one of two fixed clauses
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) {conflict}",
            (puzzle.id, puzzle.game, puzzle.record, puzzle.digest, puzzle.rating, puzzle.deviation,
             puzzle.volatility, now, puzzle.guild_id))
        return cursor.rowcount == 1

    def retire_puzzle(self, puzzle_id: str, why: str, now: float) -> None:
        """Never serve this puzzle again (its proof no longer holds: ``why``)."""
        self._conn.execute("UPDATE puzzles SET retired_at = ?, retired_why = ? WHERE id = ? AND retired_at IS NULL",
                           (now, why[:500], puzzle_id))

    def lock_puzzle(self, puzzle_id: str) -> PuzzleRecord | None:
        """A puzzle, its row held until the transaction ends (its rating is about to change)."""
        row = self._one(f"SELECT {_PUZZLE} FROM puzzles WHERE id = ?{self._dialect.for_update('puzzles')}",  # noqa: S608 - module constants
                        (puzzle_id,))
        return None if row is None else _puzzle(row)

    def put_puzzle_rating(self, puzzle_id: str, rating: float, deviation: float, volatility: float) -> None:
        """A puzzle's new Glicko-2 rating after one more rated attempt."""
        self._conn.execute("UPDATE puzzles SET rating = ?, deviation = ?, volatility = ?, plays = plays + 1 "
                           "WHERE id = ?", (rating, deviation, volatility, puzzle_id))

    def lock_puzzle_player(self, start: PuzzlePlayerRecord) -> PuzzlePlayerRecord:
        """A member's puzzle rating, held until the transaction ends (stored first as ``start`` when they have
        none)."""
        self._defer("INSERT INTO puzzle_players (user_id, rating, deviation, volatility, updated_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
                    (start.user_id, start.rating, start.deviation, start.volatility, start.updated_at))
        row = self._one(f"SELECT {_PLAYER} FROM puzzle_players WHERE user_id = ?"  # noqa: S608 - module constants
                        f"{self._dialect.for_update('puzzle_players')}", (start.user_id,))
        assert row is not None
        return _player(row)

    def put_puzzle_player(self, player: PuzzlePlayerRecord) -> None:
        """Write a member's puzzle rating back (after :meth:`lock_puzzle_player`)."""
        self._conn.execute(
            "UPDATE puzzle_players SET rating = ?, deviation = ?, volatility = ?, rated = ?, solved = ?, streak = ?, "
            "best_streak = ?, updated_at = ? WHERE user_id = ?",
            (player.rating, player.deviation, player.volatility, player.rated, player.solved, player.streak,
             player.best_streak, player.updated_at, player.user_id))

    def add_attempt(self, user_id: int, puzzle_id: str, display_name: str, now: float, *, daily_id: int = 0,
                    guild_id: int | None = None) -> PuzzleAttemptRecord:
        """Start a member's attempt at a puzzle (or return the one they have: one per member, puzzle and daily
        puzzle)."""
        self._conn.execute("INSERT INTO puzzle_attempts (user_id, puzzle_id, daily_id, guild_id, display_name, "
                           "started_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           (user_id, puzzle_id, daily_id, guild_id, display_name, now))
        found = self.attempt_of(user_id, puzzle_id, daily_id)
        assert found is not None
        return found

    def lock_attempt(self, attempt_id: int) -> PuzzleAttemptRecord | None:
        """An attempt, its row held until the transaction ends (two answers at once are judged one after the
        other)."""
        row = self._one(f"SELECT {_ATTEMPT} FROM puzzle_attempts WHERE id = ?"  # noqa: S608 - module constants
                        f"{self._dialect.for_update('puzzle_attempts')}", (attempt_id,))
        return None if row is None else _attempt(row)

    def update_attempt(self, attempt_id: int, **fields: Any) -> None:
        """Change some of an attempt's fields (``progress``, ``tries``, ``answer``, ``solved``, ``finished``,
        ``shown``, ``rating_before``, ``rating_after``, ``finished_at``).

        Raises:
            ValueError: a name is not one of them.
        """
        unknown = set(fields) - _ATTEMPT_FIELDS
        if unknown:
            raise ValueError(f"not attempt fields: {sorted(unknown)}")
        values = [int(value) if isinstance(value, bool) else value for value in fields.values()]
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self._conn.execute(f"UPDATE puzzle_attempts SET {assignments} WHERE id = ?",  # noqa: S608 - names checked against _ATTEMPT_FIELDS
                           (*values, attempt_id))


class DailyPuzzleWrites(DailyPuzzleReads, Publisher):
    """Storing servers' daily puzzles."""

    def add_daily(self, guild_id: int, day: str, puzzle_id: str, channel_id: int, post_at: float,
                  reveal_at: float) -> DailyPuzzleRecord | None:
        """Store a server's puzzle of ``day``; ``None`` when the server already has one that day."""
        row = self._one("INSERT INTO daily_puzzles (guild_id, day, puzzle_id, channel_id, post_at, reveal_at) "
                        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                        (guild_id, day, puzzle_id, channel_id, post_at, reveal_at))
        return None if row is None else self.get_daily(int(row[0]))

    def set_daily_posted(self, daily_id: int, message_id: int | None, thread_id: int | None) -> None:
        """Note the daily puzzle's message and thread once posted."""
        self._conn.execute("UPDATE daily_puzzles SET message_id = COALESCE(?, message_id), "
                           "thread_id = COALESCE(?, thread_id) WHERE id = ?", (message_id, thread_id, daily_id))

    def set_daily_revealed(self, daily_id: int) -> None:
        """Note that the daily puzzle's answer and solvers were revealed."""
        self._conn.execute("UPDATE daily_puzzles SET revealed = 1 WHERE id = ?", (daily_id,))
