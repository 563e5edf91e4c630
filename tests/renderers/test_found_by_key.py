"""The renderers find a game's board by the game's key, where it lives: ``renderers/<key>.py`` for the five games,
and the module added with :func:`renderers.add_renderer` for a game kept outside (the tests' tic-tac-toe)."""

from __future__ import annotations

import pytest

import renderers
from games import GAMES


@pytest.mark.parametrize("key", sorted(GAMES))
def test_every_game_has_its_board_found_by_its_key(key: str) -> None:
    module = renderers.renderer_for(key)
    expected = "tests.extra_games.tictactoe_board" if key == "tictactoe" else f"renderers.{key}"
    assert module.__name__ == expected
    state = GAMES[key].new_state()
    names = ["Ann", "Bob"][: state.seats]
    assert renderers.render(state, names) == module.render(state, names)


def test_a_second_renderer_for_a_game_is_refused_and_the_same_one_is_kept() -> None:
    renderers.add_renderer("tictactoe", "tests.extra_games.tictactoe_board")  # the same again: nothing changes
    with pytest.raises(ValueError, match="already has the renderer"):
        renderers.add_renderer("tictactoe", "renderers.chopsticks")
    assert renderers.renderer_for("tictactoe").__name__ == "tests.extra_games.tictactoe_board"


def test_a_game_the_registry_does_not_know_has_no_board() -> None:
    with pytest.raises(KeyError):
        renderers.renderer_for("standings")  # a module of the package, not a game
