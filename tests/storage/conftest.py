"""The storage tests run on both backends: the ``db`` fixture opens SQLite and PostgreSQL in turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from storage import Database


@pytest_asyncio.fixture(params=["sqlite", "postgresql"])
async def db(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[Database]:
    """An open, migrated database of each backend."""
    target = str(db_path) if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    database = await Database.open(target)
    assert database.backend == request.param
    try:
        yield database
    finally:
        await database.close()
