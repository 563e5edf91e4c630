"""What every player action shares: who acts, loading a match for an action or for reading, the version check, the
deadline of a seat to move, who hears that a match ended, and quarantining a damaged row.

No ``discord`` import. Every change to a match happens in one transaction body (:meth:`storage.Database.write`:
plain synchronous code over a :class:`storage.Tx`, one round trip to the database thread) that re-reads the match,
checks its version, lets the rules core validate and apply the move, appends to the move log and bumps the version;
so two simultaneous submissions for the same turn apply exactly one move, and a refused action changes nothing
stored. Bodies run in the database thread: the caller reads the clock and passes ``now`` (epoch seconds).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.service.clock import CorrespondenceClock
from bot.service.errors import Damaged, MatchOver, NotAllowed, NotFound, Outdated, Unavailable
from bot.service.states import damage_of
from games import GAMES, Outcome, State
from i18n import Later, _
from storage import ChallengeRecord, CommitUncertain, ConnectionLost, Database, MatchRecord, ReadTx, Tx

log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True)
class Player:
    """A Discord member as the service sees it."""

    user_id: int
    name: str


@dataclass
class MoveResult:
    """A move that was applied: the stored match after it, the state before and after, and its notation."""

    match: MatchRecord
    before: State[Any]
    after: State[Any]
    seat: int
    notation: str
    conditional: bool = False
    """This move was a conditional move (``/match premove``) of its seat, played for it by the bot."""
    chained: list[MoveResult] = field(default_factory=list)
    """Moves applied in the same transaction right after this one: the opponent's conditional reply, if any."""
    discarded: int | None = None
    """The seat whose conditional moves this move discarded (it matched none of them), else ``None``."""
    quick: str | None = None
    """For a computer's move played at the ``easy`` level instead of a search at its own, why
    (:data:`bot.service.computer_observer.QuickReason`: ``overloaded``, ``queue_full``, ``worker_lost``), else
    ``None``."""

    @property
    def finished(self) -> bool:
        """``True`` when this move ended the match."""
        return self.match.status != "active"


class Doorbell:
    """A wake-up call from a service that has new work to the task that does it, built with the service (so the
    service takes it as a constructor argument) and answered by the task once it runs (:meth:`connect`). Ringing
    returns at once; a ring before anyone answers is remembered in :attr:`rung`."""

    def __init__(self) -> None:
        self._answer: Callable[[], None] | None = None
        self.rung = False
        """Whether it rang since :meth:`connect` (or since it was built)."""

    def connect(self, answer: Callable[[], None]) -> None:
        """Call ``answer()`` at every ring from now on (it must return at once)."""
        self._answer = answer
        self.rung = False

    def ring(self) -> None:
        """There is work: tell whoever answers."""
        self.rung = True
        if self._answer is not None:
            self._answer()


@dataclass(frozen=True)
class MatchEnded:
    """What the transaction that ended a match publishes (:meth:`storage.Tx.publish`; only
    :mod:`bot.service.finisher` does): :class:`MatchEnds` hears it once the transaction commits."""

    match: MatchRecord


class MatchEnds:
    """Who hears that a match ended, right after the transaction that ended it committed: every way a match ends goes
    through :mod:`bot.service.finisher`, which publishes :class:`MatchEnded` on the transaction; this one object,
    built once and subscribed to the database's committed events (:class:`bot.service.wiring.Services`), tells its
    listeners (a tournament's next round is paired the moment the last game of a round ends:
    :mod:`bot.service.tournament_rounds`).

    A listener is a plain function of the ended match that must return at once (it only notes the match and wakes
    whoever does the work); nothing it does can undo the end, which is stored already.
    """

    def __init__(self) -> None:
        self._listeners: list[Callable[[MatchRecord], None]] = []

    def on_commit(self, event: object) -> None:
        """A committed transaction published ``event`` (:attr:`storage.Database.events`): a :class:`MatchEnded` is
        told to the listeners; anything else is not this object's."""
        if isinstance(event, MatchEnded):
            self.ended(event.match)

    def listen(self, listener: Callable[[MatchRecord], None]) -> None:
        """Call ``listener(match)`` for every match that ends from now on."""
        self._listeners.append(listener)

    def ended(self, *matches: MatchRecord | None) -> None:
        """Tell the listeners about each of ``matches`` that is over (``None`` and running matches are skipped);
        a failing listener is logged, never raised to the member whose action ended the match."""
        for match in matches:
            if match is None or match.status == "active":
                continue
            for listener in self._listeners:
                try:
                    listener(match)
                except Exception:
                    log.exception("a listener failed on the end of match %s", match.id)


@dataclass
class ChallengeResult:
    """An accepted challenge: the closed challenge and the new match."""

    challenge: ChallengeRecord
    match: MatchRecord


def not_here(match_id: int) -> NotFound:
    """The refusal for a match that does not exist, or not in this server."""
    return NotFound(f"There is no match #{match_id} in this server.")


def check_active(match: MatchRecord | None, match_id: int, guild_id: int) -> MatchRecord:
    """``match`` (read as ``match_id``) if it is a sound, running match of server ``guild_id``.

    Raises:
        NotFound (none, or another server's), Damaged (:func:`bot.service.states.damage_of`), MatchOver.
    """
    if match is None or match.guild_id != guild_id:
        raise not_here(match_id)
    reason = damage_of(match)
    if reason is not None:
        raise Damaged(match_id, reason)
    if match.status != "active":
        game, outcome, status = GAMES[match.game], match.outcome, match.status
        why = Later(lambda: game.describe_end(Outcome.from_dict(outcome)) if outcome else status)
        raise MatchOver(_("Match #{match} is over ({why}).", match=str(match_id), why=why))
    return match


def load_for_action(tx: Tx, match_id: int, guild_id: int) -> MatchRecord:
    """``match_id`` of server ``guild_id``, locked until ``tx`` ends (another process's action on the match waits
    for this one, then sees it); raises as :func:`check_active`."""
    return check_active(tx.lock_match(match_id), match_id, guild_id)


def load_for_reading(tx: ReadTx, match_id: int, guild_id: int) -> MatchRecord:
    """``match_id`` of server ``guild_id`` as a read body sees it; raises as :func:`check_active`."""
    return check_active(tx.get_match(match_id), match_id, guild_id)


def seat_of(match: MatchRecord, user_id: int) -> int:
    """``user_id``'s seat in ``match``.

    Raises:
        NotAllowed: they do not play in it.
    """
    seat = match.seat_of(user_id)
    if seat is None:
        raise NotAllowed(_("You are not playing in match #{match}.", match=str(match.id)))
    return seat


def reread(tx: ReadTx, match_id: int) -> MatchRecord:
    """The match as the transaction ``tx`` now sees it (after its own changes); it exists."""
    match = tx.get_match(match_id)
    assert match is not None
    return match


def update(tx: Tx, match: MatchRecord, **fields: Any) -> None:
    """Set ``fields`` of ``match`` (:meth:`storage.Tx.update_match`) if its version is still the one read.

    Raises:
        Outdated: the match changed since it was read.
    """
    if not tx.update_match(match.id, match.version, **fields):
        raise Outdated(_("The match changed meanwhile; try again."))


def away_until(tx: ReadTx, guild_id: int, user_id: int, now: float) -> float | None:
    """When ``user_id``'s vacation in ``guild_id`` runs out, while it lasts at ``now``; else ``None``."""
    vacation = tx.open_vacation(guild_id, user_id)
    return vacation.ends_by if vacation is not None and vacation.ends_by > now else None


def deadline_for(match: MatchRecord, seat: int | None, now: float) -> float | None:
    """The deadline of ``seat``, to move from ``now``: days per move later, paused while that member is on vacation
    (``match`` was read in the same transaction, so its seats say who is away); ``None`` for nobody to move, the
    computer, or no time limit."""
    if seat is None or match.seats[seat].is_computer:
        return None
    return CorrespondenceClock(match.days_per_move).turn(now, match.seats[seat].away_until).deadline


def every_side_moved(tx: ReadTx, match: MatchRecord) -> bool:
    """Whether every seat of ``match`` has made a move, by its log as ``tx`` sees it: a duel that ends before that
    is aborted and counts for nobody (unless it may not be aborted), as lichess aborts a game before both sides have
    moved (:mod:`bot.service.finisher`)."""
    if match.ply < len(match.seats):
        return False
    return {move.seat for move in tx.get_moves(match.id)} >= {seat.seat for seat in match.seats}


async def quarantine(db: Database, match: MatchRecord, reason: str) -> None:
    """Mark ``match`` damaged (logged with its id; once), so lists, the deadline pass and start-up resumption go on
    without it."""
    if match.quarantined and match.deadline is None:
        return
    log.error("match %s is damaged and quarantined: %s", match.id, reason)
    await db.write(Tx.quarantine_match, match.id, reason)


NOT_REACHED = ("The database could not be reached just now, so nothing was changed; try again in a moment.")
UNCERTAIN = ("The connection to the database dropped while this was being saved, so it may or may not have been: "
             "look at the match (`/match board`) before trying again.")


async def write(db: Database, body: Callable[[Tx], _T], *, landed: Callable[[ReadTx, _T], bool] | None = None) -> _T:
    """``db.write(body)``; a :class:`Damaged` raised by ``body`` quarantines the match, then propagates.

    When the connection drops while the commit is on its way (:class:`storage.CommitUncertain`) and ``landed`` is
    given, the body runs once more, after ``landed(tx, result)`` is asked in the same transaction whether the first
    run's ``result`` is stored: if so, that result is returned (the action was applied once), else the body runs as
    it would have (its own checks — the version, whose turn — refuse what no longer fits).

    Raises:
        Unavailable: the database could not be reached (nothing stored), or the commit's answer was lost and
            ``landed`` cannot tell (the message says it may be stored); and whatever ``body`` raises.
    """
    results: list[_T] = []

    def once(tx: Tx) -> _T:
        if results and landed is not None and landed(tx, results[0]):
            return results[0]
        result = body(tx)
        results[:] = [result]
        return result

    try:
        try:
            return await db.write(once)
        except CommitUncertain:
            if landed is None:
                raise
            log.warning("the commit's answer was lost; looking whether it was stored")
            return await db.write(once)
    except Damaged as error:
        await db.write(Tx.quarantine_match, error.match_id, error.reason)
        log.error("match %s is damaged and quarantined: %s", error.match_id, error.reason)
        raise
    except ConnectionLost as error:
        log.warning("a write could not reach the database: %s", error)
        raise Unavailable(NOT_REACHED) from error
    except CommitUncertain as error:
        log.warning("a write may or may not be stored: %s", error)
        raise Unavailable(UNCERTAIN) from error


def rerun(tx: ReadTx, result: object) -> bool:
    """The ``landed`` check of :func:`write` for a body that stores the same when it runs again (a settings or
    preferences change): ``False``, so it simply runs again."""
    return False


def still_as_written(tx: ReadTx, written: MatchRecord) -> bool:
    """``True`` when the match ``written`` (what a write body stored) is stored as it says: at its version and with
    its time of change (the action's own clock reading), so that write, not another, is the last one stored. The
    ``landed`` check of :func:`write` for actions that change a match row (resign, a draw offer, extra time)."""
    stored = tx.get_match(written.id)
    return stored is not None and (stored.version, stored.updated_at) == (written.version, written.updated_at)
