"""One command group per game, built from its declaration: ``/<command> start`` and the move subcommands, plus
the extra commands of the game's own Discord module (a ``Commands`` mixin class, e.g. ``/napkin free``)."""

from __future__ import annotations

import types
from typing import Any

from discord.ext import commands

from bot.exts.match._options import move_command, start_command
from bot.utils.boards import game_module
from games import Game


def game_cog(game: Game[Any, Any]) -> commands.GroupCog:
    """A cog holding ``/<game.command> …``: the generated start and move commands and the module's extras."""
    module = game_module(game.key)
    mixin = getattr(module, "Commands", None)
    bases: tuple[type, ...] = (mixin, commands.GroupCog) if mixin is not None else (commands.GroupCog,)
    keywords = {"name": game.title, "group_name": game.command,
                "group_description": f"Play {game.title}"[:100]}
    cog_class = types.new_class(f"{game.key.title().replace('_', '')}Commands", bases, keywords)
    cog: commands.GroupCog = cog_class()
    group = cog.app_command
    assert group is not None  # a GroupCog always has its group
    group.add_command(start_command(game))
    for spec in game.moves:
        group.add_command(move_command(game, spec))
    return cog
