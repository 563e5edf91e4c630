"""The tournament feature: ``/tournament`` (create, join, leave, start, withdraw, standings, info, list, cancel,
end-game) and the task that runs rounds by themselves and posts their news.

``_create`` is ``/tournament create`` (the game, its options as text, the tournament's); ``_cog`` holds the other
commands; ``_options`` is the ``tournament`` option; ``_show`` how a tournament reads (embeds, the standings image);
``_rounds`` the task. These modules are private to the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.exts.tournament._cog import Tournament
from bot.exts.tournament._create import CREATE_USES, create_command
from bot.exts.tournament._rounds import TournamentRounds

if TYPE_CHECKING:
    from bot.client import NapkinBot

__all__ = ["CREATE_USES", "setup"]


async def setup(bot: NapkinBot) -> None:
    """Load the feature: ``/tournament`` with ``create``, and the rounds task."""
    cog = Tournament(bot)
    group = cog.app_command
    assert group is not None  # a GroupCog always has its group
    group.add_command(create_command())
    await bot.add_cog(cog)
    await bot.add_cog(TournamentRounds(bot))
