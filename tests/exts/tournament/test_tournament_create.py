"""``/tournament create``'s ``variant`` autocomplete, asked through Discord (SimCord): what it offers reads back as
the chosen game's options, completes what is typed, and never offers an option already given."""

from __future__ import annotations

import pytest

from games import GAMES, parse_options
from tests.bot.helpers import World


async def _offered(world: World, game: str, typed: str) -> list[tuple[str, str]]:
    choices = await world["alice"].autocomplete(world.channel, "tournament create", "variant", typed, game=game)
    return [(choice["name"], str(choice["value"])) for choice in choices]


@pytest.mark.parametrize("game", list(GAMES))
async def test_every_suggestion_reads_back_and_completes_what_is_typed(simcord_env, game: str) -> None:
    world = World(simcord_env, "alice")
    options = GAMES[game].options
    offered = await _offered(world, game, "")
    assert offered or all(option.kind == "text" for option in options)
    for label, value in offered:
        assert len(value) <= 100 and label.startswith(value)
        parse_options(options, value)
    if offered:
        first = offered[0][1]
        given = first.split(":", 1)[0]
        more = await _offered(world, game, f"{first} ")
        assert more or len(options) == 1, "the next option is offered after the first"
        assert all(value.startswith(f"{first} ") for _, value in more)
        assert not any(f" {given}:" in value for _, value in more), "an option given is not offered again"
        for _, value in more:
            parse_options(options, value)


async def test_what_is_typed_narrows_the_suggestions(simcord_env) -> None:
    world = World(simcord_env, "alice")
    offered = await _offered(world, "chopsticks", "spl")
    assert sorted(value for _, value in offered) == ["splits:even", "splits:none", "splits:transfer"]
    assert await _offered(world, "chopsticks", "nothing:") == []
