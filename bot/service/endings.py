"""What a player does to end a match early or to change its terms: resign, abort before both sides moved, offer,
accept or decline a draw (lichess's ``Drawer``), and give the opponent more time (lichess's ``Moretimer``).

No ``discord`` import. Each action is one transaction body on the locked match with a version check (the lock is the
one a move takes, so an action and a move of the same match in two processes take turns); a match that ends is ended
by :mod:`bot.service.finisher` (the result and the ratings in the same transaction; an abort instead when nothing was
played out, and who hears of the end). An action whose commit's answer
is lost looks whether the match is stored as it wrote it (:func:`bot.service.base.still_as_written`), so it is
applied once or refused with the truth.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.service import finisher
from bot.service.base import (
    load_for_action,
    reread,
    seat_of,
    still_as_written,
    update,
    write,
)
from bot.service.clock import EXTRA_TIME, EXTRA_TIME_LIMIT, CorrespondenceClock
from bot.service.errors import LimitReached, NotAllowed
from games import GAMES, Termination
from i18n import Text, _
from storage import Database, MatchRecord, Tx


class EndingService:
    """Resignations, aborts, draw offers and extra time over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def resign(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Resign: the other seat wins (solitaire: the game is abandoned). Before every side has moved there is
        nothing to resign: the match is aborted instead (unrated, as on lichess, where a game is aborted, never
        resigned, before both sides have moved); the returned match says which (its ``status``).

        Raises:
            NotFound, NotAllowed, MatchOver.
        """
        def body(tx: Tx) -> MatchRecord:
            match = load_for_action(tx, match_id, guild_id)
            seat = seat_of(match, user_id)
            winner = None if len(match.seats) == 1 else 1 - seat
            return finisher.finish(tx, match, winner=winner, draw=False, termination=Termination.RESIGNED,
                                   loser=seat, now=now)

        now = self.clock()
        return await write(self.db, body, landed=still_as_written)

    async def abort(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Abort a match before each human side has moved (no result, unrated).

        Raises:
            NotFound, NotAllowed (not seated, or both sides already moved), MatchOver.
        """
        def body(tx: Tx) -> MatchRecord:
            match = load_for_action(tx, match_id, guild_id)
            seat_of(match, user_id)
            if match.no_abort:
                raise NotAllowed(_("Match #{match} is a tournament game: it cannot be called off. Play it, or resign "
                                   "it (it then counts as a loss).", match=str(match_id)))
            moved = {m.seat for m in tx.get_moves(match_id)}
            if len(match.seats) == 1 and moved:
                raise NotAllowed(_("A solitaire game can only be aborted before its first move; resign to end it (it "
                                   "counts as a loss)."))
            if len(match.seats) > 1 and all(s.seat in moved for s in match.seats):
                raise NotAllowed(_("Both sides have moved; the match can no longer be aborted. Resign or offer a draw "
                                   "instead."))
            return finisher.abort(tx, match, now)

        now = self.clock()
        return await write(self.db, body, landed=still_as_written)

    async def offer_draw(self, match_id: int, guild_id: int, user_id: int) -> tuple[MatchRecord, bool]:
        """Offer a draw, or accept the opponent's standing offer.

        Returns ``(match, agreed)``: ``agreed`` is ``True`` when this accepted an offer and the match is drawn (or
        aborted, when a side had not moved yet: its ``status`` says which).

        Raises:
            NotFound, NotAllowed (not seated, game cannot be drawn, solitaire, computer opponent), MatchOver.
        """
        def body(tx: Tx) -> tuple[MatchRecord, bool]:
            match = load_for_action(tx, match_id, guild_id)
            seat = seat_of(match, user_id)
            if len(match.seats) == 1 or not GAMES[match.game].drawable:
                raise NotAllowed(_("{game} matches like this one cannot be drawn by agreement.",
                                   game=Text(GAMES[match.game].title)))
            if any(s.is_computer for s in match.seats):
                raise NotAllowed(_("The computer does not accept draw offers; play on or resign."))
            if match.draw_offer_seat is not None and match.draw_offer_seat != seat:
                drawn = finisher.finish(tx, match, winner=None, draw=True, termination=Termination.DRAW_AGREED,
                                        now=now)
                return drawn, True
            if match.draw_offer_seat == seat:
                raise NotAllowed(_("You have already offered a draw; wait for your opponent's answer."))
            update(tx, match, draw_offer_seat=seat, updated_at=now)
            return reread(tx, match_id), False

        now = self.clock()
        return await write(self.db, body, landed=lambda tx, result: still_as_written(tx, result[0]))

    async def decline_draw(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Decline the opponent's draw offer.

        Raises:
            NotFound, NotAllowed (not seated, or no offer from the opponent), MatchOver.
        """
        def body(tx: Tx) -> MatchRecord:
            match = load_for_action(tx, match_id, guild_id)
            seat = seat_of(match, user_id)
            if match.draw_offer_seat is None or match.draw_offer_seat == seat:
                raise NotAllowed(_("There is no draw offer from your opponent to decline."))
            update(tx, match, draw_offer_seat=None, updated_at=now)
            return reread(tx, match_id)

        now = self.clock()
        return await write(self.db, body, landed=still_as_written)

    async def give_time(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Give the opponent, who is to move, :data:`bot.service.clock.EXTRA_TIME` (one day) more before their
        deadline, as the lichess correspondence "give more time" button does; each player may do it
        :data:`bot.service.clock.EXTRA_TIME_LIMIT` times per match. The deadline moves in one transaction with a
        version check; the reminder (if not yet sent) comes a day later with it. Returns the updated match.

        Raises:
            NotFound, MatchOver, Outdated, NotAllowed: not seated; a computer match or solitaire; it is the
            giver's own turn; the match has no deadline (or the player to move has run out of time already);
            LimitReached: the giver has given extra time :data:`bot.service.clock.EXTRA_TIME_LIMIT` times.
        """
        def body(tx: Tx) -> MatchRecord:
            match = load_for_action(tx, match_id, guild_id)
            seat = seat_of(match, user_id)
            if len(match.seats) == 1 or any(s.is_computer for s in match.seats):
                raise NotAllowed(_("Extra time is for an opponent who is a member; this match has none, so there is "
                                   "nobody to give time to."))
            to_move = match.current_seat
            if to_move is None or to_move == seat:
                raise NotAllowed(_("It is your own turn; you can only give extra time to your opponent while they are "
                                   "to move."))
            clock = CorrespondenceClock.of(match)
            if clock.deadline is None:
                raise NotAllowed(_("Match #{match} has no time limit, so there is no deadline to extend.",
                                   match=str(match_id)))
            if clock.out_of_time(now):
                raise NotAllowed(_("Your opponent's time in match #{match} has already run out; it can no longer be "
                                   "extended.", match=str(match_id)))
            given = match.times_given(seat)
            if given >= EXTRA_TIME_LIMIT:
                raise LimitReached(_("You have already given extra time {limit} times in match #{match}, the most a "
                                     "player may.", limit=EXTRA_TIME_LIMIT, match=str(match_id)))
            counts = [match.times_given(s.seat) for s in match.seats]
            counts[seat] = given + 1
            update(tx, match, deadline=clock.given_time(EXTRA_TIME).deadline, time_given=counts, updated_at=now)
            return reread(tx, match_id)

        now = self.clock()
        return await write(self.db, body, landed=still_as_written)
