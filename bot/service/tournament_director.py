"""Pairing a tournament's next round and turning it into games, as lichess's ``SwissDirector``: one call,
:meth:`Director.pair_next`, records the results in (:mod:`.tournament_results`), then — when the current round is
over — finishes the tournament or pairs its next round, and says which with a tagged result (:class:`Paired`,
:class:`Finished`, :class:`Nothing`).

No ``discord`` import. Exactly once, whatever crashes and however many processes: the pairing itself
(caissify-pairings behind :mod:`.pairing`, in a worker process) is computed outside any transaction, under a lease so
that one process computes it (a lease a dead process left runs out and wakes the tournament again:
:meth:`bot.service.tournament_rounds.RoundService.retry_expired`); the round is then written in one transaction that
holds the tournament's row, checks that its current round is still the one that ended, and inserts the new round's
row, whose primary key refuses a second one. The news (the round's pairings and the standings before it, or the final
standings) is queued in the outbox in the transaction that writes the round or the end.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.service import pairing, standings
from bot.service.challenges import insert_match
from bot.service.computer import ComputerPool
from bot.service.errors import NotAllowed, ServiceError
from bot.service.tournament_results import any_game_played, record_results
from i18n import _, n_
from storage import (
    Database,
    SeatRecord,
    TournamentEntryRecord,
    TournamentPairingRecord,
    TournamentRecord,
    Tx,
)

log = logging.getLogger(__name__)

PAIRING_LEASE = pairing.PAIRING_BUDGET + 60.0
"""Seconds a process holds the pairing of a round it computes (longer than a pairing may take)."""
LEASE_PREFIX = "tournament-round:"
"""The pairing leases' names: ``tournament-round:<tournament>:<round>``."""
ROUND_NEWS = "round"
"""Outbox kind: a new round's pairings, the standings before it and its games' first boards (subject: the tournament;
step: the round)."""
FINAL_NEWS = "final"
"""Outbox kind: the final standings with the podium, and the players thanked (step: the rounds completed)."""
WAITING_NEWS = "waiting"
"""Outbox kind: a start time that came with fewer than two players."""
STALLED_NEWS = "pairing_stalled"
"""Outbox kind: a round that could not be paired for a while, told to the organizer (step: the round)."""
LATE_ENTRANT = "joined while the round was paired"
"""Why a member gets a ½-point bye in the round whose pairing was computed before they joined."""


@dataclass(frozen=True)
class Paired:
    """Round ``round`` of the tournament was paired (its games started, its news queued)."""

    round: int


@dataclass(frozen=True)
class Finished:
    """The tournament finished (its final standings kept, its news queued)."""


@dataclass(frozen=True)
class Nothing:
    """Nothing to do: the round is still being played, the tournament is not running, another process holds the
    pairing (it pairs it; if it dies, its lease runs out and the tournament is woken), or another process paired
    it first."""


Step = Paired | Finished | Nothing


@dataclass(frozen=True)
class _ToPair:
    """A round to pair, read in one transaction: the tournament as read, the round, and the request for the engine."""

    tournament: TournamentRecord
    round_number: int
    request: pairing.SwissRequest | pairing.RoundRobinRequest


class Director:
    """Pairs rounds and finishes tournaments over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        computer: where rounds are paired (worker processes in the bot; a thread without workers).
        computer_name: the computer's name in the seats of the games it plays (read when a round is paired).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, computer: ComputerPool,
                 computer_name: Callable[[], str] = lambda: "Computer") -> None:
        self.db = db
        self.clock = clock
        self.computer = computer
        self.computer_name = computer_name

    async def pair_next(self, tournament_id: int) -> Step:
        """Record the tournament's ended games; when its current round is over, finish it or pair the next round.

        Raises:
            pairing errors other than :class:`bot.service.pairing.PairingError` (a worker died, the pairing took
            longer than its budget): nothing is stored; the caller tries again later.
        """
        now = self.clock()
        step = await self.db.write(_next_step, tournament_id, now)
        if not isinstance(step, _ToPair):
            return step
        lease = f"{LEASE_PREFIX}{tournament_id}:{step.round_number}"
        if not await self.db.write(Tx.take_lease, lease, now, now + PAIRING_LEASE):
            return Nothing()
        try:
            try:
                result = await self.computer.pair(pairing.pair_round, step.request, budget=pairing.PAIRING_BUDGET)
            except pairing.PairingError as error:  # nobody left to pair within the rules: the tournament ends
                log.info("tournament %s: no round %s (%s); finishing it", tournament_id, step.round_number, error)
                finished = await self.db.write(_finish_early, step.tournament, self.clock())
                return Finished() if finished else Nothing()
            return await self._store(step, result)
        finally:
            await self.db.write(Tx.drop_lease, lease)

    async def _store(self, step: _ToPair, result: pairing.Pairing) -> Step:
        now = self.clock()
        try:
            stored = await self.db.write(_store_round, step, result, now, self.computer_name())
        except self.db.IntegrityError:  # the round's row exists: another process paired it first
            log.info("tournament %s: round %s was paired elsewhere", step.tournament.id, step.round_number)
            return Nothing()
        return Paired(step.round_number) if stored else Nothing()


# ---------------------------------------------------------------- transaction bodies


def begin(tx: Tx, tournament: TournamentRecord, now: float) -> TournamentRecord:
    """Inside ``tx``, on the tournament's held row: start it. Starting numbers go by rating (highest first), then by
    entry; a round robin's rounds are set from the number of players. Round 1 is paired by :meth:`Director.pair_next`
    (the round "0" is over at once).

    Raises:
        NotAllowed: fewer than two players. ServiceError: the tournament changed since it was read.
    """
    entries = tx.tournament_entries(tournament.id)
    if len(entries) < 2:
        raise NotAllowed(n_("Tournament #{tournament} needs at least 2 players to start; {count} is entered.",
                            "Tournament #{tournament} needs at least 2 players to start; {count} are entered.",
                            len(entries), tournament=str(tournament.id)))
    ordered = sorted(entries, key=lambda e: (-e.rating, e.joined_at, e.number))
    for number, entry in enumerate(ordered, start=1):  # two passes: numbers stay distinct at every step
        tx.update_entry(tournament.id, entry.user_id, number=len(entries) + number)
    for number, entry in enumerate(ordered, start=1):
        tx.update_entry(tournament.id, entry.user_id, number=number)
    rounds = pairing.round_robin_rounds(len(entries)) if tournament.format == "round_robin" else tournament.rounds
    if not tx.update_tournament(tournament.id, tournament.version, status="running", started_at=now, rounds=rounds,
                                starts_at=None):
        raise ServiceError(_("The tournament changed meanwhile; try again."))
    started = tx.get_tournament(tournament.id)
    assert started is not None
    return started


def _next_step(tx: Tx, tournament_id: int, now: float) -> _ToPair | Finished | Nothing:
    """Record the tournament's ended games; then, when its current round is over, finish it or return the next round
    to pair."""
    tournament = tx.lock_tournament(tournament_id)
    if tournament is None or tournament.status != "running":
        return Nothing()
    record_results(tx, tournament_id)
    current = tournament.current_round
    if current and tx.boards_waiting(tournament_id, current):
        return Nothing()
    entries = tx.tournament_entries(tournament_id)
    games = tx.tournament_pairings(tournament_id)
    if current >= tournament.rounds:
        _finish(tx, tournament, entries, games, now)
        return Finished()
    following = current + 1
    if tournament.format == "round_robin":
        request: pairing.SwissRequest | pairing.RoundRobinRequest = pairing.RoundRobinRequest(
            tuple(entry.user_id for entry in sorted(entries, key=lambda e: e.number)), following)
    else:
        playing = standings.entrants(entries, games, current, following)
        if len(playing) < 2:
            _finish(tx, tournament, entries, games, now)
            return Finished()
        engine: pairing.Engine = "dutch" if len(entries) <= pairing.DUTCH_PLAYERS else "matching"
        request = pairing.SwissRequest(tuple(playing), following, tournament.rounds, engine)
    return _ToPair(tournament, following, request)


def _finish(tx: Tx, tournament: TournamentRecord, entries: Sequence[TournamentEntryRecord],
            games: Sequence[TournamentPairingRecord], now: float) -> None:
    """Inside ``tx``, on the tournament's held row: end it with the standings after its completed rounds (each
    entrant's final rank kept, when a game was played at all: a tournament of forfeits only has no podium and counts
    in nobody's record) and queue the final news."""
    completed = tournament.current_round
    if any_game_played(tx, tournament.id):
        for line in standings.standings(tournament.format, entries, games, completed):
            tx.update_entry(tournament.id, line.key, final_rank=line.rank)
    tx.update_tournament(tournament.id, tournament.version, status="finished", finished_at=now,
                         rounds=max(completed, 1) if completed < tournament.rounds else tournament.rounds)
    tx.add_outbox(FINAL_NEWS, tournament.id, tournament.guild_id, now, seq=completed)


def _finish_early(tx: Tx, read: TournamentRecord, now: float) -> bool:
    """Finish a tournament no further round can be paired for (if it is still as ``read``)."""
    tournament = tx.lock_tournament(read.id)
    if tournament is None or tournament.status != "running" or tournament.current_round != read.current_round:
        return False
    _finish(tx, tournament, tx.tournament_entries(read.id), tx.tournament_pairings(read.id), now)
    return True


def _store_round(tx: Tx, step: _ToPair, result: pairing.Pairing, now: float, computer_name: str) -> bool:
    """Store round ``step.round_number`` as paired in ``result``, if the tournament is still where it was when the
    pairing was read: its row is held, its current round must be the one before, and the round's own row (primary
    key: tournament and round) can exist only once. Each game starts as a match that cannot be aborted; byes and
    forfeits (a round robin's game against a withdrawn player) are scored at once. A member who joined after the
    pairing was read (so is in no pairing of the round) gets a ½-point bye for it and plays from the next. Returns
    ``False`` when the tournament moved on."""
    tournament = tx.lock_tournament(step.tournament.id)
    previous = step.round_number - 1
    if tournament is None or tournament.status != "running" or tournament.current_round != previous:
        return False
    if previous and tx.boards_waiting(tournament.id, previous):
        return False
    tx.insert_round(tournament.id, step.round_number, result.engine[:120], now)
    entries = {entry.user_id: entry for entry in tx.tournament_entries(tournament.id)}
    rate_computer = tx.get_settings(tournament.guild_id).rate_computer
    number = 0
    for number, board in enumerate(result.boards, start=1):
        tx.insert_pairing(_pairing(tx, tournament, step.round_number, number, board, entries, now, computer_name,
                                   rate_computer))
    paired = {key for board in result.boards for key in (board.first, board.second) if key is not None}
    for entry in entries.values():
        missed = entry.joined_round <= step.round_number and not _away(entry, step.round_number)
        if entry.user_id not in paired and missed:
            number += 1  # joined while the round was paired (a Swiss: a round robin takes nobody once started)
            tx.insert_pairing(TournamentPairingRecord(tournament.id, step.round_number, number, entry.user_id, None,
                                                      "half_bye", first_points=0.5, played=False))
            tx.update_entry(tournament.id, entry.user_id, joined_round=step.round_number + 1)
    if not tx.update_tournament(tournament.id, tournament.version, current_round=step.round_number,
                                engine=result.engine[:120]):
        raise ServiceError("the tournament changed while its round was stored")  # never a member's: a task's
    tx.add_outbox(ROUND_NEWS, tournament.id, tournament.guild_id, now, seq=step.round_number)
    return True


def _away(entry: TournamentEntryRecord, round_number: int) -> bool:
    return entry.withdrawn_round is not None and entry.withdrawn_round <= round_number


def _pairing(tx: Tx, tournament: TournamentRecord, round_number: int, number: int, board: pairing.Board,
             entries: dict[int, TournamentEntryRecord], now: float, computer_name: str,
             rate_computer: bool) -> TournamentPairingRecord:
    """The stored pairing of one board of the engine's (its match started when it is a game)."""
    stored = TournamentPairingRecord(tournament.id, round_number, number, board.first, board.second, "game")
    if board.second is None:  # a Swiss's bye scores 1; a round robin's odd player out sits the round out: 0
        points = 0.0 if tournament.format == "round_robin" else 1.0
        return dataclasses.replace(stored, kind="bye", first_points=points, played=False)
    first, second = entries[board.first], entries[board.second]
    if _away(first, round_number) or _away(second, round_number):  # a round robin's game against a withdrawn player
        return dataclasses.replace(stored, kind="forfeit", played=False,
                                   first_points=0.0 if _away(first, round_number) else 1.0,
                                   second_points=0.0 if _away(second, round_number) else 1.0)
    seats = [_seat(0, first, computer_name), _seat(1, second, computer_name)]
    computer = first.is_computer or second.is_computer
    match_id = insert_match(tx, tournament.guild_id, tournament.channel_id, tournament.game, dict(tournament.variant),
                            seats, tournament.days_per_move, rated=tournament.rated and (rate_computer or not computer),
                            now=now, seed=tournament.id * 100_003 + round_number * 1_009 + number, no_abort=True)
    return dataclasses.replace(stored, match_id=match_id)


def _seat(seat: int, entry: TournamentEntryRecord, computer_name: str) -> SeatRecord:
    if entry.is_computer:
        return SeatRecord(seat, entry.user_id, f"{computer_name} ({entry.level})", entry.level)
    return SeatRecord(seat, entry.user_id, entry.display_name)


__all__ = ["FINAL_NEWS", "LEASE_PREFIX", "PAIRING_LEASE", "ROUND_NEWS", "STALLED_NEWS", "WAITING_NEWS", "Director",
           "Finished", "Nothing", "Paired", "Step", "begin"]
