"""``/rules`` is free to read: a newcomer reads every game's rules in a row, never refused, each example board drawn
once per process."""

from __future__ import annotations

from typing import Any

import pytest

import renderers
from bot.exts import community
from games import GAMES
from storage import Database
from tests.reliability._support import World

# ---------------------------------------------------------------- /rules is free to read


async def test_a_newcomer_reads_every_games_rules_in_a_row_and_each_board_is_drawn_once(
        simcord_env, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # reading the rules of 4 games in a row got the 4th refused with a cooldown
    world = World(simcord_env, "newcomer")
    community.example_board.cache_clear()
    drawn: list[str] = []
    real = renderers.render

    def counted(state: Any, *args: Any, **kwargs: Any) -> bytes:
        drawn.append(type(state).__name__)
        return real(state, *args, **kwargs)

    monkeypatch.setattr(renderers, "render", counted)
    for game in [*GAMES, *GAMES]:  # every game, twice
        read = await world["newcomer"].slash(world.channel, "rules", game=game)
        assert read.ephemeral and read.response.embeds[0].title == f"{GAMES[game].title}: rules"
        assert read.response.attachments[0].filename == "example.png"
    assert len(drawn) == len(GAMES)  # each example board drawn once in this process
