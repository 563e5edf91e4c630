"""A challenge's queries (``challenges``): open until accepted (then it names its match), declined or expired."""

from __future__ import annotations

import json
from typing import Any

from storage.queries.base import Queries, shard_where
from storage.records import ChallengeRecord, Shards, challenge_from_row

_CHALLENGE_COLUMNS = ("id, guild_id, channel_id, message_id, game, variant, challenger_id, challenger_name, "
                      "opponent_id, days_per_move, status, match_id, created_at, expires_at, challenger_seat")


class ChallengeReads(Queries):
    """Reading challenges."""

    def get_challenge(self, challenge_id: int) -> ChallengeRecord | None:
        """Load a challenge or ``None``."""
        row = self._one(f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,))  # noqa: S608 - column lists are module constants; values are bound parameters
        return challenge_from_row(row) if row else None

    def count_open_challenges(self, guild_id: int, user_id: int, now: float) -> int:
        """Number of ``user_id``'s open, unexpired challenges in ``guild_id`` at ``now`` (epoch seconds)."""
        row = self._one("SELECT COUNT(*) FROM challenges WHERE guild_id = ? AND challenger_id = ? AND "
                        "status = 'open' AND expires_at > ?", (guild_id, user_id, now))
        return int(row[0]) if row else 0

    def challenges_to(self, guild_id: int, challenger_id: int, opponent_id: int, since: float) -> list[float]:
        """When ``challenger_id`` challenged ``opponent_id`` in ``guild_id`` after ``since`` (epoch seconds), oldest
        first: every such challenge but the accepted ones (open, declined, cancelled and expired ones all count),
        along ``challenges_pair``."""
        rows = self._all("SELECT created_at FROM challenges WHERE guild_id = ? AND challenger_id = ? AND "
                         "opponent_id = ? AND created_at > ? AND status <> 'accepted' ORDER BY created_at",
                         (guild_id, challenger_id, opponent_id, since))
        return [float(row[0]) for row in rows]

    def expired_challenges(self, now: float, shards: Shards | None = None) -> list[ChallengeRecord]:
        """Open challenges whose time ran out at ``now`` (epoch seconds); with ``shards``, of their servers only."""
        rows = self._all(f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND expires_at <= ?"  # noqa: S608 - column lists are module constants; values are bound parameters
                         f"{shard_where(shards)}", (now,))
        return [challenge_from_row(row) for row in rows]

    def next_challenge_expiry(self, shards: Shards | None = None) -> float | None:
        """The earliest expiry (epoch seconds) of an open challenge (with ``shards``, of their servers), or
        ``None``."""
        row = self._one(f"SELECT MIN(expires_at) FROM challenges WHERE status = 'open'{shard_where(shards)}")  # noqa: S608 - module constants
        return float(row[0]) if row and row[0] is not None else None


class ChallengeWrites(ChallengeReads):
    """Writing challenges."""

    def insert_challenge(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], challenger_id: int,
        challenger_name: str, opponent_id: int | None, days_per_move: int, now: float, expires_at: float,
        challenger_seat: int = 0,
    ) -> int:
        """Insert an open challenge; return its id."""
        cursor = self._conn.execute(
            "INSERT INTO challenges (guild_id, channel_id, game, variant, challenger_id, challenger_name, "
            "opponent_id, days_per_move, status, created_at, expires_at, challenger_seat) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?) RETURNING id",
            (guild_id, channel_id, game, json.dumps(variant), challenger_id, challenger_name, opponent_id,
             days_per_move, now, expires_at, challenger_seat),
        )
        return int(cursor.fetchone()[0])

    def close_challenge(self, challenge_id: int, status: str, match_id: int | None = None) -> bool:
        """Move an open challenge to ``status``; ``False`` if it was no longer open."""
        cursor = self._conn.execute(
            "UPDATE challenges SET status = ?, match_id = ? WHERE id = ? AND status = 'open'",
            (status, match_id, challenge_id),
        )
        return cursor.rowcount == 1

    def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the message that carries the challenge's buttons."""
        self._conn.execute("UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id))
