"""Match lifecycle: challenges, seats, turns, moves, computer replies, deadlines, draws and ratings.

No ``discord`` import: the extensions translate interactions into calls here and domain errors
(:mod:`bot.service.errors`) back into ephemeral replies. Every change to a match happens in one transaction
body (:meth:`storage.Database.write`: plain synchronous code over a :class:`storage.Tx`, one round trip to the
database thread, ``BEGIN IMMEDIATE``) that re-reads the match, checks its version, lets the rules core validate and
apply the move, appends to the move log and bumps the version; so two simultaneous submissions for the same
turn apply exactly one move, and a refused action changes nothing stored.

Times are UNIX epoch seconds from the injected ``clock``; days per move are whole days (0 = no limit).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.service import premoves, ratings, vacations
from bot.service.computer import ComputerPool
from bot.service.errors import (
    BadOption,
    ChallengeClosed,
    Damaged,
    LimitReached,
    MatchOver,
    NotAllowed,
    NotFound,
    NotYourTurn,
    Outdated,
    TimeRanOut,
)
from games import GAMES, Game, Level, Outcome, RulesError, State, Termination
from games.base import read_stored_outcome
from storage import (
    ChallengeRecord,
    Database,
    MatchRecord,
    MoveRecord,
    OutboxRecord,
    ReadTx,
    SeatRecord,
    SettingsRecord,
    Shards,
    Tx,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

DAY = 86400.0
DAYS_PER_MOVE_CHOICES: tuple[int, ...] = (0, 1, 2, 3, 5, 7, 14)
"""Allowed days per move; 0 means no time limit."""
CHALLENGE_TTL = DAY
"""How long an unanswered challenge stays open (seconds)."""
DUE_BATCH = 25
"""Due matches (or expired challenges) settled per transaction by :meth:`MatchService.process_due`."""
PASS_LOCK_WAIT_MS = 200
"""How long (milliseconds) the deadline pass waits for a row another transaction holds before leaving that match to
the next pass (PostgreSQL; on SQLite nothing is ever held by another transaction)."""
EXTRA_TIME = DAY
"""Seconds ``/match give-time`` adds to the deadline of the player to move."""
EXTRA_TIME_LIMIT = 3
"""How many times each player may give extra time in one match."""
SETTINGS = frozenset(f.name for f in dataclasses.fields(SettingsRecord)) - {"guild_id"}
"""The settings a server may change (:class:`storage.SettingsRecord` fields but its id)."""


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

    @property
    def finished(self) -> bool:
        """``True`` when this move ended the match."""
        return self.match.status != "active"


@dataclass
class ChallengeResult:
    """An accepted challenge: the closed challenge and the new match."""

    challenge: ChallengeRecord
    match: MatchRecord


@dataclass
class DueWork:
    """What the deadline task did in one pass."""

    reminded: list[MatchRecord] = field(default_factory=list)
    forfeited: list[MatchRecord] = field(default_factory=list)
    aborted: list[MatchRecord] = field(default_factory=list)
    """Matches called off at their deadline because a side never made its first move (not forfeited:
    :meth:`MatchService.process_due`)."""
    expired: list[ChallengeRecord] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    """Ids of due matches found damaged (marked, left out of the pass)."""


NEWS_RETRY_DELAYS: tuple[float, ...] = (30.0, 120.0, 600.0, 3600.0)
"""Seconds before the 2nd, 3rd, 4th and every later attempt to deliver news (a reminder, a result)."""
NEWS_LEASE = 300.0
"""Seconds a process holds the news it claimed for delivery (:meth:`MatchService.claim_news`); news a process
claimed and never settled (it died) is claimed again after this."""
NEWS_BATCH = 25
"""News claimed per transaction."""
COMPUTER_TURN_LEASE = 120.0
"""Seconds a process holds a computer turn it resumes (:meth:`MatchService.resume_computer_turn`): longer than a
computer move may take (:data:`bot.service.computer.MOVE_BUDGET`) with its board posted."""


def damage_of(match: MatchRecord) -> str | None:
    """Why a loaded match cannot be played without touching its state: a damage already recorded or found when it
    was decoded, an unknown game, missing or misnumbered seats, or a seat to move out of range; ``None`` if
    none of these."""
    if match.damage:
        return match.damage
    if match.game not in GAMES:
        return f"unknown game {match.game[:40]!r}"
    if not match.seats or [s.seat for s in match.seats] != list(range(len(match.seats))):
        return "its seats are missing or misnumbered"
    if match.current_seat is not None and not 0 <= match.current_seat < len(match.seats):
        return f"the seat to move ({match.current_seat}) is out of range"
    if match.draw_offer_seat is not None and not 0 <= match.draw_offer_seat < len(match.seats):
        return f"the seat offering a draw ({match.draw_offer_seat}) is out of range"
    return None


def sound_state(match: MatchRecord) -> State[Any]:
    """The rules-core state of ``match``, after :func:`damage_of`'s checks.

    Raises:
        Damaged: the row is damaged, or its state does not load (the rules core's reason is kept).
    """
    reason = damage_of(match)
    if reason is None:
        try:
            return load_state(match)
        except (RulesError, ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
            reason = f"its state does not load ({type(error).__name__}: {str(error)[:120]})"
    raise Damaged(match.id, reason)


STATE_CACHE_SIZE = 1024
"""How many decoded states the process keeps (the most recently used), so that an action on a running match does
not re-derive its position from the move log again."""
_states: collections.OrderedDict[tuple[str, str], State[Any]] = collections.OrderedDict()
_states_lock = threading.Lock()  # moves are applied in the database thread, lookups happen on the event loop


def _state_key(game: str, data: dict[str, Any]) -> tuple[str, str]:
    return game, json.dumps(data, sort_keys=True, separators=(",", ":"))


def remember_state(game: str, state: State[Any]) -> None:
    """Keep ``state`` (just validated, e.g. the position after a move) for the next :func:`load_state` of the same
    stored data."""
    key = _state_key(game, state.to_dict())
    with _states_lock:
        _states[key] = state
        _states.move_to_end(key)
        while len(_states) > STATE_CACHE_SIZE:
            _states.popitem(last=False)


def load_state(match: MatchRecord) -> State[Any]:
    """The rules-core state of a stored match (raises ``InvalidState`` for corrupt data).

    The games validate a stored state by replaying its moves (:meth:`games.State.from_dict`); a state this process
    decoded or produced before is taken from a cache keyed by the exact stored data instead (states are
    immutable), so a running match is replayed once per process, not on every action.
    """
    key = _state_key(match.game, match.state)
    with _states_lock:
        state = _states.get(key)
        if state is not None:
            _states.move_to_end(key)
            return state
    loaded: State[Any] = GAMES[match.game].load(match.state)
    remember_state(match.game, loaded)
    return loaded


def replay(match: MatchRecord, moves: Sequence[MoveRecord]) -> list[State[Any]]:
    """Return the states of a match from its initial state through every logged move (``len(moves) + 1``)."""
    game = GAMES[match.game]
    states = [game.load(match.initial_state)]
    for move in moves:
        states.append(states[-1].play(move.notation))
    return states


class MatchService:
    """The match lifecycle over a :class:`storage.Database`.

    Args:
        db: the open database.
        computer_id: the user id that stands for the computer in seats (the bot's own user id).
        clock: returns the current time in epoch seconds.
        computer: where computer moves are searched (default: a thread, :class:`ComputerPool` with no workers).
        shards: the Discord shards this process serves, when several processes share the database: the deadline
            pass, the outbox and the resuming of computer turns then take only their servers' work. ``None`` (the
            default): every server's.
    """

    def __init__(self, db: Database, *, computer_id: int = 0, computer_name: str = "Napkin Games",
                 clock: Callable[[], float] = time.time, computer: ComputerPool | None = None,
                 shards: Shards | None = None) -> None:
        self.db = db
        self.shards = shards
        self.computer = computer or ComputerPool(0)
        self.computer_id = computer_id
        self.computer_name = computer_name
        self.clock = clock

    # ------------------------------------------------------------ reading

    async def get_match(self, match_id: int, guild_id: int | None = None) -> MatchRecord:
        """Load a match; with ``guild_id``, refuse one from another server.

        Raises:
            NotFound: no such match (or it is in another server).
        """
        match = await self.db.read(ReadTx.get_match, match_id)
        if match is None or (guild_id is not None and match.guild_id != guild_id):
            raise NotFound(f"There is no match #{match_id} in this server.")
        reason = damage_of(match)
        if reason is not None:
            await self.quarantine(match, reason)
            raise Damaged(match_id, reason)
        return match

    async def quarantine(self, match: MatchRecord, reason: str) -> None:
        """Mark ``match`` damaged (logged with its id; once), so lists, the deadline pass and start-up resumption
        go on without it."""
        if match.quarantined and match.deadline is None:
            return
        log.error("match %s is damaged and quarantined: %s", match.id, reason)
        await self.db.write(Tx.quarantine_match, match.id, reason)

    async def match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """The match played in thread ``thread_id``, if any."""
        return await self.db.read(ReadTx.match_in_thread, thread_id)

    async def active_matches(self, guild_id: int, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in ``guild_id``, most recently active first; damaged ones are quarantined
        and left out (:meth:`damaged_matches` lists them)."""
        matches = await self.db.read(ReadTx.active_matches_of, guild_id, user_id)
        sound = []
        for match in matches:
            reason = damage_of(match)
            if reason is None:
                sound.append(match)
            else:
                await self.quarantine(match, reason)
        return sound

    async def active_matches_anywhere(self, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in every server, most recently active first; damaged ones are quarantined
        and left out."""
        matches = await self.db.read(ReadTx.active_matches_anywhere, user_id)
        for match in matches:
            reason = damage_of(match)
            if reason is not None:
                await self.quarantine(match, reason)
        return [match for match in matches if damage_of(match) is None]

    async def damaged_matches(self, guild_id: int, user_id: int) -> list[int]:
        """Ids of ``user_id``'s quarantined matches in ``guild_id`` (they were active when found damaged)."""
        return await self.db.read(ReadTx.damaged_matches_of, guild_id, user_id)

    async def active_match_page(self, guild_id: int, user_id: int, page: int,
                                size: int) -> tuple[list[MatchRecord], int, int]:
        """Page ``page`` (from 1; past the last shows the last) of ``size`` of ``user_id``'s active matches in
        ``guild_id``, most recently active first; returns ``(matches, page, pages)`` (``pages`` is 1 with none).

        Raises:
            BadOption: ``page`` below 1.
        """
        if page < 1:
            raise BadOption(f"There is no page {page}; pages start at 1.")

        def body(tx: ReadTx) -> tuple[list[MatchRecord], int, int]:
            pages = max(1, -(-tx.count_active(guild_id, user_id, sound_only=True) // size))
            shown = min(page, pages)
            return tx.active_matches_of(guild_id, user_id, size, (shown - 1) * size), shown, pages

        for _ in range(3):  # a damaged row found on the page is quarantined (left out from then on): read again
            matches, shown, pages = await self.db.read(body)
            damaged = [(match, reason) for match in matches if (reason := damage_of(match)) is not None]
            if not damaged:
                break
            for match, reason in damaged:
                await self.quarantine(match, reason)
        return [match for match in matches if damage_of(match) is None], shown, pages

    async def moves(self, match_id: int) -> list[MoveRecord]:
        """The match's move log."""
        return await self.db.read(ReadTx.get_moves, match_id)

    async def settings(self, guild_id: int) -> SettingsRecord:
        """A server's settings."""
        return await self.db.read(ReadTx.get_settings, guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> SettingsRecord:
        """Change some of a server's settings and return them all.

        Keyword arguments are :class:`storage.SettingsRecord` fields (``days_per_move``, ``use_threads``,
        ``allowed_channels``, ``max_active``, ``rate_computer``, ``vacation_days``).

        Raises:
            BadOption: a value is out of range.
        """
        if "days_per_move" in changes and changes["days_per_move"] not in DAYS_PER_MOVE_CHOICES:
            raise BadOption("Days per move must be one of 1, 2, 3, 5, 7, 14 or 0 for no limit.")
        if "max_active" in changes and not 1 <= int(changes["max_active"]) <= 100:
            raise BadOption("The limit of active matches must be between 1 and 100.")
        if "vacation_days" in changes:
            vacations.check_allowance(int(changes["vacation_days"]))
        for key in changes:
            if key not in SETTINGS:
                raise BadOption(f"Unknown setting {key!r}.")
        now = self.clock()

        def body(tx: Tx) -> SettingsRecord:
            current = dataclasses.replace(tx.get_settings(guild_id), **changes)
            tx.put_settings(current, now)
            return current

        return await self.db.write(body)

    # ------------------------------------------------------------ challenges

    def validate_variant(self, game_key: str, variant: dict[str, Any]) -> dict[str, Any]:
        """Check ``variant`` by building a start state; return the full variant (defaults filled in).

        Raises:
            NotFound: unknown game. games.InvalidVariant: a bad option (its message names it).
        """
        if game_key not in GAMES:
            raise NotFound(f"There is no game called {game_key!r}.")
        return GAMES[game_key].variant(variant)

    async def create_challenge(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], challenger: Player,
        opponent: Player | None, days_per_move: int | None = None, challenger_seat: int = 0,
    ) -> ChallengeRecord:
        """Open a challenge (``opponent=None``: anyone may accept); the challenger takes ``challenger_seat``
        (0 moves first) when it is accepted.

        Raises:
            NotAllowed: challenging yourself, or a channel where the server does not allow matches.
            LimitReached: the challenger has too many active matches.
            BadOption: days per move not allowed. games.InvalidVariant: bad variant.
        """
        full_variant = self.validate_variant(game, variant)
        if GAMES[game].seats_for(full_variant) == 1:
            raise NotAllowed("That is a solitaire game: start it without an opponent to play it alone.")
        if opponent is not None and opponent.user_id == challenger.user_id:
            raise NotAllowed("You cannot challenge yourself. Leave `opponent` empty for an open challenge.")
        if challenger_seat not in (0, 1):
            raise BadOption("The challenger's seat is the first or the second.")
        now = self.clock()

        def body(tx: Tx) -> ChallengeRecord:
            settings = self._check_can_start(tx, guild_id, channel_id, challenger.user_id, now)
            days = self._days(days_per_move, settings)
            challenge_id = tx.insert_challenge(
                guild_id=guild_id, channel_id=channel_id, game=game, variant=full_variant,
                challenger_id=challenger.user_id, challenger_name=challenger.name,
                opponent_id=opponent.user_id if opponent else None, days_per_move=days, now=now,
                expires_at=now + CHALLENGE_TTL, challenger_seat=challenger_seat,
            )
            challenge = tx.get_challenge(challenge_id)
            assert challenge is not None
            return challenge

        return await self.db.write(body)

    async def cancel_challenge(self, challenge_id: int) -> bool:
        """Cancel an open challenge nobody can see (its message could not be posted); ``False`` if it was no
        longer open."""
        return await self.db.write(Tx.close_challenge, challenge_id, "cancelled")

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember which message carries the challenge's buttons."""
        await self.db.write(Tx.set_challenge_message, challenge_id, message_id)

    async def get_challenge(self, challenge_id: int, guild_id: int | None = None) -> ChallengeRecord:
        """Load a challenge (raises :class:`NotFound`, also for another server's challenge)."""
        challenge = await self.db.read(ReadTx.get_challenge, challenge_id)
        if challenge is None or (guild_id is not None and challenge.guild_id != guild_id):
            raise NotFound("That challenge no longer exists.")
        return challenge

    async def accept_challenge(self, challenge_id: int, guild_id: int, accepter: Player) -> ChallengeResult:
        """Accept an open challenge and start the match (challenger in seat 0).

        Raises:
            NotFound, ChallengeClosed, NotAllowed (own challenge, or one addressed to someone else),
            LimitReached.
        """
        now = self.clock()

        def body(tx: Tx) -> ChallengeResult:
            challenge = tx.get_challenge(challenge_id)
            if challenge is None or challenge.guild_id != guild_id:
                raise NotFound("That challenge no longer exists.")
            self._check_open(challenge, now)
            if accepter.user_id == challenge.challenger_id:
                raise NotAllowed("You cannot accept your own challenge; wait for an opponent or cancel it.")
            if challenge.opponent_id is not None and challenge.opponent_id != accepter.user_id:
                raise NotAllowed("This challenge is addressed to someone else.")
            settings = tx.get_settings(guild_id)
            self._check_limit(tx, settings, accepter.user_id, now)
            self._check_limit(tx, settings, challenge.challenger_id, now, open_too=False)
            seat = challenge.challenger_seat
            seats = sorted([SeatRecord(seat, challenge.challenger_id, challenge.challenger_name),
                            SeatRecord(1 - seat, accepter.user_id, accepter.name)], key=lambda s: s.seat)
            match_id = self._insert_match(tx, guild_id, challenge.channel_id, challenge.game, challenge.variant,
                                          seats, challenge.days_per_move, rated=True, now=now, seed=challenge_id)
            tx.close_challenge(challenge_id, "accepted", match_id)
            challenge = tx.get_challenge(challenge_id)
            match = tx.get_match(match_id)
            assert challenge is not None
            assert match is not None
            return ChallengeResult(challenge, match)

        return await self.db.write(body)

    async def decline_challenge(self, challenge_id: int, guild_id: int, user: Player) -> ChallengeRecord:
        """Decline (invited member) or cancel (challenger) an open challenge.

        Raises:
            NotFound, ChallengeClosed, NotAllowed (anyone else; an open challenge can only be cancelled).
        """
        now = self.clock()

        def body(tx: Tx) -> ChallengeRecord:
            challenge = tx.get_challenge(challenge_id)
            if challenge is None or challenge.guild_id != guild_id:
                raise NotFound("That challenge no longer exists.")
            self._check_open(challenge, now)
            if user.user_id == challenge.challenger_id:
                status = "cancelled"
            elif challenge.opponent_id == user.user_id:
                status = "declined"
            else:
                raise NotAllowed("Only the invited member can decline this challenge (or its author cancel it).")
            tx.close_challenge(challenge_id, status)
            challenge = tx.get_challenge(challenge_id)
            assert challenge is not None
            return challenge

        return await self.db.write(body)

    async def start_solo(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], player: Player,
        level: Level | None, days_per_move: int | None = None, player_seat: int = 0,
    ) -> MatchRecord:
        """Start a match at once: against the computer at ``level``, or alone for a solitaire variant.

        Raises:
            NotAllowed, LimitReached, BadOption, games.InvalidVariant.
        """
        full_variant = self.validate_variant(game, variant)
        seat_count = GAMES[game].seats_for(full_variant)
        now = self.clock()

        def body(tx: Tx) -> MatchRecord:
            settings = self._check_can_start(tx, guild_id, channel_id, player.user_id, now)
            days = self._days(days_per_move, settings)
            if seat_count == 1 and days_per_move is None:
                days = 0  # solitaire: no move deadline unless the player asks for one
            if seat_count == 1:
                seats = [SeatRecord(0, player.user_id, player.name)]
            else:
                if level is None:
                    raise BadOption("Choose a level (easy, medium or hard) to play the computer.")
                human = SeatRecord(player_seat, player.user_id, player.name)
                computer = SeatRecord(1 - player_seat, self.computer_id, f"{self.computer_name} ({level})", level)
                seats = sorted([human, computer], key=lambda s: s.seat)
            rated = True if seat_count == 1 else settings.rate_computer
            match_id = self._insert_match(tx, guild_id, channel_id, game, full_variant, seats, days, rated=rated,
                                          now=now, seed=int(now * 1000) ^ player.user_id)
            match = tx.get_match(match_id)
            assert match is not None
            return match

        return await self.db.write(body)

    async def start_computer_duel(self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any],
                                  levels: tuple[Level, ...], seed: int = 0) -> MatchRecord:
        """Start a computer-versus-computer match (the demo uses it). Unrated, no deadline."""
        full_variant = self.validate_variant(game, variant)
        seat_count = GAMES[game].seats_for(full_variant)
        seats = [SeatRecord(seat, self.computer_id, f"Computer {seat + 1} ({levels[seat]})", levels[seat])
                 for seat in range(seat_count)]
        now = self.clock()

        def body(tx: Tx) -> MatchRecord:
            match_id = self._insert_match(tx, guild_id, channel_id, game, full_variant, seats, 0, rated=False,
                                          now=now, seed=seed)
            match = tx.get_match(match_id)
            assert match is not None
            return match

        return await self.db.write(body)

    async def set_thread(self, match_id: int, thread_id: int | None) -> None:
        """Record the thread a match is played in."""
        await self.db.write(Tx.set_thread, match_id, thread_id)

    # ------------------------------------------------------------ moves

    async def play(self, match_id: int, guild_id: int, user_id: int, text: str,
                   expected_version: int | None = None) -> MoveResult:
        """Apply the move ``text`` (the game's notation) for ``user_id``.

        Args:
            expected_version: the match version the member saw (buttons carry it); ``None`` for typed
                commands, which act on the current position.

        In the same transaction, the opponent's conditional move (``/match premove``) answering this move is applied
        and returned in the result's ``chained`` moves, or their stored lines are discarded (the result's
        ``discarded``): :func:`bot.service.premoves.answer`.

        Raises:
            NotFound, NotAllowed (not seated), MatchOver, NotYourTurn, Outdated,
            games.InvalidMove / games.IllegalMove (the rules core's reason).
        """
        def body(tx: Tx) -> MoveResult | MatchRecord:
            match = self._load_for_action(tx, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if expected_version is not None and expected_version != match.version:
                raise Outdated("That board is out of date: the match has moved on. Use the buttons on the latest "
                               "board.")
            before = sound_state(match)
            if not self._seat_to_move(match, before, user_id):
                mover = match.seats[before.current_seat].display_name if before.current_seat is not None else "?"
                raise NotYourTurn(f"It is not your turn: {mover} is to move.")
            if match.deadline is not None and match.deadline <= now:  # the pass has not run yet: it is over anyway
                return self._time_is_up(tx, match, now, queue=False)  # the caller posts the result
            moved = self._apply(tx, match, before, before.current_seat or 0, text, now)
            return premoves.answer(tx, moved, self._apply, now)  # the waiting seat's conditional reply, if any

        now = self.clock()
        result = await self._write(body)
        if isinstance(result, MatchRecord) and result.status == "aborted":
            raise TimeRanOut(f"Your time for a first move in match #{match_id} ran out before this move: the match "
                             "is aborted (it counts for nobody), and your move was not played.", result)
        if isinstance(result, MatchRecord):
            raise TimeRanOut(f"Your time in match #{match_id} ran out before this move: the match is forfeited "
                             "on time, and your move was not played.", result)
        return result

    async def _write(self, body: Callable[[Tx], _T]) -> _T:
        """``db.write(body)``; a :class:`Damaged` raised by ``body`` quarantines the match, then propagates."""
        try:
            return await self.db.write(body)
        except Damaged as error:
            await self.db.write(Tx.quarantine_match, error.match_id, error.reason)
            log.error("match %s is damaged and quarantined: %s", error.match_id, error.reason)
            raise

    async def computer_replies(self, match_id: int) -> list[MoveResult]:
        """Let the computer move while a computer seat is to move; return the moves applied.

        The search runs in :attr:`computer` (worker processes in the bot); the move is then applied with a version
        check, so a resign or a forfeit that lands meanwhile wins and the computer's move is dropped.
        """
        results: list[MoveResult] = []
        while True:
            match = await self.db.read(ReadTx.get_match, match_id)
            if match is None or match.status != "active" or match.current_seat is None:
                return results
            try:
                state = sound_state(match)
            except Damaged as error:
                await self.quarantine(match, error.reason)
                return results
            seat = match.seats[match.current_seat]
            if not seat.is_computer:
                return results
            seed = f"{match.id}:{match.ply}:{match.initial_state.get('seed', '')}"
            text = await self.computer.choose(match.game, match.state, seat.level, seed)  # type: ignore[arg-type]

            def body(tx: Tx, version: int = match.version, before: State[Any] = state, seat: int = seat.seat,
                     text: str = text, now: float = self.clock()) -> MoveResult | None:
                fresh = tx.lock_match(match_id)
                if fresh is None or fresh.version != version or fresh.status != "active":
                    return None
                return self._apply(tx, fresh, before, seat, text, now)

            result = await self.db.write(body)
            if result is None:
                return results
            results.append(result)

    def _apply(self, tx: Tx, match: MatchRecord, before: State[Any], seat: int, text: str, now: float) -> MoveResult:
        """Validate and apply ``text`` and store the move at time ``now`` (inside a transaction body, which runs in
        the database thread: the clock is read by the caller). Raises RulesError."""
        move = before.parse_move(text)
        after = before.apply(move)
        notation = before.format_move(move)
        tx.append_move(match.id, after.ply, seat, notation, now)
        fields: dict[str, Any] = {
            "state": after.to_dict(), "ply": after.ply, "current_seat": after.current_seat, "updated_at": now,
            "reminded": False, "draw_offer_seat": None,
        }
        if after.outcome is not None:
            fields.update(status="finished", outcome=after.outcome.to_dict(),
                          end_reason=after.outcome.termination.value, deadline=None, finished_at=now,
                          current_seat=None)
            fields["rating_changes"] = ratings.record_result(tx, dataclasses.replace(match, **fields), now)
        else:
            fields["deadline"] = self._deadline_for(match, after.current_seat, now)
        if not tx.update_match(match.id, match.version, **fields):  # (a refusal rolls the ratings back too)
            raise Outdated("Another move landed first; look at the latest board.")
        updated = dataclasses.replace(match, **fields, version=match.version + 1)  # what was just written
        remember_state(match.game, after)
        return MoveResult(updated, before, after, seat, notation)

    # ------------------------------------------------------------ ending a match early

    async def resign(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Resign: the other seat wins (solitaire: the game is abandoned).

        Raises:
            NotFound, NotAllowed, MatchOver.
        """
        def body(tx: Tx) -> MatchRecord:
            match = self._load_for_action(tx, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            winner = None if len(match.seats) == 1 else 1 - seat
            return self._finish(tx, match, winner=winner, draw=False, termination=Termination.RESIGNED, loser=seat,
                                now=now)

        now = self.clock()
        return await self._write(body)

    async def abort(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Abort a match before each human side has moved (no result, unrated).

        Raises:
            NotFound, NotAllowed (not seated, or both sides already moved), MatchOver.
        """
        def body(tx: Tx) -> MatchRecord:
            match = self._load_for_action(tx, match_id, guild_id)
            if match.seat_of(user_id) is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            moved = {m.seat for m in tx.get_moves(match_id)}
            if len(match.seats) == 1 and moved:
                raise NotAllowed("A solitaire game can only be aborted before its first move; resign to end it "
                                 "(it counts as a loss).")
            if len(match.seats) > 1 and all(s.seat in moved for s in match.seats):
                raise NotAllowed("Both sides have moved; the match can no longer be aborted. Resign or offer a "
                                 "draw instead.")
            scores = sound_state(match).scores
            outcome = Outcome(None, False, tuple(scores) if scores is not None else None, Termination.ABORTED)
            self._update(tx, match, status="aborted", outcome=outcome.to_dict(), end_reason=Termination.ABORTED.value,
                         deadline=None, finished_at=now, current_seat=None, updated_at=now)
            updated = tx.get_match(match_id)
            assert updated is not None
            return updated

        now = self.clock()
        return await self._write(body)

    async def offer_draw(self, match_id: int, guild_id: int, user_id: int) -> tuple[MatchRecord, bool]:
        """Offer a draw, or accept the opponent's standing offer.

        Returns ``(match, agreed)``: ``agreed`` is ``True`` when this accepted an offer and the match is drawn.

        Raises:
            NotFound, NotAllowed (not seated, game cannot be drawn, solitaire, computer opponent), MatchOver.
        """
        def body(tx: Tx) -> tuple[MatchRecord, bool]:
            match = self._load_for_action(tx, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if len(match.seats) == 1 or not GAMES[match.game].drawable:
                raise NotAllowed(f"{GAMES[match.game].title} matches like this one cannot be drawn by agreement.")
            if any(s.is_computer for s in match.seats):
                raise NotAllowed("The computer does not accept draw offers; play on or resign.")
            if match.draw_offer_seat is not None and match.draw_offer_seat != seat:
                finished = self._finish(tx, match, winner=None, draw=True, termination=Termination.DRAW_AGREED,
                                        now=now)
                return finished, True
            if match.draw_offer_seat == seat:
                raise NotAllowed("You have already offered a draw; wait for your opponent's answer.")
            self._update(tx, match, draw_offer_seat=seat, updated_at=now)
            updated = tx.get_match(match_id)
            assert updated is not None
            return updated, False

        now = self.clock()
        return await self._write(body)

    async def decline_draw(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Decline the opponent's draw offer.

        Raises:
            NotFound, NotAllowed (not seated, or no offer from the opponent), MatchOver.
        """
        def body(tx: Tx) -> MatchRecord:
            match = self._load_for_action(tx, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if match.draw_offer_seat is None or match.draw_offer_seat == seat:
                raise NotAllowed("There is no draw offer from your opponent to decline.")
            self._update(tx, match, draw_offer_seat=None, updated_at=now)
            updated = tx.get_match(match_id)
            assert updated is not None
            return updated

        now = self.clock()
        return await self._write(body)

    async def give_time(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Give the opponent, who is to move, :data:`EXTRA_TIME` (one day) more before their deadline, as the
        lichess correspondence "give more time" button does; each player may do it :data:`EXTRA_TIME_LIMIT` times
        per match. The deadline moves in one transaction with a version check; the reminder (if not yet sent) comes
        a day later with it. Returns the updated match.

        Raises:
            NotFound, MatchOver, Outdated, NotAllowed: not seated; a computer match or solitaire; it is the
            giver's own turn; the match has no deadline (or the player to move has run out of time already);
            the giver's :data:`EXTRA_TIME_LIMIT` is reached.
        """
        def body(tx: Tx) -> MatchRecord:
            match = self._load_for_action(tx, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if len(match.seats) == 1 or any(s.is_computer for s in match.seats):
                raise NotAllowed("Extra time is for an opponent who is a member; this match has none, so there is "
                                 "nobody to give time to.")
            to_move = match.current_seat
            if to_move is None or to_move == seat:
                raise NotAllowed("It is your own turn; you can only give extra time to your opponent while they "
                                 "are to move.")
            if match.deadline is None:
                raise NotAllowed(f"Match #{match_id} has no time limit, so there is no deadline to extend.")
            if match.deadline <= now:
                raise NotAllowed(f"Your opponent's time in match #{match_id} has already run out; it "
                                 "can no longer be extended.")
            given = match.times_given(seat)
            if given >= EXTRA_TIME_LIMIT:
                raise LimitReached(f"You have already given extra time {EXTRA_TIME_LIMIT} times in match "
                                   f"#{match_id}, the most a player may.")
            counts = [match.times_given(s.seat) for s in match.seats]
            counts[seat] = given + 1
            self._update(tx, match, deadline=match.deadline + EXTRA_TIME, time_given=counts, updated_at=now)
            updated = tx.get_match(match_id)
            assert updated is not None
            return updated

        now = self.clock()
        return await self._write(body)

    # ------------------------------------------------------------ deadlines

    async def process_due(self) -> DueWork:
        """Send due reminders (mark them), forfeit matches past their deadline and expire old challenges.

        A match past its deadline in which a side never made its first move is aborted instead of forfeited
        (it counts for nobody; :meth:`_never_moved` says which matches, following lichess: a game is aborted, not
        lost on time, while either side has not made its first move).

        The caller posts the messages. The due matches are found along an index (only they are read; with
        :attr:`shards`, only those of this process's servers), then settled :data:`DUE_BATCH` to a transaction,
        each claimed inside it (:meth:`storage.Tx.claim_match`: re-read and held, or skipped while another process
        holds it) and settled in a savepoint, so that of several processes running the pass at once exactly one
        acts on each match, and a match that cannot be settled now (its version moved on, or the server broke a
        deadlock between two passes over rating rows) is left for the next pass without undoing the rest of the
        batch; a row another transaction holds for longer than :data:`PASS_LOCK_WAIT_MS` is given up the same way.
        Members' actions queued meanwhile take their turn between two
        batches, so a burst of due matches never holds them up for long. A challenge is expired by the one
        transaction that closes it while it is still open.
        """
        now = self.clock()
        work = DueWork()
        shards = self.shards

        def due(tx: ReadTx) -> tuple[list[int], list[ChallengeRecord]]:
            return tx.due_match_ids(now, shards), tx.expired_challenges(now, shards)

        def expire(tx: Tx, challenge: ChallengeRecord) -> None:
            if tx.close_challenge(challenge.id, "expired"):
                challenge.status = "expired"
                work.expired.append(challenge)

        later: tuple[type[Exception], ...] = (Outdated, *self.db.TransientError)

        def settle_batch(tx: Tx, match_ids: Sequence[int]) -> None:
            # passes of several processes settling matches of the same players in one batch each could wait for
            # each other's rating rows in a ring: give such a match up at once and leave it for the next pass,
            # rather than wait for the server to find the deadlock
            tx.wait_briefly_for_locks(PASS_LOCK_WAIT_MS)
            for match_id in match_ids:
                try:
                    with tx.savepoint("due_match"):
                        self._settle_due(tx, match_id, now, work)
                except later as error:
                    log.info("match %s could not be settled now (%s); the next pass looks again", match_id,
                             type(error).__name__)

        def expire_batch(tx: Tx, batch: Sequence[ChallengeRecord]) -> None:
            for challenge in batch:
                expire(tx, challenge)

        match_ids, challenges = await self.db.read(due)
        for start in range(0, len(match_ids), DUE_BATCH):
            await self.db.write(settle_batch, match_ids[start:start + DUE_BATCH])
        for start in range(0, len(challenges), DUE_BATCH):
            await self.db.write(expire_batch, challenges[start:start + DUE_BATCH])
        return work

    def _settle_due(self, tx: Tx, match_id: int, now: float, work: DueWork) -> None:
        """Act on due match ``match_id`` at ``now`` inside ``tx``: claim it, then forfeit or abort it at its deadline,
        or mark and queue its reminder, recording what was done in ``work`` (nothing when it is no longer due, or
        another process holds it).

        Raises:
            Outdated: the match's version moved on (the caller's savepoint undoes this match alone).
        """
        # the row's condition is checked again here, in the transaction that acts on it: a move that
        # committed since the pass read its list gave a fresh clock (no forfeit, no early reminder)
        fresh = tx.claim_match(match_id)  # None also while another process settles it (or a move holds it)
        if fresh is None or fresh.status != "active" or fresh.deadline is None:
            return
        try:
            sound_state(fresh)
        except Damaged as error:
            log.error("match %s is damaged and quarantined: %s", match_id, error.reason)
            tx.quarantine_match(match_id, error.reason)
            work.quarantined.append(match_id)
            return
        if fresh.deadline <= now:
            ended = self._time_is_up(tx, fresh, now)
            (work.aborted if ended.status == "aborted" else work.forfeited).append(ended)
        elif not fresh.reminded and fresh.deadline - now <= fresh.days_per_move * DAY / 3:
            self._update(tx, fresh, reminded=True)
            tx.add_outbox(fresh.id, "reminder", fresh.ply, now)  # delivered (and retried) from the outbox
            fresh.reminded = True
            fresh.version += 1
            work.reminded.append(fresh)

    def _time_is_up(self, tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
        """End ``match``, whose deadline has passed: aborted while a side has not made its first move
        (:meth:`_never_moved`), else forfeited by the seat to move; with ``queue``, its final board is queued."""
        absent = self._never_moved(tx, match)
        if absent is not None:
            return self._abort_unstarted(tx, match, absent, now, queue=queue)
        return self._forfeit(tx, match, now, queue=queue)

    @staticmethod
    def _never_moved(tx: ReadTx, match: MatchRecord) -> int | None:
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

    def _abort_unstarted(self, tx: Tx, match: MatchRecord, seat: int, now: float, *,
                         queue: bool = True) -> MatchRecord:
        """Abort ``match`` at its deadline because a side never made its first move; ``seat`` (the seat to move,
        who let the deadline pass) is kept as the outcome's ``loser``, which for an abort only names who did not
        move (nobody loses: no rating changes). With ``queue``, queues the final board in the outbox."""
        scores = sound_state(match).scores
        outcome = Outcome(None, False, tuple(scores) if scores is not None else None, Termination.ABORTED, seat)
        self._update(tx, match, status="aborted", outcome=outcome.to_dict(), end_reason=Termination.ABORTED.value,
                     deadline=None, finished_at=now, current_seat=None, updated_at=now, draw_offer_seat=None)
        if queue:
            tx.add_outbox(match.id, "result", match.ply, now)
        updated = tx.get_match(match.id)
        assert updated is not None
        return updated

    def _forfeit(self, tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
        """Finish ``match`` on time against its seat to move; with ``queue``, queue the result in the outbox."""
        seat = match.current_seat or 0
        winner = None if len(match.seats) == 1 else 1 - seat
        finished = self._finish(tx, match, winner=winner, draw=False, termination=Termination.OUT_OF_TIME,
                                loser=seat, now=now)
        if queue:
            tx.add_outbox(match.id, "result", finished.ply, now)
        return finished

    # ------------------------------------------------------------ news (the outbox)

    async def queue_result(self, match: MatchRecord) -> None:
        """Queue the final board of a finished ``match`` whose post just failed, for the outbox to deliver (first
        retried after :data:`NEWS_RETRY_DELAYS`' first delay)."""
        now = self.clock()
        await self.db.write(Tx.add_outbox, match.id, "result", match.ply, now, now + NEWS_RETRY_DELAYS[0])

    async def due_news(self) -> list[OutboxRecord]:
        """News due for (another) delivery attempt now, oldest first (with :attr:`shards`, of this process's
        servers; read only: :meth:`claim_news` is what a delivering process uses)."""
        return await self.db.read(ReadTx.due_outbox, self.clock(), self.shards)

    async def claim_news(self, limit: int = NEWS_BATCH) -> list[OutboxRecord]:
        """Claim up to ``limit`` news due now (with :attr:`shards`, of this process's servers) for this process to
        deliver, oldest first: no other process delivers them for :data:`NEWS_LEASE` seconds. Settle each with
        :meth:`news_done` or :meth:`news_failed`; news left unsettled (the process died) is claimed again after the
        lease (:meth:`storage.Tx.claim_outbox`)."""
        now = self.clock()
        return await self.db.write(Tx.claim_outbox, now, now + NEWS_LEASE, limit, self.shards)

    async def news_done(self, news: OutboxRecord) -> None:
        """Forget ``news``: delivered, no longer true (the match moved on), or its channel is gone."""
        await self.db.write(Tx.outbox_delivered, news.id)

    async def news_failed(self, news: OutboxRecord) -> float:
        """Count a failed delivery of ``news``; return the epoch time of the next attempt
        (:data:`NEWS_RETRY_DELAYS`)."""
        next_at = self.clock() + NEWS_RETRY_DELAYS[min(news.attempts, len(NEWS_RETRY_DELAYS) - 1)]
        await self.db.write(Tx.outbox_retry, news.id, next_at)
        return next_at

    async def computer_turns(self) -> list[int]:
        """Ids of active matches waiting for the computer (a crash between a member's move and the reply); with
        :attr:`shards`, of this process's servers."""
        return await self.db.read(ReadTx.computer_to_move, self.shards)

    async def claim_computer_turn(self, match_id: int) -> bool:
        """Claim the resuming of the computer's turn in ``match_id`` for :data:`COMPUTER_TURN_LEASE` seconds;
        ``False`` when another process holds it. Give it back with :meth:`release_computer_turn`."""
        now = self.clock()
        return await self.db.write(Tx.take_lease, f"computer-turn:{match_id}", now, now + COMPUTER_TURN_LEASE)

    async def release_computer_turn(self, match_id: int) -> None:
        """Give back a claim of :meth:`claim_computer_turn`."""
        await self.db.write(Tx.drop_lease, f"computer-turn:{match_id}")

    async def next_wakeup(self) -> float | None:
        """The earliest time something falls due (reminder, forfeit, challenge expiry, news to deliver; with
        :attr:`shards`, for this process's servers), or ``None``."""
        def earliest(tx: ReadTx) -> float | None:
            times = [t for t in (tx.next_deadline(self.shards), tx.next_challenge_expiry(self.shards),
                                 tx.next_outbox(self.shards)) if t is not None]
            return min(times) if times else None

        return await self.db.read(earliest)

    # ------------------------------------------------------------ helpers

    @classmethod
    def _load_for_action(cls, tx: Tx, match_id: int, guild_id: int) -> MatchRecord:
        """``match_id`` of server ``guild_id``, locked until ``tx`` ends (another process's action on the match waits
        for this one, then sees it); raises NotFound, Damaged or MatchOver (:meth:`_check_active`)."""
        return cls._check_active(tx.lock_match(match_id), match_id, guild_id)

    @classmethod
    def _load_for_reading(cls, tx: ReadTx, match_id: int, guild_id: int) -> MatchRecord:
        """``match_id`` of server ``guild_id`` as a read body sees it; raises as :meth:`_load_for_action`."""
        return cls._check_active(tx.get_match(match_id), match_id, guild_id)

    @staticmethod
    def _check_active(match: MatchRecord | None, match_id: int, guild_id: int) -> MatchRecord:
        if match is None or match.guild_id != guild_id:
            raise NotFound(f"There is no match #{match_id} in this server.")
        reason = damage_of(match)
        if reason is not None:
            raise Damaged(match_id, reason)
        if match.status != "active":
            why = GAMES[match.game].describe_end(read_stored_outcome(match.outcome)) if match.outcome else match.status
            raise MatchOver(f"Match #{match_id} is over ({why}).")
        return match

    @staticmethod
    def _seat_to_move(match: MatchRecord, state: State[Any], user_id: int) -> bool:
        seat = state.current_seat
        return seat is not None and match.seats[seat].user_id == user_id and not match.seats[seat].is_computer

    def _deadline_for(self, match: MatchRecord, seat: int | None, now: float) -> float | None:
        """The deadline of ``seat``, to move from ``now``: days per move later, paused while that member is on
        vacation (``match`` was read in the same transaction, so its seats say who is away)."""
        if seat is None or not match.days_per_move or match.seats[seat].is_computer:
            return None
        return vacations.paused_deadline(match.seats[seat].away_until, now + match.days_per_move * DAY, now)

    @staticmethod
    def _insert_match(tx: Tx, guild_id: int, channel_id: int, game_key: str, variant: dict[str, Any],
                      seats: list[SeatRecord], days: int, *, rated: bool, now: float, seed: int) -> int:
        game: Game[Any, Any] = GAMES[game_key]
        state = game.new_state(variant, random.Random(seed))
        seat = state.current_seat
        deadline = None
        if seat is not None and days and not seats[seat].is_computer:
            away = vacations.away_until(tx, guild_id, seats[seat].user_id, now)
            deadline = vacations.paused_deadline(away, now + days * DAY, now)
        return tx.insert_match(
            guild_id=guild_id, channel_id=channel_id, game=game_key, variant=variant, state=state.to_dict(),
            current_seat=seat, days_per_move=days, deadline=deadline, rated=rated, now=now, seats=seats,
        )

    @staticmethod
    def _update(tx: Tx, match: MatchRecord, **fields: Any) -> None:
        if not tx.update_match(match.id, match.version, **fields):
            raise Outdated("The match changed meanwhile; try again.")

    def _finish(self, tx: Tx, match: MatchRecord, *, winner: int | None, draw: bool, termination: Termination,
                now: float, loser: int | None = None) -> MatchRecord:
        """End ``match`` at ``now`` inside ``tx`` by a player's action (``termination``: resigned, out of time, draw
        agreed; ``loser`` is the seat that resigned or ran out of time). The caller reads the clock: bodies run in
        the database thread."""
        state = load_state(match)
        scores = state.scores
        outcome = Outcome(winner, draw, tuple(scores) if scores is not None else None, termination, loser).to_dict()
        changes = ratings.record_result(tx, dataclasses.replace(match, status="finished", outcome=outcome), now)
        self._update(tx, match, status="finished", outcome=outcome, end_reason=termination.value, deadline=None,
                     finished_at=now, current_seat=None, updated_at=now, draw_offer_seat=None,
                     rating_changes=changes)
        updated = tx.get_match(match.id)
        assert updated is not None
        return updated

    def _check_open(self, challenge: ChallengeRecord, now: float) -> None:
        if challenge.status != "open":
            raise ChallengeClosed(f"This challenge is no longer open (it was {challenge.status}).")
        if challenge.expires_at <= now:
            raise ChallengeClosed("This challenge has expired.")

    def _check_can_start(self, tx: ReadTx, guild_id: int, channel_id: int, user_id: int,
                         now: float) -> SettingsRecord:
        settings = tx.get_settings(guild_id)
        if settings.allowed_channels and channel_id not in settings.allowed_channels:
            channels = ", ".join(f"<#{c}>" for c in settings.allowed_channels)
            raise NotAllowed(f"Matches cannot be started in this channel. Allowed here: {channels}.")
        self._check_limit(tx, settings, user_id, now)
        return settings

    @staticmethod
    def _check_limit(tx: ReadTx, settings: SettingsRecord, user_id: int, now: float, *,
                     open_too: bool = True) -> None:
        """Refuse when ``user_id`` has ``max_active`` active matches, counting (with ``open_too``) their open
        challenges, each of which becomes an active match when accepted."""
        active = tx.count_active(settings.guild_id, user_id)
        pending = tx.count_open_challenges(settings.guild_id, user_id, now) if open_too else 0
        if active + pending >= settings.max_active:
            held = f"{active} active {'match' if active == 1 else 'matches'}"
            if pending:
                held += f" and {pending} open {'challenge' if pending == 1 else 'challenges'}"
            raise LimitReached(f"<@{user_id}> already has {held} in this server; the limit is "
                               f"{settings.max_active}. Finish or resign a match (or wait for a challenge to be "
                               "answered) first.")

    @staticmethod
    def _days(days_per_move: int | None, settings: SettingsRecord) -> int:
        if days_per_move is None:
            return settings.days_per_move
        if days_per_move not in DAYS_PER_MOVE_CHOICES:
            raise BadOption("Days per move must be one of 1, 2, 3, 5, 7, 14, or 0 for no limit.")
        return days_per_move
