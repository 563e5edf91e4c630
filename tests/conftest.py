"""Shared fixtures: a fresh database per test and the Napkin bot under SimCord (real discord.py, offline)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.client import NapkinBot
from storage import Database


@pytest_asyncio.fixture
async def db_path(tmp_path: Path) -> Path:
    """Path of a fresh database file for the test."""
    return tmp_path / "napkin.db"


@pytest_asyncio.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    """An open, migrated database."""
    database = await Database.open(db_path)
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def simcord_bot(db: Database) -> NapkinBot:
    """The bot SimCord runs: the real client on the test's database."""
    return NapkinBot(db)
