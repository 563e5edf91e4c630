"""Who reads which language: a server's public posts in the server's language, a member's direct messages in theirs.

Discord reports the member's client language (``locale``) and the server's (``guild_locale``) with each
interaction; an answer to an interaction is rendered in the one it carries (the extensions do that). What the bot
posts outside any interaction — news from the outbox, a board after the computer's move, a reminder by direct
message — needs the language remembered: :meth:`LanguageService.seen` keeps what the last interaction reported
(stored only when it changed: one write per server or member and change, not one per interaction), and
:meth:`LanguageService.server_language` and :meth:`LanguageService.member_language` answer from it. A server's
``/settings language`` (:class:`storage.SettingsRecord` ``language``) overrides what Discord reports for it.

No ``discord`` import: locales are Discord's or Babel's identifiers as strings; the answers are shipped locales
(:func:`i18n.resolve`: ``en``, ``fr``, ``de``, ``es_ES``, ``pt_BR``).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

import i18n
from bot.service.errors import BadOption
from bot.texts import quote
from storage import Database, ReadTx, Tx

CACHED = 50_000
"""Servers and members whose last reported locale this process keeps in memory (the least recently seen go first)."""
AUTOMATIC = "auto"
"""``/settings language``'s value for "the language Discord reports for the server"."""


class LanguageService:
    """The languages of servers and members over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock
        self._seen: OrderedDict[tuple[str, int], str] = OrderedDict()

    def _known(self, scope: str, id_: int) -> str | None:
        found = self._seen.get((scope, id_))
        if found is not None:
            self._seen.move_to_end((scope, id_))
        return found

    def _keep(self, scope: str, id_: int, locale: str) -> None:
        self._seen[(scope, id_)] = locale
        self._seen.move_to_end((scope, id_))
        while len(self._seen) > CACHED:
            self._seen.popitem(last=False)

    async def seen(self, *, guild_id: int | None, guild_locale: str | None, user_id: int,
                   locale: str | None) -> None:
        """Remember what an interaction reported: the server's locale (none in a direct message) and the member's.
        Writes only what differs from what this process last knew."""
        changes = [(scope, id_, value) for scope, id_, value in (("guild", guild_id, guild_locale),
                                                                 ("member", user_id, locale))
                   if id_ is not None and value and self._known(scope, id_) != value]
        if not changes:
            return
        now = self.clock()

        def body(tx: Tx) -> None:
            for scope, id_, value in changes:
                tx.put_seen_locale(scope, id_, value, now)

        await self.db.write(body)
        for scope, id_, value in changes:
            self._keep(scope, id_, value)

    async def server_language(self, guild_id: int | None, reported: str | None = None) -> str:
        """The shipped locale of a server's public posts: its ``/settings language``, else ``reported`` (the
        interaction's ``guild_locale``, when there is one), else the last one Discord reported, else English."""
        if guild_id is None:
            return i18n.resolve(reported)

        def body(tx: ReadTx) -> tuple[str | None, str | None]:
            return tx.get_settings(guild_id).language, tx.seen_locale("guild", guild_id)

        chosen, remembered = await self.db.read(body)
        return i18n.resolve(chosen or reported or remembered)

    async def member_language(self, user_id: int) -> str:
        """The shipped locale of a member's direct messages: the last one Discord reported for them, else English."""
        known = self._known("member", user_id)
        if known is None:
            known = await self.db.read(ReadTx.seen_locale, "member", user_id)
        return i18n.resolve(known)


def check_language(value: str) -> str | None:
    """A ``/settings language`` value as stored: a shipped locale, or ``None`` for :data:`AUTOMATIC`.

    Raises:
        BadOption: it is neither (quoting it).
    """
    if value == AUTOMATIC:
        return None
    if value.replace("-", "_") not in i18n.SHIPPED:
        raise BadOption(i18n._("`{value}` is not a language Napkin Games speaks; choose one of {choices}.",
                               value=quote(value), choices=i18n.Listed((AUTOMATIC, *i18n.SHIPPED), "or")))
    return value.replace("-", "_")
