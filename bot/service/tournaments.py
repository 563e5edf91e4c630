"""Tournaments: create one, enter and leave it, start it, withdraw from it, cancel it, end an idle game of it (the
organizer); reading them is :mod:`bot.service.tournament_reading`'s.

No ``discord`` import. Each change is one transaction body on the tournament's held row; pairing rounds and
finishing is :mod:`bot.service.tournament_director`'s, reacting to events :mod:`bot.service.tournament_rounds`'. A
member who withdraws while playing resigns their game under way (:func:`bot.service.finisher.finish`, in the same
transaction); later, a Swiss does not pair them again, and a round robin scores each of their remaining games as a
forfeit to the opponent. Late entries into a running Swiss are taken until half its rounds have started, with a
½-point bye for each round missed (lichess's practice); a round robin takes none once started. The organizer (or a
member with Manage Server) starts, cancels and ends an idle game (:func:`organizer_only`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from bot.service import finisher, ratings
from bot.service.base import Player
from bot.service.challenges import ChallengeService
from bot.service.clock import DAY, DAYS_PER_MOVE_CHOICES
from bot.service.errors import BadOption, LimitReached, MatchOver, NotAllowed, NotFound
from bot.service.pairing import DUTCH_PLAYERS, pair_round_robin, round_robin_rounds
from bot.service.states import sound_state
from bot.service.tournament_director import begin
from bot.service.tournament_reading import STATUS_GROUPS, named, tournament_here
from bot.service.tournament_rounds import RoundService
from bot.texts import quote
from games import GAMES, Level, Termination
from i18n import Channel, Listed, Moment, Text, _, n_
from storage import (
    Database,
    MatchRecord,
    TournamentEntryRecord,
    TournamentPairingRecord,
    TournamentRecord,
    Tx,
)

log = logging.getLogger(__name__)

FORMATS = ("swiss", "round_robin")
FORMAT_WORDS = {"swiss": "Swiss", "round_robin": "round robin"}
DEFAULT_ROUNDS = 5
"""A Swiss's rounds when ``rounds`` is not given."""
MAX_ROUNDS = 20
NAME_LIMIT = 60
"""Longest tournament name, in characters."""
DEFAULT_MAX_PLAYERS = DUTCH_PLAYERS
"""A tournament's ``max_players`` when not given: the most players whose rounds the FIDE Dutch engine pairs within
10 seconds on 2 cores (128: ``make bench``)."""
MAX_PLAYERS = 256
"""The most players a tournament may take (above :data:`DEFAULT_MAX_PLAYERS`, Swiss rounds are paired by
maximum-weight matching)."""
ROUND_ROBIN_MAX_PLAYERS = 32
"""The most players of a round robin (each plays every other, one round at a time: 31 rounds)."""
MAX_START_HOURS = 24 * 30
"""The latest a tournament may be set to start by itself: 30 days ahead, in hours."""
MAX_LIVE = 10
"""Open and running tournaments a server may have at once."""
COMPUTER_RATING: dict[str, int] = {"easy": 800, "medium": 1000, "hard": 1200}
"""The rating the computer is seeded by, per level (it has no rating of its own)."""
GRACE = DAY
"""How long past a game's days per move (since its last move) the organizer must wait before ending it idle."""
NEW_RATING = 1000
"""A member's seeding rating before their first rated game of the tournament's game."""


@dataclass
class Entered:
    """A member (or the computer) entered: the tournament, the entry, and the ½-point byes a late entrant got."""

    tournament: TournamentRecord
    entry: TournamentEntryRecord
    late_byes: int = 0


@dataclass
class Withdrawn:
    """A withdrawal: the tournament, the member's game under way that they resigned (if any), and how many of their
    remaining round-robin games are forfeited to their opponents (0 in a Swiss: they are not paired again)."""

    tournament: TournamentRecord
    resigned: MatchRecord | None
    forfeited: int = 0


OrganizerAction = Literal["enter the computer", "take the computer out", "start it", "cancel it", "end an idle game"]
"""What only a tournament's organizer (or a member with Manage Server) may do."""


def organizer_only(tournament: TournamentRecord, user_id: int, manager: bool, action: OrganizerAction) -> None:
    """Refuse ``action`` (``"start it"``) to anyone but the tournament's organizer or a member with Manage Server
    (``manager``).

    Raises:
        NotAllowed: someone else.
    """
    if tournament.organizer_id == user_id or manager:
        return
    name = named(tournament)
    if action == "enter the computer":
        raise NotAllowed(_("Only the organizer of {tournament} (or a member with Manage Server) can enter the "
                           "computer.", tournament=name))
    if action == "take the computer out":
        raise NotAllowed(_("Only the organizer of {tournament} (or a member with Manage Server) can take the computer "
                           "out.", tournament=name))
    if action == "start it":
        raise NotAllowed(_("Only the organizer of {tournament} (or a member with Manage Server) can start it.",
                           tournament=name))
    if action == "cancel it":
        raise NotAllowed(_("Only the organizer of {tournament} (or a member with Manage Server) can cancel it.",
                           tournament=name))
    raise NotAllowed(_("Only the organizer of {tournament} (or a member with Manage Server) can end an idle game.",
                       tournament=name))


def _is(tournament: TournamentRecord) -> Text:
    """``#3 “Spring cup” is finished.``: where a tournament stands, as the refusal of what its status forbids."""
    name = named(tournament)
    if tournament.status == "open":
        return _("{tournament} is open.", tournament=name)
    if tournament.status == "running":
        return _("{tournament} is running.", tournament=name)
    if tournament.status == "finished":
        return _("{tournament} is finished.", tournament=name)
    return _("{tournament} is cancelled.", tournament=name)


def check_options(*, name: str, title: str, fmt: str, rounds: int | None, days_per_move: int | None,
                  max_players: int | None, starts_in: int | None, computer: str | None) -> None:
    """Refuse the options of :meth:`TournamentService.create` that are out of range, quoting them.

    Raises:
        BadOption: the first option out of range.
    """
    if not title or len(title) > NAME_LIMIT or not title.isprintable():
        raise BadOption(_("`{name}` cannot name a tournament: 1 to {limit} characters on one line.",
                          name=quote(name), limit=NAME_LIMIT))
    if fmt not in FORMATS:
        raise BadOption(_("`{format}` is not a format: `swiss` or `round_robin`.", format=quote(fmt)))
    if fmt == "round_robin" and rounds is not None:
        raise BadOption(_("`rounds:{rounds}` is for a Swiss: a round robin has as many rounds as its players need "
                          "(one fewer than the players, or as many when they are odd). Leave `rounds` out.",
                          rounds=quote(rounds)))
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise BadOption(_("`rounds:{rounds}` is out of range: a Swiss has 1 to {most} rounds.", rounds=quote(rounds),
                          most=MAX_ROUNDS))
    if days_per_move is not None and (days_per_move not in DAYS_PER_MOVE_CHOICES or days_per_move == 0):
        raise BadOption(_("`days:{days}` is not allowed: a tournament's games take 1, 2, 3, 5, 7 or 14 days per move "
                          "(a time limit, so that every round ends).", days=quote(days_per_move)))
    if max_players is not None and not 2 <= max_players <= MAX_PLAYERS:
        raise BadOption(_("`max_players:{players}` is out of range: 2 to {most}.", players=quote(max_players),
                          most=MAX_PLAYERS))
    if fmt == "round_robin" and max_players is not None and max_players > ROUND_ROBIN_MAX_PLAYERS:
        raise BadOption(_("`max_players:{players}` is too many for a round robin (each plays everyone else, one "
                          "round at a time): at most {most}. A Swiss takes more.", players=quote(max_players),
                          most=ROUND_ROBIN_MAX_PLAYERS))
    if starts_in is not None and not 1 <= starts_in <= MAX_START_HOURS:
        raise BadOption(_("`starts_in:{hours}` is out of range: 1 to {most} hours (leave it out to start by hand).",
                          hours=quote(starts_in), most=MAX_START_HOURS))
    if computer is not None and computer not in COMPUTER_RATING:
        raise BadOption(_("`computer:{level}` is not a level: easy, medium or hard.", level=quote(computer)))


class TournamentService:
    """Tournaments over a :class:`storage.Database`.

    Args:
        db: the open database. clock: returns the current time in epoch seconds.
        rounds: the rounds service (starting pairs round 1; a withdrawal or an idle game ended may end a round).
        challenges: who the computer is, and the variant check.
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, rounds: RoundService,
                 challenges: ChallengeService) -> None:
        self.db = db
        self.clock = clock
        self.rounds = rounds
        self.challenges = challenges

    async def create(self, *, guild_id: int, channel_id: int, organizer: Player, name: str, game: str,
                     variant: dict[str, Any], fmt: str = "swiss", rounds: int | None = None,
                     days_per_move: int | None = None, max_players: int | None = None, starts_in: int | None = None,
                     rated: bool = True, computer: Level | None = None) -> TournamentRecord:
        """Open a tournament of ``game`` (its variant options as in ``/<game> start``) in ``channel_id``.

        Args:
            fmt: ``swiss`` or ``round_robin``. rounds: a Swiss's rounds (default :data:`DEFAULT_ROUNDS`; a round
                robin takes none). days_per_move: 1–14 (default the server's, 3 when it has no limit).
            max_players: 2 to :data:`MAX_PLAYERS` (default :data:`DEFAULT_MAX_PLAYERS`). starts_in: hours until it
                starts by itself (default: started by hand). computer: enter the computer at this level.

        Raises:
            NotFound (no such game), NotAllowed (no two-player mode; a channel where matches may not start),
            BadOption (a value out of range, quoted), LimitReached (:data:`MAX_LIVE` tournaments open or running),
            games.InvalidVariant.
        """
        if game not in GAMES:
            raise NotFound(_("There is no game called `{game}`.", game=quote(game)))
        full = self.challenges.validate_variant(game, variant)
        if GAMES[game].seats_for(full) != 2:
            raise NotAllowed(_("{game} with these options is played alone, and a tournament needs a two-player game: "
                               "choose its duel mode.", game=GAMES[game].title_text))
        title = " ".join(name.split())
        check_options(name=name, title=title, fmt=fmt, rounds=rounds, days_per_move=days_per_move,
                      max_players=max_players, starts_in=starts_in, computer=computer)
        now = self.clock()
        players = max_players or (ROUND_ROBIN_MAX_PLAYERS if fmt == "round_robin" else DEFAULT_MAX_PLAYERS)

        def body(tx: Tx) -> TournamentRecord:
            settings = tx.get_settings(guild_id)
            if settings.allowed_channels and channel_id not in settings.allowed_channels:
                raise NotAllowed(_("Tournaments cannot be held in this channel. Allowed here: {channels}.",
                                   channels=Listed(tuple(Channel(c) for c in settings.allowed_channels))))
            live, _shown = tx.tournaments_of_guild(guild_id, STATUS_GROUPS["live"], 1)
            if live >= MAX_LIVE:
                raise LimitReached(n_("This server has {count} tournament open or running, the most it may have at "
                                      "once; finish or cancel one first.",
                                      "This server has {count} tournaments open or running, the most it may have at "
                                      "once; finish or cancel one first.", live))
            days = days_per_move or settings.days_per_move or 3
            tournament_id = tx.insert_tournament(
                guild_id=guild_id, channel_id=channel_id, name=title, game=game, variant=full, fmt=fmt,
                rounds=rounds or (DEFAULT_ROUNDS if fmt == "swiss" else 1), days_per_move=days,
                max_players=players, rated=rated, organizer_id=organizer.user_id, organizer_name=organizer.name,
                starts_at=None if starts_in is None else now + starts_in * 3600.0, now=now)
            if computer is not None:
                tx.insert_entry(TournamentEntryRecord(tournament_id, self.challenges.computer_id,
                                                      self.challenges.computer_name, 1, COMPUTER_RATING[computer],
                                                      computer, now))
            return tournament_here(tx, tournament_id, guild_id)

        return await self.db.write(body)

    async def join(self, tournament_id: int, guild_id: int, player: Player, *, level: Level | None = None,
                   manager: bool = False) -> Entered:
        """Enter ``player`` (or, with ``level``, the computer at that level: the organizer's or a member with Manage
        Server's, ``manager``). Into a running Swiss until half its rounds have started, with a ½-point bye for each
        round already paired.

        Raises:
            NotFound, NotAllowed (entered already; running round robin; too late; finished or cancelled; the computer
            entered by someone else), LimitReached (full).
        """
        now = self.clock()

        def body(tx: Tx) -> Entered:
            tournament = tournament_here(tx, tournament_id, guild_id, lock=True)
            name = named(tournament)
            if level is not None:
                organizer_only(tournament, player.user_id, manager, "enter the computer")
            who = self.challenges.computer_id if level is not None else player.user_id
            if tx.tournament_entry(tournament_id, who) is not None:
                raise NotAllowed(_("The computer is in {tournament} already.", tournament=name) if level is not None
                                 else _("You are in {tournament} already.", tournament=name))
            if tournament.status == "finished":
                raise NotAllowed(_("{tournament} is finished; it takes no more players.", tournament=name))
            if tournament.status == "cancelled":
                raise NotAllowed(_("{tournament} is cancelled; it takes no more players.", tournament=name))
            late = 0
            if tournament.status == "running":
                if tournament.format == "round_robin":
                    raise NotAllowed(_("{tournament} is a round robin under way: its table was fixed at the start, so "
                                       "it takes no more players.", tournament=name))
                if tournament.current_round * 2 >= tournament.rounds:
                    raise NotAllowed(_("{tournament} is in round {round} of {rounds}: late entries close once half its "
                                       "rounds have started.", tournament=name, round=tournament.current_round,
                                       rounds=tournament.rounds))
                late = tournament.current_round
            entries = tx.tournament_entries(tournament_id)
            if len(entries) >= tournament.max_players:
                raise LimitReached(n_("{tournament} is full: {count} player.", "{tournament} is full: {count} players.",
                                      tournament.max_players, tournament=name))
            if level is not None:
                entry = TournamentEntryRecord(tournament_id, who, self.challenges.computer_name, len(entries) + 1,
                                              COMPUTER_RATING[level], level, now, late + 1)
            else:
                rating = tx.get_rating(guild_id, tournament.game, who)
                seed = ratings.display_rating(rating.mu, rating.sigma) if rating is not None else NEW_RATING
                entry = TournamentEntryRecord(tournament_id, who, player.name, len(entries) + 1, seed, None, now,
                                              late + 1)
            tx.insert_entry(entry)
            for round_number in range(1, late + 1):  # a ½-point bye for each round missed
                board = 1 + len(tx.tournament_pairings(tournament_id, round_number))
                tx.insert_pairing(TournamentPairingRecord(tournament_id, round_number, board, who, None, "half_bye",
                                                          first_points=0.5, played=False))
            return Entered(tournament, entry, late)

        return await self.db.write(body)

    async def leave(self, tournament_id: int, guild_id: int, user_id: int, *, computer: bool = False,
                    manager: bool = False) -> TournamentRecord:
        """Take ``user_id`` (or, with ``computer``, the computer: the organizer's or a manager's) out of a tournament
        that has not started.

        Raises:
            NotFound, NotAllowed (not entered; it has started: withdraw instead; the computer by someone else).
        """
        def body(tx: Tx) -> TournamentRecord:
            tournament = tournament_here(tx, tournament_id, guild_id, lock=True)
            name = named(tournament)
            if computer:
                organizer_only(tournament, user_id, manager, "take the computer out")
            who = self.challenges.computer_id if computer else user_id
            if tournament.status == "running":
                raise NotAllowed(_("{tournament} has started, so it can no longer be left. `/tournament withdraw` "
                                   "takes you out of its later rounds.", tournament=name))
            if tournament.status != "open":
                raise NotAllowed(_is(tournament))
            if not tx.delete_entry(tournament_id, who):
                raise NotAllowed(_("The computer is not in {tournament}.", tournament=name) if computer
                                 else _("You are not in {tournament}.", tournament=name))
            return tournament

        return await self.db.write(body)

    async def start(self, tournament_id: int, guild_id: int, user_id: int, *,
                    manager: bool = False) -> TournamentRecord:
        """Start an open tournament now (its organizer, or a member with Manage Server) and pair round 1.

        Raises:
            NotFound, NotAllowed (someone else; not open; fewer than two players).
        """
        now = self.clock()

        def body(tx: Tx) -> TournamentRecord:
            tournament = tournament_here(tx, tournament_id, guild_id, lock=True)
            organizer_only(tournament, user_id, manager, "start it")
            if tournament.status == "running":
                raise NotAllowed(_("{tournament} is running; only an open tournament can start.",
                                   tournament=named(tournament)))
            if tournament.status == "finished":
                raise NotAllowed(_("{tournament} is finished; only an open tournament can start.",
                                   tournament=named(tournament)))
            if tournament.status != "open":
                raise NotAllowed(_("{tournament} is cancelled; only an open tournament can start.",
                                   tournament=named(tournament)))
            started = begin(tx, tournament, now)
            if started.format == "swiss":  # more rounds than the players allow could never be paired
                most = round_robin_rounds(len(tx.tournament_entries(tournament_id)))
                if started.rounds > most:
                    tx.update_tournament(tournament_id, started.version, rounds=most)
            return tournament_here(tx, tournament_id, guild_id)

        await self.db.write(body)
        await self.rounds.advance(tournament_id)  # (a pairing that fails is tried again with back-off)
        return await self.db.read(tournament_here, tournament_id, guild_id)

    async def withdraw(self, tournament_id: int, guild_id: int, user_id: int) -> Withdrawn:
        """Withdraw ``user_id`` from a running tournament: their game under way is resigned; a Swiss does not pair
        them again, a round robin scores each of their remaining games as a forfeit to the opponent.

        Raises:
            NotFound, NotAllowed (not entered or withdrawn already; not running: leave an open one).
        """
        now = self.clock()

        def body(tx: Tx) -> Withdrawn:
            tournament = tournament_here(tx, tournament_id, guild_id, lock=True)
            name = named(tournament)
            if tournament.status == "open":
                raise NotAllowed(_("{tournament} has not started: `/tournament leave` takes you out of it.",
                                   tournament=name))
            if tournament.status != "running":
                raise NotAllowed(_is(tournament))
            entry = tx.tournament_entry(tournament_id, user_id)
            if entry is None:
                raise NotAllowed(_("You are not in {tournament}.", tournament=name))
            if entry.withdrawn_round is not None:
                raise NotAllowed(_("You are withdrawn from {tournament} already (from round {round}).",
                                   tournament=name, round=entry.withdrawn_round))
            following = tournament.current_round + 1
            tx.update_entry(tournament_id, user_id, withdrawn_round=following, withdrawn_reason="withdrew")
            resigned = None
            for board in tx.tournament_pairings(tournament_id, tournament.current_round):
                if board.match_id is None or user_id not in (board.first_id, board.second_id):
                    continue
                match = tx.lock_match(board.match_id)
                if match is not None and match.status == "active":
                    seat = 0 if board.first_id == user_id else 1
                    resigned = finisher.finish(tx, match, winner=1 - seat, draw=False,
                                               termination=Termination.RESIGNED, loser=seat, now=now)
            forfeited = 0
            if tournament.format == "round_robin":  # the games the fixed table still holds for them
                keys = [e.user_id for e in tx.tournament_entries(tournament_id)]
                forfeited = sum(1 for number in range(following, tournament.rounds + 1)
                                for board in pair_round_robin(keys, number).boards
                                if user_id in (board.first, board.second) and board.second is not None)
            return Withdrawn(tournament, resigned, forfeited)

        withdrawn = await self.db.write(body)
        await self.rounds.advance(tournament_id)
        return withdrawn

    async def cancel(self, tournament_id: int, guild_id: int, user_id: int, *,
                     manager: bool = False) -> TournamentRecord:
        """Cancel an open or running tournament (its organizer, or a member with Manage Server). Its games under way
        go on as ordinary matches; no further round is paired and no standings are final.

        Raises:
            NotFound, NotAllowed (someone else; finished or cancelled already).
        """
        now = self.clock()

        def body(tx: Tx) -> TournamentRecord:
            tournament = tournament_here(tx, tournament_id, guild_id, lock=True)
            organizer_only(tournament, user_id, manager, "cancel it")
            if tournament.status == "finished":
                raise NotAllowed(_("{tournament} is finished already.", tournament=named(tournament)))
            if tournament.status not in ("open", "running"):
                raise NotAllowed(_("{tournament} is cancelled already.", tournament=named(tournament)))
            tx.update_tournament(tournament_id, tournament.version, status="cancelled", finished_at=now,
                                 starts_at=None)
            return tournament_here(tx, tournament_id, guild_id)

        return await self.db.write(body)

    async def end_idle_game(self, tournament_id: int, guild_id: int, user_id: int, match_id: int, *,
                            manager: bool) -> MatchRecord:
        """End one game of the tournament's current round whose player to move has not moved for its days per move
        and :data:`GRACE` more (a vacation or extra time may hold its deadline off): the player to move loses it on
        time, through the one end of a match (:func:`bot.service.finisher.forfeit`, which tells
        :class:`bot.service.base.MatchEnds`); its round then moves on as after any end. The organizer's (or a member
        with Manage Server, ``manager``) way to keep a round from stalling.

        Raises:
            NotFound (no such tournament here, or the match is not its game), NotAllowed (not the organizer; the game
            is not idle long enough), MatchOver (the game is over).
        """
        now = self.clock()

        def body(tx: Tx) -> MatchRecord:
            tournament = tournament_here(tx, tournament_id, guild_id)
            organizer_only(tournament, user_id, manager, "end an idle game")
            pairing = tx.tournament_pairing_of_match(match_id)
            if pairing is None or pairing.tournament_id != tournament_id:
                raise NotFound(_("Match #{match} is not a game of tournament #{tournament}.", match=str(match_id),
                                 tournament=str(tournament_id)))
            match = tx.lock_match(match_id)
            if match is None or match.status != "active":
                raise MatchOver(_("Match #{match} is over already.", match=str(match_id)))
            sound_state(match)
            allowed = match.updated_at + match.days_per_move * DAY + GRACE
            if now < allowed:
                raise NotAllowed(_("Match #{match} is not idle long enough: its player to move has until {until} "
                                   "(the days per move since the last move, and a day of grace).",
                                   match=str(match_id), until=Moment(allowed)))
            return finisher.forfeit(tx, match, now, queue=False)

        ended = await self.db.write(body)
        await self.rounds.settle_pending()
        return ended



__all__ = ["COMPUTER_RATING", "DEFAULT_MAX_PLAYERS", "DEFAULT_ROUNDS", "FORMATS", "FORMAT_WORDS", "GRACE", "MAX_LIVE",
           "MAX_PLAYERS", "MAX_ROUNDS", "MAX_START_HOURS", "NAME_LIMIT", "ROUND_ROBIN_MAX_PLAYERS", "Entered",
           "OrganizerAction", "TournamentService", "Withdrawn", "organizer_only"]
