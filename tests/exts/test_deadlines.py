"""The deadline loop under SimCord with controlled time: a database error in a pass, or in the query for the next
wake-up, is logged, retried after a pause (no busy loop), and the loop keeps reminding and forfeiting on time."""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from bot.utils.scheduling import RETRY_DELAYS
from storage import Database, ReadTx
from tests.bot.helpers import World, only_match_id, stored

pytestmark = pytest.mark.both_backends

DAY = 86400


def _locked_error(backend: str) -> Exception:
    """The error a locked database gives on ``backend``."""
    if backend == "sqlite":
        return sqlite3.OperationalError("database is locked")
    import psycopg

    return psycopg.errors.LockNotAvailable("could not obtain lock on row in relation \"matches\"")


class FailOnce:
    """Wraps a query of :class:`storage.ReadTx`: counts its calls, and once armed, the next call raises the
    error a locked database gives (in the database thread, like the real one)."""

    def __init__(self, original: Callable[..., Any], error: Exception) -> None:
        self.original = original
        self.error = error
        self.calls = 0
        self.armed = False
        self.failed = 0

    def __get__(self, tx: ReadTx | None, owner: type | None = None) -> Callable[..., Any]:
        return functools.partial(self, tx)  # a method of the query object, like the function it replaces

    def __call__(self, tx: ReadTx, *args: Any) -> Any:
        self.calls += 1
        if self.armed:
            self.armed = False
            self.failed += 1
            raise self.error
        return self.original(tx, *args)


def _reminders(world: World) -> list[str]:
    return [m.content for m in world.thread().history() if "a third of your time" in m.content]


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
@pytest.mark.parametrize("query", ["due_match_ids", "next_deadline"])
async def test_a_database_error_is_logged_and_the_next_pass_still_forfeits_on_time(
        simcord_env, db: Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        query: str) -> None:
    # due_match_ids fails inside the pass itself; next_deadline inside the query for the next wake-up
    world = World(simcord_env, "alice", "bob")
    result = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=1)
    await world["bob"].click(result.response, label="Accept")
    match_id = await only_match_id(db)
    for actor, move in ((world["alice"], "LL"), (world["bob"], "LL"), (world["alice"], "RR")):
        await actor.slash(world.thread(), "chopsticks move", notation=move)  # both sides moved: a forfeit is due
    deadline = (await stored(db, match_id)).deadline
    assert deadline is not None
    cog = simcord_env.bot.get_cog("Deadlines")  # the extension's own module instance, loaded by discord.py
    assert cog is not None and cog.job.loop.is_running()

    probe = FailOnce(getattr(ReadTx, query), _locked_error(db.backend))
    monkeypatch.setattr(ReadTx, query, probe)
    reminder_at = deadline - DAY / 3
    await simcord_env.advance_time(reminder_at - 10 - simcord_env.bot.now())
    assert _reminders(world) == []
    probe.armed = True
    caplog.set_level(logging.ERROR, logger="bot.utils.scheduling")
    await simcord_env.advance_time(11)  # the pass at the reminder time meets the locked database
    assert probe.failed == 1
    failures = [r for r in caplog.records if r.name == "bot.utils.scheduling" and r.levelno == logging.ERROR]
    assert len(failures) == 1 and "deadline pass failed" in failures[0].getMessage()
    assert failures[0].exc_info is not None and failures[0].exc_info[1] is probe.error
    assert cog.failures == 1 and cog.job.loop.is_running()
    if query == "due_match_ids":
        assert _reminders(world) == []  # the failed pass did nothing
    calls = probe.calls
    await simcord_env.advance_time(RETRY_DELAYS[0] - 2)
    assert probe.calls == calls  # no busy loop: nothing runs before the retry delay
    await simcord_env.advance_time(3)
    assert probe.calls == calls + 1  # the retry pass
    assert cog.failures == 0
    assert len(_reminders(world)) == 1  # sent by the retry (or, when only the wake-up query failed, before it)
    assert (await stored(db, match_id)).status == "active"

    await simcord_env.advance_time(deadline - 5 - simcord_env.bot.now())
    assert (await stored(db, match_id)).status == "active"
    await simcord_env.advance_time(10)  # the forfeit comes at the deadline, as if nothing had failed
    match = await stored(db, match_id)
    assert match.status == "finished" and match.outcome is not None and match.outcome["winner"] == 0
    assert match.finished_at is not None and deadline <= match.finished_at < deadline + 1
    assert "bob ran out of time: **alice** wins." in world.thread().last_message.content
    assert len(_reminders(world)) == 1
    assert probe.failed == 1 and cog.job.loop.is_running()
