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


@pytest.mark.both_backends
async def test_commands_sync_only_when_the_tree_changed(simcord_env, db: Database) -> None:
    assert _syncs(simcord_env) == 1  # first start on a fresh database
    reopened = await Database.open(db.path)
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
    for expected in ("match", "community", "deadlines"):
        assert f"bot.exts.{expected}" in names
    assert not [name for name in names if name.rsplit(".", 1)[1].startswith("_")]


async def test_every_registered_game_has_its_command_group(simcord_env) -> None:
    from games import GAMES

    tree = simcord_env.bot.tree
    for key in GAMES:
        group = tree.get_command(GAMES[key].command)
        assert group is not None, key
        names = {command.name for command in group.commands}
        assert {"start", *(move.name for move in GAMES[key].moves)} <= names
    assert tree.get_command("napkin").get_command("free") is not None  # a game module's extra command


@pytest.mark.both_backends
async def test_a_forced_sync_syncs_an_unchanged_tree(simcord_env, db: Database) -> None:
    assert _syncs(simcord_env) == 1
    reopened = await Database.open(db.path)
    try:
        forced = NapkinBot(reopened)
        forced.force_sync = True
        await simcord_env.restart_bot(forced)
        assert _syncs(simcord_env) == 2
    finally:
        await reopened.close()


async def test_the_sync_hash_covers_the_application(simcord_env) -> None:
    bot = simcord_env.bot
    digest = bot.command_tree_hash()
    real = bot.application_id
    bot._connection.application_id = 42  # as if the database had been used by another Discord application
    try:
        assert bot.command_tree_hash() != digest
    finally:
        bot._connection.application_id = real
    assert bot.command_tree_hash() == digest


def test_run_without_token_exits_with_an_explanation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "DISCORD_TOKEN" in err


@pytest.mark.parametrize(("error", "expected"), [
    ("login", "rejected the token"), ("network", "could not reach Discord")])
def test_run_with_a_bad_token_or_no_network_says_so_in_one_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], error: str,
        expected: str) -> None:
    import aiohttp
    import discord

    async def refuse(self, token: str) -> None:
        if error == "login":
            raise discord.LoginFailure("Improper token has been passed.")
        raise aiohttp.ClientConnectionError("Cannot connect to host discord.com:443")

    monkeypatch.setenv("DISCORD_TOKEN", "not-a-token")
    monkeypatch.setenv("NAPKIN_DATABASE", str(tmp_path / "bot.db"))
    monkeypatch.setattr(discord.http.HTTPClient, "static_login", refuse)  # Discord's answer to the login
    monkeypatch.setattr(discord.utils, "setup_logging", lambda **kwargs: None)  # keep the root logger as it is
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err and "Traceback" not in err
    assert not (tmp_path / "bot.db").exists()  # Discord is tried before the database is opened


def test_demo_refuses_a_folder_it_did_not_make(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keep = tmp_path / "notes.txt"
    keep.write_text("mine")
    assert cli.main(["demo", "--out", str(tmp_path), "--game", "chopsticks"]) == 2
    assert "did not write" in capsys.readouterr().err
    assert keep.read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_demo_names_the_games_for_an_unknown_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from games import GAMES

    assert cli.main(["demo", "--out", str(tmp_path / "out"), "--game", "chess"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'chess'" in err and all(key in err for key in GAMES)
    assert not (tmp_path / "out").exists()


def test_demo_help_lists_the_game_keys(capsys: pytest.CaptureFixture[str]) -> None:
    from games import GAMES

    with pytest.raises(SystemExit):
        cli.main(["demo", "--help"])
    shown = capsys.readouterr().out
    assert all(key in shown for key in GAMES)


async def test_demo_rerun_replaces_only_its_own_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    await run_demo(out, games=["chopsticks"], seed=3)
    first = set(out.rglob("*.png"))
    await run_demo(out, games=["chopsticks"], seed=3)
    assert set(out.rglob("*.png")) == first


def test_backup_refuses_a_missing_database_and_an_existing_target(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["backup", str(tmp_path / "copy.db"), "--database", str(tmp_path / "typo.db")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "typo.db").exists() and not (tmp_path / "copy.db").exists()
    existing = tmp_path / "existing.db"
    existing.write_text("not mine")
    source = tmp_path / "live.db"
    import sqlite3
    sqlite3.connect(source).close()
    assert cli.main(["backup", str(existing), "--database", str(source)]) == 2
    assert existing.read_text() == "not mine"


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
