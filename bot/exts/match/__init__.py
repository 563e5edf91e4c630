"""The match feature: everything between a member and the match lifecycle on Discord.

``_starts`` starts matches and answers challenges; ``_moves`` submits moves; ``_options`` builds commands from the
games' declarations; ``_games`` makes one command group per game; ``_cog`` holds ``/match`` and handles the persistent
buttons (:mod:`bot.utils.buttons`); ``_review`` and ``_premove`` are ``/match review`` and ``/match premove``; ``_news``
posts the feature's news from the outbox (final boards, reminders, expired challenges); ``_resume`` resumes the
computer's turns a crash left waiting. Boards, posting and the ``match`` option are shared with other extensions from
:mod:`bot.utils`. These modules are private to the package; what others may use of the feature is named here (the
tournaments build their ``create`` commands from the games' declarations as ``start`` is built, and start a round's
matches as any match starts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.exts.match._cog import BOARD_REPOSTS, HISTORY_USES, REMATCH_RATE, REPLAY_FRAMES, Match, replay_frames
from bot.exts.match._games import game_cog
from bot.exts.match._news import register as register_news
from bot.exts.match._options import DAYS_CHOICES, START_USES, generated_command, option_annotation
from bot.exts.match._resume import ComputerTurns
from bot.exts.match._review import REVIEW_USES, review_embed, waiting_text
from bot.exts.match._starts import begin_match, variant_words
from bot.utils.buttons import DYNAMIC_ITEMS
from games import GAMES

if TYPE_CHECKING:
    from bot.client import NapkinBot


__all__ = ["BOARD_REPOSTS", "DAYS_CHOICES", "HISTORY_USES", "REMATCH_RATE", "REPLAY_FRAMES", "REVIEW_USES",
           "START_USES", "begin_match", "generated_command", "option_annotation", "replay_frames", "review_embed",
           "setup", "variant_words", "waiting_text"]


async def setup(bot: NapkinBot) -> None:
    """Load the feature: ``/match``, one command group per registered game, the persistent buttons, the posters of
    its news, and the resuming of the computer's turns."""
    await bot.add_cog(Match(bot))
    await bot.add_cog(ComputerTurns(bot))
    register_news(bot)
    for key in GAMES:
        await bot.add_cog(game_cog(GAMES[key]))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
