"""Persistent buttons: :class:`discord.ui.DynamicItem` s whose ``custom_id`` carries the ids they act on.

They are registered with ``bot.add_dynamic_items`` when the match feature loads, so a button posted before a
restart still works after it. A move button also carries the match version it was drawn for: a click on an older
board is answered with a clear "out of date" message instead of applying a move to a position the player did not
see. The buttons only parse their ``custom_id``; what a click does belongs to the match feature's cog
(:class:`ButtonHandler`), so this module imports nothing of the feature. Game modules (``bot.games.<key>``) put move
buttons under their boards; the match feature and the deadline task post and disable challenge buttons.

A button's label is in the language of the message it is posted on (``language``: the server's, for a challenge or a
final board); only the ``custom_id`` is read back, so a label's language never changes what a click does.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord
from discord import ui

from bot.answers import learn_language, watch
from bot.errors import reply_error
from i18n import Text, p_

CUSTOM_ID_LIMIT = 100
LABEL_LIMIT = 80
"""Discord's longest button label."""
HANDLER_COG = "Match"
"""The cog that handles clicks (:class:`ButtonHandler`)."""
# TRANSLATORS: a button's label (Discord: at most 80 characters).
ACCEPT = p_("button", "Accept")
# TRANSLATORS: a button's label (Discord: at most 80 characters).
DECLINE = p_("button", "Decline")
# TRANSLATORS: a button's label under a finished match's board (Discord: at most 80 characters).
REMATCH = p_("button", "Rematch")


def button_label(text: Text, language: str | None) -> str:
    """A component's label: ``text`` in ``language`` (``None``: English), cut to Discord's 80 characters."""
    return text.render(language)[:LABEL_LIMIT]


class ButtonHandler(Protocol):
    """What a click calls into: the match feature's cog."""

    async def play_button(self, interaction: discord.Interaction[Any], match_id: int, version: int,
                          move: str) -> None:
        """Play ``move`` in match ``match_id`` as drawn at ``version``."""

    async def challenge_button(self, interaction: discord.Interaction[Any], challenge_id: int, action: str) -> None:
        """Accept or decline challenge ``challenge_id``."""

    async def rematch_button(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """Offer (or start) a rematch of finished match ``match_id`` with the seats swapped."""


def _handler(interaction: discord.Interaction[Any]) -> ButtonHandler:
    cog = interaction.client.get_cog(HANDLER_COG)
    if cog is None:
        raise RuntimeError("the match feature is not loaded")
    handler: ButtonHandler = cog
    return handler


class MoveButton(ui.DynamicItem[ui.Button[Any]], template=r"napkin:mv:(?P<match>\d+):(?P<version>\d+):(?P<move>.+)"):
    """A button that plays ``move`` (in the game's notation) in ``match_id`` at ``version``."""

    def __init__(self, match_id: int, version: int, move: str, *, label: str | None = None,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, disabled: bool = False,
                 row: int | None = None) -> None:
        custom_id = f"napkin:mv:{match_id}:{version}:{move}"
        if len(custom_id) > CUSTOM_ID_LIMIT:
            raise ValueError(f"custom_id too long for move {move!r}")
        super().__init__(ui.Button(label=label or move, style=style, custom_id=custom_id, disabled=disabled),
                         row=row)
        self.match_id = match_id
        self.version = version
        self.move = move

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> MoveButton:
        """Rebuild the button from its ``custom_id`` (called by discord.py for every click)."""
        return cls(int(match["match"]), int(match["version"]), match["move"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Play the move for the member who clicked."""
        watch(interaction)  # answered within Discord's 3 seconds, whatever the click waits on
        try:
            await learn_language(interaction)  # the server's /settings language, for the public answer
            await _handler(interaction).play_button(interaction, self.match_id, self.version, self.move)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


class ChallengeButton(ui.DynamicItem[ui.Button[Any]],
                      template=r"napkin:ch:(?P<challenge>\d+):(?P<action>accept|decline)"):
    """Accept or decline challenge ``challenge_id``."""

    def __init__(self, challenge_id: int, action: str, *, disabled: bool = False,
                 language: str | None = None) -> None:
        accept = action == "accept"
        super().__init__(ui.Button(
            label=button_label(ACCEPT if accept else DECLINE, language),
            style=discord.ButtonStyle.success if accept else discord.ButtonStyle.danger,
            custom_id=f"napkin:ch:{challenge_id}:{action}",
            disabled=disabled,
        ))
        self.challenge_id = challenge_id
        self.action = action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> ChallengeButton:
        """Rebuild the button from its ``custom_id``."""
        return cls(int(match["challenge"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Accept or decline for the member who clicked."""
        watch(interaction)  # answered within Discord's 3 seconds, whatever the click waits on
        try:
            await learn_language(interaction)  # the server's /settings language, for the public answer
            await _handler(interaction).challenge_button(interaction, self.challenge_id, self.action)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


class RematchButton(ui.DynamicItem[ui.Button[Any]], template=r"napkin:rm:(?P<match>\d+)"):
    """On a finished match's final board: a new match with the same options and the seats swapped."""

    def __init__(self, match_id: int, *, language: str | None = None) -> None:
        super().__init__(ui.Button(label=button_label(REMATCH, language), style=discord.ButtonStyle.primary,
                                   custom_id=f"napkin:rm:{match_id}"))
        self.match_id = match_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> RematchButton:
        """Rebuild the button from its ``custom_id``."""
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Offer the rematch for the member who clicked."""
        watch(interaction)  # answered within Discord's 3 seconds, whatever the click waits on
        try:
            await learn_language(interaction)  # the server's /settings language, for the public answer
            await _handler(interaction).rematch_button(interaction, self.match_id)
        except Exception as error:  # noqa: BLE001 - every failure becomes the member's ephemeral answer
            await reply_error(interaction, error)


DYNAMIC_ITEMS = (MoveButton, ChallengeButton, RematchButton)
"""Every persistent button class (registered when the match feature loads)."""


def challenge_view(challenge_id: int, *, disabled: bool = False, language: str | None = None) -> ui.View:
    """The Accept / Decline buttons of a challenge message, labelled in ``language`` (the message's: the
    server's)."""
    view = ui.View(timeout=None)
    view.add_item(ChallengeButton(challenge_id, "accept", disabled=disabled, language=language))
    view.add_item(ChallengeButton(challenge_id, "decline", disabled=disabled, language=language))
    return view
