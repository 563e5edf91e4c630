"""The settings' queries: a server's settings (``guild_settings``) and the bot's own keys (``meta``, such as the hash
of the synced command tree)."""

from __future__ import annotations

import json

from storage.queries.base import Queries
from storage.records import SettingsRecord


class SettingsReads(Queries):
    """Reading settings."""

    def get_settings(self, guild_id: int) -> SettingsRecord:
        """Return a server's settings (defaults if never set)."""
        row = self._one("SELECT days_per_move, use_threads, allowed_channels, max_active, rate_computer, "
                        "vacation_days, seasons FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            return SettingsRecord(guild_id)
        return SettingsRecord(guild_id, row["days_per_move"], bool(row["use_threads"]),
                              list(json.loads(row["allowed_channels"])), row["max_active"], bool(row["rate_computer"]),
                              row["vacation_days"], row["seasons"])

    def get_meta(self, key: str) -> str | None:
        """Read a key of the ``meta`` table (e.g. the synced command-tree hash)."""
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None


class SettingsWrites(SettingsReads):
    """Writing settings."""

    def put_settings(self, settings: SettingsRecord, now: float) -> None:
        """Insert or replace a server's settings."""
        self._conn.execute(
            "INSERT INTO guild_settings (guild_id, days_per_move, use_threads, allowed_channels, max_active, "
            "rate_computer, vacation_days, seasons, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id) DO UPDATE SET days_per_move = excluded.days_per_move, "
            "use_threads = excluded.use_threads, "
            "allowed_channels = excluded.allowed_channels, max_active = excluded.max_active, "
            "rate_computer = excluded.rate_computer, vacation_days = excluded.vacation_days, "
            "seasons = excluded.seasons, updated_at = excluded.updated_at",
            (settings.guild_id, settings.days_per_move, int(settings.use_threads),
             json.dumps(sorted(settings.allowed_channels)), settings.max_active, int(settings.rate_computer),
             settings.vacation_days, settings.seasons, now),
        )

    def put_meta(self, key: str, value: str) -> None:
        """Write a key of the ``meta`` table."""
        self._conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
