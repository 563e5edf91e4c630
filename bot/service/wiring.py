"""Every service, built once from named dependencies, as lichess's ``Env.scala`` builds a module's.

The bot builds one :class:`Services` at start-up (:class:`bot.client.NapkinBot`) from its database, clock,
computer pool and shard settings; the extensions use its services (``bot.services.moves.play(...)``) and never
build one, nor run a storage transaction of their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.service.base import Doorbell, MatchEnds
from bot.service.challenges import COMPUTER_NAME, ChallengeService
from bot.service.computer import ComputerPool
from bot.service.computer_turns import ComputerTurnService
from bot.service.daily_puzzles import DailyPuzzleService
from bot.service.deadlines import DeadlineService
from bot.service.endings import EndingService
from bot.service.languages import LanguageService
from bot.service.match_puzzles import MatchPuzzleService
from bot.service.moves import MoveService
from bot.service.outbox import OutboxService
from bot.service.premoves import PremoveService
from bot.service.puzzles import PuzzleService
from bot.service.ratings import RatingService
from bot.service.reading import ReadingService
from bot.service.settings import SettingsService
from bot.service.tournament_director import Director
from bot.service.tournament_reading import TournamentReading
from bot.service.tournament_rounds import RoundService
from bot.service.tournaments import TournamentService
from bot.service.vacations import VacationService
from storage import Database, NewsQueued, Shards


class Services:
    """The bot's services over one database.

    Args:
        db: the open database (the services do not close it).
        clock: returns the current time in epoch seconds; every service reads this one.
        computer: where computer moves are searched (default: a thread, :class:`ComputerPool` with no workers).
        shards: the Discord shards this process serves, when several processes share the database: the deadline
            pass, the outbox, the resuming of computer turns and the closing of vacations then take only their
            servers' work. ``None`` (the default): every server's.
        computer_id, computer_name: who the computer is in seats (the bot's own user, learnt when it connects:
            :meth:`set_computer`).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time, computer: ComputerPool | None = None,
                 shards: Shards | None = None, computer_id: int = 0, computer_name: str = COMPUTER_NAME) -> None:
        self.db = db
        self.clock = clock
        self.shards = shards
        self.computer = computer or ComputerPool(0)
        self.match_ends = MatchEnds()
        """Told about every match that ends (the tournaments listen), once the transaction that ended it commits."""
        db.events.subscribe(self.match_ends.on_commit)
        self.news_doorbell = Doorbell()
        """Rung when a committed transaction queued news in the outbox (the delivery task answers it)."""
        db.events.subscribe(lambda event: self.news_doorbell.ring() if isinstance(event, NewsQueued) else None)
        self.deadline_doorbell = Doorbell()
        """Rung when deadlines came nearer (a vacation ended early): the deadline task answers it."""
        self.puzzle_doorbell = Doorbell()
        """Rung when a server changed its daily puzzle's channel or hour: the daily puzzle task answers it."""
        self.tournament_doorbell = Doorbell()
        """Rung when the tournaments have work (a game of theirs ended): the tournament task answers it."""
        self.reading = ReadingService(db)
        """One match, a member's lists and pages, a match's move log."""
        self.settings = SettingsService(db, clock=clock, puzzles_changed=self.puzzle_doorbell.ring)
        """A server's settings."""
        self.languages = LanguageService(db, clock=clock)
        """Who reads which language: servers' public posts, members' direct messages."""
        self.challenges = ChallengeService(db, clock=clock, computer_id=computer_id, computer_name=computer_name)
        """Challenges and the start of matches."""
        self.premoves = PremoveService(db, clock=clock)
        """Conditional moves."""
        self.moves = MoveService(db, clock=clock, computer=self.computer, premoves=self.premoves)
        """Members' moves and the computer's replies."""
        self.endings = EndingService(db, clock=clock)
        """Resign, abort, draw offers, extra time."""
        self.deadlines = DeadlineService(db, clock=clock, shards=shards)
        """The deadline pass."""
        self.outbox = OutboxService(db, clock=clock, shards=shards)
        """News to deliver."""
        self.computer_turns = ComputerTurnService(db, clock=clock, shards=shards)
        """Computer turns to resume."""
        self.vacations = VacationService(db, clock=clock, shards=shards, deadlines_moved=self.deadline_doorbell.ring)
        """Vacations and members' notification preferences."""
        self.ratings = RatingService(db)
        """Leaderboards, seasons and members' records."""
        self.puzzles = PuzzleService(db, clock=clock, shards=shards)
        """Puzzles for members."""
        self.match_puzzle_doorbell = Doorbell()
        """Rung when a finished match waits to be examined for puzzles: the match puzzles' task answers it."""
        self.match_puzzles = MatchPuzzleService(db, computer=self.computer, puzzles=self.puzzles,
                                                ends=self.match_ends, wake=self.match_puzzle_doorbell.ring)
        """Every finished match of a game with exact values examined in the background; its puzzles kept."""
        self.daily_puzzles = DailyPuzzleService(db, self.puzzles, clock=clock, shards=shards)
        """Servers' daily puzzles and the monthly table."""
        director = Director(db, clock=clock, computer=self.computer,
                            computer_name=lambda: self.challenges.computer_name)
        self.tournament_rounds = RoundService(db, clock=clock, director=director, ends=self.match_ends,
                                              wake=self.tournament_doorbell.ring, shards=shards)
        """Tournament rounds run by events: a game's end, a start time, a lease run out, a stalled pairing."""
        self.tournaments = TournamentService(db, clock=clock, rounds=self.tournament_rounds, challenges=self.challenges)
        """Tournaments: creating, entering, starting, withdrawing, cancelling, an idle game ended."""
        self.tournament_reading = TournamentReading(db)
        """Reading tournaments: one, a server's list, an autocomplete's choices, a member's record, the standings, the
        news."""

    def set_computer(self, user_id: int, name: str) -> None:
        """Who the computer is in the seats of matches started from now on (the bot's own user, once connected)."""
        self.challenges.computer_id = user_id
        self.challenges.computer_name = name
