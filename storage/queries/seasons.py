"""A season's queries (``season_records``): each member's record per server, game and season, written with the
result that ends a rated match, and the season's standings, ranked in SQL along ``season_rank``. Rows are kept for
good: a past season's standings stay as they were."""

from __future__ import annotations

from storage.queries.base import Queries
from storage.records import SeasonRecord, season_from_row

_SEASON_COLUMNS = ("guild_id, game, season, user_id, display_name, mu, sigma, provisional, games, wins, losses, "
                   "draws")
_SEASON_ORDER = "provisional, ROUND(1000 + 40 * (mu - 3 * sigma)) DESC, wins DESC, display_name, user_id"
"""A season's order: established first, then by displayed rating after the member's last game of the season, wins,
name (the ``season_rank`` index)."""


class SeasonReads(Queries):
    """Reading seasons."""

    def season_page(self, guild_id: int, game: str, season: str, *, established_only: bool, offset: int,
                    limit: int) -> tuple[int, int, list[SeasonRecord]]:
        """``(ranked, offset, rows)`` of a season's standings, as :meth:`storage.ReadTx.leaderboard_page` gives a
        leaderboard's: how many rows it ranks (with ``established_only``, those not provisional at their last game
        of the season), the offset used (the last page's when ``offset`` is past the end) and the rows."""
        where = "guild_id = ? AND game = ? AND season = ?" + (" AND provisional = 0" if established_only else "")
        count = self._one(f"SELECT COUNT(*) FROM season_records WHERE {where}", (guild_id, game, season))  # noqa: S608 - module constants
        ranked = int(count[0]) if count else 0
        if offset >= ranked > 0:
            offset = (ranked - 1) // limit * limit
        rows = self._all(f"SELECT {_SEASON_COLUMNS} FROM season_records WHERE {where} ORDER BY {_SEASON_ORDER} "  # noqa: S608 - module constants
                         "LIMIT ? OFFSET ?", (guild_id, game, season, limit, offset))
        return ranked, offset, [season_from_row(row) for row in rows]

    def seasons_of(self, guild_id: int, game: str | None = None, limit: int = 25) -> list[str]:
        """The seasons ``guild_id`` has records of (of ``game``, or of any), latest first, at most ``limit``."""
        if game is None:
            rows = self._all("SELECT DISTINCT season FROM season_records WHERE guild_id = ? ORDER BY season DESC "
                             "LIMIT ?", (guild_id, limit))
        else:
            rows = self._all("SELECT DISTINCT season FROM season_records WHERE guild_id = ? AND game = ? "
                             "ORDER BY season DESC LIMIT ?", (guild_id, game, limit))
        return [str(row[0]) for row in rows]


class SeasonWrites(SeasonReads):
    """Writing seasons."""

    def add_to_season(self, record: SeasonRecord, now: float) -> None:
        """Add ``record``'s games, wins, losses and draws to the member's row of its season (created when it is their
        first game of the season) and set their rating after it (``mu``, ``sigma``, ``provisional``) and name."""
        self._conn.execute(
            f"INSERT INTO season_records ({_SEASON_COLUMNS}, updated_at) "  # noqa: S608 - module constants
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, season, user_id) DO UPDATE "
            "SET display_name = excluded.display_name, mu = excluded.mu, sigma = excluded.sigma, "
            "provisional = excluded.provisional, games = season_records.games + excluded.games, "
            "wins = season_records.wins + excluded.wins, losses = season_records.losses + excluded.losses, "
            "draws = season_records.draws + excluded.draws, updated_at = excluded.updated_at",
            (record.guild_id, record.game, record.season, record.user_id, record.display_name, record.mu,
             record.sigma, int(record.provisional), record.games, record.wins, record.losses, record.draws, now))
