"""The match feature: everything between a member and the match lifecycle on Discord.

``_lifecycle`` starts matches, submits moves and answers challenges; ``_board`` renders and posts boards;
``_options`` builds commands from the games' declarations (and the ``match`` option's transformer); ``_games``
makes one command group per game; ``_cog`` holds ``/match`` and handles the persistent buttons of ``_views``.
Nothing in this package imports the package that imports it (buttons call into the cog, not the other way round).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.exts.match._cog import Match
from bot.exts.match._games import game_cog
from bot.exts.match._views import DYNAMIC_ITEMS
from games import GAMES

if TYPE_CHECKING:
    from bot.client import NapkinBot


async def setup(bot: NapkinBot) -> None:
    """Load the feature: ``/match``, one command group per registered game, and the persistent buttons."""
    await bot.add_cog(Match(bot))
    for key in GAMES:
        await bot.add_cog(game_cog(GAMES[key]))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
