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
from i18n import Period
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


def season_words(season: str) -> Period | str:
    """A season as players read it, in their language once rendered: ``March 2025`` / ``mars 2025``, ``Q1 2025`` /
    ``T1 2025`` (an :class:`i18n.Period`; the key itself when it is neither)."""
    year, _, part = season.partition("-")
    if year.isdigit() and part.startswith("Q") and part[1:] in ("1", "2", "3", "4"):
        return Period(int(year), quarter=int(part[1:]))
    if year.isdigit() and part.isdigit() and 1 <= int(part) <= 12 and len(part) == 2:
        return Period(int(year), month=int(part))
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
