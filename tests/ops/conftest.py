"""The tests of running the bot as a service use the reliability suite's SimCord environment, which lets a test name
the unexpected error it causes on purpose (``@pytest.mark.tolerates(errors=(ErrorType,))``)."""

from __future__ import annotations

import pytest

from tests.reliability.conftest import simcord_env

__all__ = ["simcord_env"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tolerates(errors): error types the bot may report to the member and log")
