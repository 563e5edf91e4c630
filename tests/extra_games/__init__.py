"""Games that exist only for the tests: a sixth game registered through the same mechanisms as the real five, to prove
that every generic suite serves a new game with no edit outside its files. The game (``tictactoe.py``) is found by the
registry (``games.add_game_package``), its board (``tictactoe_board.py``) by the renderers
(``renderers.add_renderer``) and its buttons (``tictactoe_discord.py``) by the bot
(``bot.utils.boards.add_game_module``), each by the game's key; tests/conftest.py registers all three."""
