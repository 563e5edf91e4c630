"""What a transaction body receives: :class:`ReadTx` (the reads) and :class:`Tx` (a ``ReadTx`` with the writes),
composed from one module of queries per aggregate (:mod:`storage.queries`).

:meth:`storage.Database.read` and :meth:`storage.Database.write` hand one to a synchronous body running in the
database's thread, so a body keeps the style of one transaction per move whatever aggregates it touches
(``tx.get_match``, ``tx.append_move``, ``tx.update_match``, ``tx.lock_rating``, ``tx.add_outbox``). These two
classes are the whole interface the service sees.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from storage.queries.challenges import ChallengeReads, ChallengeWrites
from storage.queries.matches import DueMatchReads, MatchReads, MatchWrites, MoveLogReads
from storage.queries.members import MemberReads, MemberWrites
from storage.queries.outbox import OutboxReads, OutboxWrites
from storage.queries.puzzles import DailyPuzzleReads, DailyPuzzleWrites, PuzzleReads, PuzzleWrites
from storage.queries.ratings import RatingReads, RatingWrites
from storage.queries.seasons import SeasonReads, SeasonWrites
from storage.queries.settings import SettingsReads, SettingsWrites
from storage.queries.tournaments import DueTournamentReads, TournamentReads, TournamentWrites


class ReadTx(MatchReads, MoveLogReads, DueMatchReads, ChallengeReads, RatingReads, OutboxReads, MemberReads,
             SettingsReads, TournamentReads, DueTournamentReads, SeasonReads, PuzzleReads,
             DailyPuzzleReads):
    """The read queries, over one connection inside a read (or write) body. Never kept after the body returns.

    Args:
        conn: the connection, inside the body's transaction, in the thread that runs the body.
        dialect: the backend's SQL dialect (:data:`storage.dialect.SQLITE` by default).
    """


class Tx(ReadTx, MatchWrites, ChallengeWrites, RatingWrites, OutboxWrites, MemberWrites, SettingsWrites,
         TournamentWrites, SeasonWrites, PuzzleWrites,
         DailyPuzzleWrites):
    """The read queries plus the writes, inside one write transaction (a write body's argument).

    Raising from the body rolls every write back.
    """

    def wait_briefly_for_locks(self, milliseconds: int) -> None:
        """For the rest of this transaction, give up on a row another transaction holds after ``milliseconds``
        (raising the backend's transient "lock not available" error, one of ``Database.TransientError``) instead of
        waiting until it is free or the server finds a deadlock. On SQLite nothing: one writer at a time, so no row
        is ever held by another transaction."""
        if self._dialect.lock_timeout_sql:
            self._defer(self._dialect.lock_timeout_sql.format(milliseconds=int(milliseconds)))

    @contextlib.contextmanager
    def savepoint(self, name: str = "item") -> Iterator[None]:
        """Run the ``with`` block as a nested transaction: when it raises, its writes alone are rolled back (and the
        error propagates); the rest of the transaction stands. ``name`` is a plain identifier."""
        if not name.isidentifier():
            raise ValueError(f"not a savepoint name: {name!r}")
        quoted = f'"{name}"'  # a quoted identifier: also a word either dialect reserves
        published = len(self.published)
        self._defer(f"SAVEPOINT {quoted}")  # sent with the block's first statement
        try:
            yield
            self._conn.execute(f"RELEASE SAVEPOINT {quoted}")  # answers what the block queued: its errors are its own
        except BaseException:
            self._conn.execute(f"ROLLBACK TO SAVEPOINT {quoted}")
            self._conn.execute(f"RELEASE SAVEPOINT {quoted}")
            del self.published[published:]  # what the block published is undone with it
            raise
