"""The client around the games: command sync only on change, the CLI's run and demo commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import cli
from bot.client import NapkinBot, discover_extensions
from bot.demo import run_demo
from storage import Database


def _syncs(env) -> int:
    return sum(1 for r in env.http_requests if r.method == "PUT" and r.path.endswith("/commands"))


async def test_commands_sync_only_when_the_tree_changed(simcord_env, db: Database, db_path: Path) -> None:
    assert _syncs(simcord_env) == 1  # first start on a fresh database
    reopened = await Database.open(db_path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        assert _syncs(simcord_env) == 1  # same tree: no sync at the restart
        changed = NapkinBot(reopened)
        original = changed.setup_hook

        async def setup_with_extra_command() -> None:
            @changed.tree.command(name="ping", description="extra command")
            async def ping(interaction) -> None:  # pragma: no cover - never invoked
                await interaction.response.send_message("pong")

            await original()

        changed.setup_hook = setup_with_extra_command  # type: ignore[method-assign]
        await simcord_env.restart_bot(changed)
        assert _syncs(simcord_env) == 2  # the tree changed: synced once more
    finally:
        await reopened.close()


def test_every_extension_is_discovered() -> None:
    names = discover_extensions()
    for expected in ("chopsticks", "differences", "napkin", "polygons", "groebner", "match", "community",
                     "deadlines"):
        assert f"bot.exts.{expected}" in names
    assert "bot.exts._common" not in names


def test_run_without_token_exits_with_an_explanation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "DISCORD_TOKEN" in err


async def test_demo_writes_boards_and_replays_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await run_demo(tmp_path / "out", games=["chopsticks"], seed=3)
    boards = sorted((tmp_path / "out" / "chopsticks").glob("*.png"))
    assert any(p.name == "match1-final.png" for p in boards)
    assert any(p.name == "match1-ply001.png" for p in boards)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in boards)
    printed = capsys.readouterr().out
    assert "log replays to the stored state: yes" in printed
    assert "NO" not in printed


def test_backup_command_copies_the_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio
    import sqlite3

    source = tmp_path / "live.db"

    async def make() -> None:
        db = await Database.open(source)
        await db.close()

    asyncio.run(make())
    assert cli.main(["backup", str(tmp_path / "copy.db"), "--database", str(source)]) == 0
    copy = sqlite3.connect(tmp_path / "copy.db")
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert copy.execute("SELECT COUNT(*) FROM matches").fetchone() == (0,)
    finally:
        copy.close()
    assert "backed up" in capsys.readouterr().out
