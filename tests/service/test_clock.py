"""The correspondence clock: days per move, the reminder at a third of the time, extra time and the vacation pause."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.service.clock import DAY, EXTRA_TIME, CorrespondenceClock, paused

NOW = 1_700_000_000.0


def test_a_turn_gives_the_days_per_move_and_no_limit_gives_no_deadline() -> None:
    assert CorrespondenceClock(3).turn(NOW).deadline == NOW + 3 * DAY
    assert CorrespondenceClock(1, deadline=NOW - 5).turn(NOW).deadline == NOW + DAY  # a new turn, a new deadline
    assert CorrespondenceClock(0, deadline=NOW).turn(NOW).deadline is None
    assert CorrespondenceClock(0).turn(NOW, away_until=NOW + DAY).deadline is None


def test_a_turn_of_a_member_on_vacation_is_paused_for_the_rest_of_it() -> None:
    assert CorrespondenceClock(2).turn(NOW, away_until=NOW + 5 * DAY).deadline == NOW + 7 * DAY
    assert CorrespondenceClock(2).turn(NOW, away_until=NOW - 1).deadline == NOW + 2 * DAY  # it ran out already
    assert CorrespondenceClock(2).turn(NOW, away_until=NOW).deadline == NOW + 2 * DAY
    assert paused(NOW + DAY, NOW + 0.5 * DAY, NOW) == NOW + 1.5 * DAY
    assert paused(NOW + DAY, None, NOW) == NOW + DAY


def test_out_of_time_at_the_deadline_and_never_without_one() -> None:
    clock = CorrespondenceClock(3, deadline=NOW)
    assert clock.out_of_time(NOW) and clock.out_of_time(NOW + 1)
    assert not clock.out_of_time(NOW - 1)
    assert not CorrespondenceClock(3).out_of_time(NOW)


def test_the_reminder_is_due_when_a_third_of_the_time_is_left() -> None:
    clock = CorrespondenceClock(3, deadline=NOW + DAY)  # a third of 3 days left
    assert clock.reminder_due(NOW)
    assert not clock.reminder_due(NOW - 1)
    assert CorrespondenceClock(3, deadline=NOW + 2 * DAY).reminder_due(NOW + DAY)
    assert not CorrespondenceClock(3).reminder_due(NOW)


def test_given_time_moves_the_deadline_and_needs_one() -> None:
    assert CorrespondenceClock(3, deadline=NOW).given_time().deadline == NOW + EXTRA_TIME == NOW + DAY
    assert CorrespondenceClock(3, deadline=NOW).given_time(60.0) == CorrespondenceClock(3, deadline=NOW + 60.0)
    with pytest.raises(ValueError, match="without a deadline"):
        CorrespondenceClock(3).given_time()


def test_the_clock_of_a_stored_match_reads_its_days_and_deadline() -> None:
    match = SimpleNamespace(days_per_move=5, deadline=NOW + 10.0)
    assert CorrespondenceClock.of(match) == CorrespondenceClock(5, NOW + 10.0)  # type: ignore[arg-type]
