"""Each game's own Discord pieces, beside the commands built from its declaration: ``bot.games.<key>`` may define
``board_items(match, state)`` (the buttons under a board) and a ``Commands`` mixin class of extra subcommands
for the game's group. A game without either needs no module here."""
