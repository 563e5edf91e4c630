"""The settings' queries: a server's settings (``guild_settings``), the languages Discord last reported for servers
and members (``seen_locales``), and the bot's own keys (``meta``, such as the hash of the synced command tree)."""

from __future__ import annotations

import json

from storage.queries.base import Queries
from storage.records import Row, SettingsRecord

_SETTINGS_COLUMNS = ("days_per_move, use_threads, allowed_channels, max_active, rate_computer, vacation_days, "
                     "seasons, puzzle_channel_id, puzzle_hour, language")


def _settings_from_row(guild_id: int, row: Row | None) -> SettingsRecord:
    if row is None:
        return SettingsRecord(guild_id)
    return SettingsRecord(guild_id, row["days_per_move"], bool(row["use_threads"]),
                          list(json.loads(row["allowed_channels"])), row["max_active"], bool(row["rate_computer"]),
                          row["vacation_days"], row["seasons"], row["puzzle_channel_id"], row["puzzle_hour"],
                          row["language"])


class SettingsReads(Queries):
    """Reading settings."""

    def get_settings(self, guild_id: int) -> SettingsRecord:
        """Return a server's settings (defaults if never set)."""
        return _settings_from_row(guild_id, self._one(f"SELECT {_SETTINGS_COLUMNS} FROM guild_settings "  # noqa: S608 - module constants
                                                      "WHERE guild_id = ?", (guild_id,)))

    def seen_locale(self, scope: str, id_: int) -> str | None:
        """The locale Discord last reported for a server (``scope`` ``guild``: its ``guild_locale``) or a member
        (``member``: their ``locale``), or ``None`` when none was seen."""
        row = self._one("SELECT locale FROM seen_locales WHERE scope = ? AND id = ?", (scope, id_))
        return str(row["locale"]) if row else None

    def get_meta(self, key: str) -> str | None:
        """Read a key of the ``meta`` table (e.g. the synced command-tree hash)."""
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None


class SettingsWrites(SettingsReads):
    """Writing settings."""

    def lock_settings(self, guild_id: int, now: float) -> SettingsRecord:
        """A server's settings, held until the transaction ends (stored first as the defaults, at ``now``, when the
        server has none), so that two changes of different settings in two processes both count: the second reads
        what the first wrote. Write them back with :meth:`put_settings`."""
        self._defer("INSERT INTO guild_settings (guild_id, updated_at) VALUES (?, ?) ON CONFLICT (guild_id) DO NOTHING",
                    (guild_id, now))
        return _settings_from_row(guild_id, self._one(f"SELECT {_SETTINGS_COLUMNS} FROM guild_settings "  # noqa: S608 - module constants
                                                      f"WHERE guild_id = ?{self._dialect.for_update('guild_settings')}",
                                                      (guild_id,)))

    def put_settings(self, settings: SettingsRecord, now: float) -> None:
        """Insert or replace a server's settings."""
        self._conn.execute(
            "INSERT INTO guild_settings (guild_id, days_per_move, use_threads, allowed_channels, max_active, "
            "rate_computer, vacation_days, seasons, puzzle_channel_id, puzzle_hour, language, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id) DO UPDATE SET days_per_move = excluded.days_per_move, "
            "use_threads = excluded.use_threads, "
            "allowed_channels = excluded.allowed_channels, max_active = excluded.max_active, "
            "rate_computer = excluded.rate_computer, vacation_days = excluded.vacation_days, "
            "seasons = excluded.seasons, puzzle_channel_id = excluded.puzzle_channel_id, "
            "puzzle_hour = excluded.puzzle_hour, language = excluded.language, updated_at = excluded.updated_at",
            (settings.guild_id, settings.days_per_move, int(settings.use_threads),
             json.dumps(sorted(settings.allowed_channels)), settings.max_active, int(settings.rate_computer),
             settings.vacation_days, settings.seasons, settings.puzzle_channel_id, settings.puzzle_hour,
             settings.language, now),
        )

    def put_seen_locale(self, scope: str, id_: int, locale: str, now: float) -> None:
        """Remember the locale Discord reported for a server (``guild``) or a member (``member``) at ``now``."""
        self._conn.execute("INSERT INTO seen_locales (scope, id, locale, seen_at) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (scope, id) DO UPDATE SET locale = excluded.locale, seen_at = excluded.seen_at",
                           (scope, id_, locale, now))

    def put_meta(self, key: str, value: str) -> None:
        """Write a key of the ``meta`` table."""
        self._conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
