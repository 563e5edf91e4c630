"""What every player action shares: who acts, loading a match for an action or for reading, the version check,
applying a move, and quarantining a damaged row.

No ``discord`` import. Every change to a match happens in one transaction body (:meth:`storage.Database.write`:
plain synchronous code over a :class:`storage.Tx`, one round trip to the database thread) that re-reads the match,
checks its version, lets the rules core validate and apply the move, appends to the move log and bumps the version;
so two simultaneous submissions for the same turn apply exactly one move, and a refused action changes nothing
stored. Bodies run in the database thread: the caller reads the clock and passes ``now`` (epoch seconds).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.service import ratings
from bot.service.clock import CorrespondenceClock
from bot.service.errors import Damaged, MatchOver, NotAllowed, NotFound, Outdated, Unavailable
from bot.service.states import damage_of, remember_state
from games import GAMES, Outcome, State, Termination
from games.base import read_stored_outcome
from storage import ChallengeRecord, CommitUncertain, ConnectionLost, Database, MatchRecord, ReadTx, Tx, compact_json

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
    (:data:`bot.service.computer.QuickReason`: ``overloaded``, ``queue_full``, ``worker_lost``), else ``None``."""

    @property
    def finished(self) -> bool:
        """``True`` when this move ended the match."""
        return self.match.status != "active"


class MatchEnds:
    """Who hears that a match ended, right after the transaction that ended it committed: every way a match ends
    (a move, a resignation, an agreed draw, an abort, the deadline pass, a tournament's withdrawal) tells this one
    object, built once (:class:`bot.service.wiring.Services`), which tells its listeners (a tournament's next round
    is paired the moment the last game of a round ends: :mod:`bot.service.tournament_rounds`).

    A listener is a plain function of the ended match that must return at once (it only notes the match and wakes
    whoever does the work); nothing it does can undo the end, which is stored already.
    """

    def __init__(self) -> None:
        self._listeners: list[Callable[[MatchRecord], None]] = []

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
        why = GAMES[match.game].describe_end(read_stored_outcome(match.outcome)) if match.outcome else match.status
        raise MatchOver(f"Match #{match_id} is over ({why}).")
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
        raise NotAllowed(f"You are not playing in match #{match.id}.")
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
        raise Outdated("The match changed meanwhile; try again.")


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
    """Whether every seat of ``match`` has made a move, by its log as ``tx`` sees it: a match that ends before that
    is aborted and counts for nobody, as lichess aborts a game before both sides have moved."""
    if match.ply < len(match.seats):
        return False
    return {move.seat for move in tx.get_moves(match.id)} >= {seat.seat for seat in match.seats}


def has_result(tx: ReadTx, match: MatchRecord) -> bool:
    """Whether ``match``, ending now, ends with a result rather than aborted: every side has moved
    (:func:`every_side_moved`), or it is a tournament's game, which is never aborted (that would stall its round; the
    tournament scores a game that ends before both sides moved as a forfeit)."""
    return every_side_moved(tx, match) or tx.tournament_game_of_match(match.id) is not None


def apply_move(tx: Tx, match: MatchRecord, before: State[Any], seat: int, text: str, now: float) -> MoveResult:
    """Validate and apply ``text`` for ``seat`` in ``before`` (the state of ``match``) and store the move at time
    ``now``: the move log, the new state, the next deadline, or the result and the ratings when the move ends the
    match (a duel the rules end before every side has moved is aborted instead: :func:`every_side_moved`).

    Raises:
        games.RulesError: the rules core refuses the move. Outdated: another move landed first.
    """
    move = before.parse_move(text)
    after = before.apply(move)
    notation = before.format_move(move)
    tx.append_move(match.id, after.ply, seat, notation, now)
    fields: dict[str, Any] = {
        "state": after.to_dict(), "ply": after.ply, "current_seat": after.current_seat, "updated_at": now,
        "reminded": False, "draw_offer_seat": None,
    }
    if after.outcome is not None and len(match.seats) > 1 and not has_result(tx, match):
        scores = after.outcome.scores  # the rules ended it before every side moved: aborted, as lichess would
        fields.update(status="aborted", outcome=Outcome(None, False, scores, Termination.ABORTED).to_dict(),
                      end_reason=Termination.ABORTED.value, deadline=None, finished_at=now, current_seat=None)
    elif after.outcome is not None:
        fields.update(status="finished", outcome=after.outcome.to_dict(),
                      end_reason=after.outcome.termination.value, deadline=None, finished_at=now,
                      current_seat=None, rated=match.rated and ratings.pair_allows_rating(tx, match, now))
        fields["rating_changes"] = ratings.record_result(tx, dataclasses.replace(match, **fields), now)
    else:
        fields["deadline"] = deadline_for(match, after.current_seat, now)
    stored = compact_json(fields["state"])  # encoded once: for the row, and as the state cache's key
    if not tx.update_match(match.id, match.version, **{**fields, "state": stored}):  # (a refusal undoes the ratings)
        raise Outdated("Another move landed first; look at the latest board.")
    updated = dataclasses.replace(match, **fields, version=match.version + 1)  # what was just written
    updated.stored_state = stored
    remember_state(match.game, after, stored)
    return MoveResult(updated, before, after, seat, notation)


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
