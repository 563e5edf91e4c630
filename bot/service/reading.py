"""Reading matches: one match (by id or by its thread), a member's active matches (all, a page, in every server,
the labels for autocomplete), their damaged ones, and a match's move log.

No ``discord`` import. A damaged row found while reading is quarantined (:func:`bot.service.base.quarantine`) and
left out from then on, so one bad row never breaks a list.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.service.base import not_here, quarantine
from bot.service.errors import BadOption, Damaged
from bot.service.states import damage_of
from i18n import _
from storage import Database, MatchRecord, MoveRecord, ReadTx


class ReadingService:
    """Match reads over a :class:`storage.Database`.

    Args:
        db: the open database.
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get_match(self, match_id: int, guild_id: int | None = None) -> MatchRecord:
        """Load a match; with ``guild_id``, refuse one from another server.

        Raises:
            NotFound: no such match (or it is in another server). Damaged: its row is damaged (now quarantined).
        """
        match = await self.db.read(ReadTx.get_match, match_id)
        if match is None or (guild_id is not None and match.guild_id != guild_id):
            raise not_here(match_id)
        reason = damage_of(match)
        if reason is not None:
            await self.quarantine(match, reason)
            raise Damaged(match_id, reason)
        return match

    async def quarantine(self, match: MatchRecord, reason: str) -> None:
        """Mark ``match`` damaged (:func:`bot.service.base.quarantine`)."""
        await quarantine(self.db, match, reason)

    async def match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """The match played in thread ``thread_id``, if any."""
        return await self.db.read(ReadTx.match_in_thread, thread_id)

    async def active_matches(self, guild_id: int, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in ``guild_id``, most recently active first; damaged ones are quarantined
        and left out (:meth:`damaged_matches` lists them)."""
        return await self._sound(await self.db.read(ReadTx.active_matches_of, guild_id, user_id))

    async def active_matches_anywhere(self, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in every server, most recently active first; damaged ones are quarantined
        and left out."""
        return await self._sound(await self.db.read(ReadTx.active_matches_anywhere, user_id))

    async def _sound(self, matches: list[MatchRecord]) -> list[MatchRecord]:
        """``matches`` without the damaged ones, which are quarantined."""
        sound = []
        for match in matches:
            reason = damage_of(match)
            if reason is None:
                sound.append(match)
            else:
                await self.quarantine(match, reason)
        return sound

    async def damaged_matches(self, guild_id: int, user_id: int) -> list[int]:
        """Ids of ``user_id``'s quarantined matches in ``guild_id`` (they were active when found damaged)."""
        return await self.db.read(ReadTx.damaged_matches_of, guild_id, user_id)

    async def active_match_page(self, guild_id: int, user_id: int, page: int,
                                size: int) -> tuple[list[MatchRecord], int, int]:
        """Page ``page`` (from 1; past the last shows the last) of ``size`` of ``user_id``'s active matches in
        ``guild_id``, most recently active first; returns ``(matches, page, pages)`` (``pages`` is 1 with none).

        Raises:
            BadOption: ``page`` below 1.
        """
        if page < 1:
            raise BadOption(_("There is no page {page}; pages start at 1.", page=page))

        def body(tx: ReadTx) -> tuple[list[MatchRecord], int, int]:
            pages = max(1, -(-tx.count_active(guild_id, user_id, sound_only=True) // size))
            shown = min(page, pages)
            return tx.active_matches_of(guild_id, user_id, size, (shown - 1) * size), shown, pages

        for _attempt in range(3):  # a damaged row found on the page is quarantined (left out from then on): read again
            matches, shown, pages = await self.db.read(body)
            damaged = [(match, reason) for match in matches if (reason := damage_of(match)) is not None]
            if not damaged:
                break
            for match, reason in damaged:
                await self.quarantine(match, reason)
        return [match for match in matches if damage_of(match) is None], shown, pages

    async def match_choices(self, guild_id: int, user_id: int, titles: Mapping[str, str], needle: str = "",
                            limit: int = 25) -> list[tuple[int, str]]:
        """Labels of ``user_id``'s active matches of the games in ``titles`` for autocomplete, filtered by
        ``needle``: ``(match id, label)`` pairs, at most ``limit``, built in one query that decodes no state
        (:meth:`storage.ReadTx.match_choices`)."""
        return await self.db.read(ReadTx.match_choices, guild_id, user_id, titles, needle, limit)

    async def moves(self, match_id: int) -> list[MoveRecord]:
        """The match's move log, oldest first."""
        return await self.db.read(ReadTx.get_moves, match_id)
