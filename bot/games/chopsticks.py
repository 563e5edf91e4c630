"""Chopsticks on Discord: the buttons under a board (taps, self-taps, splits)."""

from __future__ import annotations

from typing import Any

import discord

from bot.utils.buttons import MoveButton
from games import State
from i18n import pgettext
from storage import MatchRecord

TAPS = ("LL", "LR", "RL", "RR")
SELF_TAPS = ("self LR", "self RL")


def _label(move: str) -> str:
    """A move's button label in the language being spoken (:func:`i18n.speaking`); the hands keep the notation's
    letters (``L``, ``R``), which the move commands take in every language."""
    if move in TAPS:
        return pgettext("chopsticks button", "{mine} → their {theirs}").format(mine=move[0], theirs=move[1])
    if move.startswith("self"):
        hands = move.split()[1]
        return pgettext("chopsticks button", "own {first} → {second}").format(first=hands[0], second=hands[1])
    left, right = move.split()[1:]
    return pgettext("chopsticks button", "split {left}·{right}").format(left=left, right=right)


def board_items(match: MatchRecord, state: State[Any]) -> list[discord.ui.Item[Any]]:
    """Buttons under a Chopsticks board: the four taps and two self-taps (illegal ones disabled), then every
    legal split."""
    legal = {state.format_move(m) for m in state.legal_moves()}
    items: list[discord.ui.Item[Any]] = []
    for move in TAPS:
        items.append(MoveButton(match.id, match.version, move, label=_label(move), row=0,
                                style=discord.ButtonStyle.primary, disabled=move not in legal))
    if match.variant.get("self_taps", True):
        for move in SELF_TAPS:
            items.append(MoveButton(match.id, match.version, move, label=_label(move), row=1,
                                    disabled=move not in legal))
    splits = sorted(m for m in legal if m.startswith("split"))
    for index, move in enumerate(splits[:15]):
        items.append(MoveButton(match.id, match.version, move, label=_label(move), row=2 + index // 5,
                                style=discord.ButtonStyle.success))
    return items
