"""PostgreSQL's password reaches libpq as its own parameter, so that any character works: a real server that asks a
role for its password (SCRAM) lets the bot in with a password made of every character a URL would mangle, given as
``NAPKIN_DATABASE_PASSWORD`` beside a URL that names none, and refuses a wrong one (so the password is really asked
for). The same password pasted into the URL, as the compose file did before, does not get in."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from storage import Database, ReadTx, StorageError
from tests.postgres_cluster import Cluster, start_cluster

pytestmark = pytest.mark.slow  # the PostgreSQL runs: every test here starts a real PostgreSQL server

ROOT = Path(__file__).resolve().parents[2]
ROLE = "napkin_password"
PASSWORD = "p@ss:w/rd?#%20&x=1 'single' \"double\" \\back\\slash é€ $HOME ${X} ;--"
"""Every character a URL or a shell would treat specially, and some that are not ASCII."""


@pytest.fixture(scope="module")
def password_cluster() -> Iterator[Cluster]:
    """A cluster of its own whose role :data:`ROLE` must give :data:`PASSWORD` (the other roles keep trust)."""
    for cluster in start_cluster():
        assert cluster.data is not None
        hba = cluster.data / "pg_hba.conf"
        hba.write_text(f"host all {ROLE} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        with psycopg.connect(cluster.url("postgres"), autocommit=True) as admin:
            admin.execute("SELECT pg_reload_conf()")
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(ROLE),
                                                                             sql.Literal(PASSWORD)))
            admin.execute(f"CREATE DATABASE napkin_password OWNER {ROLE}")
        yield cluster


def _url(cluster: Cluster) -> str:
    return f"postgresql://{ROLE}@{cluster.host}:{cluster.port}/napkin_password"


async def test_a_password_of_any_characters_opens_the_database(password_cluster: Cluster) -> None:
    db = await Database.open(_url(password_cluster), password=PASSWORD)
    try:
        assert await db.read(ReadTx.all_match_ids) == []  # connected, migrated, read
    finally:
        await db.close()
    with pytest.raises(StorageError, match="password authentication failed"):
        await Database.open(_url(password_cluster), password=PASSWORD + "x")
    with pytest.raises(StorageError, match="password"):
        await Database.open(_url(password_cluster))  # none given: the server asks for one


def _inspect(tmp_path: Path, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "inspect", "1"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), **environment})


def test_the_setting_gets_the_bot_in_where_the_url_could_not(password_cluster: Cluster, tmp_path: Path) -> None:
    url = _url(password_cluster)
    given = _inspect(tmp_path, NAPKIN_DATABASE=url, NAPKIN_DATABASE_PASSWORD=PASSWORD)
    assert given.returncode == 2 and given.stderr.startswith("napkin inspect: there is no match #1 in "), given.stderr
    assert PASSWORD not in given.stderr + given.stdout  # never printed
    pasted = url.replace(f"{ROLE}@", f"{ROLE}:{PASSWORD}@")  # what a URL with the password pasted in looks like
    refused = _inspect(tmp_path, NAPKIN_DATABASE=pasted)
    assert refused.returncode == 1 and "could not read" in refused.stderr
    both = _inspect(tmp_path, NAPKIN_DATABASE=url.replace(f"{ROLE}@", f"{ROLE}:secret@"),
                    NAPKIN_DATABASE_PASSWORD=PASSWORD)
    assert both.returncode == 2 and "NAPKIN_DATABASE names a password and NAPKIN_DATABASE_PASSWORD gives one" in (
        both.stderr)
    assert not list(tmp_path.iterdir())  # nothing written here


def test_a_password_is_refused_for_a_sqlite_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="PostgreSQL"):
        asyncio.run(Database.open(tmp_path / "bot.db", password="secret"))
    assert not (tmp_path / "bot.db").exists()
