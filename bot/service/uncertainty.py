"""How a rating's uncertainty grows while its member does not play, and when a rating is provisional.

Glicko (and lichess's Glicko-2) lets a player's rating deviation grow with the time since their last game, so that
a rating left alone for long becomes uncertain again: lichess's goes from about 60 to 110 in a year, past the 110
at which it shows a rating as provisional. The same here with openskill's ``sigma``: when a rating is next used
(the next rated game, or a leaderboard or ``/stats`` reading whether it is provisional), its ``sigma`` is raised
from the member's last game's date as ``sigma² + VARIANCE_PER_DAY × days``, never above the starting ``sigma``;
``mu`` is left alone. Numbers (written in the players' docs):

- a rating is *provisional* (shown with ``?``, left off the default leaderboard) until :data:`PROVISIONAL_GAMES`
  rated games, and while its ``sigma`` is above :data:`PROVISIONAL_SIGMA` (7.5; it starts at 25/3 ≈ 8.33, and is
  about 6.7 after five games against varied opponents, 7.3 after five between the same two new players, and 5.0
  after about twenty);
- :data:`VARIANCE_PER_DAY` makes a ``sigma`` of 5.0 (about twenty games) reach 7.5 after a year without a rated
  game, and a ``sigma`` of 6.7 after about four months; from 5.0 it is back at its start after about 17 months.

The displayed rating (``1000 + 40 × (mu − 3 sigma)``) is the one the member's last game left, on the leaderboard
and in ``/stats``; the grown ``sigma`` goes into the next game's update, which then moves the rating more (the
result of a long-idle player says more about them), as Glicko's grown deviation does.
"""

from __future__ import annotations

import math

from storage import PROVISIONAL_GAMES

DAY = 86400.0
SIGMA_START = 25.0 / 3.0
"""openskill's starting ``sigma`` (Plackett-Luce, the defaults): a new member's, and the most it grows to."""
PROVISIONAL_SIGMA = 7.5
"""Above this ``sigma`` a rating is provisional whatever its number of games."""
ESTABLISHED_SIGMA = 5.0
"""A typical ``sigma`` after about twenty rated games (openskill's own updates)."""
VARIANCE_PER_DAY = (PROVISIONAL_SIGMA ** 2 - ESTABLISHED_SIGMA ** 2) / 365.0
"""How much ``sigma²`` grows per day without a rated game: from :data:`ESTABLISHED_SIGMA` to
:data:`PROVISIONAL_SIGMA` in a year (about 0.086 a day)."""

__all__ = ["PROVISIONAL_GAMES", "PROVISIONAL_SIGMA", "SIGMA_START", "VARIANCE_PER_DAY", "grown", "is_provisional",
           "leaderboard_filter"]


def grown(sigma: float, last_played: float | None, now: float) -> float:
    """``sigma`` raised for the time from ``last_played`` to ``now`` (epoch seconds) without a rated game, capped at
    :data:`SIGMA_START` (and never lowered; ``last_played`` ``None``: unchanged)."""
    if last_played is None or now <= last_played or sigma >= SIGMA_START:
        return sigma
    days = (now - last_played) / DAY
    return min(SIGMA_START, math.sqrt(sigma * sigma + VARIANCE_PER_DAY * days))


def is_provisional(games: int, sigma: float, last_played: float | None = None, now: float | None = None) -> bool:
    """``True`` while a rating counts as provisional: fewer than :data:`PROVISIONAL_GAMES` games, or a ``sigma``
    (grown to ``now`` when both times are given) above :data:`PROVISIONAL_SIGMA`."""
    if now is not None:
        sigma = grown(sigma, last_played, now)
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


def leaderboard_filter(now: float) -> tuple[float, float, float]:
    """What :meth:`storage.ReadTx.leaderboard_page` takes to rank only established ratings at ``now``: ``(now,
    growth of sigma² per second, largest sigma²)``."""
    return now, VARIANCE_PER_DAY / DAY, PROVISIONAL_SIGMA ** 2
