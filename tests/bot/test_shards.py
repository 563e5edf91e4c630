"""Shards per process: the settings that name them, the bot class that runs them, and who syncs the commands."""

from __future__ import annotations

import subprocess
import sys

import discord
import pytest
from discord.ext import commands

from bot import cli
from bot.client import TREE_HASH_KEY, NapkinBot
from bot.config import Settings, parse_shard_ids
from storage import Database, ReadTx, Shards
from tests.simcord_session import simcord_session


@pytest.mark.parametrize(("text", "ids"), [("0", (0,)), ("0,1", (0, 1)), ("0-3", (0, 1, 2, 3)),
                                           (" 2 - 3 , 0 ", (2, 3, 0)), ("0-1,4", (0, 1, 4))])
def test_shard_ids_are_read_as_ids_and_ranges(text: str, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text) == ids


def test_the_settings_give_the_shards_of_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAPKIN_SHARD_COUNT", "4")
    monkeypatch.setenv("NAPKIN_SHARD_IDS", "2-3")
    settings = Settings()
    assert (settings.shard_count, settings.shard_ids, settings.shards) == (4, (2, 3), Shards(4, (2, 3)))
    monkeypatch.delenv("NAPKIN_SHARD_IDS")
    assert Settings().shards is None  # every shard


@pytest.mark.parametrize(("count", "ids", "said"), [
    ("4", "0,4", "NAPKIN_SHARD_IDS='0,4': shard 4 is outside 0-3 (the shard count is 4)"),
    ("0", "", "NAPKIN_SHARD_COUNT='0': Input should be greater than or equal to 1"),
    ("two", "", "NAPKIN_SHARD_COUNT='two': Input should be a valid integer"),
    ("", "1", "NAPKIN_SHARD_IDS needs NAPKIN_SHARD_COUNT"),
    ("4", "3-1", "NAPKIN_SHARD_IDS='3-1': the range '3-1' runs backwards"),
    ("4", "1;2", "NAPKIN_SHARD_IDS='1;2': '1;2' is not a shard id or a range like 0-3"),
    ("4", "1,1", "NAPKIN_SHARD_IDS='1,1': shard 1 is named twice"),
])
def test_bad_shard_settings_stop_napkin_run_with_one_line(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str], count: str, ids: str,
                                                         said: str) -> None:
    monkeypatch.setenv("NAPKIN_SHARD_COUNT", count)
    monkeypatch.setenv("NAPKIN_SHARD_IDS", ids)
    monkeypatch.setenv("DISCORD_TOKEN", "not-used")
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"napkin run: {said}") and err.count("\n") == 1


NAMING_SCRIPT = """
import os, sys
from bot.config import Settings, settings_problem
os.environ.update(NAPKIN_SHARD_COUNT=sys.argv[1], NAPKIN_SHARD_IDS=sys.argv[2])
try:
    settings = Settings(_env_file=None)
except ValueError as error:
    print(settings_problem(error))
else:
    print(len(settings.shard_ids))
"""


@pytest.mark.parametrize(("count", "ids", "said"), [
    ("4", "0-200000", "NAPKIN_SHARD_IDS='0-200000': shard 200000 is outside 0-3 (the shard count is 4)"),
    ("4", "0-99999999999999999999", "shard 99999999999999999999 is outside 0-3"),
    ("65536", "0-65535", "65536"),  # the most shards there may be: every one named, each looked at once
    ("65536", "0-65535,0", "NAPKIN_SHARD_IDS='0-65535,0': shard 0 is named twice"),
    ("65537", "0", "NAPKIN_SHARD_COUNT='65537': Input should be less than or equal to 65536"),
])
def test_naming_shards_costs_what_is_named_not_what_is_typed(count: str, ids: str, said: str) -> None:
    # NAPKIN_SHARD_IDS=0-200000 with 4 shards was expanded, then checked for repeats in O(n²): still parsing after
    # 20 s. Ranges are now checked against the count before they are expanded, and repeats found in one pass. (A
    # child process, so that the old behaviour fails this test at the time-out instead of hanging the run.)
    done = subprocess.run([sys.executable, "-c", NAMING_SCRIPT, count, ids], capture_output=True, text=True,
                          timeout=60, check=True)
    assert said in done.stdout, done.stdout + done.stderr


async def test_the_bot_runs_the_shards_it_is_given(db: Database) -> None:
    bot = NapkinBot(db, shard_count=4, shard_ids=[2, 3])
    assert isinstance(bot, commands.AutoShardedBot)
    assert (bot.shard_count, bot.shard_ids, bot.served_shards) == (4, [2, 3], Shards(4, (2, 3)))
    assert bot.services.shards == Shards(4, (2, 3)) and not bot.syncs_commands
    assert NapkinBot(db, shard_count=4, shard_ids=[0, 1]).syncs_commands
    assert NapkinBot(db).served_shards is None and NapkinBot(db).shard_count == 1
    with pytest.raises(ValueError, match="outside"):
        NapkinBot(db, shard_count=2, shard_ids=[2])


@pytest.mark.parametrize(("ids", "syncs"), [([1], False), ([0], True)])
async def test_only_the_process_running_shard_zero_syncs_the_commands(db: Database, ids: list[int],
                                                                     syncs: bool) -> None:
    async with simcord_session(NapkinBot(db, shard_count=2, shard_ids=ids), settle_timeout=60.0,
                               strict_sync=False) as env:
        assert sorted(env.bot.shards) == ids  # type: ignore[attr-defined]
        synced = [r for r in env.http_requests if r.method == "PUT" and r.path.endswith("/commands")]
        assert len(synced) == int(syncs)
        assert (await db.read(ReadTx.get_meta, TREE_HASH_KEY) is not None) is syncs
        assert isinstance(env.bot, discord.AutoShardedClient)
