"""Logs that help without harming: ``NAPKIN_LOG_LEVEL`` sets the bot's own loggers and only them, a library logs
warnings and above unless ``NAPKIN_LOG_LEVELS`` names it, and the DEBUG lines of interactions are held to a rate (the
rest counted in the next line let through). With the real client under SimCord: a DEBUG run of a few interactions
writes the bot's lines and not one of discord.py's, aiosqlite's or any other library's below WARNING."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from bot.ops import context
from bot.ops.logs import (
    INTERACTION_DEBUG_BURST,
    INTERACTION_DEBUG_PER_SECOND,
    LIBRARY_LEVEL,
    OWN_LOGGERS,
    InteractionDebugLimit,
    configure_logging,
    unconfigure_logging,
)
from storage import Database
from tests.bot.helpers import World, only_match_id

LIBRARIES = ("discord", "discord.gateway", "discord.http", "aiosqlite", "asyncio", "markdown_it.rules_block", "PIL",
             "psycopg.pool", "simcord", "aiohttp.access")


@pytest.fixture
def logged() -> Iterator[io.StringIO]:
    """Where the configured logging writes; afterwards the logging of the test run is as before."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    lines = io.StringIO()
    try:
        yield lines
    finally:
        unconfigure_logging()
        root.handlers[:] = handlers
        root.setLevel(level)


def _records(lines: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines.getvalue().splitlines()]


def test_the_level_sets_the_bots_loggers_and_the_libraries_stay_at_warning(logged: io.StringIO) -> None:
    configure_logging("DEBUG", "json", logged, levels={"discord.gateway": "DEBUG", "aiosqlite": "INFO"})
    for name in (*OWN_LOGGERS, "bot.service.computer", "storage.sqlite", *LIBRARIES):
        for level in (logging.DEBUG, logging.INFO, logging.WARNING):
            logging.getLogger(name).log(level, "from %s", name)
    written = {(record["logger"], record["level"]) for record in _records(logged)}
    own = {(name, level) for name in (*OWN_LOGGERS, "bot.service.computer", "storage.sqlite")
           for level in ("DEBUG", "INFO", "WARNING")}
    named = {("discord.gateway", "DEBUG"), ("discord.gateway", "INFO"), ("discord.gateway", "WARNING"),
             ("aiosqlite", "INFO"), ("aiosqlite", "WARNING")}
    others = {(name, "WARNING") for name in LIBRARIES if name not in ("discord.gateway", "aiosqlite")}
    assert written == own | named | others
    assert LIBRARY_LEVEL == logging.WARNING


def test_a_higher_level_quietens_the_bot_and_a_second_call_replaces_the_first(logged: io.StringIO) -> None:
    configure_logging("DEBUG", "json", io.StringIO(), levels={"aiosqlite": "DEBUG"})
    configure_logging("ERROR", "json", logged)
    for name in ("bot.client", "aiosqlite", "discord"):
        for level in (logging.DEBUG, logging.WARNING, logging.ERROR):
            logging.getLogger(name).log(level, "line")
    assert [(record["logger"], record["level"]) for record in _records(logged)] == [
        ("bot.client", "ERROR"), ("aiosqlite", "WARNING"), ("aiosqlite", "ERROR"), ("discord", "WARNING"),
        ("discord", "ERROR")]
    ours = [handler for handler in logging.getLogger().handlers if getattr(handler, "stream", None) is logged]
    assert len(ours) == 1


def test_debug_lines_of_interactions_are_held_to_the_rate_and_the_next_says_how_many_were_left_out() -> None:
    now = [100.0]
    limit = InteractionDebugLimit(rate=INTERACTION_DEBUG_PER_SECOND, burst=INTERACTION_DEBUG_BURST,
                                  clock=lambda: now[0])

    def record(level: int = logging.DEBUG, message: str = "interaction %s: ok") -> logging.LogRecord:
        return logging.LogRecord("bot.ops.interactions", level, __file__, 1, message, ("/help",), None)

    with context.bound(guild=1, command="/help"):
        burst = [limit.filter(record()) for _ in range(100)]
        assert burst.count(True) == INTERACTION_DEBUG_BURST and burst[:INTERACTION_DEBUG_BURST] == [True] * 20
        assert limit.filter(record(logging.INFO))  # other levels always pass, and are never counted
        now[0] += 1.0
        second = [record() for _ in range(50)]
        passed = [item for item in second if limit.filter(item)]
    assert len(passed) == INTERACTION_DEBUG_PER_SECOND  # a second later: the rate's worth
    assert passed[0].left_out == 80  # type: ignore[attr-defined]
    assert passed[0].getMessage() == ("interaction /help: ok [80 DEBUG lines of interactions left out before this "
                                      "one: more than 10 a second]")
    assert not hasattr(passed[1], "left_out") and passed[1].getMessage() == "interaction /help: ok"


def test_debug_lines_outside_interactions_are_never_held() -> None:
    limit = InteractionDebugLimit(rate=1.0, burst=1, clock=lambda: 0.0)
    records = [logging.LogRecord("bot.client", logging.DEBUG, __file__, 1, "line", (), None) for _ in range(1000)]
    assert all(limit.filter(item) for item in records) and limit.left_out == 0


async def test_a_debug_run_of_the_real_bot_writes_the_bots_lines_and_no_librarys(simcord_env: Any, db: Database,
                                                                                  logged: io.StringIO) -> None:
    configure_logging("DEBUG", "json", logged)
    world = World(simcord_env, "alice", "bob")
    challenge = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(challenge.response, label="Accept")
    match_id = await only_match_id(db)
    for actor, move in ((world["alice"], "LL"), (world["bob"], "LL")):
        await actor.slash(world.thread(), "chopsticks move", notation=move)
    await world["alice"].slash(world.thread(), "match board", match=str(match_id))
    records = _records(logged)
    ends = [record["command"] for record in records if record["logger"] == "bot.ops.interactions"]
    assert ends == ["/chopsticks start", "button:ch", "/chopsticks move", "/chopsticks move", "/match board"]
    below_warning = {record["logger"].split(".")[0] for record in records if record["level"] in ("DEBUG", "INFO")}
    assert below_warning <= set(OWN_LOGGERS), below_warning
