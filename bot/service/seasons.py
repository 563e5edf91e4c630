"""Seasons: separate standings per calendar month or quarter (a server's ``seasons`` setting), not rating resets.

A season is named by its first day's month (``2025-03``) or its quarter (``2025-Q1``), in UTC. While a server has
seasons on, every rated match that ends adds its result to each member's record of the season it ended in (games,
wins, losses, draws) and keeps their rating after it (:func:`record`, in the transaction that rates the match), so a
season's standings rank its players by the rating their last game of that season left them, then wins. The rating
itself carries on from season to season; past seasons are kept, never deleted.
"""

from __future__ import annotations

import datetime as dt

from bot.service import uncertainty
from storage import RatingRecord, SeasonRecord, Tx

SEASON_SETTINGS: tuple[str, ...] = ("off", "monthly", "quarterly")
"""The values of a server's ``seasons`` setting."""


def season_of(setting: str, when: float) -> str | None:
    """The season holding ``when`` (epoch seconds) under ``setting``: ``2025-03`` (monthly), ``2025-Q1``
    (quarterly), ``None`` (off)."""
    day = dt.datetime.fromtimestamp(when, dt.UTC)
    if setting == "monthly":
        return f"{day.year:04d}-{day.month:02d}"
    if setting == "quarterly":
        return f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}"
    return None


def season_words(season: str) -> str:
    """A season as players read it: ``March 2025``, ``2025 Q1`` (the key itself when it is neither)."""
    if "-Q" in season:
        year, quarter = season.split("-Q", 1)
        return f"{year} Q{quarter}"
    try:
        return dt.datetime.strptime(season, "%Y-%m").strftime("%B %Y")
    except ValueError:
        return season


def record(tx: Tx, season: str | None, before: dict[int, RatingRecord], after: list[RatingRecord],
           now: float) -> None:
    """Add a rated result to each member's record of ``season`` (nothing when seasons are off: ``None``): ``after``
    are the members' rating rows as the result leaves them, ``before`` the same rows before it, by member id."""
    if season is None:
        return
    for row in after:
        old = before[row.user_id]
        tx.add_to_season(SeasonRecord(
            guild_id=row.guild_id, game=row.game, season=season, user_id=row.user_id, display_name=row.display_name,
            mu=row.mu, sigma=row.sigma, provisional=uncertainty.is_provisional(row.games, row.sigma),
            games=row.games - old.games, wins=row.wins - old.wins, losses=row.losses - old.losses,
            draws=row.draws - old.draws), now)
