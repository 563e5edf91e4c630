"""Match lifecycle: challenges, seats, turns, moves, computer replies, deadlines, draws and ratings.

No ``discord`` import: the extensions translate interactions into calls here and domain errors
(:mod:`bot.service.errors`) back into ephemeral replies. Every change to a match happens in one
``BEGIN IMMEDIATE`` transaction that re-reads the match, checks its version, lets the rules core validate and
apply the move, appends to the move log and bumps the version; so two simultaneous submissions for the same
turn apply exactly one move, and a refused action changes nothing stored.

Times are UNIX epoch seconds from the injected ``clock``; days per move are whole days (0 = no limit).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.service import ratings
from bot.service.errors import (
    BadOption,
    ChallengeClosed,
    LimitReached,
    MatchOver,
    NotAllowed,
    NotFound,
    NotYourTurn,
    Outdated,
)
from games import GAMES, Game, Level, State
from storage import ChallengeRecord, Database, MatchRecord, MoveRecord, SeatRecord, SettingsRecord, repo
from storage.database import in_thread

log = logging.getLogger(__name__)

DAY = 86400.0
DAYS_PER_MOVE_CHOICES: tuple[int, ...] = (0, 1, 2, 3, 5, 7, 14)
"""Allowed days per move; 0 means no time limit."""
CHALLENGE_TTL = DAY
"""How long an unanswered challenge stays open (seconds)."""


@dataclass(frozen=True)
class Player:
    """A Discord member as the service sees it."""

    user_id: int
    name: str


@dataclass
class MoveResult:
    """A move that was applied: the stored match after it, the state before and after, and its notation."""

    match: MatchRecord
    before: State
    after: State
    seat: int
    notation: str

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
    expired: list[ChallengeRecord] = field(default_factory=list)


def load_state(match: MatchRecord) -> State:
    """Rebuild the rules-core state of a stored match (raises ``InvalidState`` for corrupt data)."""
    return GAMES[match.game].load(match.state)


def replay(match: MatchRecord, moves: Sequence[MoveRecord]) -> list[State]:
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
    """

    def __init__(self, db: Database, *, computer_id: int = 0, computer_name: str = "Napkin Games",
                 clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.computer_id = computer_id
        self.computer_name = computer_name
        self.clock = clock

    # ------------------------------------------------------------ reading

    async def get_match(self, match_id: int, guild_id: int | None = None) -> MatchRecord:
        """Load a match; with ``guild_id``, refuse one from another server.

        Raises:
            NotFound: no such match (or it is in another server).
        """
        async with self.db.read() as conn:
            match = await repo.get_match(conn, match_id)
        if match is None or (guild_id is not None and match.guild_id != guild_id):
            raise NotFound(f"There is no match #{match_id} in this server.")
        return match

    async def match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """The match played in thread ``thread_id``, if any."""
        async with self.db.read() as conn:
            return await repo.match_in_thread(conn, thread_id)

    async def active_matches(self, guild_id: int, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in ``guild_id``, most recently active first."""
        async with self.db.read() as conn:
            return await repo.active_matches_of(conn, guild_id, user_id)

    async def moves(self, match_id: int) -> list[MoveRecord]:
        """The match's move log."""
        async with self.db.read() as conn:
            return await repo.get_moves(conn, match_id)

    async def settings(self, guild_id: int) -> SettingsRecord:
        """A server's settings."""
        async with self.db.read() as conn:
            return await repo.get_settings(conn, guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> SettingsRecord:
        """Change some of a server's settings and return them all.

        Keyword arguments are :class:`storage.SettingsRecord` fields (``days_per_move``, ``use_threads``,
        ``allowed_channels``, ``max_active``, ``rate_computer``).

        Raises:
            BadOption: a value is out of range.
        """
        if "days_per_move" in changes and changes["days_per_move"] not in DAYS_PER_MOVE_CHOICES:
            raise BadOption("Days per move must be one of 1, 2, 3, 5, 7, 14 or 0 for no limit.")
        if "max_active" in changes and not 1 <= int(changes["max_active"]) <= 100:
            raise BadOption("The limit of active matches must be between 1 and 100.")
        async with self.db.write() as conn:
            current = await repo.get_settings(conn, guild_id)
            for key, value in changes.items():
                if not hasattr(current, key) or key == "guild_id":
                    raise BadOption(f"Unknown setting {key!r}.")
                setattr(current, key, value)
            await repo.put_settings(conn, current, self.clock())
        return current

    # ------------------------------------------------------------ challenges

    def validate_variant(self, game_key: str, variant: dict[str, Any]) -> dict[str, Any]:
        """Check ``variant`` by building a start state; return the full variant (defaults filled in).

        Raises:
            NotFound: unknown game. games.InvalidVariant: a bad option (its message names it).
        """
        if game_key not in GAMES:
            raise NotFound(f"There is no game called {game_key!r}.")
        game = GAMES[game_key]
        game.new_state(variant, random.Random(0))
        full = game.variant_defaults()
        full.update(variant)
        return full

    async def create_challenge(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], challenger: Player,
        opponent: Player | None, days_per_move: int | None = None,
    ) -> ChallengeRecord:
        """Open a challenge (``opponent=None``: anyone may accept).

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
        now = self.clock()
        async with self.db.write() as conn:
            settings = await self._check_can_start(conn, guild_id, channel_id, challenger.user_id)
            days = self._days(days_per_move, settings)
            challenge_id = await repo.insert_challenge(
                conn, guild_id=guild_id, channel_id=channel_id, game=game, variant=full_variant,
                challenger_id=challenger.user_id, challenger_name=challenger.name,
                opponent_id=opponent.user_id if opponent else None, days_per_move=days, now=now,
                expires_at=now + CHALLENGE_TTL,
            )
            challenge = await repo.get_challenge(conn, challenge_id)
        assert challenge is not None
        return challenge

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember which message carries the challenge's buttons."""
        async with self.db.write() as conn:
            await repo.set_challenge_message(conn, challenge_id, message_id)

    async def get_challenge(self, challenge_id: int, guild_id: int | None = None) -> ChallengeRecord:
        """Load a challenge (raises :class:`NotFound`, also for another server's challenge)."""
        async with self.db.read() as conn:
            challenge = await repo.get_challenge(conn, challenge_id)
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
        async with self.db.write() as conn:
            challenge = await repo.get_challenge(conn, challenge_id)
            if challenge is None or challenge.guild_id != guild_id:
                raise NotFound("That challenge no longer exists.")
            self._check_open(challenge, now)
            if accepter.user_id == challenge.challenger_id:
                raise NotAllowed("You cannot accept your own challenge; wait for an opponent or cancel it.")
            if challenge.opponent_id is not None and challenge.opponent_id != accepter.user_id:
                raise NotAllowed("This challenge is addressed to someone else.")
            settings = await repo.get_settings(conn, guild_id)
            await self._check_limit(conn, settings, accepter.user_id)
            seats = [SeatRecord(0, challenge.challenger_id, challenge.challenger_name),
                     SeatRecord(1, accepter.user_id, accepter.name)]
            match_id = await self._insert_match(conn, guild_id, challenge.channel_id, challenge.game,
                                                challenge.variant, seats, challenge.days_per_move, rated=True,
                                                now=now, seed=challenge_id)
            await repo.close_challenge(conn, challenge_id, "accepted", match_id)
            challenge = await repo.get_challenge(conn, challenge_id)
            match = await repo.get_match(conn, match_id)
        assert challenge is not None
        assert match is not None
        return ChallengeResult(challenge, match)

    async def decline_challenge(self, challenge_id: int, guild_id: int, user: Player) -> ChallengeRecord:
        """Decline (invited member) or cancel (challenger) an open challenge.

        Raises:
            NotFound, ChallengeClosed, NotAllowed (anyone else; an open challenge can only be cancelled).
        """
        now = self.clock()
        async with self.db.write() as conn:
            challenge = await repo.get_challenge(conn, challenge_id)
            if challenge is None or challenge.guild_id != guild_id:
                raise NotFound("That challenge no longer exists.")
            self._check_open(challenge, now)
            if user.user_id == challenge.challenger_id:
                status = "cancelled"
            elif challenge.opponent_id == user.user_id:
                status = "declined"
            else:
                raise NotAllowed("Only the invited member can decline this challenge (or its author cancel it).")
            await repo.close_challenge(conn, challenge_id, status)
            challenge = await repo.get_challenge(conn, challenge_id)
        assert challenge is not None
        return challenge

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
        async with self.db.write() as conn:
            settings = await self._check_can_start(conn, guild_id, channel_id, player.user_id)
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
            match_id = await self._insert_match(conn, guild_id, channel_id, game, full_variant, seats, days,
                                                rated=rated, now=now,
                                                seed=int(now * 1000) ^ player.user_id)
            match = await repo.get_match(conn, match_id)
        assert match is not None
        return match

    async def start_computer_duel(self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any],
                                  levels: tuple[Level, Level], seed: int = 0) -> MatchRecord:
        """Start a computer-versus-computer match (the demo uses it). Unrated, no deadline."""
        full_variant = self.validate_variant(game, variant)
        seat_count = GAMES[game].seats_for(full_variant)
        seats = [SeatRecord(seat, self.computer_id, f"Computer {seat + 1} ({levels[seat]})", levels[seat])
                 for seat in range(seat_count)]
        async with self.db.write() as conn:
            match_id = await self._insert_match(conn, guild_id, channel_id, game, full_variant, seats, 0,
                                                rated=False, now=self.clock(), seed=seed)
            match = await repo.get_match(conn, match_id)
        assert match is not None
        return match

    async def set_thread(self, match_id: int, thread_id: int | None) -> None:
        """Record the thread a match is played in."""
        async with self.db.write() as conn:
            await repo.set_thread(conn, match_id, thread_id)

    # ------------------------------------------------------------ moves

    async def play(self, match_id: int, guild_id: int, user_id: int, text: str,
                   expected_version: int | None = None) -> MoveResult:
        """Apply the move ``text`` (the game's notation) for ``user_id``.

        Args:
            expected_version: the match version the member saw (buttons carry it); ``None`` for typed
                commands, which act on the current position.

        Raises:
            NotFound, NotAllowed (not seated), MatchOver, NotYourTurn, Outdated,
            games.InvalidMove / games.IllegalMove (the rules core's reason).
        """
        def body(conn: sqlite3.Connection) -> MoveResult:
            match = self._load_for_action_sync(conn, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if expected_version is not None and expected_version != match.version:
                raise Outdated("That board is out of date: the match has moved on. Use the buttons on the latest "
                               "board.")
            before = load_state(match)
            if not self._seat_to_move(match, before, user_id):
                mover = match.seats[before.current_seat].display_name if before.current_seat is not None else "?"
                raise NotYourTurn(f"It is not your turn: {mover} is to move.")
            return self._apply(conn, match, before, before.current_seat or 0, text, now)

        now = self.clock()
        return await self.db.run_write(body)

    async def computer_replies(self, match_id: int) -> list[MoveResult]:
        """Let the computer move while a computer seat is to move; return the moves applied.

        The search runs in a worker thread; the move is then applied with a version check, so a resign or a
        forfeit that lands meanwhile wins and the computer's move is dropped.
        """
        results: list[MoveResult] = []
        while True:
            async with self.db.read() as conn:
                match = await repo.get_match(conn, match_id)
            if match is None or match.status != "active" or match.current_seat is None:
                return results
            seat = match.seats[match.current_seat]
            if not seat.is_computer:
                return results
            state = load_state(match)
            game = GAMES[match.game]
            rng = random.Random(f"{match.id}:{match.ply}:{match.initial_state.get('seed', '')}")
            move = await asyncio.to_thread(game.computer_move, state, seat.level, rng)  # type: ignore[arg-type]
            text = state.format_move(move)

            def body(conn: sqlite3.Connection, version: int = match.version, before: State = state,
                     seat: int = seat.seat, text: str = text, now: float = self.clock()) -> MoveResult | None:
                fresh = repo.get_match.sync(conn, match_id)
                if fresh is None or fresh.version != version or fresh.status != "active":
                    return None
                return self._apply(conn, fresh, before, seat, text, now)

            result = await self.db.run_write(body)
            if result is None:
                return results
            results.append(result)

    def _apply(self, conn: sqlite3.Connection, match: MatchRecord, before: State, seat: int, text: str,
               now: float) -> MoveResult:
        """Validate and apply ``text`` and store the move at time ``now`` (inside a transaction body, which runs in
        the database thread: the clock is read by the caller). Raises RulesError."""
        move = before.parse_move(text)
        after = before.apply(move)
        notation = before.format_move(move)
        repo.append_move.sync(conn, match.id, after.ply, seat, notation, now)
        fields: dict[str, Any] = {
            "state": after.to_dict(), "ply": after.ply, "current_seat": after.current_seat, "updated_at": now,
            "reminded": False, "draw_offer_seat": None,
        }
        if after.outcome is not None:
            fields.update(status="finished", outcome=after.outcome.to_dict(), end_reason=after.outcome.reason,
                          deadline=None, finished_at=now, current_seat=None)
        else:
            fields["deadline"] = self._deadline_for(match, after.current_seat, now)
        if not repo.update_match.sync(conn, match.id, match.version, **fields):
            raise Outdated("Another move landed first; look at the latest board.")
        updated = dataclasses.replace(match, **fields, version=match.version + 1)  # what was just written
        if updated.status == "finished":
            ratings.record_result(conn, updated, now)
        return MoveResult(updated, before, after, seat, notation)

    # ------------------------------------------------------------ ending a match early

    async def resign(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Resign: the other seat wins (solitaire: the game is abandoned).

        Raises:
            NotFound, NotAllowed, MatchOver.
        """
        async with self.db.write() as conn:
            match = await self._load_for_action(conn, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            winner = None if len(match.seats) == 1 else 1 - seat
            reason = f"{match.seats[seat].display_name} resigned"
            return await self._finish(conn, match, winner=winner, draw=False, reason=reason)

    async def abort(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Abort a match before each human side has moved (no result, unrated).

        Raises:
            NotFound, NotAllowed (not seated, or both sides already moved), MatchOver.
        """
        async with self.db.write() as conn:
            match = await self._load_for_action(conn, match_id, guild_id)
            if match.seat_of(user_id) is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            moved = {m.seat for m in await repo.get_moves(conn, match_id)}
            if len(match.seats) > 1 and all(s.seat in moved for s in match.seats):
                raise NotAllowed("Both sides have moved; the match can no longer be aborted. Resign or offer a "
                                 "draw instead.")
            now = self.clock()
            await self._update(conn, match, status="aborted", end_reason="aborted", deadline=None, finished_at=now,
                               current_seat=None, updated_at=now)
            updated = await repo.get_match(conn, match_id)
        assert updated is not None
        return updated

    async def offer_draw(self, match_id: int, guild_id: int, user_id: int) -> tuple[MatchRecord, bool]:
        """Offer a draw, or accept the opponent's standing offer.

        Returns ``(match, agreed)``: ``agreed`` is ``True`` when this accepted an offer and the match is drawn.

        Raises:
            NotFound, NotAllowed (not seated, game cannot be drawn, solitaire, computer opponent), MatchOver.
        """
        async with self.db.write() as conn:
            match = await self._load_for_action(conn, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if len(match.seats) == 1 or not GAMES[match.game].drawable:
                raise NotAllowed(f"{GAMES[match.game].title} matches like this one cannot be drawn by agreement.")
            if any(s.is_computer for s in match.seats):
                raise NotAllowed("The computer does not accept draw offers; play on or resign.")
            if match.draw_offer_seat is not None and match.draw_offer_seat != seat:
                finished = await self._finish(conn, match, winner=None, draw=True, reason="draw agreed")
                return finished, True
            if match.draw_offer_seat == seat:
                raise NotAllowed("You have already offered a draw; wait for your opponent's answer.")
            await self._update(conn, match, draw_offer_seat=seat, updated_at=self.clock())
            updated = await repo.get_match(conn, match_id)
        assert updated is not None
        return updated, False

    async def decline_draw(self, match_id: int, guild_id: int, user_id: int) -> MatchRecord:
        """Decline the opponent's draw offer.

        Raises:
            NotFound, NotAllowed (not seated, or no offer from the opponent), MatchOver.
        """
        async with self.db.write() as conn:
            match = await self._load_for_action(conn, match_id, guild_id)
            seat = match.seat_of(user_id)
            if seat is None:
                raise NotAllowed(f"You are not playing in match #{match_id}.")
            if match.draw_offer_seat is None or match.draw_offer_seat == seat:
                raise NotAllowed("There is no draw offer from your opponent to decline.")
            await self._update(conn, match, draw_offer_seat=None, updated_at=self.clock())
            updated = await repo.get_match(conn, match_id)
        assert updated is not None
        return updated

    # ------------------------------------------------------------ deadlines

    async def process_due(self) -> DueWork:
        """Send due reminders (mark them), forfeit matches past their deadline and expire old challenges.

        The caller posts the messages. Each change is its own transaction with a version check.
        """
        now = self.clock()
        work = DueWork()
        async with self.db.read() as conn:
            due = await repo.due_matches(conn, now)
            expired = await repo.expired_challenges(conn, now)
        for match in due:
            async with self.db.write() as conn:
                fresh = await repo.get_match(conn, match.id)
                if fresh is None or fresh.status != "active" or fresh.deadline is None:
                    continue
                if fresh.deadline <= now:
                    seat = fresh.current_seat or 0
                    winner = None if len(fresh.seats) == 1 else 1 - seat
                    reason = f"{fresh.seats[seat].display_name} ran out of time"
                    work.forfeited.append(await self._finish(conn, fresh, winner=winner, draw=False, reason=reason))
                elif not fresh.reminded:
                    await repo.update_match(conn, fresh.id, fresh.version, reminded=True)
                    fresh.reminded = True
                    fresh.version += 1
                    work.reminded.append(fresh)
        for challenge in expired:
            async with self.db.write() as conn:
                if await repo.close_challenge(conn, challenge.id, "expired"):
                    challenge.status = "expired"
                    work.expired.append(challenge)
        return work

    async def computer_turns(self) -> list[int]:
        """Ids of active matches waiting for the computer (a crash between a member's move and the reply)."""
        async with self.db.read() as conn:
            return await repo.computer_to_move(conn)

    async def next_wakeup(self) -> float | None:
        """The earliest time something falls due (reminder, forfeit, challenge expiry), or ``None``."""
        async with self.db.read() as conn:
            times = [t for t in (await repo.next_deadline(conn), await repo.next_challenge_expiry(conn))
                     if t is not None]
        return min(times) if times else None

    # ------------------------------------------------------------ helpers

    async def _load_for_action(self, conn: repo.Connection, match_id: int, guild_id: int) -> MatchRecord:
        return await in_thread(conn, self._load_for_action_sync, match_id, guild_id)

    @staticmethod
    def _load_for_action_sync(conn: sqlite3.Connection, match_id: int, guild_id: int) -> MatchRecord:
        match = repo.get_match.sync(conn, match_id)
        if match is None or match.guild_id != guild_id:
            raise NotFound(f"There is no match #{match_id} in this server.")
        if match.status != "active":
            raise MatchOver(f"Match #{match_id} is over ({match.end_reason or match.status}).")
        return match

    @staticmethod
    def _seat_to_move(match: MatchRecord, state: State, user_id: int) -> bool:
        seat = state.current_seat
        return seat is not None and match.seats[seat].user_id == user_id and not match.seats[seat].is_computer

    def _deadline_for(self, match: MatchRecord, seat: int | None, now: float) -> float | None:
        if seat is None or not match.days_per_move or match.seats[seat].is_computer:
            return None
        return now + match.days_per_move * DAY

    async def _insert_match(self, conn: repo.Connection, guild_id: int, channel_id: int, game_key: str,
                            variant: dict[str, Any], seats: list[SeatRecord], days: int, *, rated: bool,
                            now: float, seed: int) -> int:
        game: Game = GAMES[game_key]
        state = game.new_state(variant, random.Random(seed))
        seat = state.current_seat
        deadline = None
        if seat is not None and days and not seats[seat].is_computer:
            deadline = now + days * DAY
        return await repo.insert_match(
            conn, guild_id=guild_id, channel_id=channel_id, game=game_key, variant=variant, state=state.to_dict(),
            current_seat=seat, days_per_move=days, deadline=deadline, rated=rated, now=now, seats=seats,
        )

    async def _update(self, conn: repo.Connection, match: MatchRecord, **fields: Any) -> None:
        if not await repo.update_match(conn, match.id, match.version, **fields):
            raise Outdated("The match changed meanwhile; try again.")

    async def _finish(self, conn: repo.Connection, match: MatchRecord, *, winner: int | None, draw: bool,
                      reason: str) -> MatchRecord:
        now = self.clock()
        state = load_state(match)
        scores = state.scores
        outcome = {"winner": winner, "draw": draw, "scores": list(scores) if scores is not None else None,
                   "reason": reason}
        await self._update(conn, match, status="finished", outcome=outcome, end_reason=reason, deadline=None,
                           finished_at=now, current_seat=None, updated_at=now, draw_offer_seat=None)
        updated = await repo.get_match(conn, match.id)
        assert updated is not None
        await in_thread(conn, ratings.record_result, updated, now)
        return updated

    def _check_open(self, challenge: ChallengeRecord, now: float) -> None:
        if challenge.status != "open":
            raise ChallengeClosed(f"This challenge is no longer open (it was {challenge.status}).")
        if challenge.expires_at <= now:
            raise ChallengeClosed("This challenge has expired.")

    async def _check_can_start(self, conn: repo.Connection, guild_id: int, channel_id: int,
                               user_id: int) -> SettingsRecord:
        settings = await repo.get_settings(conn, guild_id)
        if settings.allowed_channels and channel_id not in settings.allowed_channels:
            channels = ", ".join(f"<#{c}>" for c in settings.allowed_channels)
            raise NotAllowed(f"Matches cannot be started in this channel. Allowed here: {channels}.")
        await self._check_limit(conn, settings, user_id)
        return settings

    @staticmethod
    async def _check_limit(conn: repo.Connection, settings: SettingsRecord, user_id: int) -> None:
        if await repo.count_active(conn, settings.guild_id, user_id) >= settings.max_active:
            raise LimitReached(f"<@{user_id}> already has {settings.max_active} active matches in this server, the "
                               "limit. Finish or resign one first.")

    @staticmethod
    def _days(days_per_move: int | None, settings: SettingsRecord) -> int:
        if days_per_move is None:
            return settings.days_per_move
        if days_per_move not in DAYS_PER_MOVE_CHOICES:
            raise BadOption("Days per move must be one of 1, 2, 3, 5, 7, 14, or 0 for no limit.")
        return days_per_move
