"""Ratings and records per server and game, with openskill's Plackett-Luce model.

A rating is shown as ``1000 + 40 × ordinal`` where openskill's ordinal is ``mu − 3·sigma`` (a conservative
estimate; a new player shows 1000). It is *provisional* until :data:`PROVISIONAL_GAMES` rated games, and while its
``sigma``, grown with the time since the member's last game, is high (:mod:`bot.service.uncertainty`: the grown
``sigma`` is what the next game's update starts from). While the server has seasons on, the result is also added to
each member's record of the season (:mod:`bot.service.seasons`). Ratings
change in the same transaction as the move (or resignation, forfeit, agreed draw) that ends the match, on rows held
for it (:meth:`storage.Tx.lock_rating`), so processes finishing matches of one player at once count every one. Matches
against the computer are unrated unless the server's ``rate_computer`` setting is on, in which case only the
human's W/L/D record changes (the computer has no rating). Gröbner Nim solitaire keeps the best result relative
to par (turns − par; lower is better) instead of a rating.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass

from openskill.models import PlackettLuce

from bot.service import seasons, uncertainty
from games import Outcome, Termination
from storage import PROVISIONAL_GAMES, Database, MatchRecord, RatingRecord, ReadTx, Tx

__all__ = ["PAIR_RATED_PER_DAY", "PROVISIONAL_GAMES", "LeaderboardPage", "OneOpponent", "RatingService", "Standing",
           "board_key", "display_rating", "leaderboard", "pair_allows_rating", "record_result", "season_board",
           "split_key"]

_MODEL = PlackettLuce()
PAIR_RATED_PER_DAY = 3
"""Rated results between the same two members of a server that count in 24 hours, every game together: later ones
are played unrated (their final board says so), so that two accounts cannot farm a rating from each other."""
PAIR_WINDOW = 86400.0
"""The window of :data:`PAIR_RATED_PER_DAY`, in seconds."""
ONE_OPPONENT_SHARE = 0.5
"""A member's rated wins in a game of which at least this share were against one member are shown as such by
``/stats`` (a rating built on one opponent, as an account farming another would build it)."""
ONE_OPPONENT_WINS = 5
"""Rated wins in a game from which :data:`ONE_OPPONENT_SHARE` is looked at (fewer say nothing)."""
RECENT_DUELS = 1000
"""A member's newest rated duels that :meth:`RatingService.one_opponent` reads."""
SOLITAIRE_SUFFIX = "/solitaire"
"""Solitaire records are kept apart from the duel ratings of the same game, under ``<game>/solitaire``."""


def board_key(game: str, solitaire: bool) -> str:
    """The key rating rows are stored under: the game key, or ``<game>/solitaire`` for solitaire records."""
    return game + SOLITAIRE_SUFFIX if solitaire else game


def split_key(key: str) -> tuple[str, bool]:
    """Inverse of :func:`board_key`: ``(game, solitaire)``."""
    return (key.removesuffix(SOLITAIRE_SUFFIX), key.endswith(SOLITAIRE_SUFFIX))


def display_rating(mu: float, sigma: float) -> int:
    """The number players see: ``round(1000 + 40 * (mu - 3 * sigma))``."""
    return round(1000 + 40 * (mu - 3 * sigma))


@dataclass(frozen=True)
class Standing:
    """One row of a leaderboard."""

    rank: int
    user_id: int
    name: str
    rating: int
    provisional: bool
    wins: int
    losses: int
    draws: int
    games: int
    best_vs_par: int | None


def _new(match: MatchRecord, user_id: int, name: str, key: str | None = None) -> RatingRecord:
    base = _MODEL.rating()
    return RatingRecord(match.guild_id, key or match.game, user_id, name, base.mu, base.sigma, 0, 0, 0, 0, None)


def pair_allows_rating(tx: ReadTx, match: MatchRecord, now: float) -> bool:
    """Whether ``match``, a duel between two members ending at ``now``, may still be rated: fewer than
    :data:`PAIR_RATED_PER_DAY` rated results between the same two members in the last :data:`PAIR_WINDOW` (``True``
    for anything else). Read in the transaction that ends the match; two results of the same pair ending in the same
    instant in two processes may both count."""
    humans = [seat.user_id for seat in match.seats if not seat.is_computer]
    if len(match.seats) != 2 or len(set(humans)) != 2:
        return True
    return tx.rated_results_between(match.guild_id, humans[0], humans[1], now - PAIR_WINDOW) < PAIR_RATED_PER_DAY


def record_result(tx: Tx, match: MatchRecord, now: float) -> dict[str, list[int]] | None:
    """Update records and ratings for a finished ``match`` inside the transaction ``tx`` that finishes it (no-op
    for unrated or aborted matches).

    Returns:
        each rated human's displayed rating before and after, and whether each was provisional (1) or not (0)
        (``{"<user id>": [before, after, provisional before, provisional after]}``, as ``/stats`` marks it with
        ``?``), when ratings changed (a duel between members), else ``None``.
    """
    if match.status != "finished" or not match.rated or match.outcome is None:
        return None
    outcome = match.outcome
    humans = [seat for seat in match.seats if not seat.is_computer]
    if len(match.seats) == 1:
        _record_solitaire(tx, match, now)
        return None
    if len({seat.user_id for seat in humans}) != len(humans) or not humans:
        return None
    locked = {seat.user_id: tx.lock_rating(_new(match, seat.user_id, seat.display_name), now)
              for seat in sorted(humans, key=lambda seat: seat.user_id)}  # one order: no two bodies wait in a ring
    before_game = {user_id: dataclasses.replace(record) for user_id, record in locked.items()}
    for row in locked.values():  # the uncertainty a member's time away added (bot.service.uncertainty)
        row.sigma = uncertainty.grown(row.sigma, row.updated_at, now)
    records: list[RatingRecord | None] = [None if seat.is_computer else locked[seat.user_id] for seat in match.seats]
    winner, draw = outcome.get("winner"), bool(outcome.get("draw"))
    for seat, record in zip(match.seats, records, strict=True):
        if record is None:
            continue
        record.display_name = seat.display_name
        record.games += 1
        if draw:
            record.draws += 1
        elif winner == seat.seat:
            record.wins += 1
        else:
            record.losses += 1
    changes: dict[str, list[int]] | None = None
    if all(record is not None for record in records):
        ranks: list[float] = [0, 0] if draw else [0 if winner == seat.seat else 1 for seat in match.seats]
        teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in records if r is not None]
        rated = _MODEL.rate(teams, ranks=ranks)
        changes = {}
        for record, team in zip(records, rated, strict=True):
            assert record is not None
            old = before_game[record.user_id]
            before = display_rating(old.mu, old.sigma)  # as the leaderboard showed it
            record.mu, record.sigma = team[0].mu, team[0].sigma
            changes[str(record.user_id)] = [
                before, display_rating(record.mu, record.sigma),
                int(uncertainty.is_provisional(old.games, old.sigma, old.updated_at, now)),
                int(uncertainty.is_provisional(record.games, record.sigma))]
    for record in records:
        if record is not None:
            tx.put_rating(record, now)
    season = seasons.season_of(tx.get_settings(match.guild_id).seasons, now)
    seasons.record(tx, season, before_game, [record for record in records if record is not None], now)
    return changes


def _record_solitaire(tx: Tx, match: MatchRecord, now: float) -> None:
    seat = match.seats[0]
    key = board_key(match.game, solitaire=True)
    record = tx.lock_rating(_new(match, seat.user_id, seat.display_name, key), now)
    record.display_name = seat.display_name
    record.games += 1
    scores = match.outcome.get("scores") if match.outcome else None
    par = match.state.get("par")
    outcome = Outcome.from_dict(match.outcome) if match.outcome else None
    completed = outcome is not None and outcome.winner is None and outcome.termination is Termination.NATURAL
    if completed and scores and isinstance(par, int) and match.state.get("par_exact", False):
        relative = int(scores[0]) - par
        record.wins += 1
        record.best_vs_par = relative if record.best_vs_par is None else min(record.best_vs_par, relative)
    elif completed:
        record.wins += 1  # completed against a par that is only an upper bound: not ranked
    else:
        record.losses += 1
    tx.put_rating(record, now)


@dataclass(frozen=True)
class LeaderboardPage:
    """One page of a leaderboard: its standings, its number (from 1), the number of pages and of ranked players."""

    standings: list[Standing]
    page: int
    pages: int
    ranked: int


def leaderboard(tx: ReadTx, guild_id: int, key: str, *, solitaire: bool = False, page: int = 1,
                rows: int = 20, now: float | None = None, everyone: bool = True) -> LeaderboardPage:
    """Page ``page`` (a later page than the last shows the last) of ``rows`` standings of the board ``key``
    (:func:`board_key`), ranked and cut in SQL (:meth:`storage.ReadTx.leaderboard_page`): by rating, established
    players first, then wins and name; for solitaire by best result relative to par, then games. A read body:
    ``await db.read(ratings.leaderboard, guild_id, key, page=3)``; its cost follows ``rows``, not the number of
    players. A rating is provisional (:func:`bot.service.uncertainty.is_provisional`) at ``now`` (epoch seconds;
    ``None``: by games alone); without ``everyone`` a duel board ranks only the established ratings.

    Raises:
        ValueError: ``page`` or ``rows`` below 1.
    """
    if page < 1 or rows < 1:
        raise ValueError("page and rows start at 1")
    established = None if everyone or now is None else uncertainty.leaderboard_filter(now)
    ranked, offset, records = tx.leaderboard_page(guild_id, key, solitaire=solitaire, offset=(page - 1) * rows,
                                                  limit=rows, established=established)
    pages = max(1, (ranked + rows - 1) // rows)
    page = min(page, pages)
    first = offset + 1
    standings = [
        Standing(rank, r.user_id, r.display_name, display_rating(r.mu, r.sigma),
                 uncertainty.is_provisional(r.games, r.sigma, r.updated_at, now), r.wins, r.losses, r.draws, r.games,
                 r.best_vs_par)
        for rank, r in enumerate(records, start=first)
    ]
    return LeaderboardPage(standings, page, pages, ranked)


@dataclass(frozen=True)
class OneOpponent:
    """A rating built on one opponent: of a member's ``wins`` rated wins in ``game`` (among their newest
    :data:`RECENT_DUELS` rated duels), ``against`` were against the member ``user_id`` called ``name``."""

    game: str
    user_id: int
    name: str
    against: int
    wins: int


def one_opponent(duels: list[tuple[str, int, str, int, str]]) -> list[OneOpponent]:
    """From a member's rated duels (:meth:`storage.ReadTx.rated_duels_of`), each game whose rated wins are at least
    :data:`ONE_OPPONENT_WINS` and of which at least :data:`ONE_OPPONENT_SHARE` were against one member, by game."""
    wins: dict[str, Counter[int]] = {}
    names: dict[int, str] = {}
    for game, seat, outcome, opponent_id, opponent_name in duels:
        if json.loads(outcome).get("winner") == seat:
            wins.setdefault(game, Counter())[opponent_id] += 1
            names.setdefault(opponent_id, opponent_name)  # (the newest name: duels come newest first)
    found = []
    for game, by_opponent in sorted(wins.items()):
        total = sum(by_opponent.values())
        opponent_id, against = by_opponent.most_common(1)[0]
        if total >= ONE_OPPONENT_WINS and against >= ONE_OPPONENT_SHARE * total:
            found.append(OneOpponent(game, opponent_id, names[opponent_id], against, total))
    return found


def season_board(tx: ReadTx, guild_id: int, game: str, season: str, *, page: int = 1, rows: int = 20,
                 everyone: bool = False) -> LeaderboardPage:
    """Page ``page`` of ``rows`` of a season's standings (:mod:`bot.service.seasons`): each member who played a
    rated game of ``game`` in ``season``, by the rating their last game of the season left them, then wins; without
    ``everyone``, only those whose rating was established then. A read body, ranked and cut in SQL.

    Raises:
        ValueError: ``page`` or ``rows`` below 1.
    """
    if page < 1 or rows < 1:
        raise ValueError("page and rows start at 1")
    ranked, offset, records = tx.season_page(guild_id, game, season, established_only=not everyone,
                                             offset=(page - 1) * rows, limit=rows)
    pages = max(1, (ranked + rows - 1) // rows)
    standings = [Standing(rank, r.user_id, r.display_name, display_rating(r.mu, r.sigma), r.provisional, r.wins,
                          r.losses, r.draws, r.games, None)
                 for rank, r in enumerate(records, start=offset + 1)]
    return LeaderboardPage(standings, min(page, pages), pages, ranked)


class RatingService:
    """Leaderboards and members' records over a :class:`storage.Database` (ratings themselves change with the
    result that ends a match: :func:`record_result`).

    Args:
        db: the open database.
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    async def leaderboard(self, guild_id: int, game: str, *, solitaire: bool = False, page: int = 1,
                          rows: int = 20, now: float | None = None, everyone: bool = True) -> LeaderboardPage:
        """Page ``page`` of ``game``'s leaderboard in ``guild_id`` (the solitaire board with ``solitaire``), ``rows``
        standings to a page: :func:`leaderboard` (provisional at ``now``; without ``everyone``, established only).

        Raises:
            ValueError: ``page`` or ``rows`` below 1.
        """
        return await self.db.read(leaderboard, guild_id, board_key(game, solitaire), solitaire=solitaire, page=page,
                                  rows=rows, now=now, everyone=everyone)

    async def season(self, guild_id: int, game: str, season: str, *, page: int = 1, rows: int = 20,
                     everyone: bool = False) -> LeaderboardPage:
        """Page ``page`` of a season's standings of ``game`` in ``guild_id``: :func:`season_board`.

        Raises:
            ValueError: ``page`` or ``rows`` below 1.
        """
        return await self.db.read(season_board, guild_id, game, season, page=page, rows=rows, everyone=everyone)

    async def seasons(self, guild_id: int, game: str | None = None) -> list[str]:
        """The seasons ``guild_id`` has standings of (of ``game``, or any), latest first (at most 25)."""
        return await self.db.read(ReadTx.seasons_of, guild_id, game)

    async def of_member(self, guild_id: int, user_id: int) -> list[RatingRecord]:
        """A member's rating rows in ``guild_id``, one per board played (:func:`split_key` names its game), by key."""
        return await self.db.read(ReadTx.ratings_of_user, guild_id, user_id)

    async def one_opponent(self, guild_id: int, user_id: int) -> list[OneOpponent]:
        """The games in which a member's rated wins in ``guild_id`` were mostly against one member
        (:func:`one_opponent`), by game."""
        return one_opponent(await self.db.read(ReadTx.rated_duels_of, guild_id, user_id, RECENT_DUELS))
