"""The bot finds a game's own Discord module by the game's key: ``bot/games/<key>.py`` where the game has one, the
module added with :func:`bot.utils.boards.add_game_module` for a game kept outside (the tests' tic-tac-toe), and
none for a game without Discord pieces of its own."""

from __future__ import annotations

import pytest

from bot.utils.boards import add_game_module, game_module
from games import GAMES

OWN = {"chopsticks": "bot.games.chopsticks", "groebner_nim": "bot.games.groebner_nim",
       "napkin_chess": "bot.games.napkin_chess", "tictactoe": "tests.extra_games.tictactoe_discord"}
"""The games with Discord pieces of their own, and where they live."""


@pytest.mark.parametrize("key", sorted(GAMES))
def test_each_game_s_discord_module_is_found_by_its_key(key: str) -> None:
    module = game_module(key)
    assert (module.__name__ if module is not None else None) == OWN.get(key)


def test_a_second_discord_module_for_a_game_is_refused() -> None:
    add_game_module("tictactoe", "tests.extra_games.tictactoe_discord")  # the same again: nothing changes
    with pytest.raises(ValueError, match="already has the Discord module"):
        add_game_module("tictactoe", "bot.games.chopsticks")
    with pytest.raises(KeyError):
        game_module("no_such_game")
