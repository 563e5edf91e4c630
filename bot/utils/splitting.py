"""Texts that grow with the number of members (thanks, lists of names) packed into messages by their real length.

Discord refuses a message of more than 2,000 characters, an embed field of more than 1,024, and more than 100 users
in one message's allowed mentions; a count of names per message cannot know how long the names are once escaped, so
everything here measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.contract import MESSAGE_CONTENT

MENTIONS = 100
"""Users one message may allow to be pinged (Discord's limit on ``allowed_mentions.users``)."""


@dataclass(frozen=True, slots=True)
class Packed:
    """One message of packed pieces: its text, and the indexes (into the pieces given) of those it holds."""

    text: str
    indexes: range


def pack(pieces: Sequence[str], *, lead: str = "", more_lead: str = "", end: str = "", separator: str = ", ",
         limit: int = MESSAGE_CONTENT, mentions: Sequence[bool] | None = None) -> list[Packed]:
    """Pack ``pieces`` in order into as few messages as hold them, each at most ``limit`` characters:
    ``lead`` (the first message) or ``more_lead`` (the others), the pieces joined by ``separator``, then ``end``.

    Args:
        mentions: for each piece, whether it pings a user; a message holds at most :data:`MENTIONS` of those.

    Raises:
        ValueError: a piece that cannot fit in a message on its own.
    """
    messages: list[Packed] = []
    start = 0
    while start < len(pieces):
        head = lead if not messages else more_lead
        text = head
        pinged = 0
        stop = start
        while stop < len(pieces):
            piece = pieces[stop]
            candidate = text + (separator if stop > start else "") + piece
            pinging = mentions is not None and mentions[stop]
            if len(candidate) + len(end) > limit or (pinging and pinged == MENTIONS):
                break
            text = candidate
            pinged += pinging
            stop += 1
        if stop == start:
            raise ValueError(f"piece {start} ({len(pieces[start])} characters) does not fit in {limit}")
        messages.append(Packed(text + end, range(start, stop)))
        start = stop
    return messages


def listed(pieces: Sequence[str], *, limit: int, separator: str = ", ",
           more: str = " and {count} more") -> str:
    """As many of ``pieces`` as fit in ``limit`` characters, joined by ``separator``, then ``more`` (with the count
    left out) when some do not fit."""
    text = separator.join(pieces)
    if len(text) <= limit:
        return text
    shown: list[str] = []
    for index, piece in enumerate(pieces):
        tail = more.format(count=len(pieces) - index - 1)
        if len(separator.join([*shown, piece])) + len(tail) > limit:
            return separator.join(shown) + more.format(count=len(pieces) - len(shown))
        shown.append(piece)
    return separator.join(shown)
