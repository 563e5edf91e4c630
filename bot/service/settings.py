"""A server's settings for Napkin Games (``/settings``): default days per move, threads, allowed channels, the limit
of active matches, whether matches against the computer count, the vacation allowance, seasons, the daily puzzle's
channel and hour, and the language of the server's public posts.

No ``discord`` import; who may change them (Manage Server) is the extension's check. A change holds the server's
settings row while it reads and writes it (:meth:`storage.Tx.lock_settings`), so two admins changing different
settings in two processes at once both get their change. Settings change no match row: a new default applies to the
matches started afterwards.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from bot.service.base import rerun, write
from bot.service.clock import DAYS_PER_MOVE_CHOICES
from bot.service.errors import BadOption
from bot.service.languages import check_language
from bot.service.seasons import SEASON_SETTINGS
from bot.texts import quote
from i18n import _
from storage import Database, ReadTx, SettingsRecord, Tx

SETTINGS = frozenset(f.name for f in dataclasses.fields(SettingsRecord)) - {"guild_id"}
"""The settings a server may change (:class:`storage.SettingsRecord` fields but its id)."""
MAX_ALLOWANCE = 365
"""The largest vacation allowance a server may set, in days per calendar year."""


def check_allowance(days: int) -> int:
    """Return ``days`` if it is a valid vacation allowance (0 to :data:`MAX_ALLOWANCE`).

    Raises:
        BadOption: it is not.
    """
    if not 0 <= days <= MAX_ALLOWANCE:
        raise BadOption(_("The vacation allowance must be between 0 and {most} days a year; `{days}` is not.",
                          most=MAX_ALLOWANCE, days=str(days)))
    return days


class SettingsService:
    """Server settings over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        puzzles_changed: called (it returns at once) after a change of the daily puzzle's channel or hour.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time,
                 puzzles_changed: Callable[[], None] = lambda: None) -> None:
        self.db = db
        self.clock = clock
        self.puzzles_changed = puzzles_changed

    async def get(self, guild_id: int) -> SettingsRecord:
        """A server's settings (the defaults for a server that never changed any)."""
        return await self.db.read(ReadTx.get_settings, guild_id)

    async def update(self, guild_id: int, /, **changes: Any) -> SettingsRecord:
        """Change some of a server's settings and return them all.

        Keyword arguments are :class:`storage.SettingsRecord` fields (``days_per_move``, ``use_threads``,
        ``allowed_channels``, ``max_active``, ``rate_computer``, ``vacation_days``, ``seasons``, ``puzzle_channel_id``:
        the daily puzzle's channel or ``None``, ``puzzle_hour``: its hour, UTC, ``language``: a shipped locale, or
        ``auto`` for the one Discord reports).

        Raises:
            BadOption: a value is out of range, or a name is not a setting.
        """
        if "days_per_move" in changes and changes["days_per_move"] not in DAYS_PER_MOVE_CHOICES:
            raise BadOption(_("Days per move must be one of 1, 2, 3, 5, 7, 14, or 0 for no limit."))
        if "max_active" in changes and not 1 <= int(changes["max_active"]) <= 100:
            raise BadOption(_("The limit of active matches must be between 1 and 100."))
        if "vacation_days" in changes:
            check_allowance(int(changes["vacation_days"]))
        if "language" in changes:
            changes["language"] = check_language(str(changes["language"])) if changes["language"] else None
        if "seasons" in changes and changes["seasons"] not in SEASON_SETTINGS:
            raise BadOption(_("Seasons are `off`, `monthly` or `quarterly`; `{value}` is none of these.",
                              value=quote(changes["seasons"])))
        if "puzzle_hour" in changes and not 0 <= int(changes["puzzle_hour"]) <= 23:
            raise BadOption(_("The daily puzzle's hour is 0 to 23 (UTC); `{hour}` is not.",
                              hour=quote(changes["puzzle_hour"])))
        for key in changes:
            if key not in SETTINGS:
                raise BadOption(f"Unknown setting {key!r}.")  # never a member's: the command passes known names
        now = self.clock()

        def body(tx: Tx) -> SettingsRecord:
            current = dataclasses.replace(tx.lock_settings(guild_id, now), **changes)
            tx.put_settings(current, now)
            return current

        updated = await write(self.db, body, landed=rerun)
        if {"puzzle_channel_id", "puzzle_hour"} & set(changes):
            self.puzzles_changed()
        return updated

