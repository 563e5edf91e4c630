"""The one place a match ends, as lichess's ``Finisher``: every way — the rules' natural end after a move, a
resignation, an agreed draw, a player's abort, the deadline (on time, or called off because a side never made its
first move), a withdrawal, an organizer ending an idle tournament game — goes through one private end,
:func:`_end_fields`, which decides the result, the ratings and whether the match is aborted instead, and through
:func:`_ended`, which publishes :class:`bot.service.base.MatchEnded` on the transaction: once it commits,
:class:`bot.service.base.MatchEnds` tells its listeners (the tournaments), whatever the caller.

A duel that ends before every side has moved is aborted — no result, unrated, counting for nobody, as lichess aborts
a game before both sides have moved — unless the match carries the rule that it cannot be aborted (``no_abort``, set
when it is created: a tournament's game, which ends with its result whoever moved, and which the tournament scores as
a forfeit when a side never moved).

No ``discord`` import. These are transaction-body steps (plain synchronous code over a :class:`storage.Tx`, in the
database thread): the caller loaded the match in the same transaction and read the clock (``now``, epoch seconds).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.service import ratings
from bot.service.base import MatchEnded, every_side_moved, reread, update
from bot.service.states import sound_state
from games import Outcome, Termination
from storage import MatchRecord, ReadTx, Tx

RESULT_NEWS = "result"
"""The outbox kind of a match's final board posted later (:mod:`bot.service.outbox`): its subject is the match, its
step the ply."""


def ends_with_result(tx: ReadTx, match: MatchRecord) -> bool:
    """Whether ``match``, ending now, ends with a result rather than aborted: it is played alone, it cannot be aborted
    (``no_abort``), or every side has moved (:func:`bot.service.base.every_side_moved`)."""
    return len(match.seats) == 1 or match.no_abort or every_side_moved(tx, match)


def _end_fields(tx: Tx, match: MatchRecord, outcome: Outcome, now: float) -> dict[str, Any]:
    """The one end: the fields that end ``match`` (as it stands, its new state included when a move ended it) with
    ``outcome`` at ``now``, the result recorded in the ratings.

    A result before every side has moved (:func:`ends_with_result`) becomes an abort, which keeps the ``loser`` of
    a deadline (who never moved). A result is rated when the match is, was played (every side moved, or played
    alone), and its two members have not had :data:`bot.service.ratings.PAIR_RATED_PER_DAY` rated results that
    day."""
    if outcome.termination is not Termination.ABORTED and not ends_with_result(tx, match):
        loser = outcome.loser if outcome.termination is Termination.OUT_OF_TIME else None
        outcome = Outcome(None, False, outcome.scores, Termination.ABORTED, loser)
    aborted = outcome.termination is Termination.ABORTED
    fields: dict[str, Any] = {
        "status": "aborted" if aborted else "finished", "outcome": outcome.to_dict(),
        "end_reason": outcome.termination.value, "deadline": None, "finished_at": now, "current_seat": None,
        "updated_at": now, "draw_offer_seat": None,
    }
    if not aborted:
        played = len(match.seats) == 1 or every_side_moved(tx, match)
        fields["rated"] = match.rated and played and ratings.pair_allows_rating(tx, match, now)
        fields["rating_changes"] = ratings.record_result(tx, dataclasses.replace(match, **fields), now)
    return fields


def _ended(tx: Tx, ended: MatchRecord, now: float, *, queue: bool) -> MatchRecord:
    """Publish the end of ``ended`` (told to :class:`bot.service.base.MatchEnds` once ``tx`` commits) and, with
    ``queue``, queue its final board in the outbox; return it."""
    tx.publish(MatchEnded(ended))
    if queue:
        tx.add_outbox(RESULT_NEWS, ended.id, ended.guild_id, now, seq=ended.ply)
    return ended


def _end(tx: Tx, match: MatchRecord, outcome: Outcome, now: float, *, queue: bool) -> MatchRecord:
    update(tx, match, **_end_fields(tx, match, outcome, now))
    return _ended(tx, reread(tx, match.id), now, queue=queue)


def natural_end(tx: Tx, match: MatchRecord, outcome: Outcome, now: float) -> dict[str, Any]:
    """The fields that end ``match`` (with the fields of the move that ended it already applied) by the rules'
    ``outcome``, for the move's own update (:func:`bot.service.moves.apply_move`); after that update, the move calls
    :func:`announce`."""
    return _end_fields(tx, match, outcome, now)


def announce(tx: Tx, ended: MatchRecord, now: float) -> MatchRecord:
    """Publish the end of ``ended``, which a move stored with :func:`natural_end`'s fields (the mover's own board
    shows it: nothing is queued)."""
    return _ended(tx, ended, now, queue=False)


def finish(tx: Tx, match: MatchRecord, *, winner: int | None, draw: bool, termination: Termination, now: float,
           loser: int | None = None, queue: bool = False) -> MatchRecord:
    """End ``match`` at ``now`` by a player's action or the clock (``termination``: resigned, out of time, draw
    agreed; ``loser``: the seat that resigned or ran out of time) and return it — aborted instead when a side never
    moved and it may be aborted (:func:`_end_fields`). With ``queue``, its final board is queued in the outbox.

    Raises:
        Outdated: the match changed since it was read.
    """
    scores = sound_state(match).scores
    outcome = Outcome(winner, draw, tuple(scores) if scores is not None else None, termination, loser)
    return _end(tx, match, outcome, now, queue=queue)


def abort(tx: Tx, match: MatchRecord, now: float) -> MatchRecord:
    """Call ``match`` off at ``now``: no result, unrated (a member's ``/match abort``).

    Raises:
        Outdated: the match changed since it was read.
    """
    scores = sound_state(match).scores
    return _end(tx, match, Outcome(None, False, tuple(scores) if scores is not None else None, Termination.ABORTED),
                now, queue=False)


def forfeit(tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
    """End ``match`` on time against its seat to move (aborted instead while a side never moved and it may be
    aborted: who never moved is then the outcome's ``loser``, naming them, with no rating change); with ``queue``,
    its final board is queued."""
    seat = match.current_seat or 0
    winner = None if len(match.seats) == 1 else 1 - seat
    return finish(tx, match, winner=winner, draw=False, termination=Termination.OUT_OF_TIME, loser=seat, now=now,
                  queue=queue)


def time_is_up(tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
    """End ``match``, whose deadline has passed (:func:`forfeit`); with ``queue``, its final board is queued."""
    return forfeit(tx, match, now, queue=queue)
