"""Tic-tac-toe on Discord: a button per free square under the board."""

from __future__ import annotations

from typing import Any

import discord

from bot.utils.buttons import MoveButton
from games import State
from storage import MatchRecord
from tests.extra_games.tictactoe import square_name


def board_items(match: MatchRecord, state: State[Any]) -> list[discord.ui.Item[Any]]:
    """Nine buttons in three rows, top row first; taken squares disabled."""
    legal = set(state.legal_moves())
    items: list[discord.ui.Item[Any]] = []
    for row in (2, 1, 0):
        for column in range(3):
            square = 3 * row + column
            items.append(MoveButton(match.id, match.version, square_name(square), row=2 - row,
                                    disabled=square not in legal))
    return items
