"""Servers' daily puzzles: a server that set a channel (``/settings puzzle_channel``) gets one puzzle a day at its
hour (UTC), the same for every member; they answer privately (unrated: the day's table counts solvers and tries);
the answer and who found it, in how many tries, are revealed a day later; a monthly table of solvers.

No ``discord`` import. :meth:`DailyPuzzleService.plan_daily` stores each due day's puzzle (proven again first, one the
server never had, near :data:`DAILY_RATING`, the games taken in turn by day) and queues its post
(:data:`DAILY_NEWS`) and its reveal a day later (:data:`REVEAL_NEWS`) through the one outbox, in one transaction.
"""

from __future__ import annotations

import calendar
import datetime as dt
import logging
import random
import time
from collections.abc import Callable

from bot.service.base import write
from bot.service.errors import MatchOver, NotAllowed, NotFound
from bot.service.puzzles import NEAREST, PuzzleService, Served, line_state
from games.puzzles import Puzzle
from i18n import _
from storage import DailyPuzzleRecord, Database, PuzzleAttemptRecord, ReadTx, Shards, Tx

log = logging.getLogger(__name__)

DAY = 86400.0
"""Seconds in a day."""
DAILY_NEWS = "puzzle_daily"
"""The outbox kind of a daily puzzle's post (subject: the daily puzzle)."""
REVEAL_NEWS = "puzzle_reveal"
"""The outbox kind of a daily puzzle's reveal, a day after its post (subject: the daily puzzle)."""
DAILY_RATING = 1500.0
"""The daily puzzle is chosen near this rating (every member of a server sees the same one)."""
TABLE_ROWS = 10
"""Rows of the monthly table."""


def day_start(now: float, hour: int) -> float:
    """The epoch time of the latest daily puzzle time (``hour`` o'clock UTC) at or before ``now``."""
    offset = hour * 3600.0
    return (now - offset) // DAY * DAY + offset


def month_bounds(now: float) -> tuple[float, float, str]:
    """``(start, end, "2026-12")``: the UTC calendar month of ``now`` in epoch seconds."""
    day = dt.datetime.fromtimestamp(now, dt.UTC)
    start = dt.datetime(day.year, day.month, 1, tzinfo=dt.UTC)
    days = calendar.monthrange(day.year, day.month)[1]
    return start.timestamp(), start.timestamp() + days * DAY, f"{day.year:04d}-{day.month:02d}"


class DailyPuzzleService:
    """Servers' daily puzzles over a :class:`storage.Database` and the members' puzzles.

    Args:
        db: the open database. puzzles: the puzzle service (proving, judging). clock: the current time in epoch
        seconds. shards: the Discord shards this process serves (their servers' daily puzzles only), or ``None``.
    """

    def __init__(self, db: Database, puzzles: PuzzleService, *, clock: Callable[[], float] = time.time,
                 shards: Shards | None = None) -> None:
        self.db = db
        self.puzzles = puzzles
        self.clock = clock
        self.shards = shards

    async def plan_daily(self) -> float | None:
        """Store the daily puzzle of every server (of this process's shards) whose time has come and that has none
        for it, queuing its post and its reveal; return the seconds until the next one is due (``None``: no server
        has a daily puzzle). A server that just set its channel gets the puzzle of the current day at once."""
        now = self.clock()
        guilds = await self.db.read(ReadTx.puzzle_guilds, self.shards)
        if guilds:
            await self.puzzles.ensure_loaded()
        upcoming: list[float] = []
        for guild_id, channel_id, hour in guilds:
            start = day_start(now, hour)
            upcoming.append(start + DAY)
            latest = await self.db.read(ReadTx.latest_daily, guild_id)
            if latest is not None and latest.post_at >= start:
                continue
            await self._new_daily(guild_id, channel_id, start)
        return None if not upcoming else max(0.0, min(upcoming) - now)

    async def _new_daily(self, guild_id: int, channel_id: int, start: float) -> DailyPuzzleRecord | None:
        day = dt.datetime.fromtimestamp(start, dt.UTC).date().isoformat()
        used = await self.db.read(ReadTx.daily_puzzle_ids, guild_id)
        games = sorted(game for game, count in (await self.puzzles.counts()).items() if count)
        if not games:
            return None
        chooser = random.Random(f"{guild_id}:{day}")
        game = games[int(start // DAY) % len(games)]
        while True:
            near = [p for p in await self.db.read(ReadTx.nearest_puzzles, 0, DAILY_RATING, game, NEAREST + len(used))
                    if p.id not in used]
            if not near:
                near = [p for p in await self.db.read(ReadTx.nearest_puzzles, 0, DAILY_RATING, None,
                                                      NEAREST + len(used)) if p.id not in used]
            if not near:
                log.warning("no puzzle left for the daily puzzle of server %s", guild_id)
                return None
            record = chooser.choice(near[:NEAREST])
            if await self.puzzles.proven(record) is not None:
                break
        now = self.clock()

        def body(tx: Tx) -> DailyPuzzleRecord | None:
            daily = tx.add_daily(guild_id, day, record.id, channel_id, start, start + DAY)
            if daily is not None:
                tx.add_outbox(DAILY_NEWS, daily.id, guild_id, now)
                tx.add_outbox(REVEAL_NEWS, daily.id, guild_id, now, next_at=max(now, daily.reveal_at))
            return daily

        return await write(self.db, body)

    async def daily(self, daily_id: int) -> tuple[DailyPuzzleRecord, Puzzle]:
        """A daily puzzle and its puzzle.

        Raises:
            NotFound: no such daily puzzle.
        """
        daily = await self.db.read(ReadTx.get_daily, daily_id)
        if daily is None:
            raise NotFound(_("That daily puzzle does not exist."))
        return daily, await self.puzzles.puzzle(daily.puzzle_id)

    async def start_daily(self, daily_id: int, user_id: int, name: str, guild_id: int | None) -> Served:
        """A member's attempt at a daily puzzle (their open one, or a new one).

        Raises:
            NotFound: no such daily puzzle. NotAllowed: it belongs to another server. MatchOver: its answer was
            revealed already, or the member finished it.
        """
        daily, puzzle = await self.daily(daily_id)
        if guild_id is not None and daily.guild_id != guild_id:
            raise NotAllowed(_("That daily puzzle belongs to another server."))
        if daily.revealed or self.clock() >= daily.reveal_at:
            raise MatchOver(_("That daily puzzle's day is over and its answer is revealed in its thread."))
        now = self.clock()
        attempt = await write(self.db, lambda tx: tx.add_attempt(user_id, daily.puzzle_id, name, now,
                                                                 daily_id=daily.id, guild_id=daily.guild_id))
        if attempt.finished and attempt.shown:
            raise MatchOver(_("You saw the answer of today's puzzle already; the solvers are revealed when the day "
                              "ends."))
        if attempt.finished:
            raise MatchOver(_("You solved today's puzzle already; the solvers are revealed when the day ends."))
        return Served(attempt, puzzle, line_state(puzzle, 2 * attempt.progress), daily=daily)

    async def daily_attempts(self, daily_id: int) -> list[PuzzleAttemptRecord]:
        """Every attempt at a daily puzzle, those who found it first (fewest tries, then earliest)."""
        return await self.db.read(ReadTx.daily_attempts, daily_id)

    async def daily_posted(self, daily_id: int, *, message_id: int | None = None, thread_id: int | None = None) -> None:
        """Note the daily puzzle's message or thread."""
        await self.db.write(Tx.set_daily_posted, daily_id, message_id, thread_id)

    async def daily_revealed(self, daily_id: int) -> None:
        """Note that the daily puzzle's answer and solvers were revealed."""
        await self.db.write(Tx.set_daily_revealed, daily_id)

    async def month_table(self, guild_id: int) -> tuple[str, list[tuple[int, str, int, int]]]:
        """``("2026-12", rows)``: this month's solvers of the server's daily puzzles, ``(user_id, name, solved,
        tries)``, most solved first, then fewest tries (:data:`TABLE_ROWS` rows)."""
        start, end, month = month_bounds(self.clock())
        return month, await self.db.read(ReadTx.month_table, guild_id, start, end, TABLE_ROWS)
