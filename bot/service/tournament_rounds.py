"""A tournament's rounds run themselves: results read from the matches as they end, the next round paired the moment
the last game of a round ends (or the tournament finished, with its final standings), tournaments started at their
start time, a game idle past its deadline and a day of grace ended by the organizer, and the news of it all queued
for the bot to post.

No ``discord`` import. A round's games are ordinary matches, started through the same step as an accepted
challenge (:func:`bot.service.challenges.insert_match`); a tournament only reads their outcomes. Every way a match
ends tells :class:`bot.service.base.MatchEnds`, which this service listens to (:meth:`RoundService.note_end`).

Exactly once, whatever crashes and however many processes: the pairing itself (caissify-pairings, in a worker
process: :meth:`bot.service.computer.ComputerPool.run`) is computed outside any transaction, under a lease so that
one process computes it; the round is then written in one transaction that holds the tournament's row, checks that
its current round is still the one that ended, and inserts the new round's row, whose primary key refuses a second
one. A process that dies anywhere between leaves the round to the next :meth:`RoundService.sweep` (at start-up and
in every deadline pass), which finds every running tournament whose round is over. The news (the new round's
pairings and the standings, the podium) is queued in the transaction that writes the round or the end, so it is
posted once, by the process that claims it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.service import finisher, pairing, standings
from bot.service.base import MatchEnds
from bot.service.challenges import insert_match
from bot.service.clock import DAY
from bot.service.computer import ComputerPool
from bot.service.errors import MatchOver, NotAllowed, NotFound, ServiceError
from bot.service.states import sound_state
from games import Termination
from games.base import read_stored_outcome
from storage import (
    Database,
    MatchRecord,
    ReadTx,
    SeatRecord,
    Shards,
    TournamentEntryRecord,
    TournamentGameRecord,
    TournamentNewsRecord,
    TournamentRecord,
    Tx,
)

log = logging.getLogger(__name__)

GRACE = DAY
"""How long past a game's days per move (since its last move) the organizer must wait before ending it idle."""
PAIRING_LEASE = pairing.PAIRING_BUDGET + 60.0
"""Seconds a process holds the pairing of a round it computes (longer than a pairing may take)."""
NEWS_LEASE = 300.0
"""Seconds a process holds the tournament news it claimed for posting."""
NEWS_RETRY_DELAYS: tuple[float, ...] = (30.0, 120.0, 600.0, 3600.0)
"""Seconds before the 2nd, 3rd, 4th and every later attempt to post a tournament's news."""
NEWS_BATCH = 10
PENDING_CAP = 10_000
"""Ended matches noted and not yet looked at (:meth:`RoundService.note_end`) beyond which the notes are dropped and
the next :meth:`RoundService.settle_pending` sweeps every running tournament instead (a process that ends matches
without a tournament task to settle them, such as a script, never grows this without bound)."""
MAX_STEPS = 64
"""Rounds :meth:`RoundService.advance` settles in one call (a round with no game, all forfeits and rests, is over at
once and the next follows)."""


def board_points(match: MatchRecord) -> tuple[float, float]:
    """``(first seat's points, second seat's points)`` of a finished match: 1–0, 0–1, ½–½; 0–0 for a match that
    ended with no winner and no draw (aborted)."""
    outcome = read_stored_outcome(match.outcome) if match.outcome else None
    if outcome is None or match.status == "aborted":
        return 0.0, 0.0
    if outcome.draw:
        return 0.5, 0.5
    if outcome.winner == 0:
        return 1.0, 0.0
    if outcome.winner == 1:
        return 0.0, 1.0
    return 0.0, 0.0


def record_results(tx: Tx, tournament_id: int) -> list[int]:
    """Inside ``tx``: write the result of every board of ``tournament_id`` whose match is over and not yet recorded
    (played when both seats moved), and withdraw from later rounds a member who lost one on time (Online-Go.com's
    practice: their other games go on). Returns the members so withdrawn."""
    withdrawn = []
    for match_id in tx.ended_unrecorded(tournament_id):
        match = tx.get_match(match_id)
        board = tx.tournament_game_of_match(match_id)
        if match is None or board is None:
            continue
        first, second = board_points(match)
        played = len({move.seat for move in tx.get_moves(match_id)}) == 2
        tx.set_board_result(tournament_id, board.round, board.board, first, second, played)
        outcome = read_stored_outcome(match.outcome) if match.outcome else None
        if outcome is not None and outcome.termination is Termination.OUT_OF_TIME and outcome.loser in (0, 1):
            loser = board.first_id if outcome.loser == 0 else board.second_id
            entry = tx.tournament_entry(tournament_id, loser or 0)
            if entry is not None and entry.withdrawn_round is None:
                tx.update_entry(tournament_id, entry.user_id, withdrawn_round=board.round + 1,
                                withdrawn_reason="lost on time")
                withdrawn.append(entry.user_id)
    return withdrawn


@dataclass(frozen=True)
class _Pairing:
    """A round to pair, read in one transaction: the tournament as read, the round, and the request for the engine."""

    tournament: TournamentRecord
    round_number: int
    request: pairing.SwissRequest | pairing.RoundRobinRequest


@dataclass
class RoundNews:
    """What a piece of tournament news says, read for posting (:meth:`RoundService.news_view`)."""

    news: TournamentNewsRecord
    tournament: TournamentRecord
    entries: list[TournamentEntryRecord]
    boards: list[TournamentGameRecord]
    """The boards of the news's round (``round``), or none."""
    matches: dict[int, MatchRecord] = field(default_factory=dict)
    """The round's matches by id."""
    standings: list[standings.Line] = field(default_factory=list)
    """After the rounds completed before the news's round (``round``), or the final ones (``final``)."""
    completed: int = 0
    """How many rounds :attr:`standings` count."""
    withdrawn: list[TournamentEntryRecord] = field(default_factory=list)
    """Entrants withdrawn from this round on (lost on time, or withdrew)."""
    pings: dict[int, bool] = field(default_factory=dict)
    """Each member entrant's ``/notify`` pings preference."""


class RoundService:
    """Tournament rounds over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        computer: where rounds are paired (worker processes in the bot; a thread without workers).
        ends: the match ends to listen to (:meth:`note_end`).
        shards: the Discord shards this process serves (``None``: all): its sweep, starts and news are of their
            servers only.
        computer_id, computer_name: who the computer is (read when a round is paired).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, computer: ComputerPool,
                 ends: MatchEnds, shards: Shards | None = None, computer_name: Callable[[], str] = lambda: "Computer",
                 ) -> None:
        self.db = db
        self.clock = clock
        self.computer = computer
        self.shards = shards
        self.computer_name = computer_name
        self.pending: set[int] = set()
        """Ids of ended matches not looked at yet (:meth:`settle_pending`), at most :data:`PENDING_CAP`."""
        self._overflowed = False
        self.stalled: set[int] = set()
        """Tournaments whose advance failed (a worker died, a pairing took too long): tried again first at the next
        :meth:`settle_pending`."""
        self.wake: Callable[[], None] = lambda: None
        """Called when a match ended (the bot's tournament task sets it to wake itself)."""
        ends.listen(self.note_end)

    def note_end(self, match: MatchRecord) -> None:
        """A match ended (:class:`bot.service.base.MatchEnds`): note it for :meth:`settle_pending`, and wake the task
        that runs it."""
        if len(self.pending) >= PENDING_CAP:
            self.pending.clear()
            self._overflowed = True
        self.pending.add(match.id)
        self.wake()

    async def settle_pending(self) -> list[int]:
        """Look at every match noted as ended: for a tournament's game, record its result and, when it was the last
        of its round, pair the next round (or finish the tournament). Returns the tournaments that advanced."""
        advanced = []
        if self._overflowed:  # notes were dropped: look at every running tournament instead
            self._overflowed = False
            advanced += await self.sweep()
        for tournament_id in sorted(self.stalled):
            self.stalled.discard(tournament_id)
            if await self.retrying(tournament_id):
                advanced.append(tournament_id)
        while self.pending:
            match_id = self.pending.pop()
            board = await self.db.read(ReadTx.tournament_game_of_match, match_id)
            if board is not None and await self.retrying(board.tournament_id):
                advanced.append(board.tournament_id)
        return advanced

    async def retrying(self, tournament_id: int) -> bool:
        """:meth:`advance`; a failure leaves the tournament in :attr:`stalled` (tried again at the next settling)
        and propagates."""
        try:
            return await self.advance(tournament_id)
        except BaseException:
            self.stalled.add(tournament_id)
            raise

    async def sweep(self) -> list[int]:
        """Start the tournaments whose start time has come and settle every running one (a round a crash left
        unpaired, a result not yet recorded); of this process's servers. Returns the tournaments that moved on."""
        moved = await self.sweep_starts()
        for tournament_id in await self.db.read(ReadTx.running_tournament_ids, self.shards):
            if await self.advance(tournament_id):
                moved.append(tournament_id)
        return moved

    async def sweep_starts(self) -> list[int]:
        """Start the tournaments (of this process's servers) whose start time has come (:meth:`start_due`); returns
        those that started."""
        started = []
        for tournament_id in await self.db.read(ReadTx.due_tournament_starts, self.clock(), self.shards):
            if await self.start_due(tournament_id):
                started.append(tournament_id)
        return started

    async def start_due(self, tournament_id: int) -> bool:
        """Start a tournament whose start time has come (:meth:`begin`); with fewer than two players it stays open
        (its start time is cleared, and news says so). ``True`` when it started."""
        now = self.clock()

        def body(tx: Tx) -> bool:
            tournament = tx.lock_tournament(tournament_id)
            if tournament is None or tournament.status != "open" or tournament.starts_at is None:
                return False
            if len(tx.tournament_entries(tournament_id)) < 2:
                tx.update_tournament(tournament_id, tournament.version, starts_at=None)
                tx.add_tournament_news(tournament_id, 0, "waiting", now)
                return False
            begin(tx, tournament, now)
            return True

        if not await self.db.write(body):
            return False
        await self.advance(tournament_id)
        return True

    async def advance(self, tournament_id: int) -> bool:
        """Record the results of the tournament's ended games and, while its current round is over, pair the next
        round or finish the tournament (a round with no game to play is over at once). ``True`` when a round was
        paired or the tournament finished here; ``False`` when there was nothing to do, or another process holds
        the pairing (it pairs it; if it dies, a later sweep does)."""
        moved = False
        for _ in range(MAX_STEPS):
            now = self.clock()
            step = await self.db.write(_next_step, tournament_id, now)
            if step is None:
                return moved
            if step == "finished":
                return True
            assert isinstance(step, _Pairing)
            lease = f"tournament-round:{tournament_id}:{step.round_number}"
            if not await self.db.write(Tx.take_lease, lease, now, now + PAIRING_LEASE):
                return moved
            try:
                try:
                    result = await self.computer.run(pairing.pair_round, step.request, budget=pairing.PAIRING_BUDGET)
                except pairing.PairingError as error:  # nobody left to pair within the rules: the tournament ends
                    log.info("tournament %s: no round %s (%s); finishing it", tournament_id, step.round_number, error)
                    if await self.db.write(_finish_early, step.tournament, self.clock()):
                        return True
                    return moved
                written = await self._write_round(step, result)
            finally:
                await self.db.write(Tx.drop_lease, lease)
            if not written:
                return moved
            moved = True
        return moved

    async def _write_round(self, step: _Pairing, result: pairing.Pairing) -> bool:
        """Store the round ``step`` asked for, paired as ``result``; ``False`` when another process stored it first
        (or the tournament changed meanwhile)."""
        now = self.clock()
        name = self.computer_name()
        try:
            return await self.db.write(_store_round, step, result, now, name)
        except self.db.IntegrityError:  # the round's row exists: another process paired it first
            log.info("tournament %s: round %s was paired elsewhere", step.tournament.id, step.round_number)
            return False

    async def end_idle_game(self, tournament_id: int, guild_id: int, user_id: int, match_id: int, *,
                            manager: bool) -> MatchRecord:
        """End a game of the tournament's current round whose player to move has not moved for its days per move
        and :data:`GRACE` more (a vacation or extra time may hold its deadline off): the player to move loses it
        on time. The organizer's (or a member with Manage Server, ``manager``) way to keep a round from stalling.

        Raises:
            NotFound (no such tournament here, or the match is not its game), NotAllowed (not the organizer; the game
            is not idle long enough), MatchOver (the game is over).
        """
        now = self.clock()

        def body(tx: Tx) -> MatchRecord:
            tournament = tournament_here(tx, tournament_id, guild_id)
            if tournament.organizer_id != user_id and not manager:
                raise NotAllowed(f"Only the organizer of tournament #{tournament_id} (or a member with Manage Server) "
                                 "can end an idle game.")
            board = tx.tournament_game_of_match(match_id)
            if board is None or board.tournament_id != tournament_id:
                raise NotFound(f"Match #{match_id} is not a game of tournament #{tournament_id}.")
            match = tx.lock_match(match_id)
            if match is None or match.status != "active":
                raise MatchOver(f"Match #{match_id} is over already.")
            sound_state(match)
            idle_since = match.updated_at
            allowed = idle_since + match.days_per_move * DAY + GRACE
            if now < allowed:
                raise NotAllowed(f"Match #{match_id} is not idle long enough: its player to move has until "
                                 f"<t:{int(allowed)}:f> (the days per move since the last move, and a day of grace).")
            return finisher.forfeit(tx, match, now, queue=False)

        ended = await self.db.write(body)
        self.pending.add(ended.id)
        await self.settle_pending()
        return ended

    # ---------------------------------------------------------------- news

    async def claim_news(self, limit: int = NEWS_BATCH) -> list[TournamentNewsRecord]:
        """Claim up to ``limit`` tournament news due now (of this process's servers) for :data:`NEWS_LEASE` seconds;
        settle each with :meth:`news_done` or :meth:`news_failed`."""
        now = self.clock()
        return await self.db.write(Tx.claim_tournament_news, now, now + NEWS_LEASE, limit, self.shards)

    async def news_done(self, news: TournamentNewsRecord) -> None:
        """Forget posted news (or news that can never be posted)."""
        await self.db.write(Tx.tournament_news_done, news.id)

    async def news_failed(self, news: TournamentNewsRecord) -> float:
        """Count a failed post of ``news``; return when it is tried again (epoch seconds)."""
        next_at = self.clock() + NEWS_RETRY_DELAYS[min(news.attempts, len(NEWS_RETRY_DELAYS) - 1)]
        await self.db.write(Tx.tournament_news_retry, news.id, next_at)
        return next_at

    async def next_work(self) -> float | None:
        """When a tournament next starts or its news is due (of this process's servers), or ``None``."""
        return await self.db.read(ReadTx.next_tournament_work, self.shards)

    async def news_view(self, news: TournamentNewsRecord) -> RoundNews | None:
        """Everything ``news`` says, read in one snapshot; ``None`` when its tournament is gone."""
        def body(tx: ReadTx) -> RoundNews | None:
            tournament = tx.get_tournament(news.tournament_id)
            if tournament is None:
                return None
            entries = tx.tournament_entries(tournament.id)
            games = tx.tournament_games(tournament.id)
            view = RoundNews(news, tournament, entries, [])
            view.pings = {e.user_id: tx.member_prefs(e.user_id).pings for e in entries if not e.is_computer}
            if news.kind == "round":
                view.boards = [board for board in games if board.round == news.round]
                view.matches = {board.match_id: match for board in view.boards if board.match_id is not None
                                and (match := tx.get_match(board.match_id)) is not None}
                view.completed = news.round - 1
                view.withdrawn = [e for e in entries if e.withdrawn_round == news.round]
            elif news.kind == "final":
                view.completed = tournament.current_round
            view.standings = standings.standings(tournament.format, entries, games, view.completed)
            return view

        return await self.db.read(body)


# ---------------------------------------------------------------- transaction bodies


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
        raise NotFound(f"There is no tournament #{tournament_id} in this server.")
    return tournament


def begin(tx: Tx, tournament: TournamentRecord, now: float) -> TournamentRecord:
    """Inside ``tx``, on the tournament's held row: start it. Starting numbers go by rating (highest first), then by
    entry; a round robin's rounds are set from the number of players. Round 1 is paired by
    :meth:`RoundService.advance` (the round "0" is over at once).

    Raises:
        NotAllowed: fewer than two players. Outdated: the tournament changed since it was read.
    """
    entries = tx.tournament_entries(tournament.id)
    if len(entries) < 2:
        raise NotAllowed(f"Tournament #{tournament.id} needs at least 2 players to start; "
                         f"{len(entries)} {'is' if len(entries) == 1 else 'are'} entered.")
    ordered = sorted(entries, key=lambda e: (-e.rating, e.joined_at, e.number))
    for number, entry in enumerate(ordered, start=1):  # two passes: numbers stay distinct at every step
        tx.update_entry(tournament.id, entry.user_id, number=len(entries) + number)
    for number, entry in enumerate(ordered, start=1):
        tx.update_entry(tournament.id, entry.user_id, number=number)
    rounds = pairing.round_robin_rounds(len(entries)) if tournament.format == "round_robin" else tournament.rounds
    if not tx.update_tournament(tournament.id, tournament.version, status="running", started_at=now, rounds=rounds,
                                starts_at=None):
        raise ServiceError("The tournament changed meanwhile; try again.")
    started = tx.get_tournament(tournament.id)
    assert started is not None
    return started


def _next_step(tx: Tx, tournament_id: int, now: float) -> _Pairing | str | None:
    """Record the tournament's ended games; then, when its current round is over, finish it (returns
    ``"finished"``) or return the next round to pair; ``None`` when there is nothing to do."""
    tournament = tx.lock_tournament(tournament_id)
    if tournament is None or tournament.status != "running":
        return None
    record_results(tx, tournament_id)
    current = tournament.current_round
    if current and tx.boards_waiting(tournament_id, current):
        return None
    entries = tx.tournament_entries(tournament_id)
    games = tx.tournament_games(tournament_id)
    if current >= tournament.rounds:
        _finish(tx, tournament, entries, games, now)
        return "finished"
    following = current + 1
    if tournament.format == "round_robin":
        request: pairing.SwissRequest | pairing.RoundRobinRequest = pairing.RoundRobinRequest(
            tuple(entry.user_id for entry in sorted(entries, key=lambda e: e.number)), following)
    else:
        playing = standings.entrants(entries, games, current, following)
        if len(playing) < 2:
            _finish(tx, tournament, entries, games, now)
            return "finished"
        engine: pairing.Engine = "dutch" if len(entries) <= pairing.DUTCH_PLAYERS else "matching"
        request = pairing.SwissRequest(tuple(playing), following, tournament.rounds, engine)
    return _Pairing(tournament, following, request)


def _finish(tx: Tx, tournament: TournamentRecord, entries: Sequence[TournamentEntryRecord],
            games: Sequence[TournamentGameRecord], now: float) -> None:
    """Inside ``tx``, on the tournament's held row: end it with the standings after its completed rounds (each
    entrant's final rank kept) and queue the final news."""
    completed = tournament.current_round
    for line in standings.standings(tournament.format, entries, games, completed):
        tx.update_entry(tournament.id, line.key, final_rank=line.rank)
    tx.update_tournament(tournament.id, tournament.version, status="finished", finished_at=now,
                         rounds=max(completed, 1) if completed < tournament.rounds else tournament.rounds)
    tx.add_tournament_news(tournament.id, completed, "final", now)


def _finish_early(tx: Tx, read: TournamentRecord, now: float) -> bool:
    """Finish a tournament no further round can be paired for (if it is still as ``read``)."""
    tournament = tx.lock_tournament(read.id)
    if tournament is None or tournament.status != "running" or tournament.current_round != read.current_round:
        return False
    _finish(tx, tournament, tx.tournament_entries(read.id), tx.tournament_games(read.id), now)
    return True


def _store_round(tx: Tx, step: _Pairing, result: pairing.Pairing, now: float, computer_name: str) -> bool:
    """Store round ``step.round_number`` as paired in ``result``, if the tournament is still where it was when the
    pairing was read: its row is held, its current round must be the one before, and the round's own row (primary
    key: tournament and round) can exist only once. Each game starts as a match; byes, rests and forfeits (a round
    robin's game against a withdrawn player) are scored at once. Returns ``False`` when the tournament moved on."""
    tournament = tx.lock_tournament(step.tournament.id)
    previous = step.round_number - 1
    if tournament is None or tournament.status != "running" or tournament.current_round != previous:
        return False
    if previous and tx.boards_waiting(tournament.id, previous):
        return False
    tx.insert_round(tournament.id, step.round_number, result.engine[:120], now)
    entries = {entry.user_id: entry for entry in tx.tournament_entries(tournament.id)}
    rate_computer = tx.get_settings(tournament.guild_id).rate_computer
    for number, board in enumerate(result.boards, start=1):
        tx.insert_board(_board(tx, tournament, step.round_number, number, board, entries, now, computer_name,
                               rate_computer))
    if not tx.update_tournament(tournament.id, tournament.version, current_round=step.round_number,
                                engine=result.engine[:120]):
        raise ServiceError("the tournament changed while its round was stored")
    tx.add_tournament_news(tournament.id, step.round_number, "round", now)
    return True


def _away(entry: TournamentEntryRecord, round_number: int) -> bool:
    return entry.withdrawn_round is not None and entry.withdrawn_round <= round_number


def _board(tx: Tx, tournament: TournamentRecord, round_number: int, number: int, board: pairing.Board,
           entries: dict[int, TournamentEntryRecord], now: float, computer_name: str,
           rate_computer: bool) -> TournamentGameRecord:
    """The stored board of one pairing (its match started when it is a game)."""
    stored = TournamentGameRecord(tournament.id, round_number, number, board.first, board.second, "game")
    if board.second is None:
        rest = tournament.format == "round_robin"
        return dataclasses.replace(stored, kind="rest" if rest else "bye", first_points=0.0 if rest else 1.0,
                                   played=False)
    first, second = entries[board.first], entries[board.second]
    if _away(first, round_number) or _away(second, round_number):  # a round robin's game against a withdrawn player
        return dataclasses.replace(stored, kind="forfeit", played=False,
                                   first_points=0.0 if _away(first, round_number) else 1.0,
                                   second_points=0.0 if _away(second, round_number) else 1.0)
    seats = [_seat(0, first, computer_name), _seat(1, second, computer_name)]
    computer = first.is_computer or second.is_computer
    match_id = insert_match(tx, tournament.guild_id, tournament.channel_id, tournament.game, dict(tournament.variant),
                            seats, tournament.days_per_move, rated=tournament.rated and (rate_computer or not computer),
                            now=now, seed=tournament.id * 100_003 + round_number * 1_009 + number)
    return dataclasses.replace(stored, match_id=match_id)


def _seat(seat: int, entry: TournamentEntryRecord, computer_name: str) -> SeatRecord:
    if entry.is_computer:
        return SeatRecord(seat, entry.user_id, f"{computer_name} ({entry.level})", entry.level)
    return SeatRecord(seat, entry.user_id, entry.display_name)


__all__ = ["GRACE", "RoundNews", "RoundService", "begin", "board_points", "record_results", "tournament_here"]

