"""Discord's contract (bot/contract, checked on every request of the suite by tests/contract_plugin.py): the check
fails what Discord would refuse; the command tree fits with room for translations; ``napkin sync --check``; the bot
refuses to sync a tree Discord would refuse; a tournament's final news of 40 long names fits Discord's messages."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from discord import app_commands

from bot import cli
from bot.client import CommandTreeRefused, NapkinBot, built_command_tree
from bot.contract import COMMAND_CHARACTERS, MESSAGE_CONTENT, command_size, contract
from bot.service import Player, load_state
from bot.utils.names import escape
from bot.utils.splitting import pack
from storage import Database, ReadTx
from tests.bot.helpers import World
from tests.reliability._support import legal_texts, match_of
from tests.simcord_session import simcord_session

TREE_BUDGET = 3000
"""What every command may take in English, leaving a quarter of Discord's 4,000 for longer translations."""


def _payload(command: app_commands.Command[Any, ..., None]) -> dict[str, Any]:
    """The command as discord.py sends it."""
    return command.to_dict(app_commands.CommandTree(discord.Client(intents=discord.Intents.none())))


def _big_command(size: int) -> app_commands.Command[Any, ..., None]:
    """A command of exactly ``size`` characters as Discord counts them (names, descriptions, choice values)."""

    async def big(interaction: discord.Interaction, first: str, second: str | None = None) -> None:
        return None

    command = app_commands.Command(name="big", description="d" * 100, callback=big)
    command._params["first"].description = "f"
    command._params["second"].description = "s"
    left = size - command_size(_payload(command))
    choices = []
    while left > 0:
        name = "c" * min(100, left)
        value = "v" * min(100, left - len(name))
        choices.append(app_commands.Choice(name=name, value=value))
        left -= len(name) + len(value)
    command._params["first"].choices = choices
    payload = _payload(command)
    assert command_size(payload) == size, command_size(payload)
    return command


async def _two_members(env: Any) -> World:
    return World(env, "alice", "bob")


async def test_an_embed_over_4096_characters_is_refused_with_its_field_and_limit(simcord_env, discord_contract) -> None:
    world = await _two_members(simcord_env)
    channel = simcord_env.bot.get_channel(world.channel.id)
    with discord_contract.expected() as refused, pytest.raises(discord.HTTPException) as raised:
        await channel.send(embed=discord.Embed(title="t", description="x" * 4097))
    assert raised.value.status == 400 and raised.value.code == 50035
    assert [(b.route, b.field) for b in refused] == [
        ("POST /channels/{channel_id}/messages", "$.embeds[0].description")]
    assert "at most 4,096 characters: 4,097 sent" in refused[0].limit
    assert not world.channel.history(), "nothing Discord would refuse reaches the channel"


@pytest.fixture
def probe_bot(db: Database) -> NapkinBot:
    """The bot with one more command, ``/probe``, whose autocomplete offers 26 choices (one more than Discord takes)."""
    bot = NapkinBot(db)

    @app_commands.command(name="probe", description="Offers one choice too many")
    async def probe(interaction: discord.Interaction, value: str) -> None:
        await interaction.response.send_message(value)

    @probe.autocomplete("value")
    async def suggest(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=f"choice {n}", value=str(n)) for n in range(26)]

    bot.tree.add_command(probe)
    return bot


async def test_a_26th_autocomplete_choice_is_refused(probe_bot, discord_contract) -> None:
    async with simcord_session(probe_bot, settle_timeout=60.0) as env:
        world = await _two_members(env)
        with discord_contract.expected() as refused:
            await world["alice"].autocomplete(world.channel, "probe", "value", "")
    assert [b.field for b in refused] == ["$.data.choices"], refused
    assert refused[0].limit == "at most 25 choices: 26 sent"


async def test_a_4001_character_command_is_refused_and_the_bot_does_not_send_it(simcord_env, discord_contract) -> None:
    bot = simcord_env.bot
    bot.tree.add_command(_big_command(COMMAND_CHARACTERS + 1))
    with discord_contract.expected() as refused, pytest.raises(app_commands.CommandSyncFailure):
        await bot.tree.sync()
    assert [(b.field, b.limit) for b in refused] == [
        ("/big", "at most 4,000 characters (longest localizations): 4,001 sent")]
    sent = len(simcord_env.http_requests)
    with pytest.raises(CommandTreeRefused, match="/big: at most 4,000 characters"):
        await bot.sync_commands(force=True)
    assert len(simcord_env.http_requests) == sent, "a tree Discord would refuse is never sent"


def test_a_4000_character_command_is_accepted() -> None:
    payload = _payload(_big_command(COMMAND_CHARACTERS))
    assert contract().check_commands([payload]) == []


def test_every_command_fits_with_room_for_translations() -> None:
    commands = asyncio.run(built_command_tree())
    sizes = {command["name"]: command_size(command) for command in commands}
    assert contract().check_commands(commands) == []
    assert max(sizes.values()) <= TREE_BUDGET, sizes
    assert "tournament" in sizes and len(sizes) >= 14


def test_every_command_reads_in_each_shipped_language_and_keeps_its_names() -> None:
    """The translator gives each command's description in French, German, Spanish and Brazilian Portuguese, choices
    too; names (commands, groups, options) stay English in every language (bot/translator.py)."""
    commands = {command["name"]: command for command in asyncio.run(built_command_tree())}
    for locale in ("fr", "de", "es-ES", "pt-BR"):
        for name in ("match", "tournament", "chopsticks", "settings", "help"):
            localized = commands[name].get("description_localizations") or {}
            assert localized.get(locale) and localized[locale] != commands[name]["description"], (name, locale)
    assert commands["match"]["description_localizations"]["fr"] == "Vos parties"
    level = next(option for sub in commands["chopsticks"]["options"] if sub["name"] == "start"
                 for option in sub["options"] if option["name"] == "level")
    assert {choice["name"]: choice["name_localizations"].get("de") for choice in level["choices"]} == {
        "easy": "leicht", "medium": "mittel", "hard": "schwer", "perfect": "perfekt"}

    def names(item: dict) -> list[object]:
        found = [item.get("name_localizations")] if "description" in item else []
        return found + [name for option in item.get("options", []) for name in names(option)]

    assert not any(found for command in commands.values() for found in names(command))


def test_napkin_sync_check_prints_each_command_within_its_limit(capsys) -> None:
    assert cli.main(["sync", "--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    sizes = [line for line in out if line.startswith("/")]
    assert any(line.startswith("/tournament ") for line in sizes)
    for line in sizes:
        size = int(line.split()[1].replace(",", ""))
        assert size <= TREE_BUDGET and line.endswith("of 4,000 characters"), line
    assert out[-1].endswith("each within Discord's limits (longest localizations counted).")
    per_language = next(line for line in out if line.startswith("largest command per language: "))
    sizes = dict(part.split() for part in per_language.removeprefix("largest command per language: ").split(" · "))
    assert {"en-US", "fr", "de", "es-ES", "pt-BR"} <= set(sizes)
    assert all(int(size.replace(",", "")) <= TREE_BUDGET for size in sizes.values())


def test_napkin_sync_check_fails_on_a_4001_character_command(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = NapkinBot.load_extensions

    async def with_big(self: NapkinBot) -> None:
        await loaded(self)
        self.tree.add_command(_big_command(COMMAND_CHARACTERS + 1))

    monkeypatch.setattr(NapkinBot, "load_extensions", with_big)
    assert cli.main(["sync", "--check"]) == 1
    captured = capsys.readouterr()
    assert any(line.split() == ["/big", "4,001", "of", "4,000", "characters"] for line in captured.out.splitlines())
    assert "refused: /big: at most 4,000 characters (longest localizations): 4,001 sent" in captured.out
    assert captured.err.startswith("napkin sync --check: Discord would refuse this command tree (1 breach above)")


def test_napkin_run_says_in_one_line_that_the_tree_would_be_refused(capsys, monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "token")
    monkeypatch.setenv("NAPKIN_DATABASE", str(tmp_path / "napkin.db"))
    monkeypatch.setenv("NAPKIN_COMPUTER_WORKERS", "1")
    breach = contract().check_commands([_payload(_big_command(COMMAND_CHARACTERS + 1))])

    async def refused(bot: Any, token: str) -> None:
        raise CommandTreeRefused(breach)

    async def accepted(self: Any, token: str) -> dict[str, Any]:  # Discord takes the token (the start's own check)
        return {}

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", accepted)
    assert cli._with_bot("run", refused) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("napkin run:")]
    assert err == ["napkin run: Discord would refuse the command tree, so it was not synced: /big: at most 4,000 "
                   "characters (longest localizations): 4,001 sent; napkin sync --check lists every command's size."]


# ---------------------------------------------------------------- texts that grow with the members


def test_pack_measures_the_real_length_and_keeps_the_order() -> None:
    names = [f"**{escape('a_b_' * 8)}**" for _ in range(40)]  # 32 characters each, 52 once escaped and bold
    messages = pack(names, lead="Thanks for playing: ", more_lead="and: ", end=".")
    assert len(messages) == 2
    assert all(len(message.text) <= MESSAGE_CONTENT for message in messages)
    assert [i for message in messages for i in message.indexes] == list(range(40))
    pinged = pack(["<@1>"] * 150, mentions=[True] * 150)
    assert [len(message.indexes) for message in pinged] == [100, 50]


async def test_a_tournament_of_40_long_names_with_pings_off_ends_with_its_thanks_posted(simcord_env, db) -> None:
    env = simcord_env
    names = [f"{n:02}" + "_*" * 15 for n in range(40)]  # 32 characters, each markdown character escaped
    world = World(env, *names)
    guild = world.guild.id
    created = await world[names[0]].slash(world.channel, "tournament create", game="chopsticks", name="Long names",
                                          rounds=1)
    assert "opens tournament" in created.response.content
    tournament = (await db.fetchall("SELECT id FROM tournaments"))[0][0]
    for name in names:
        await env.bot.services.vacations.set_prefs(world[name].id, dm_turns=None, pings=False)
        await env.bot.services.tournaments.join(tournament, guild, Player(world[name].id, name))
    await world[names[0]].slash(world.channel, "tournament start", tournament=str(tournament))
    games = [board for board in await db.read(ReadTx.tournament_pairings, tournament, 1) if board.kind == "game"]
    assert len(games) == 20
    with env._bot_scope():  # (SimCord's private scope: the task woken by the last end is the bot's)
        for board in games:
            for _ in range(2):
                match = await match_of(db, board.match_id)
                await env.bot.services.moves.play(match.id, guild, match.seats[match.current_seat].user_id,
                                                  legal_texts(load_state(match), 1)[0])
            await env.bot.services.endings.resign(board.match_id, guild, board.second_id)
    await env.advance_time(60)
    thanks = [m.content for m in world.channel.history() if m.content.startswith(("Thanks for playing", "and: "))]
    assert len(thanks) >= 2, thanks
    assert all(len(text) <= MESSAGE_CONTENT and "<@" not in text for text in thanks)
    shown = "".join(thanks)
    assert all(f"**{escape(name)}**" in shown for name in names), "every player thanked"
    assert (await env.bot.services.tournament_reading.get(tournament, guild)).status == "finished"
    assert await db.fetchall("SELECT kind FROM outbox") == [], "the final news is delivered"
