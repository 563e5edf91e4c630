"""The one place a match ends early, as lichess's ``Finisher``: by a player's action (resigned, draw agreed), on time
(forfeited at the deadline), or called off at the deadline because a side never made its first move.

No ``discord`` import. These are transaction-body steps (plain synchronous code over a :class:`storage.Tx`, in the
database thread): the caller loaded the match in the same transaction and read the clock (``now``, epoch seconds).
A natural end (the rules core's outcome after a move) is stored by :func:`bot.service.base.apply_move`.
"""

from __future__ import annotations

import dataclasses

from bot.service import ratings
from bot.service.base import every_side_moved, reread, update
from bot.service.states import load_state, sound_state
from games import Outcome, Termination
from storage import MatchRecord, ReadTx, Tx


def finish(tx: Tx, match: MatchRecord, *, winner: int | None, draw: bool, termination: Termination, now: float,
           loser: int | None = None) -> MatchRecord:
    """End ``match`` at ``now`` (``termination``: resigned, out of time, draw agreed; ``loser`` is the seat that
    resigned or ran out of time), record the result in the ratings — unless its two members already have
    :data:`bot.service.ratings.PAIR_RATED_PER_DAY` rated results that day, or a side never moved (a tournament's
    game, which is never aborted): it is then unrated — and return the finished match.

    Raises:
        Outdated: the match changed since it was read.
    """
    state = load_state(match)
    scores = state.scores
    outcome = Outcome(winner, draw, tuple(scores) if scores is not None else None, termination, loser).to_dict()
    # a duel that ends before both sides moved (a tournament's game, never aborted) has a result but no rating
    played = len(match.seats) == 1 or every_side_moved(tx, match)
    rated = match.rated and played and ratings.pair_allows_rating(tx, match, now)
    changes = ratings.record_result(tx, dataclasses.replace(match, status="finished", outcome=outcome, rated=rated),
                                    now)
    update(tx, match, status="finished", outcome=outcome, end_reason=termination.value, deadline=None,
           finished_at=now, current_seat=None, updated_at=now, draw_offer_seat=None, rating_changes=changes,
           rated=rated)
    return reread(tx, match.id)


def abort(tx: Tx, match: MatchRecord, now: float) -> MatchRecord:
    """Call ``match`` off at ``now``: no result, unrated (a member's ``/match abort``, or a match that ends before
    every side has moved: :func:`bot.service.base.every_side_moved`)."""
    scores = sound_state(match).scores
    outcome = Outcome(None, False, tuple(scores) if scores is not None else None, Termination.ABORTED)
    update(tx, match, status="aborted", outcome=outcome.to_dict(), end_reason=Termination.ABORTED.value,
           deadline=None, finished_at=now, current_seat=None, updated_at=now, draw_offer_seat=None)
    return reread(tx, match.id)


def never_moved(tx: ReadTx, match: MatchRecord) -> int | None:
    """The seat to move of ``match`` if some human seat has not made its first move yet (lichess aborts a game
    while either side has not moved: so the player to move counts even when the other side has moved, and in
    a match against the computer the human's first move is what counts), else ``None``."""
    if match.current_seat is None:
        return None
    humans = {s.seat for s in match.seats if not s.is_computer}
    if match.ply == 0:
        return match.current_seat if humans else None
    moved = {m.seat for m in tx.get_moves(match.id)}
    return match.current_seat if humans - moved else None


def abort_unstarted(tx: Tx, match: MatchRecord, seat: int, now: float, *, queue: bool = True) -> MatchRecord:
    """Abort ``match`` at its deadline because a side never made its first move; ``seat`` (the seat to move, who let
    the deadline pass) is kept as the outcome's ``loser``, which for an abort only names who did not move (nobody
    loses: no rating changes). With ``queue``, queues the final board in the outbox."""
    scores = sound_state(match).scores
    outcome = Outcome(None, False, tuple(scores) if scores is not None else None, Termination.ABORTED, seat)
    update(tx, match, status="aborted", outcome=outcome.to_dict(), end_reason=Termination.ABORTED.value,
           deadline=None, finished_at=now, current_seat=None, updated_at=now, draw_offer_seat=None)
    if queue:
        tx.add_outbox(match.id, "result", match.ply, now)
    return reread(tx, match.id)


def forfeit(tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
    """Finish ``match`` on time against its seat to move; with ``queue``, queue the result in the outbox."""
    seat = match.current_seat or 0
    winner = None if len(match.seats) == 1 else 1 - seat
    finished = finish(tx, match, winner=winner, draw=False, termination=Termination.OUT_OF_TIME, loser=seat,
                      now=now)
    if queue:
        tx.add_outbox(match.id, "result", finished.ply, now)
    return finished


def time_is_up(tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
    """End ``match``, whose deadline has passed: aborted while a side has not made its first move
    (:func:`never_moved`), else forfeited by the seat to move; with ``queue``, its final board is queued. A
    tournament's game is never aborted (it would count for nobody and stall its round): the seat to move forfeits
    it, first move made or not."""
    absent = never_moved(tx, match)
    if absent is not None and tx.tournament_game_of_match(match.id) is None:
        return abort_unstarted(tx, match, absent, now, queue=queue)
    return forfeit(tx, match, now, queue=queue)
