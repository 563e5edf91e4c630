"""The puzzles' persistent components: :class:`discord.ui.DynamicItem` s whose ``custom_id`` carries the attempt (or
daily puzzle) they act on, so that they work after a restart, and the modal in which a move is typed.

* **Answer** (``napkin:pz:ans:<attempt>:<progress>``) opens :class:`AnswerModal` at once (a modal must be the first
  response: nothing is read before it);
* the **pick list** (``napkin:pz:pick:<attempt>:<progress>``) offers the position's legal moves where they are few;
  a pick, or an answer typed, from an older board (the line moved on) is refused as out of date;
* **Show the answer** (``napkin:pz:show:<attempt>``), **Next puzzle** (``napkin:pz:next:<game or any>``);
* **Solve it** (``napkin:pz:daily:<daily>``) under a daily post: the member's own attempt, privately.

What a click does belongs to the feature's cog (:data:`HANDLER_COG`); these only parse their ``custom_id``. Their
labels are in the language of the message they are on (``language``: the member's under their own puzzle, the
server's under the daily post), the modal's in the language of the member who opened it; a label is never read back.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord
from discord import ui

from bot.answers import language_of, watch
from bot.errors import reply_error
from bot.utils.buttons import button_label
from games import GAMES
from i18n import Text, p_

HANDLER_COG = "Puzzles"
"""The cog that handles the components (:class:`PuzzleHandler`)."""
ANY = "any"
"""The ``game`` of a Next puzzle button that asks for any game."""
# TRANSLATORS: a button's label under a puzzle, opening a box to type a move in (Discord: at most 80 characters).
ANSWER = p_("button", "Answer")
# TRANSLATORS: a button's label under a puzzle (Discord: at most 80 characters).
SHOW = p_("button", "Show the answer")
# TRANSLATORS: a button's label under a daily puzzle's post (Discord: at most 80 characters).
SOLVE = p_("button", "Solve it")
# TRANSLATORS: a button's label after a puzzle: any game's next puzzle (Discord: at most 80 characters).
ANY_GAME = p_("button", "Any game")
# TRANSLATORS: the placeholder of a list of moves to pick from (Discord: at most 150 characters).
PICK = p_("placeholder", "Pick your move")
# TRANSLATORS: the title of the box a member types a move in, and its field's label (Discord: at most 45 characters).
YOUR_MOVE = p_("modal", "Your move")
# TRANSLATORS: the hint inside the box a member types a move in (Discord: at most 100 characters).
MOVE_HINT = p_("modal", "as the game's move command takes it")
MODAL_LIMIT = 45
"""Discord's longest modal title and text input label."""


def next_label(game: str) -> Text:
    """The label of the button serving the next puzzle of ``game``."""
    # TRANSLATORS: a button's label after a puzzle (Discord: at most 80 characters).
    return p_("button", "Next {game} puzzle", game=GAMES[game].title_text if game in GAMES else game)


class PuzzleHandler(Protocol):
    """What a component calls into: the puzzles' cog."""

    async def answer(self, interaction: discord.Interaction[Any], attempt_id: int, text: str,
                     progress: int | None = None) -> None:
        """Judge ``text`` as the member's move in attempt ``attempt_id`` (``progress``: the board it was given
        on)."""

    async def show_answer(self, interaction: discord.Interaction[Any], attempt_id: int) -> None:
        """Show the answer of attempt ``attempt_id``."""

    async def next_puzzle(self, interaction: discord.Interaction[Any], game: str | None) -> None:
        """Serve the member their next puzzle."""

    async def solve_daily(self, interaction: discord.Interaction[Any], daily_id: int) -> None:
        """Serve the member the daily puzzle ``daily_id``."""


def _handler(interaction: discord.Interaction[Any]) -> PuzzleHandler:
    cog = interaction.client.get_cog(HANDLER_COG)
    if cog is None:
        raise RuntimeError("the puzzles feature is not loaded")
    handler: PuzzleHandler = cog
    return handler


class AnswerModal(ui.Modal):
    """Where a member types their move (in the game's notation); its words in ``language`` (the member's)."""

    def __init__(self, attempt_id: int, progress: int, language: str | None = None) -> None:
        words = YOUR_MOVE.render(language)[:MODAL_LIMIT]
        super().__init__(title=words, custom_id=f"napkin:pz:modal:{attempt_id}:{progress}", timeout=None)
        self.attempt_id = attempt_id
        self.progress = progress
        self.move: ui.TextInput[AnswerModal] = ui.TextInput(
            label=words, placeholder=MOVE_HINT.render(language)[:100], max_length=100, custom_id="napkin:pz:move")
        self.add_item(self.move)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Judge the typed move."""
        watch(interaction, private=True)
        try:
            await _handler(interaction).answer(interaction, self.attempt_id, self.move.value, self.progress)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


class AnswerButton(ui.DynamicItem[ui.Button[Any]],
                   template=r"napkin:pz:ans:(?P<attempt>\d+):(?P<progress>\d+)"):
    """Opens the modal to type a move in (on the board of ``progress``: an older board's answer is out of date)."""

    def __init__(self, attempt_id: int, progress: int, *, language: str | None = None) -> None:
        super().__init__(ui.Button(label=button_label(ANSWER, language), style=discord.ButtonStyle.primary,
                                   custom_id=f"napkin:pz:ans:{attempt_id}:{progress}"))
        self.attempt_id = attempt_id
        self.progress = progress

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> AnswerButton:
        """Rebuild the button from its ``custom_id``."""
        return cls(int(match["attempt"]), int(match["progress"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Open the modal (the first response: at once), in the member's language."""
        await interaction.response.send_modal(AnswerModal(self.attempt_id, self.progress,
                                                          language_of(interaction, private=True)))


class PickSelect(ui.DynamicItem[ui.Select[Any]], template=r"napkin:pz:pick:(?P<attempt>\d+):(?P<progress>\d+)"):
    """The position's legal moves to pick one from."""

    def __init__(self, attempt_id: int, progress: int, moves: list[str] | None = None, *,
                 language: str | None = None) -> None:
        options = [discord.SelectOption(label=move[:100], value=move[:100]) for move in (moves or ["-"])]
        super().__init__(ui.Select(placeholder=PICK.render(language)[:150], options=options,
                                   custom_id=f"napkin:pz:pick:{attempt_id}:{progress}"))
        self.attempt_id = attempt_id
        self.progress = progress

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> PickSelect:
        """Rebuild the list from its ``custom_id``."""
        return cls(int(match["attempt"]), int(match["progress"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Judge the move picked."""
        watch(interaction, private=True)
        data: dict[str, Any] = dict(interaction.data or {})
        values = data.get("values") or [""]
        try:
            await _handler(interaction).answer(interaction, self.attempt_id, str(values[0]), self.progress)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


class ShowButton(ui.DynamicItem[ui.Button[Any]], template=r"napkin:pz:show:(?P<attempt>\d+)"):
    """Shows the answer (the attempt counts as not solved)."""

    def __init__(self, attempt_id: int, *, language: str | None = None) -> None:
        super().__init__(ui.Button(label=button_label(SHOW, language), style=discord.ButtonStyle.secondary,
                                   custom_id=f"napkin:pz:show:{attempt_id}"))
        self.attempt_id = attempt_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> ShowButton:
        """Rebuild the button from its ``custom_id``."""
        return cls(int(match["attempt"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Show the answer."""
        watch(interaction, private=True)
        try:
            await _handler(interaction).show_answer(interaction, self.attempt_id)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


class NextButton(ui.DynamicItem[ui.Button[Any]], template=r"napkin:pz:next:(?P<game>[a-z_]+)"):
    """Serves the member's next puzzle (of one game, or of any)."""

    def __init__(self, game: str | None, *, language: str | None = None) -> None:
        text = next_label(game) if game is not None else ANY_GAME
        super().__init__(ui.Button(label=button_label(text, language), style=discord.ButtonStyle.success,
                                   custom_id=f"napkin:pz:next:{game or ANY}"))
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> NextButton:
        """Rebuild the button from its ``custom_id``."""
        return cls(None if match["game"] == ANY else match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Serve the next puzzle."""
        watch(interaction, private=True)
        try:
            await _handler(interaction).next_puzzle(interaction, self.game)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


class DailyButton(ui.DynamicItem[ui.Button[Any]], template=r"napkin:pz:daily:(?P<daily>\d+)"):
    """Under a daily post: the member's own attempt at it, privately."""

    def __init__(self, daily_id: int, *, disabled: bool = False, language: str | None = None) -> None:
        super().__init__(ui.Button(label=button_label(SOLVE, language), style=discord.ButtonStyle.primary,
                                   disabled=disabled,
                                   custom_id=f"napkin:pz:daily:{daily_id}"))
        self.daily_id = daily_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> DailyButton:
        """Rebuild the button from its ``custom_id``."""
        return cls(int(match["daily"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Serve the daily puzzle to the member who clicked."""
        watch(interaction, private=True)
        try:
            await _handler(interaction).solve_daily(interaction, self.daily_id)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


DYNAMIC_ITEMS = (AnswerButton, PickSelect, ShowButton, NextButton, DailyButton)
"""The components to register with ``bot.add_dynamic_items``."""
