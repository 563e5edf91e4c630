"""Vacations and member preferences: pausing a member's deadlines in a server, and how the bot tells them it is
their turn.

No ``discord`` import. A vacation follows Online-Go.com's: while a member is on vacation in a server, the deadline
of every match of that server in which they are to move stops running, and each member has an allowance per
calendar year (the server's ``vacation_days``, default 14) spent by the day.

How the pause is kept exact without touching the deadline pass: when a vacation starts at ``S`` with ``R`` days of
allowance left, it can last until ``ends_by = S + R`` days at most; the deadline of each match in which the member is
to move is moved forward by ``ends_by - S`` at once (and a deadline set while the vacation lasts — an opponent
moved, a match started — by ``ends_by - now``: :func:`bot.service.clock.paused`). So the stored deadline is always
the one that holds if the vacation runs its full length, the deadline pass and its index (``matches_due``) read it as
before, and a vacation that runs out needs no change to any match. Ending it earlier, at ``E``, moves those
deadlines back by ``ends_by - E``: each deadline then lies exactly the paused time (``E`` minus the later of ``S``
and the time it was set) after where it would have been, reminders included (they are due a third of the time
before the deadline). Everything is in the database, so a restart changes nothing.

Several processes: a vacation that starts or ends first takes the member's lock (:meth:`storage.Tx.lock_member`,
which a match starting with the member to move takes too, and every move that may give her the turn:
:meth:`storage.Tx.lock_members_of`) and then the row of every active match of theirs in the server
(:meth:`storage.Tx.lock_active_matches_of`, the lock a move takes), and only then reads whose turn it is and moves
the deadlines. A move in another process that hands her the turn therefore either commits first (and the vacation
then pauses the deadline it set) or waits for the vacation (and reads it, setting a paused deadline), also in a match
that started after the vacation read her matches: the deadline each match ends with is the one its history implies,
whichever process did what.

Decisions (documented in README):

- A started day counts as a whole day, as on Online-Go.com: a vacation costs ``ceil((E - S) / 1 day)`` days, at least
  one, counted in 24-hour periods from its start.
- Days are charged to the calendar year (UTC) in which the vacation started; the allowance of that year bounds it.
- The member may still move while on vacation; moving does not end the vacation (its days keep being spent until
  ``/vacation end`` or until the allowance runs out), and the opponent's clock runs as usual meanwhile.
- A change of the server's allowance applies to vacations started afterwards.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.service.base import rerun, write
from bot.service.clock import DAY
from bot.service.errors import LimitReached, NotAllowed
from i18n import Moment, _, n_
from storage import Database, MemberPrefs, ReadTx, Shards, Tx, VacationRecord


def year_bounds(when: float) -> tuple[float, float, int]:
    """The calendar year (UTC) holding ``when`` (epoch seconds): its first and the next year's first second, and
    its number."""
    year = dt.datetime.fromtimestamp(when, dt.UTC).year
    start = dt.datetime(year, 1, 1, tzinfo=dt.UTC).timestamp()
    return start, dt.datetime(year + 1, 1, 1, tzinfo=dt.UTC).timestamp(), year


def days_spent(started_at: float, ended_at: float) -> int:
    """What a vacation from ``started_at`` to ``ended_at`` (epoch seconds) costs: each started 24 hours from its
    start count as a whole day, at least one."""
    return max(1, math.ceil((ended_at - started_at) / DAY))


VACATION_OVER_NEWS = "vacation_over"
"""The outbox kind of the direct message telling a member their vacation ended by itself: its subject is the
vacation."""


@dataclass
class VacationStatus:
    """A member's vacation standing in one server at one time."""

    allowance: int
    """The server's allowance per calendar year, in days."""
    spent: int
    """Days spent this calendar year by ended vacations."""
    year: int
    vacation: VacationRecord | None
    """The vacation going on, if any."""

    @property
    def left(self) -> int:
        """Days of allowance left this year (not counting the vacation going on)."""
        return max(0, self.allowance - self.spent)


class VacationService:
    """Vacations and member preferences over a :class:`storage.Database`.

    Args:
        db: the open database.
        clock: returns the current time in epoch seconds (the same clock as the match service's).
        shards: the Discord shards this process serves, when several processes share the database: the deadline
            pass closes only the vacations of their servers (``None``: every server).
        deadlines_moved: called when a vacation ended early and brought deadlines nearer (the deadline task looks
            again: :attr:`bot.service.wiring.Services.deadline_doorbell`); it must return at once.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, shards: Shards | None = None,
                 deadlines_moved: Callable[[], None] = lambda: None) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards
        self._deadlines_moved = deadlines_moved

    @staticmethod
    def _status(tx: ReadTx, guild_id: int, user_id: int, now: float) -> VacationStatus:
        allowance = tx.get_settings(guild_id).vacation_days
        vacation = tx.open_vacation(guild_id, user_id)
        since, until, year = year_bounds(vacation.started_at if vacation is not None else now)
        return VacationStatus(allowance, tx.vacation_days_spent(guild_id, user_id, since, until), year, vacation)

    async def status(self, guild_id: int, user_id: int) -> VacationStatus:
        """The member's allowance, days spent this year and vacation going on in ``guild_id``."""
        return await self.db.read(self._status, guild_id, user_id, self.clock())

    async def start(self, guild_id: int, user_id: int) -> tuple[VacationRecord, int]:
        """Start a vacation now, for as long as the rest of this year's allowance at most, and pause the member's
        deadlines in every match of ``guild_id``. Returns the vacation and how many deadlines were paused.

        Raises:
            NotAllowed: the member is on vacation already, or the server gives no allowance.
            LimitReached: this year's allowance is spent.
        """
        now = self.clock()

        def body(tx: Tx) -> tuple[VacationRecord, int]:
            tx.lock_member(guild_id, user_id)  # a match starting meanwhile with the member to move waits for this
            self._end_due(tx, now, user_id=user_id, guild_id=guild_id)
            status = self._status(tx, guild_id, user_id, now)
            if status.vacation is not None:
                raise NotAllowed(_("You are already on vacation in this server, until {until} at the latest; "
                                   "`/vacation end` ends it.", until=Moment(status.vacation.ends_by)))
            if status.allowance == 0:
                raise NotAllowed(_("This server gives no vacation days (an admin can set some with `/settings`)."))
            if status.left == 0:
                raise LimitReached(n_("You have no vacation days left in {year}: the allowance of {count} day is "
                                      "spent.",
                                      "You have no vacation days left in {year}: the allowance of {count} days is "
                                      "spent.", status.allowance, year=str(status.year)))
            ends_by = now + status.left * DAY
            tx.lock_active_matches_of(guild_id, user_id)  # a move that gives her the turn comes before or after
            vacation_id = tx.insert_vacation(guild_id, user_id, now, ends_by)
            paused = tx.shift_deadlines(guild_id, user_id, ends_by - now, now)
            return VacationRecord(vacation_id, guild_id, user_id, now, ends_by, None, None), paused

        def landed(tx: ReadTx, result: tuple[VacationRecord, int]) -> bool:
            vacation = tx.open_vacation(guild_id, user_id)
            return vacation is not None and vacation.id == result[0].id and vacation.started_at == now

        return await write(self.db, body, landed=landed)

    async def end(self, guild_id: int, user_id: int) -> tuple[VacationRecord, int, int]:
        """End the member's vacation in ``guild_id`` now: their deadlines run again from where they stopped. Returns
        the ended vacation, how many deadlines resumed, and the days of allowance left this year.

        Raises:
            NotAllowed: the member is not on vacation there (also when it ran out by itself already).
        """
        now = self.clock()

        def body(tx: Tx) -> tuple[VacationRecord, int, int]:
            tx.lock_member(guild_id, user_id)
            self._end_due(tx, now, user_id=user_id, guild_id=guild_id)
            vacation = tx.open_vacation(guild_id, user_id)
            if vacation is None:
                raise NotAllowed(_("You are not on vacation in this server; `/vacation start` starts one."))
            tx.lock_active_matches_of(guild_id, user_id)
            ended = self._close(tx, vacation, min(now, vacation.ends_by))
            if ended is None:  # another process's deadline pass closed it a moment ago
                raise NotAllowed(_("Your vacation in this server has just ended by itself: the allowance is "
                                   "spent."))
            resumed = tx.shift_deadlines(guild_id, user_id, -(vacation.ends_by - now), 0.0)
            return ended, resumed, self._status(tx, guild_id, user_id, ended.started_at).left

        ended = await write(self.db, body)
        self._deadlines_moved()  # deadlines came earlier: the deadline pass must look again
        return ended

    @staticmethod
    def _close(tx: Tx, vacation: VacationRecord, ended_at: float) -> VacationRecord | None:
        """End ``vacation`` at ``ended_at``; the ended record, or ``None`` when it had ended already (another
        transaction closed it first: each vacation is closed, and its member told, once)."""
        days = days_spent(vacation.started_at, ended_at)
        if not tx.close_vacation(vacation.id, ended_at, days):
            return None
        return VacationRecord(vacation.id, vacation.guild_id, vacation.user_id, vacation.started_at, vacation.ends_by,
                              ended_at, days)

    def _end_due(self, tx: Tx, now: float, *, user_id: int | None = None,
                 guild_id: int | None = None) -> list[VacationRecord]:
        """Close the vacations that ran out at ``now`` (all, or only that member's in that server); their deadlines
        already hold (they were moved by the whole vacation)."""
        due = [vacation for vacation in tx.due_vacations(now, self.shards)
               if user_id is None or (vacation.user_id, vacation.guild_id) == (user_id, guild_id)]
        closed = [self._close(tx, vacation, vacation.ends_by) for vacation in due]
        return [vacation for vacation in closed if vacation is not None]

    async def end_due(self) -> list[VacationRecord]:
        """The deadline pass's part: close every vacation whose allowance ran out (read along ``vacations_due``:
        only those; with :attr:`shards`, of this process's servers); return those this call closed (none that
        another process closed first), whose members are told through the outbox (:data:`VACATION_OVER_NEWS`)."""
        now = self.clock()

        def body(tx: Tx) -> list[VacationRecord]:
            closed = self._end_due(tx, now)
            for vacation in closed:
                tx.add_outbox(VACATION_OVER_NEWS, vacation.id, vacation.guild_id, now)
            return closed

        return await self.db.write(body)

    async def get(self, vacation_id: int) -> VacationRecord | None:
        """A vacation by its id, or ``None``."""
        return await self.db.read(ReadTx.get_vacation, vacation_id)

    async def next_end(self) -> float | None:
        """When the next vacation runs out (epoch seconds), or ``None``."""
        return await self.db.read(ReadTx.next_vacation_end)

    # ------------------------------------------------------------ member preferences

    async def prefs(self, user_id: int) -> MemberPrefs:
        """A member's preferences."""
        return await self.db.read(ReadTx.member_prefs, user_id)

    async def set_prefs(self, user_id: int, *, dm_turns: bool | None = None, pings: bool | None = None,
                        puzzle_names: bool | None = None) -> MemberPrefs:
        """Change the preferences given (``None`` keeps one) and return them all."""
        now = self.clock()

        def body(tx: Tx) -> MemberPrefs:
            prefs = tx.lock_member_prefs(user_id, now)  # two changes in two processes: the second reads the first
            if dm_turns is not None:
                prefs.dm_turns = dm_turns
            if pings is not None:
                prefs.pings = pings
            if puzzle_names is not None:
                prefs.puzzle_names = puzzle_names
            tx.put_member_prefs(prefs, now)
            return prefs

        return await write(self.db, body, landed=rerun)

