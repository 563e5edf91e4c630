"""Challenges and starting matches: open, accept, decline or cancel a challenge; start a match against the computer,
alone (solitaire), or between two computers; and record the thread a match is played in.

No ``discord`` import. Each change is one transaction body; a match starts with its first deadline set by the
correspondence clock (:class:`bot.service.clock.CorrespondenceClock`), paused while its first mover is on vacation.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from bot.service.base import ChallengeResult, Player, away_until, reread
from bot.service.clock import DAY, DAYS_PER_MOVE_CHOICES, CorrespondenceClock
from bot.service.errors import BadOption, ChallengeClosed, LimitReached, NotAllowed, NotFound
from games import GAMES, Game, Level
from i18n import Channel, Listed, Member, Moment, Text, _, n_
from storage import ChallengeRecord, Database, MatchRecord, ReadTx, SeatRecord, SettingsRecord, Tx

CHALLENGE_TTL = DAY
"""How long an unanswered challenge stays open (seconds)."""
CHALLENGES_PER_TARGET = 3
"""Challenges one member may address to the same member in :data:`CHALLENGE_TARGET_WINDOW`: each one pings (or, with
pings off, messages) the target. A cancelled, declined or expired challenge keeps its place; an accepted one does
not count (the target wanted it)."""
CHALLENGE_TARGET_WINDOW = 3600.0
"""The window of :data:`CHALLENGES_PER_TARGET`, in seconds (an hour)."""
EXPIRED = _("This challenge expired unanswered.")
"""What a click on an expired challenge's buttons answers, whatever became of its message."""
COMPUTER_NAME = "Napkin Games"
"""The computer's name in seats until the bot knows its own (:attr:`ChallengeService.computer_name`)."""


class ChallengeService:
    """Challenges and the start of matches over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        computer_id: the user id that stands for the computer in seats (the bot's own user id, learnt when it
            connects). computer_name: the computer's name in seats.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, computer_id: int = 0,
                 computer_name: str = COMPUTER_NAME) -> None:
        self.db = db
        self.clock = clock
        self.computer_id = computer_id
        self.computer_name = computer_name

    def validate_variant(self, game_key: str, variant: dict[str, Any]) -> dict[str, Any]:
        """Check ``variant`` by building a start state; return the full variant (defaults filled in).

        Raises:
            NotFound: unknown game. games.InvalidVariant: a bad option (its message names it).
        """
        if game_key not in GAMES:
            raise NotFound(_("There is no game called {game}.", game=repr(game_key)))
        return GAMES[game_key].variant(variant)

    async def create(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], challenger: Player,
        opponent: Player | None, days_per_move: int | None = None, challenger_seat: int = 0,
    ) -> ChallengeRecord:
        """Open a challenge (``opponent=None``: anyone may accept); the challenger takes ``challenger_seat``
        (0 moves first) when it is accepted.

        Raises:
            NotAllowed: challenging yourself, or a channel where the server does not allow matches.
            LimitReached: the challenger has too many active matches, or has challenged ``opponent``
                :data:`CHALLENGES_PER_TARGET` times in the last hour.
            BadOption: days per move not allowed. games.InvalidVariant: bad variant.
        """
        full_variant = self.validate_variant(game, variant)
        if GAMES[game].seats_for(full_variant) == 1:
            raise NotAllowed(_("That is a solitaire game: start it without an opponent to play it alone."))
        if opponent is not None and opponent.user_id == challenger.user_id:
            raise NotAllowed(_("You cannot challenge yourself. Leave `opponent` empty for an open challenge."))
        if challenger_seat not in (0, 1):
            raise BadOption(_("The challenger's seat is the first or the second."))
        now = self.clock()

        def body(tx: Tx) -> ChallengeRecord:
            settings = _check_can_start(tx, guild_id, channel_id, challenger.user_id, now)
            days = _days(days_per_move, settings)
            if opponent is not None:
                _check_target(tx, guild_id, challenger.user_id, opponent.user_id, now)
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

    async def cancel(self, challenge_id: int) -> bool:
        """Cancel an open challenge nobody can see (its message could not be posted); ``False`` if it was no
        longer open."""
        return await self.db.write(Tx.close_challenge, challenge_id, "cancelled")

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        """Remember which message carries the challenge's buttons."""
        await self.db.write(Tx.set_challenge_message, challenge_id, message_id)

    async def get(self, challenge_id: int, guild_id: int | None = None) -> ChallengeRecord:
        """Load a challenge (raises :class:`NotFound`, also for another server's challenge)."""
        challenge = await self.db.read(ReadTx.get_challenge, challenge_id)
        if challenge is None or (guild_id is not None and challenge.guild_id != guild_id):
            raise NotFound(_("That challenge no longer exists."))
        return challenge

    async def accept(self, challenge_id: int, guild_id: int, accepter: Player) -> ChallengeResult:
        """Accept an open challenge and start the match (the challenger in the seat they chose).

        Raises:
            NotFound, ChallengeClosed, NotAllowed (own challenge, or one addressed to someone else),
            LimitReached.
        """
        now = self.clock()

        def body(tx: Tx) -> ChallengeResult:
            challenge = _open_challenge(tx, challenge_id, guild_id, now)
            if accepter.user_id == challenge.challenger_id:
                raise NotAllowed(_("You cannot accept your own challenge; wait for an opponent or cancel it."))
            if challenge.opponent_id is not None and challenge.opponent_id != accepter.user_id:
                raise NotAllowed(_("This challenge is addressed to someone else."))
            settings = tx.get_settings(guild_id)
            _check_limit(tx, settings, accepter.user_id, now)
            _check_limit(tx, settings, challenge.challenger_id, now, open_too=False)
            seat = challenge.challenger_seat
            seats = sorted([SeatRecord(seat, challenge.challenger_id, challenge.challenger_name),
                            SeatRecord(1 - seat, accepter.user_id, accepter.name)], key=lambda s: s.seat)
            match_id = insert_match(tx, guild_id, challenge.channel_id, challenge.game, challenge.variant, seats,
                                     challenge.days_per_move, rated=True, now=now, seed=challenge_id)
            if not tx.close_challenge(challenge_id, "accepted", match_id):  # another process answered it meanwhile
                raise ChallengeClosed(_("This challenge is no longer open (it was answered a moment ago)."))
            closed = tx.get_challenge(challenge_id)
            assert closed is not None
            return ChallengeResult(closed, reread(tx, match_id))

        return await self.db.write(body)

    async def decline(self, challenge_id: int, guild_id: int, user: Player) -> ChallengeRecord:
        """Decline (invited member) or cancel (challenger) an open challenge.

        Raises:
            NotFound, ChallengeClosed, NotAllowed (anyone else; an open challenge can only be cancelled).
        """
        now = self.clock()

        def body(tx: Tx) -> ChallengeRecord:
            challenge = _open_challenge(tx, challenge_id, guild_id, now)
            if user.user_id == challenge.challenger_id:
                status = "cancelled"
            elif challenge.opponent_id == user.user_id:
                status = "declined"
            else:
                raise NotAllowed(_("Only the invited member can decline this challenge (or its author cancel it)."))
            if not tx.close_challenge(challenge_id, status):  # another process answered it meanwhile
                raise ChallengeClosed(_("This challenge is no longer open (it was answered a moment ago)."))
            closed = tx.get_challenge(challenge_id)
            assert closed is not None
            return closed

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
        if seat_count > 1 and level is not None:
            _check_level(game, full_variant, level)
        now = self.clock()

        def body(tx: Tx) -> MatchRecord:
            settings = _check_can_start(tx, guild_id, channel_id, player.user_id, now)
            days = _days(days_per_move, settings)
            if seat_count == 1 and days_per_move is None:
                days = 0  # solitaire: no move deadline unless the player asks for one
            if seat_count == 1:
                seats = [SeatRecord(0, player.user_id, player.name)]
            else:
                if level is None:
                    raise BadOption(_("Choose a level (easy, medium or hard) to play the computer."))
                human = SeatRecord(player_seat, player.user_id, player.name)
                computer = SeatRecord(1 - player_seat, self.computer_id, f"{self.computer_name} ({level})", level)
                seats = sorted([human, computer], key=lambda s: s.seat)
            rated = True if seat_count == 1 else settings.rate_computer
            match_id = insert_match(tx, guild_id, channel_id, game, full_variant, seats, days, rated=rated, now=now,
                                     seed=int(now * 1000) ^ player.user_id)
            return reread(tx, match_id)

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
            match_id = insert_match(tx, guild_id, channel_id, game, full_variant, seats, 0, rated=False, now=now,
                                     seed=seed)
            return reread(tx, match_id)

        return await self.db.write(body)

    async def set_thread(self, match_id: int, thread_id: int | None) -> None:
        """Record the thread a match is played in (opened when it starts; ``None`` once it is gone)."""
        await self.db.write(Tx.set_thread, match_id, thread_id)


def _open_challenge(tx: ReadTx, challenge_id: int, guild_id: int, now: float) -> ChallengeRecord:
    """Challenge ``challenge_id`` of server ``guild_id`` while it is open at ``now``.

    Raises:
        NotFound (none, or another server's), ChallengeClosed (answered, cancelled or expired).
    """
    challenge = tx.get_challenge(challenge_id)
    if challenge is None or challenge.guild_id != guild_id:
        raise NotFound(_("That challenge no longer exists."))
    if challenge.status == "expired" or (challenge.status == "open" and challenge.expires_at <= now):
        raise ChallengeClosed(EXPIRED)
    if challenge.status == "accepted":
        raise ChallengeClosed(_("This challenge is no longer open: it was accepted (match #{match}).",
                                match=str(challenge.match_id)))
    if challenge.status == "declined":
        raise ChallengeClosed(_("This challenge is no longer open: it was declined."))
    if challenge.status == "cancelled":
        raise ChallengeClosed(_("This challenge is no longer open: it was cancelled."))
    if challenge.status != "open":
        raise ChallengeClosed(_("This challenge is no longer open."))
    return challenge


def insert_match(tx: Tx, guild_id: int, channel_id: int, game_key: str, variant: dict[str, Any],
                  seats: list[SeatRecord], days: int, *, rated: bool, now: float, seed: int,
                  no_abort: bool = False) -> int:
    """Store a new active match from the game's start state (drawn with ``seed``); its first mover's deadline is set
    from ``now``, paused while they are on vacation; ``no_abort``: it can never be aborted (a tournament's game).
    Returns its id. A transaction-body step: how an accepted challenge, a match against the computer and a
    tournament's pairing (:mod:`bot.service.tournament_director`) all start their matches."""
    game: Game[Any, Any] = GAMES[game_key]
    state = game.new_state(variant, random.Random(seed))
    seat = state.current_seat
    deadline = None
    if seat is not None and not seats[seat].is_computer:
        if days:  # a vacation starting now in another process comes before this read, or after this match
            tx.lock_member(guild_id, seats[seat].user_id)
        away = away_until(tx, guild_id, seats[seat].user_id, now) if days else None
        deadline = CorrespondenceClock(days).turn(now, away).deadline
    return tx.insert_match(
        guild_id=guild_id, channel_id=channel_id, game=game_key, variant=variant, state=state.to_dict(),
        current_seat=seat, days_per_move=days, deadline=deadline, rated=rated, now=now, seats=seats,
        no_abort=no_abort,
    )


def _check_level(game: str, variant: dict[str, Any], level: Level) -> None:
    """Check that the computer plays ``game`` with ``variant`` at ``level`` (``perfect`` only where it is solved).

    Raises:
        BadOption: it does not; the message names the level and the levels there are.
    """
    declared = GAMES[game]
    offered = declared.levels_for(declared.new_state(variant, random.Random(0)))
    if level not in offered:
        levels = Listed(tuple(offered))
        if level in declared.level_descriptions:
            raise BadOption(_("`level:{level}`: {game} has no {level} level with these options; its levels are "
                              "{levels}.", level=level, game=Text(declared.title), levels=levels))
        raise BadOption(_("`level:{level}`: {game} has no {level} level with any options; its levels are {levels}.",
                          level=level, game=Text(declared.title), levels=levels))


def _check_can_start(tx: ReadTx, guild_id: int, channel_id: int, user_id: int, now: float) -> SettingsRecord:
    """The server's settings, if ``user_id`` may start a match in ``channel_id`` now.

    Raises:
        NotAllowed: the server does not allow matches in that channel. LimitReached: see :func:`_check_limit`.
    """
    settings = tx.get_settings(guild_id)
    if settings.allowed_channels and channel_id not in settings.allowed_channels:
        raise NotAllowed(_("Matches cannot be started in this channel. Allowed here: {channels}.",
                           channels=Listed(tuple(Channel(c) for c in settings.allowed_channels))))
    _check_limit(tx, settings, user_id, now)
    return settings


def _check_limit(tx: ReadTx, settings: SettingsRecord, user_id: int, now: float, *, open_too: bool = True) -> None:
    """Refuse when ``user_id`` has ``max_active`` active matches, counting (with ``open_too``) their open
    challenges, each of which becomes an active match when accepted."""
    active = tx.count_active(settings.guild_id, user_id)
    pending = tx.count_open_challenges(settings.guild_id, user_id, now) if open_too else 0
    if active + pending >= settings.max_active:
        matches = n_("{count} active match", "{count} active matches", active)
        if pending:
            raise LimitReached(_("{member} already has {matches} and {challenges} in this server; the limit is "
                                 "{limit}. Finish or resign a match (or wait for a challenge to be answered) first.",
                                 member=Member(user_id), matches=matches, limit=settings.max_active,
                                 challenges=n_("{count} open challenge", "{count} open challenges", pending)))
        raise LimitReached(_("{member} already has {matches} in this server; the limit is {limit}. Finish or resign "
                             "a match first.", member=Member(user_id), matches=matches, limit=settings.max_active))


def _check_target(tx: ReadTx, guild_id: int, challenger_id: int, opponent_id: int, now: float) -> None:
    """Refuse a challenge to ``opponent_id`` when ``challenger_id`` sent them :data:`CHALLENGES_PER_TARGET` in the last
    :data:`CHALLENGE_TARGET_WINDOW` (every one but the accepted: cancelling a challenge does not give its place back),
    saying when the next may be sent."""
    sent = tx.challenges_to(guild_id, challenger_id, opponent_id, now - CHALLENGE_TARGET_WINDOW)
    if len(sent) >= CHALLENGES_PER_TARGET:
        again = int(sent[-CHALLENGES_PER_TARGET] + CHALLENGE_TARGET_WINDOW) + 1
        raise LimitReached(n_("You have challenged {member} {count} time in the last hour (cancelled ones "
                              "count too), the most one member may; you can challenge them again {again}, or leave "
                              "`opponent` empty for an open challenge.",
                              "You have challenged {member} {count} times in the last hour (cancelled ones "
                              "count too), the most one member may; you can challenge them again {again}, or leave "
                              "`opponent` empty for an open challenge.",
                              CHALLENGES_PER_TARGET, member=Member(opponent_id), again=Moment(again, relative=True)))


def _days(days_per_move: int | None, settings: SettingsRecord) -> int:
    """The days per move asked for, or the server's default.

    Raises:
        BadOption: not one of :data:`bot.service.clock.DAYS_PER_MOVE_CHOICES`.
    """
    if days_per_move is None:
        return settings.days_per_move
    if days_per_move not in DAYS_PER_MOVE_CHOICES:
        raise BadOption(_("Days per move must be one of 1, 2, 3, 5, 7, 14, or 0 for no limit."))
    return days_per_move
