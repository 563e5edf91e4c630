"""Reading tournaments: one by id, a server's list a page at a time, the choices of an autocomplete, a member's
record for ``/stats``, a tournament's information and standings (:class:`TournamentView`) and what a piece of its
news says (:class:`RoundNews`), each in one snapshot.

No ``discord`` import. The tournament's own rooms (:mod:`bot.service.tournaments`) use :func:`tournament_here` and
:func:`named` to find a tournament and name it in a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.service import standings
from bot.service.errors import BadOption, NotFound
from bot.service.tournament_director import FINAL_NEWS, ROUND_NEWS
from i18n import Text, _, p_
from storage import (
    Database,
    MatchRecord,
    OutboxRecord,
    ReadTx,
    TournamentEntryRecord,
    TournamentPairingRecord,
    TournamentRecord,
    Tx,
)

STATUS_GROUPS: dict[str, tuple[str, ...]] = {
    "open": ("open",), "running": ("running",), "live": ("open", "running"),
    "all": ("open", "running", "finished", "cancelled"),
}
"""The statuses a command's tournament option offers (its autocomplete)."""


def named(tournament: TournamentRecord) -> Text:
    """``#3 “Spring cup”`` as a placeholder value: how a sentence names a tournament (its number and the name its
    organizer gave it, in the quotation marks of the reader's language)."""
    return p_("tournament label", "#{id} “{name}”", id=str(tournament.id), name=tournament.name)


def tournament_here(tx: ReadTx, tournament_id: int, guild_id: int, *, lock: bool = False) -> TournamentRecord:
    """Tournament ``tournament_id`` of server ``guild_id`` (with ``lock``, its row held until ``tx`` ends: ``tx`` is
    then a write body's :class:`storage.Tx`).

    Raises:
        NotFound: none (or another server's).
        TypeError: ``lock`` inside a read body, which cannot hold a row.
    """
    if lock and not isinstance(tx, Tx):
        raise TypeError("a tournament's row can be held only inside a write body")
    tournament = tx.lock_tournament(tournament_id) if isinstance(tx, Tx) and lock else tx.get_tournament(tournament_id)
    if tournament is None or tournament.guild_id != guild_id:
        raise NotFound(_("There is no tournament #{tournament} in this server.", tournament=str(tournament_id)))
    return tournament


def completed_rounds(tournament: TournamentRecord, games: Sequence[TournamentPairingRecord]) -> int:
    """Rounds of ``tournament`` whose every pairing has its result."""
    waiting = {game.round for game in games if game.first_points is None}
    done = 0
    for number in range(1, tournament.current_round + 1):
        if number in waiting:
            break
        done = number
    return done


@dataclass
class TournamentView:
    """A tournament as ``/tournament info`` and ``/tournament standings`` read it, in one snapshot."""

    tournament: TournamentRecord
    entries: list[TournamentEntryRecord]
    games: list[TournamentPairingRecord]
    completed: int
    """Rounds whose every result is in."""
    standings: list[standings.Line] = field(default_factory=list)
    engines: list[tuple[int, str]] = field(default_factory=list)
    """``(round, engine)`` of the paired rounds."""


@dataclass
class RoundNews:
    """What a piece of tournament news says, read for posting (:meth:`TournamentReading.news`)."""

    news: OutboxRecord
    tournament: TournamentRecord
    entries: list[TournamentEntryRecord]
    boards: list[TournamentPairingRecord]
    """The pairings of the news's round (``round``), or none."""
    matches: dict[int, MatchRecord] = field(default_factory=dict)
    """The round's matches by id."""
    standings: list[standings.Line] = field(default_factory=list)
    """After the rounds completed before the news's round (``round``), or the final ones (``final``)."""
    completed: int = 0
    """How many rounds :attr:`standings` count."""
    withdrawn: list[TournamentEntryRecord] = field(default_factory=list)
    """Entrants withdrawn from this round on (lost on time, a no-show, or withdrew)."""
    late: list[TournamentEntryRecord] = field(default_factory=list)
    """Entrants who joined while this round was paired: a ½-point bye in it, playing from the next."""
    pings: dict[int, bool] = field(default_factory=dict)
    """Each member entrant's ``/notify`` pings preference."""
    played: bool = True
    """Whether a game of the tournament was played over the board (a ``final`` news without one has no podium)."""


class TournamentReading:
    """Reading tournaments over a :class:`storage.Database`, each answer from one snapshot.

    Args:
        db: the open database.
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tournament_id: int, guild_id: int) -> TournamentRecord:
        """Tournament ``tournament_id`` of server ``guild_id`` (raises :class:`NotFound`, also for another
        server's)."""
        return await self.db.read(tournament_here, tournament_id, guild_id)

    async def view(self, tournament_id: int, guild_id: int) -> TournamentView:
        """The tournament with its entrants, boards, engines and standings after its completed rounds (the final
        standings once it finished).

        Raises:
            NotFound.
        """
        def body(tx: ReadTx) -> TournamentView:
            tournament = tournament_here(tx, tournament_id, guild_id)
            entries = tx.tournament_entries(tournament_id)
            games = tx.tournament_pairings(tournament_id)
            done = completed_rounds(tournament, games)
            lines = standings.standings(tournament.format, entries, games, done)
            return TournamentView(tournament, entries, games, done, lines, tx.paired_rounds(tournament_id))

        return await self.db.read(body)

    async def page(self, guild_id: int, page: int, size: int,
                   statuses: Sequence[str] = STATUS_GROUPS["all"]) -> tuple[list[TournamentRecord], int, int]:
        """Page ``page`` (from 1; past the last shows the last) of ``size`` of the server's tournaments, newest
        first: ``(tournaments, page, pages)``.

        Raises:
            BadOption: ``page`` below 1.
        """
        if page < 1:
            raise BadOption(_("There is no page {page}; pages start at 1.", page=page))

        def body(tx: ReadTx) -> tuple[list[TournamentRecord], int, int]:
            count, _ = tx.tournaments_of_guild(guild_id, statuses, 0)
            pages = max(1, -(-count // size))
            shown = min(page, pages)
            return tx.tournaments_of_guild(guild_id, statuses, size, (shown - 1) * size)[1], shown, pages

        return await self.db.read(body)

    async def choices(self, guild_id: int, needle: str, statuses: Sequence[str],
                      limit: int = 25) -> list[tuple[int, str, str]]:
        """``(id, name, status)`` of the server's tournaments with one of ``statuses`` matching ``needle``, newest
        first (for autocomplete)."""
        return await self.db.read(ReadTx.tournament_choices, guild_id, statuses, needle, limit)

    async def of_member(self, guild_id: int, user_id: int) -> tuple[int, int, int]:
        """``(finished tournaments played, won, podiums)`` of a member in a server (for ``/stats``; a tournament in
        which no game was played counts for nobody)."""
        return await self.db.read(ReadTx.member_tournaments, guild_id, user_id)

    async def news(self, news: OutboxRecord) -> RoundNews | None:
        """Everything the tournament ``news`` says (its subject is the tournament, its step the round), read in one
        snapshot; ``None`` when its tournament is gone."""
        def body(tx: ReadTx) -> RoundNews | None:
            tournament = tx.get_tournament(news.subject_id)
            if tournament is None:
                return None
            entries = tx.tournament_entries(tournament.id)
            games = tx.tournament_pairings(tournament.id)
            view = RoundNews(news, tournament, entries, [])
            view.pings = {e.user_id: tx.member_prefs(e.user_id).pings for e in entries if not e.is_computer}
            if news.kind == ROUND_NEWS:
                view.boards = [board for board in games if board.round == news.seq]
                view.matches = {board.match_id: match for board in view.boards if board.match_id is not None
                                and (match := tx.get_match(board.match_id)) is not None}
                view.completed = news.seq - 1
                view.withdrawn = [e for e in entries if e.withdrawn_round == news.seq]
                late = {b.first_id for b in view.boards if b.kind == "half_bye"}
                view.late = [e for e in entries if e.user_id in late and e.joined_round == news.seq + 1]
            elif news.kind == FINAL_NEWS:
                view.completed = tournament.current_round
                view.played = any(game.played for game in games if game.kind == "game")
            view.standings = standings.standings(tournament.format, entries, games, view.completed)
            return view

        return await self.db.read(body)
