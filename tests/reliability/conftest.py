"""The SimCord environment of tests/conftest.py, with one more deliberate refusal: an option value discord.py
cannot convert (the hostile-input catalogue sends a non-member as ``opponent``), which the bot answers
ephemerally. A test that injects a Discord failure the bot can only report may name it with
``@pytest.mark.tolerates(errors=(ErrorType,))``. Any other error the bot swallowed still fails the test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from simcord.env import Env

from bot.client import NapkinBot
from tests.reliability._support import is_domain_error
from tests.simcord_session import simcord_session


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tolerates(errors): error types the bot may report to the member and log")


@pytest_asyncio.fixture
async def simcord_env(simcord_bot: NapkinBot, request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    """SimCord's environment around the real bot (see tests/conftest.py)."""
    marker = request.node.get_closest_marker("simcord")
    options = {"settle_timeout": 60.0}
    options.update(marker.kwargs if marker else {})
    async with simcord_session(simcord_bot, **options) as env:
        yield env
    tolerated = request.node.get_closest_marker("tolerates")
    allowed = tuple(tolerated.kwargs["errors"]) if tolerated else ()
    unexpected = [error for error in env.errors if not is_domain_error(error)
                  and not isinstance(getattr(error, "original", error), allowed)]
    if unexpected:
        raise unexpected[0]
