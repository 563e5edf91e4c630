"""A rating's queries (``ratings``): each member's rating and record per server and game, and the leaderboards,
ranked in SQL along their indexes."""

from __future__ import annotations

from storage.queries.base import Queries
from storage.records import RatingRecord, rating_from_row

_RATING_COLUMNS = "guild_id, game, user_id, display_name, mu, sigma, games, wins, losses, draws, best_vs_par"
_RATING_READ = _RATING_COLUMNS + ", updated_at"
"""What a read of a rating row selects: its columns and when it last changed (the member's last game)."""

PROVISIONAL_GAMES = 5
"""Rated games before a rating is established; provisional ratings rank after the established ones (a constant of the
``ratings_rank`` index, migration 4)."""
_RANK_ORDER = "games < 5, ROUND(1000 + 40 * (mu - 3 * sigma)) DESC, wins DESC, display_name, user_id"
"""A duel leaderboard's order: established first, then by displayed rating, wins, name (the ``ratings_rank`` index)."""
_PAR_ORDER = "best_vs_par, games DESC, display_name, user_id"
"""A solitaire board's order: best result against par, then more games (the ``ratings_par`` index)."""


def _reversed_order(order: str) -> str:
    """``order`` (an ORDER BY list) with every term's direction flipped (for walking an index from its end)."""
    terms = [term.strip() for term in order.split(",")]
    return ", ".join(term[: -len(" DESC")] if term.endswith(" DESC") else f"{term} DESC" for term in terms)


class RatingReads(Queries):
    """Reading ratings and leaderboards."""

    def get_rating(self, guild_id: int, game: str, user_id: int) -> RatingRecord | None:
        """A player's rating row, or ``None`` before their first finished match."""
        row = self._one(f"SELECT {_RATING_READ} FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",  # noqa: S608 - column lists are module constants; values are bound parameters
                        (guild_id, game, user_id))
        return rating_from_row(row) if row else None

    def ratings_of_game(self, guild_id: int, game: str) -> list[RatingRecord]:
        """All rating rows of a server and game (unsorted)."""
        rows = self._all(f"SELECT {_RATING_READ} FROM ratings WHERE guild_id = ? AND game = ?", (guild_id, game))  # noqa: S608 - column lists are module constants; values are bound parameters
        return [rating_from_row(row) for row in rows]

    def ratings_of_user(self, guild_id: int, user_id: int) -> list[RatingRecord]:
        """A player's rating rows in a server, one per game played, by game key (the ``ratings_member`` index)."""
        rows = self._all(f"SELECT {_RATING_READ} FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY game",  # noqa: S608 - column lists are module constants; values are bound parameters
                         (guild_id, user_id))
        return [rating_from_row(row) for row in rows]

    def leaderboard_page(self, guild_id: int, game: str, *, solitaire: bool, offset: int, limit: int,
                         established: tuple[float, float, float] | None = None) -> tuple[int, int, list[RatingRecord]]:
        """One page of a leaderboard, ranked in SQL along an index (``ratings_rank``, ``ratings_par``). How many rows
        a whole board ranks is kept by the database as ratings change (``leaderboard_sizes``), so a page of it costs
        its rows (and, for a page in the middle, its distance from the nearer end of the index), not the whole board;
        a board of established ratings only (``established``) is counted along its covering index.

        Returns ``(ranked, offset, rows)``: how many rows the board ranks, the offset used (``offset``, or that of
        the last page of ``limit`` rows when ``offset`` is past the end), and the rows ranked ``offset + 1`` to
        ``offset + limit`` in order. A duel board (``solitaire=False``) ranks every row of ``game``, established
        ratings (:data:`PROVISIONAL_GAMES` games or more) first, then by displayed rating
        (``round(1000 + 40 * (mu - 3 * sigma))``), wins, name; a solitaire board the rows with a result, by best
        result against par, then more games.

        With ``established`` (``(now, variance_per_second, max_variance)``), a duel board ranks only established
        ratings: :data:`PROVISIONAL_GAMES` games or more, and a ``sigma`` that, grown by ``variance_per_second``
        (of ``sigma²``) for every second since the member's last game (``updated_at``) until ``now``, is at most
        ``sqrt(max_variance)`` (how :mod:`bot.service.uncertainty` counts a rating provisional again), still read
        from an index alone (``ratings_rank_recent``, which holds ``updated_at`` too).
        """
        where = "guild_id = ? AND game = ?" + (" AND best_vs_par IS NOT NULL" if solitaire else "")
        params: tuple[object, ...] = (guild_id, game)
        if established is not None and not solitaire:
            now, per_second, most = established
            where += f" AND games >= {PROVISIONAL_GAMES} AND sigma * sigma + ? * (? - updated_at) <= ?"
            params = (*params, per_second, now, most)
        order = _PAR_ORDER if solitaire else _RANK_ORDER
        if established is not None and not solitaire:  # who is established depends on now: counted
            count = self._one(f"SELECT COUNT(*) FROM ratings WHERE {where}", params)  # noqa: S608 - module constants
            ranked = int(count[0]) if count else 0
        else:
            size = self._one(f"SELECT {'with_par' if solitaire else 'ranked'} FROM leaderboard_sizes "  # noqa: S608 - module constants
                             "WHERE guild_id = ? AND game = ?", (guild_id, game))
            ranked = int(size[0]) if size else 0
        if offset >= ranked > 0:  # past the end: the last page
            offset = (ranked - 1) // limit * limit
        first = offset
        walk = order
        if offset > ranked // 2:  # the back half: walk the index from its end, so no page skips over half the board
            walk = _reversed_order(order)
            offset, limit = max(0, ranked - offset - limit), min(limit, max(0, ranked - offset))
        rowid = self._dialect.rowid
        rows = self._all(
            f"SELECT {_RATING_READ} FROM ratings WHERE {rowid} IN (SELECT {rowid} FROM ratings "  # noqa: S608 - module constants
            f"WHERE {where} "
            f"ORDER BY {walk} LIMIT ? OFFSET ?) ORDER BY {order}",
            (*params, limit, offset),
        )
        return ranked, first, [rating_from_row(row) for row in rows]


class RatingWrites(RatingReads):
    """Writing ratings."""

    def lock_rating(self, fresh: RatingRecord, now: float) -> RatingRecord:
        """The rating row of ``fresh``'s server, game and member, held until the transaction ends (so that two
        processes finishing matches of the same member count both); ``fresh`` (a new player's record) is stored
        first, at ``now``, when the member has none yet. Write it back with :meth:`put_rating`. A body that locks
        several rows locks them in member-id order, so that two such bodies never wait for each other in a ring."""
        self._conn.execute(
            f"INSERT INTO ratings ({_RATING_COLUMNS}, updated_at) "  # noqa: S608 - column lists are module constants; values are bound parameters
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id) DO NOTHING",
            (fresh.guild_id, fresh.game, fresh.user_id, fresh.display_name, fresh.mu, fresh.sigma, fresh.games,
             fresh.wins, fresh.losses, fresh.draws, fresh.best_vs_par, now),
        )
        row = self._one(f"SELECT {_RATING_READ} FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?"  # noqa: S608 - module constants
                        f"{self._dialect.for_update('ratings')}", (fresh.guild_id, fresh.game, fresh.user_id))
        assert row is not None  # inserted above, or there already
        return rating_from_row(row)

    def put_rating(self, rating: RatingRecord, now: float) -> None:
        """Insert or replace a rating row."""
        self._conn.execute(
            f"INSERT INTO ratings ({_RATING_COLUMNS}, updated_at) "  # noqa: S608 - column lists are module constants; values are bound parameters
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id) DO UPDATE SET "
            "display_name = excluded.display_name, mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
            "wins = excluded.wins, losses = excluded.losses, draws = excluded.draws, "
            "best_vs_par = excluded.best_vs_par, updated_at = excluded.updated_at",
            (rating.guild_id, rating.game, rating.user_id, rating.display_name, rating.mu, rating.sigma,
             rating.games, rating.wins, rating.losses, rating.draws, rating.best_vs_par, now),
        )
