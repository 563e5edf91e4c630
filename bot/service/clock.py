"""The correspondence clock: days per move, the reminder, extra time and the vacation pause, as one value.

Modelled on scalachess's ``CorrespondenceClock``: a match's time control is a value with methods rather than
arithmetic spread over the services. A match stores only its days per move and the deadline of the move it waits
for; :class:`CorrespondenceClock` reads both and answers every question the services ask of them. Times are UNIX
epoch seconds; days are whole days of :data:`DAY` seconds (0 days per move = no time limit).

The vacation pause follows Online-Go.com's vacations (see :mod:`bot.service.vacations`): a deadline set for a member
who is away until ``away_until`` is moved forward by the rest of the vacation, so the stored deadline is always the
one that holds if the vacation runs its full length.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage import MatchRecord

DAY = 86400.0
"""Seconds in a day of correspondence time."""
DAYS_PER_MOVE_CHOICES: tuple[int, ...] = (0, 1, 2, 3, 5, 7, 14)
"""Allowed days per move; 0 means no time limit."""
EXTRA_TIME = DAY
"""Seconds ``/match give-time`` adds to the deadline of the player to move."""
EXTRA_TIME_LIMIT = 3
"""How many times each player may give extra time in one match."""
REMINDER_SHARE = 3
"""The reminder is due when ``1 / REMINDER_SHARE`` of the time per move is left."""


def paused(deadline: float, away_until: float | None, now: float) -> float:
    """``deadline``, set at ``now`` for a member who may be on vacation until ``away_until`` (``None``: not on
    vacation), moved forward by the rest of that vacation."""
    if away_until is None or away_until <= now:
        return deadline
    return deadline + (away_until - now)


@dataclass(frozen=True)
class CorrespondenceClock:
    """A match's correspondence time control at one moment: its days per move and the deadline of the move it waits
    for.

    Attributes:
        days_per_move: whole days per move; 0 for no time limit.
        deadline: epoch seconds by which the player to move must move, or ``None`` (no limit, nobody to move, or
            a computer to move).
    """

    days_per_move: int
    deadline: float | None = None

    @classmethod
    def of(cls, match: MatchRecord) -> CorrespondenceClock:
        """The clock of a stored match."""
        return cls(match.days_per_move, match.deadline)

    @property
    def seconds_per_move(self) -> float:
        """The time per move in seconds (0 without a limit)."""
        return self.days_per_move * DAY

    def turn(self, now: float, away_until: float | None = None) -> CorrespondenceClock:
        """The clock of a move to make from ``now`` by a member away until ``away_until`` (epoch seconds, ``None``
        when not on vacation): its deadline is :attr:`days_per_move` later, paused for the rest of the vacation;
        ``None`` without a time limit."""
        if not self.days_per_move:
            return CorrespondenceClock(0)
        return CorrespondenceClock(self.days_per_move, paused(now + self.seconds_per_move, away_until, now))

    def out_of_time(self, now: float) -> bool:
        """``True`` when the deadline has passed at ``now`` (never without a deadline)."""
        return self.deadline is not None and self.deadline <= now

    def reminder_due(self, now: float) -> bool:
        """``True`` when at most a third of the time per move is left at ``now`` (never without a deadline)."""
        return self.deadline is not None and self.deadline - now <= self.seconds_per_move / REMINDER_SHARE

    def given_time(self, seconds: float = EXTRA_TIME) -> CorrespondenceClock:
        """The clock after the opponent gave ``seconds`` more (``/match give-time``).

        Raises:
            ValueError: the clock has no deadline to extend.
        """
        if self.deadline is None:
            raise ValueError("a clock without a deadline cannot be given time")
        return CorrespondenceClock(self.days_per_move, self.deadline + seconds)
