"""Games that exist only for the tests: a sixth game registered through the same mechanism as the real five
(``games.add_game_package``), to prove that every generic suite serves a new game with no edit outside its files."""
