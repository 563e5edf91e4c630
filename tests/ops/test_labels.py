"""Metric labels from a closed set: the ``command`` label of an interaction is a command of the bot's registered
tree, a kind of its persistent buttons (their registered templates matched whole), or ``other``. A thousand forged
interactions (made-up button ids such as ``napkin:<letters>:1``, ids that start like a real button's, made-up
commands and subcommands, autocomplete of made-up commands) through the real client under SimCord add no series to
``/metrics``; they are counted under ``other``, and a forged command is answered as a refusal, not as a bug."""

from __future__ import annotations

import random
import re
import string
from typing import Any

import pytest
from discord import InteractionType

from bot.client import NapkinBot
from bot.errors import STALE_COMMAND as STALE_COMMAND_TEXT
from bot.ops.metrics import ERROR_KINDS
from tests.bot.helpers import World
from tests.ops._page import samples

FORGED = 1000


def _series(exposition: str) -> set[str]:
    """Every series in a ``/metrics`` body: its name with its labels."""
    return {line.rsplit(" ", 1)[0] for line in exposition.splitlines() if line and not line.startswith("#")}


def _forged_id(rng: random.Random) -> str:
    letters = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(1, 16)))
    return rng.choice([
        f"napkin:{letters}:1",  # a made-up kind
        f"napkin:mv:{letters}",  # a real kind's start, not its template
        f"napkin:ch:{rng.randint(1, 10**6)}:{letters}",
        f"napkin:rm:{rng.randint(1, 10**6)}:{letters}",
        f"napkin:mv:{rng.randint(1, 10**6)}",
        "".join(rng.choices(string.printable, k=rng.randint(1, 100))),
    ])


async def _forge(actor: Any, channel: Any, rng: random.Random, bot: NapkinBot) -> str:
    """Send one forged interaction as ``actor``; return what it was."""
    letters = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(1, 16)))
    shape = rng.randrange(4)
    if shape == 0:
        data: dict[str, Any] = {"component_type": 2, "custom_id": _forged_id(rng)}
        kind = InteractionType.component.value
    elif shape == 1:
        data = {"id": str(rng.randint(1, 10**18)), "type": 1, "name": f"napkin{letters}"}
        kind = InteractionType.application_command.value
    elif shape == 2:  # a real command's made-up subcommand
        real = rng.choice([command.name for command in bot.tree.get_commands()])
        data = {"id": str(rng.randint(1, 10**18)), "type": 1, "name": real,
                "options": [{"type": 1, "name": letters, "options": []}]}
        kind = InteractionType.application_command.value
    else:
        data = {"id": str(rng.randint(1, 10**18)), "type": 1, "name": f"x{letters}",
                "options": [{"type": 3, "name": "match", "value": "", "focused": True}]}
        kind = InteractionType.autocomplete.value
    await actor._dispatch_interaction(kind, channel, data)  # SimCord's gateway, as Discord would send it
    options = data.get("options") or [{}]
    return str(data.get("custom_id") or f"{data['name']} {options[0].get('name', '')}")


@pytest.mark.slow  # a sweep: a thousand forged interactions
async def test_a_thousand_forged_ids_add_no_series(simcord_env: Any, simcord_bot: NapkinBot) -> None:
    world = World(simcord_env, "alice", "bob")
    alice, bob = world["alice"], world["bob"]
    challenge = await alice.slash(world.channel, "chopsticks start", opponent=bob)  # real ones, for the baseline
    await bob.click(challenge.response, label="Accept")
    await alice.slash(world.thread(), "chopsticks move", notation="LL")
    rng = random.Random(45)
    for actor in (alice, bob):  # one of each shape first, so that `other` has its series before counting
        for _ in range(8):
            await _forge(actor, world.channel, rng, simcord_bot)
    before = simcord_bot.metrics.exposition().decode()
    forged = [await _forge(rng.choice((alice, bob)), world.channel, rng, simcord_bot) for _ in range(FORGED)]
    after = simcord_bot.metrics.exposition().decode()

    assert len(set(forged)) > FORGED * 0.9  # a thousand different ids and names
    assert _series(after) - _series(before) == set()  # not one new series
    commands = {re.search(r'command="([^"]*)"', key)[1]  # type: ignore[index]
                for key in samples(after, "napkin_interactions_total")}
    registered = {f"/{name}" for name in _command_paths(simcord_bot)}
    assert commands <= registered | {"button:mv", "button:ch", "button:rm", "other"}, commands
    counted = samples(after, "napkin_interactions_total")
    grown = {key: value - samples(before, "napkin_interactions_total").get(key, 0.0) for key, value in counted.items()
             if value != samples(before, "napkin_interactions_total").get(key, 0.0)}
    assert set(grown) <= {'command="other",outcome="ignored"', 'command="other",outcome="rejected"'}, grown
    assert sum(grown.values()) == sum(not name.startswith("x") for name in forged)  # autocomplete is not counted
    assert samples(after, "napkin_errors_total") == dict.fromkeys((f'kind="{kind}"' for kind in ERROR_KINDS), 0.0)


async def test_a_made_up_command_is_refused_and_no_bug_is_logged(simcord_env: Any, simcord_bot: NapkinBot) -> None:
    world = World(simcord_env, "alice")
    result = await world["alice"]._dispatch_interaction(
        InteractionType.application_command.value, world.channel, {"id": "1", "type": 1, "name": "napkinfree"})
    assert result.ephemeral and result.response.content == str(STALE_COMMAND_TEXT)
    assert samples(simcord_bot.metrics.exposition().decode(), "napkin_interactions_total") == {
        'command="other",outcome="rejected"': 1.0}


def _command_paths(bot: NapkinBot) -> set[str]:
    """Every invocable command of the tree, with its groups: ``match review``."""
    paths = set()
    for command in bot.tree.walk_commands():
        if not hasattr(command, "walk_commands"):
            paths.add(command.qualified_name)
    return paths
