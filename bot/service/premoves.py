"""Conditional moves (``/match premove``), as in lichess correspondence's conditional premoves: the player who waits
for their opponent stores lines "if they play X, I answer Y" (optionally a deeper pair "then if they play X2, I
answer Y2"), and when the opponent's move is X, Y is applied in the same transaction as that move.

Rules of the feature (no ``discord`` import here; :mod:`bot.exts.match._premove` is the Discord side):

- Only in a match between two members, only by the seat that is not to move; each line is checked with the rules
  core when stored: X must be legal for the opponent now, hand the turn over and not end the game, Y legal after
  X; the deeper pair likewise after X, Y, X2. Moves are stored and matched in the game's canonical notation
  (``format_move(parse_move(text))``), so Napkin Chess matches the exact coin and centre.
- At most :data:`LINE_LIMIT` lines per seat and match; a line for an X already stored replaces it.
- When the opponent moves, the move asks this service for the waiting seat's answer (:meth:`PremoveService.next_move`,
  as lichess's ``ForecastApi`` answers "the next move for this game after that one"): every stored line of the
  waiting seat is consumed, the matching one (if any) is returned for the mover to play with the same checks as a
  typed move (:func:`bot.service.base.apply_move`), and its deeper pair becomes the seat's line for the next turn
  (:meth:`PremoveService.replied`); the others are discarded, and the move says so
  (:attr:`bot.service.MoveResult.discarded`) for the Discord side to tell that player privately. This service never
  applies a move itself.
- Lines are deleted when the match ends (:meth:`storage.Tx.update_match`) and never shown to anyone but their
  owner: they are not part of the match row, its move log, its export or its board.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from bot.service.base import MoveResult, load_for_action, load_for_reading, seat_of
from bot.service.errors import BadOption, LimitReached, NotAllowed, NotYourTurn
from bot.service.states import sound_state
from bot.texts import quote
from games import RulesError, State
from i18n import SOURCE, Later, Text, Textual, _, n_, render, spoken
from storage import Database, MatchRecord, PremoveRecord, ReadTx, Tx

log = logging.getLogger(__name__)

LINE_LIMIT = 20
"""Most conditional-move lines one seat may hold in a match (a listing of them fits one message)."""
TEXT_LIMIT = 200
"""Longest move text accepted (as for a typed move)."""


def check_text(text: str, option: str) -> str:
    """``text`` stripped, if it can be a move at all (plain ASCII, at most :data:`TEXT_LIMIT` characters).

    Raises:
        BadOption: empty, too long or with characters moves never use; the message quotes it and names ``option``.
    """
    stripped = text.strip()
    if not stripped:
        raise BadOption(_("`{option}` is empty; write a move as the boards show them.", option=option))
    if len(stripped) > TEXT_LIMIT:
        raise BadOption(_("`{text}` (in `{option}`) is far too long to be a move.", text=quote(stripped),
                          option=option))
    if not (stripped.isascii() and stripped.isprintable()):
        raise BadOption(_("`{text}` (in `{option}`) has characters moves never use; moves are written with plain "
                          "letters, digits and signs.", text=quote(stripped), option=option))
    return stripped


def _reason(error: RulesError, text: str) -> Later:
    """The rules core's reason for refusing ``text``, in the reader's language; in English a reason that starts by
    quoting the text says "it" instead (the refusal quotes it already)."""
    first = error.args[0] if error.args else None
    said: Textual = first if isinstance(first, Text) else str(error)

    def make() -> str:
        reason = render(said, spoken()) or ""
        if spoken() == SOURCE:
            for spelled in (repr(text), f"`{text}`"):
                if reason.startswith(spelled + " "):
                    return "it" + reason[len(spelled):]
        return reason

    return Later(make)


def _step(state: State[Any], text: str, refusal: Callable[[str, Later], Text]) -> tuple[str, State[Any]]:
    """Play ``text`` in ``state`` (for its seat to move); return its canonical notation and the position after it.

    Raises:
        BadOption: not a legal move there: ``refusal`` of the quoted text and the rules core's reason.
    """
    try:
        move = state.parse_move(text)
        result = state.apply(move)
    except RulesError as error:
        raise BadOption(refusal(quote(text), _reason(error, text))) from None
    return state.format_move(move), result


def check_line(state: State[Any], seat: int, opponent: str, if_move: str, reply: str,
               then_if: str | None = None, then_reply: str | None = None) -> tuple[str, str, str | None, str | None]:
    """Check one line of ``seat`` (who is waiting, the opponent named ``opponent`` being to move in ``state``) with
    the rules core; return its four moves in canonical notation (the deeper pair ``None, None`` when not given).

    Raises:
        BadOption: a text that is not legal where the line puts it, a move after which the turn would not pass to
            the player the line expects (a bonus turn, the end of the game), or a deeper pair given half; the
            message quotes what was typed.
    """
    if (then_if is None) != (then_reply is None):
        raise BadOption(_("A deeper pair needs both `then_if` (their next move) and `then_reply` (your answer)."))
    other = 1 - seat
    x, after_x = _step(state, if_move, lambda text, reason: _(
        "`{move}` is not a move {opponent} can play now: {reason}", move=text, opponent=opponent, reason=reason))
    if after_x.is_over:
        raise BadOption(_("After `{move}` the game is over, so there is nothing to answer.", move=x))
    if after_x.current_seat != seat:
        raise BadOption(_("After `{move}` {opponent} moves again, so no reply can follow it directly.", move=x,
                          opponent=opponent))
    y, after_y = _step(after_x, reply, lambda text, reason: _(
        "`{move}` is not a move you can play after `{first}`: {reason}", move=text, first=x, reason=reason))
    if then_if is None or then_reply is None:
        return x, y, None, None
    if after_y.is_over:
        raise BadOption(_("Your reply `{reply}` ends the game, so there is no deeper pair to store.", reply=y))
    if after_y.current_seat != other:
        raise BadOption(_("After your reply `{reply}` you move again, so there is no {opponent}'s move for "
                          "`then_if`.", reply=y, opponent=opponent))
    x2, after_x2 = _step(after_y, then_if, lambda text, reason: _(
        "`{move}` is not a move {opponent} can play after `{first}` `{second}`: {reason}", move=text,
        opponent=opponent, first=x, second=y, reason=reason))
    if after_x2.is_over:
        raise BadOption(_("After `{move}` the game is over, so there is nothing to answer.", move=x2))
    if after_x2.current_seat != seat:
        raise BadOption(_("After `{move}` {opponent} moves again, so no reply can follow it directly.", move=x2,
                          opponent=opponent))
    y2, _after = _step(after_x2, then_reply, lambda text, reason: _(
        "`{move}` is not a move you can play after `{first}` `{second}` `{third}`: {reason}", move=text, first=x,
        second=y, third=x2, reason=reason))
    return x, y, x2, y2


def _waiting_seat(match: MatchRecord, user_id: int) -> int:
    """The seat of ``user_id`` in ``match`` if they may hold conditional moves there.

    Raises:
        NotAllowed: not seated, a solitaire match, a match against the computer. NotYourTurn: it is their move.
    """
    seat = seat_of(match, user_id)
    if len(match.seats) != 2:
        raise NotAllowed(_("Match #{match} is solitaire: conditional moves answer an opponent's move, and there is "
                           "no opponent.", match=str(match.id)))
    if any(s.is_computer for s in match.seats):
        raise NotAllowed(_("Match #{match} is against the computer, which answers at once: conditional moves are "
                           "for matches against a member, while you wait for their move.", match=str(match.id)))
    if match.current_seat == seat:
        raise NotYourTurn(_("It is your move in match #{match}: play it. Conditional moves are stored while you "
                            "wait for your opponent.", match=str(match.id)))
    return seat


def canonical(state: State[Any], text: str) -> str:
    """``text`` in canonical notation when it parses in ``state``, else as typed (stripped)."""
    try:
        return state.format_move(state.parse_move(text.strip()))
    except RulesError:
        return text.strip()


class PremoveService:
    """Conditional moves over a :class:`storage.Database`: storing, listing and cancelling a member's lines, and
    answering the mover's question after each move (:meth:`next_move`).

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def store(self, match_id: int, guild_id: int, user_id: int, if_move: str, reply: str,
                    then_if: str | None = None, then_reply: str | None = None) -> tuple[PremoveRecord, bool, int]:
        """Store a line for ``user_id``, who waits for their opponent in ``match_id``. Returns the stored line
        (canonical notation), whether it replaced the member's earlier line for the same expected move, and how many
        lines they now hold in the match. The match row itself does not change (its version neither).

        Raises:
            NotFound, MatchOver, Damaged, NotAllowed, NotYourTurn (see :func:`_waiting_seat`), BadOption (see
            :func:`check_text`, :func:`check_line`), LimitReached (:data:`LINE_LIMIT` lines already).
        """
        texts = [check_text(if_move, "if_they_play"), check_text(reply, "reply"),
                 None if then_if is None else check_text(then_if, "then_if"),
                 None if then_reply is None else check_text(then_reply, "then_reply")]
        now = self.clock()

        def body(tx: Tx) -> tuple[PremoveRecord, bool, int]:
            match = load_for_action(tx, match_id, guild_id)
            seat = _waiting_seat(match, user_id)
            state = sound_state(match)
            opponent = match.seats[1 - seat].display_name
            x, y, x2, y2 = check_line(state, seat, opponent, texts[0] or "", texts[1] or "", texts[2], texts[3])
            held = tx.premoves_of(match_id, seat)
            replaced = any(line.if_move == x for line in held)
            if not replaced and len(held) >= LINE_LIMIT:
                raise LimitReached(n_("You already hold {count} conditional move in match #{match}, the most one "
                                      "player may; cancel it first.",
                                      "You already hold {count} conditional moves in match #{match}, the most one "
                                      "player may; cancel some first.", LINE_LIMIT, match=str(match_id)))
            line = PremoveRecord(match_id, seat, state.ply, x, y, x2, y2, now)
            tx.put_premove(line)
            return line, replaced, len(held) + (0 if replaced else 1)

        return await self.db.write(body)

    async def lines_of(self, match_id: int, guild_id: int,
                       user_id: int) -> tuple[MatchRecord, list[PremoveRecord]]:
        """The match and ``user_id``'s conditional-move lines in it, oldest first (only ever shown to them).

        Raises:
            NotFound, MatchOver, Damaged, NotAllowed (not seated).
        """
        def body(tx: ReadTx) -> tuple[MatchRecord, list[PremoveRecord]]:
            match = load_for_reading(tx, match_id, guild_id)
            return match, tx.premoves_of(match_id, seat_of(match, user_id))

        return await self.db.read(body)

    async def cancel(self, match_id: int, guild_id: int, user_id: int,
                     if_move: str | None = None) -> tuple[str | None, int]:
        """Delete ``user_id``'s lines in ``match_id``: all, or the one expecting ``if_move`` (read in the match's
        current position, so ``ll`` finds ``LL``). Returns the expected move as matched (canonical; ``None`` for all)
        and how many lines were deleted (0: there was none).

        Raises:
            NotFound, MatchOver, Damaged, NotAllowed (not seated), BadOption (a text no move has).
        """
        typed = None if if_move is None else check_text(if_move, "if_they_play")

        def body(tx: Tx) -> tuple[str | None, int]:
            match = load_for_action(tx, match_id, guild_id)
            seat = seat_of(match, user_id)
            key = None if typed is None else canonical(sound_state(match), typed)
            return key, (tx.delete_premoves(match_id, seat, key) if key is not None
                         else tx.delete_premoves(match_id, seat))

        return await self.db.write(body)

    def next_move(self, tx: Tx, moved: MoveResult, stored: list[PremoveRecord] | None = None) -> PremoveRecord | None:
        """The waiting seat's answer to ``moved``, asked by the mover inside the transaction that just stored it:
        every line of the other seat is consumed; the one that expected this move is returned (the mover plays its
        ``reply`` for that seat, then calls :meth:`replied`), else ``None``, with ``moved.discarded`` naming the seat
        whose lines were dropped (not when the move ended the match: the lines just go). ``stored``: the match's
        lines as the mover read them with the locked match (:meth:`storage.Tx.lock_match_for_move`), else they are
        read here."""
        match = moved.match
        if len(match.seats) != 2:
            return None
        waiting = 1 - moved.seat
        lines = (tx.premoves_of(match.id, waiting) if stored is None
                 else [line for line in stored if line.seat == waiting])
        if not lines:
            return None
        tx.delete_premoves(match.id, waiting)
        if match.status != "active":  # the move ended the match: its final board says everything
            return None
        line = next((line for line in lines if line.ply == moved.before.ply and line.if_move == moved.notation), None)
        if line is None or moved.after.current_seat != waiting:
            moved.discarded = waiting
            return None
        return line

    def replied(self, tx: Tx, line: PremoveRecord, reply: MoveResult, now: float) -> None:
        """``line``'s reply was played (``reply``): keep its deeper pair as the seat's line for the next turn, when
        the match goes on and the turn is back with the opponent."""
        after = reply.after
        if (line.then_if is not None and line.then_reply is not None and reply.match.status == "active"
                and after.current_seat == 1 - reply.seat):
            tx.put_premove(PremoveRecord(reply.match.id, reply.seat, after.ply, line.then_if, line.then_reply, None,
                                         None, now))
