"""Bad input to ``/tournament``: every refusal the issue names (entering twice, entering a running round robin,
starting with fewer than two players, another server's tournament, a game with no two-player mode, and the rest),
each an ephemeral reply quoting what was typed, changing nothing; and 200 random option values to each
``/tournament`` command, none of which changes anything or crashes the bot."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from discord import app_commands
from simcord import OptionError, SetupError

from bot.errors import GENERIC as GENERIC_TEXT
from storage import Database
from tests.reliability._support import (
    World,
    assert_no_mention_escapes,
    ephemeral_refusal,
    full_snapshot,
    quick_settle,
    start_discord_match,
)

GENERIC = str(GENERIC_TEXT)  # the English reply (the tests' members read English)

ATTEMPTS = 200
"""Random attempts per command."""


async def _tournament(world: World, organizer: str, name: str, players: list[str], **options: Any) -> int:
    created = await world[organizer].slash(world.channel, "tournament create", game="chopsticks", name=name,
                                          **options)
    assert not created.ephemeral, created.response.content
    number = int(created.response.content.split("#", 1)[1].split(" ", 1)[0])
    for player in players:
        joined = await world[player].slash(world.channel, "tournament join", tournament=str(number))
        assert not joined.ephemeral, joined.response.content
    return number


async def _refused(env: Any, db: Database, actor: Any, channel: Any, command: str, **options: Any) -> str:
    """Run a command that must be refused: an ephemeral reply, not the crash message; every table unchanged."""
    before = await full_snapshot(db)
    with quick_settle(env):
        result = await actor.slash(channel, command, **options)
    text = ephemeral_refusal(result)
    assert await full_snapshot(db) == before, (command, options)
    return text


@pytest.mark.both_backends
async def test_every_refusal_quotes_what_was_typed_and_changes_nothing(simcord_env, db: Database) -> None:
    home = World(simcord_env, "alice", "bob", "carol")
    away = World(simcord_env, "dave", "erin")
    cup = await _tournament(home, "alice", "Cup", ["alice", "bob"])
    league = await _tournament(home, "alice", "League", ["alice", "bob"], format="round_robin")
    await home["alice"].slash(home.channel, "tournament start", tournament=str(league))
    lonely = await _tournament(home, "carol", "Lonely", ["carol"])
    foreign = await _tournament(away, "dave", "Far away", ["dave"])
    refusals = [
        (home["bob"], "tournament join", {"tournament": str(cup)}, f"You are in #{cup} “Cup” already"),
        (home["carol"], "tournament join", {"tournament": str(league)},
         f"#{league} “League” is a round robin under way"),
        (home["carol"], "tournament start", {"tournament": str(lonely)}, "needs at least 2 players to start; 1 is"),
        (home["bob"], "tournament join", {"tournament": str(foreign)}, f"There is no tournament #{foreign} in this"),
        (home["bob"], "tournament info", {"tournament": f"#{foreign}"}, f"There is no tournament #{foreign}"),
        (home["bob"], "tournament create", {"game": "groebner_nim", "name": "Solo", "variant": "mode:solitaire"},
         "played alone"),
        (home["bob"], "tournament create", {"game": "chopsticks", "name": "Odd", "variant": "rollover:maybe"},
         "Option `rollover` is true or false, not `maybe`"),
        (home["bob"], "tournament create", {"game": "chopsticks", "name": "Odd", "variant": "n:6"},
         "There is no option `n`; the options are rollover"),
        (home["bob"], "tournament create", {"game": "chopsticks", "name": "Odd", "variant": "quick please"},
         "`quick please` is not a list of options"),
        (home["bob"], "tournament join", {"tournament": "spring"}, "`spring` is not a tournament number"),
        (home["bob"], "tournament join", {"tournament": "9" * 30}, "`" + "9" * 30 + "` is not a tournament number"),
        (home["bob"], "tournament start", {"tournament": str(cup)}, f"Only the organizer of #{cup} “Cup”"),
        (home["bob"], "tournament cancel", {"tournament": str(cup)}, f"Only the organizer of #{cup} “Cup”"),
        (home["bob"], "tournament join", {"tournament": str(cup), "computer": "hard"}, "can enter the computer"),
        (home["bob"], "tournament leave", {"tournament": str(league)}, f"#{league} “League” has started"),
        (home["bob"], "tournament withdraw", {"tournament": str(cup)}, "has not started: `/tournament leave`"),
        (home["carol"], "tournament withdraw", {"tournament": str(league)}, f"You are not in #{league}"),
        (home["bob"], "tournament create", {"game": "chopsticks", "name": "x", "format": "round_robin", "rounds": 3},
         "`rounds:3` is for a Swiss"),
        (home["bob"], "tournament create", {"game": "chopsticks", "name": "n" * 80}, "`" + "n" * 40 + "…` cannot name"),
        (home["bob"], "tournament create", {"game": "differences", "name": "Big", "variant": "n:15",
                                             "format": "round_robin", "max_players": 40},
         "`max_players:40` is too many"),
        (away["dave"], "tournament end-game", {"tournament": str(league), "match": "1"}, "in this server"),
    ]
    for actor, command, options, expected in refusals:
        if command.startswith("tournament create"):
            await simcord_env.advance_time(21)  # (three creations a minute per member)
        channel = away.channel if actor in away.members.values() else home.channel
        text = await _refused(simcord_env, db, actor, channel, command, **options)
        assert expected in text, (command, options, text)
    match = await start_discord_match(home, db, "chopsticks")  # an ordinary match is no tournament's game
    text = await _refused(simcord_env, db, home["alice"], home.channel, "tournament end-game",
                          tournament=str(league), match=str(match))
    assert f"Match #{match} is not a game of tournament #{league}" in text
    text = await _refused(simcord_env, db, home["carol"], home.channel, "tournament leave")
    assert "several tournaments" in text or "no open tournament" in text


# ---------------------------------------------------------------- 200 random values each


def _text(rng: random.Random) -> str:
    kind = rng.randrange(7)
    if kind == 0:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 60)))
    if kind == 1:
        return "".join(chr(rng.randrange(0x20, 0x2FFFF)) for _ in range(rng.randrange(1, 30)))
    if kind == 2:
        return str(rng.randrange(-10**20, 10**20))
    if kind == 3:
        return rng.choice(["'; DROP TABLE tournaments; --", "@everyone", "<@&1>", "#0", "-1", "1e9", "NaN", "\x00",
                           "１", "٣", "**x**", "a\nb"])
    if kind == 4:
        return "x" * rng.randrange(101, 5000)
    if kind == 5:
        return f"{rng.random() * 1000:.3f}"
    return ""


def _integer(rng: random.Random) -> Any:
    return rng.choice([rng.randrange(-10**12, 0), rng.randrange(10**4, 10**15), rng.random(), _text(rng), True,
                       float("nan"), 2**64])


def _value(rng: random.Random, parameter: app_commands.Parameter) -> Any:
    """A random value for ``parameter``: mostly out of its type, range or choices."""
    if parameter.choices or parameter.type.name in ("string",):
        if rng.random() < 0.3 and parameter.choices:
            return rng.choice(parameter.choices).value  # a valid choice now and then (another option is not)
        return _text(rng)
    if parameter.type.name in ("integer", "number"):
        return _integer(rng)
    if parameter.type.name == "boolean":
        return rng.choice([_text(rng), rng.randrange(2, 10), 0.5])
    return _text(rng)


def _tournament_commands(tree: app_commands.CommandTree) -> dict[str, app_commands.Command[Any, ..., Any]]:
    group = tree.get_command("tournament")
    assert isinstance(group, app_commands.Group)
    return {leaf.qualified_name: leaf for leaf in group.walk_commands() if isinstance(leaf, app_commands.Command)}


HOSTILE_TOURNAMENT = ("name", "tournament")
"""The option that is always given a value naming nothing these commands may change (so that no random attempt of a
command that changes things could be a valid one)."""
READ_ONLY = {"tournament standings", "tournament info", "tournament list"}


@pytest.mark.slow  # a sweep: 200 random values to each command
async def test_two_hundred_random_values_to_each_command_change_nothing(simcord_env, db: Database) -> None:
    home = World(simcord_env, "alice", "bob", "carol")
    away = World(simcord_env, "dave", "erin")
    cup = await _tournament(home, "alice", "Cup", ["alice", "bob", "carol"])
    await home["alice"].slash(home.channel, "tournament start", tournament=str(cup))
    foreign = await _tournament(away, "dave", "Far", ["dave", "erin"])
    commands = _tournament_commands(simcord_env.bot.tree)
    assert {"tournament join", "tournament leave", "tournament start", "tournament withdraw",
            "tournament standings", "tournament info", "tournament list", "tournament cancel",
            "tournament end-game", "tournament create"} <= set(commands)
    rng = random.Random(26)
    since = len(simcord_env.http_requests)
    counts = {"discord": 0, "bot": 0, "answered": 0}
    for name, command in sorted(commands.items()):
        for _ in range(ATTEMPTS):
            options = {p.display_name: _value(rng, p) for p in command.parameters if rng.random() < 0.7 or p.required}
            if name not in READ_ONLY:
                for hostile in HOSTILE_TOURNAMENT:
                    if any(p.display_name == hostile for p in command.parameters):
                        options[hostile] = rng.choice([str(foreign), f"#{foreign}", "0", _text(rng) + "z",
                                                       str(10**30)]) if hostile == "tournament" else \
                            rng.choice(["", " ", "x" * 61 + "y" * rng.randrange(0, 39), "bad\x00name", "\u200b"])
            before = await full_snapshot(db)
            try:
                with quick_settle(simcord_env):
                    result = await bob_or_alice(home, rng).slash(home.channel, name, **options)
            except (OptionError, SetupError):
                counts["discord"] += 1
            else:
                assert result.acknowledged, (name, options)
                text = result.response.content if result.response else ""
                assert text != GENERIC, (name, options)
                shown = result.response.embeds if result.response else []
                if (name in READ_ONLY and not result.ephemeral) or (name == "tournament info" and shown):
                    counts["answered"] += 1
                else:
                    ephemeral_refusal(result)
                    counts["bot"] += 1
            assert await full_snapshot(db) == before, (name, {k: str(v)[:40] for k, v in options.items()})
    assert counts["bot"] > 300 and counts["discord"] > 300
    members = [m.id for m in (*home.members.values(), *away.members.values())]
    assert_no_mention_escapes(simcord_env, members, since=since)
    print(f"\nrandom /tournament values: {sum(counts.values())} tried over {len(commands)} commands; refused by "
          f"Discord {counts['discord']}, by the bot {counts['bot']}; {counts['answered']} read-only answers")


def bob_or_alice(world: World, rng: random.Random) -> Any:
    """The organizer (alice) or an entrant (bob): every attempt as someone who could act on a real tournament."""
    return world["alice"] if rng.random() < 0.5 else world["bob"]
