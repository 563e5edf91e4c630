"""Shared fixtures: a fresh database per test and the Napkin bot under SimCord (real discord.py, offline)."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from discord import app_commands
from simcord.env import Env

from bot.client import NapkinBot
from bot.local_play import Languages, report_languages
from bot.service import ServiceError
from bot.utils.boards import add_game_module
from games import RulesError, add_game_package
from renderers import add_renderer
from storage import Database
from tests.postgres_cluster import Cluster, fresh_database, start_cluster
from tests.simcord_session import simcord_session

pytest_plugins = ["tests.contract_plugin"]
"""Discord's contract, checked on every request of every test (see tests/contract_plugin.py)."""

EXTRA_GAMES = "tests.extra_games"
"""The tests' own games (a sixth game, tic-tac-toe), registered like the real ones so every generic suite runs them:
the game with the registry, its board with the renderers and its buttons with the bot, each found by the game's key
as the real games' are."""
add_game_package(EXTRA_GAMES)
add_renderer("tictactoe", f"{EXTRA_GAMES}.tictactoe_board")
add_game_module("tictactoe", f"{EXTRA_GAMES}.tictactoe_discord")


@pytest.fixture(autouse=True)
def _no_log_handler_outlives_its_stream() -> Iterator[None]:
    """A log handler a test set up on its captured standard error (``napkin`` commands run in-process set up their
    logging on ``sys.stderr``, which pytest swaps per test) is removed once that stream is closed, so that a later
    test in the same worker never finds "--- Logging error ---" lines on its own standard error."""
    yield
    loggers = [logging.getLogger(), *(logger for logger in logging.root.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    for logger in loggers:
        for handler in list(logger.handlers):
            stream = getattr(handler, "stream", None)
            if stream is not None and getattr(stream, "closed", False):
                logger.removeHandler(handler)


@pytest_asyncio.fixture
async def db_path(tmp_path: Path) -> Path:
    """Path of a fresh database file for the test."""
    return tmp_path / "napkin.db"


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster for the whole run (started on first use)."""
    yield from start_cluster()


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL database for the test (dropped afterwards)."""
    yield from fresh_database(postgres_cluster)


BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked ``both_backends`` (and, with ``NAPKIN_TEST_ALL_BACKENDS`` set, every test) that use the ``db``
    fixture run once per storage backend. The PostgreSQL run is marked ``slow``: the quick loop (``make test-fast``)
    runs each such test once, on SQLite (the storage suite's own PostgreSQL tests still run there); ``make test`` runs
    both."""
    if "backend" in metafunc.fixturenames and (metafunc.definition.get_closest_marker("both_backends")
                                               or os.environ.get("NAPKIN_TEST_ALL_BACKENDS")):
        runs = [backend if backend == "sqlite" else pytest.param(backend, marks=pytest.mark.slow)
                for backend in BACKENDS]
        metafunc.parametrize("backend", runs, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The storage backend of the test's database: ``"sqlite"`` unless the test runs on both."""
    return str(getattr(request, "param", "sqlite"))


@pytest_asyncio.fixture
async def db(backend: str, db_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Database]:
    """An open, migrated database (SQLite; PostgreSQL too for tests marked ``both_backends``)."""
    database = await Database.open(db_path if backend == "sqlite" else request.getfixturevalue("postgres_url"))
    assert database.backend == backend
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def simcord_bot(db: Database) -> NapkinBot:
    """The bot SimCord runs: the real client on the test's database."""
    return NapkinBot(db)


@pytest.fixture
def languages(simcord_env: Env, simcord_bot: NapkinBot) -> Languages:
    """The languages the test's interactions report (SimCord's own say ``en-US`` always): set ``members[user_id]``,
    ``member`` or ``server`` (Discord locales such as ``fr``, ``pt-BR``) before the interaction."""
    reported = Languages()
    report_languages(simcord_bot, reported)
    return reported


def is_domain_error(error: BaseException) -> bool:
    """``True`` for the refusals the bot answers on purpose (service and rules errors, failed checks)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, app_commands.TransformerError) and isinstance(error.__cause__, ServiceError | RulesError):
        return True  # an option's own refusal (the match option naming another server's match)
    return isinstance(error, ServiceError | RulesError | app_commands.CheckFailure | app_commands.CommandNotFound
                      | app_commands.CommandSignatureMismatch)  # a command the bot does not have: refused


@pytest_asyncio.fixture
async def simcord_env(simcord_bot: NapkinBot, request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    """SimCord's environment, as its plugin builds it, except that refusals the bot answered on purpose
    (domain errors turned into ephemeral replies) are not failures; any other swallowed error still is. Every bot
    it ran is closed at its end (:func:`tests.simcord_session.simcord_session`)."""
    marker = request.node.get_closest_marker("simcord")
    options = {"settle_timeout": 60.0}  # generous: a loaded 2-core machine must not turn into a flaky test
    options.update(marker.kwargs if marker else {})
    async with simcord_session(simcord_bot, **options) as env:
        yield env
    unexpected = [error for error in env.errors if not is_domain_error(error)]
    if unexpected:
        raise unexpected[0]
