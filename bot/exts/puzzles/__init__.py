"""The puzzles feature: ``/puzzle`` (next, stats, month), the components under a puzzle, and each server's daily
puzzle (planned by a task, posted and revealed through the outbox).

``_cog`` holds the commands, what the components call, and the daily puzzle task; ``_views`` the persistent
components and the modal a move is typed in; ``_show`` how a puzzle reads (texts, boards with alt text); ``_news``
the posters of the daily puzzle's news. These modules are private to the package; what others may use of the
feature is named here (the components of a member's puzzle, which carry its attempt's id).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.exts.puzzles._cog import Puzzles
from bot.exts.puzzles._news import register as register_news
from bot.exts.puzzles._views import DYNAMIC_ITEMS, PickSelect, ShowButton

if TYPE_CHECKING:
    from bot.client import NapkinBot

__all__ = ["PickSelect", "ShowButton", "setup"]


async def setup(bot: NapkinBot) -> None:
    """Load the feature: ``/puzzle``, its components, the posters of the daily puzzle's news and its task."""
    await bot.add_cog(Puzzles(bot))
    register_news(bot)
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
