"""Queries over the schema, as methods of the object a transaction body receives.

:class:`ReadTx` holds the reads and :class:`Tx` (a ``ReadTx``) adds the writes; :meth:`storage.Database.read`
and :meth:`storage.Database.write` hand one to a synchronous body running in the database thread. These two
classes are the whole interface the service sees. Their SQL is the subset SQLite and PostgreSQL share (``?``
placeholders, ``INSERT … ON CONFLICT``, ``RETURNING``); the few spellings that differ are class attributes, which
:class:`storage.postgres.PgReadTx` and :class:`storage.postgres.PgTx` override. Records are plain dataclasses with
JSON already decoded; nothing here knows the games' rules.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol


class Row(Protocol):
    """A result row, by column position or name (:class:`Row`, or the PostgreSQL backend's row)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> list[str]: ...


class Cursor(Protocol):
    """What a query returns (the part of DB-API's cursor the queries use)."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    @property
    def rowcount(self) -> int: ...


class Connection(Protocol):
    """A connection inside one transaction (:class:`sqlite3.Connection`, or the PostgreSQL backend's adapter),
    taking ``?`` (sequence) or ``:name`` (mapping) placeholders."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Cursor: ...


@dataclass
class SeatRecord:
    """One seat of a match: a member (``level is None``) or the computer at ``level``."""

    seat: int
    user_id: int
    display_name: str
    level: str | None = None
    pings: bool = True
    """Boards may @-mention this member (their ``/notify`` preference, global)."""
    dm: bool = False
    """This member asked for a direct message when it becomes their turn (``/notify``, global)."""
    away_until: float | None = None
    """While the member is on vacation in the match's server: when their allowance runs out (epoch seconds, the
    vacation's ``ends_by``); else ``None``."""

    @property
    def is_computer(self) -> bool:
        """``True`` for a computer seat."""
        return self.level is not None


@dataclass
class MatchRecord:
    """A stored match. ``state``/``variant``/``initial_state``/``outcome`` are decoded JSON dicts."""

    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    game: str
    variant: dict[str, Any]
    initial_state: dict[str, Any]
    state: dict[str, Any]
    status: str
    version: int
    ply: int
    current_seat: int | None
    days_per_move: int
    deadline: float | None
    reminded: bool
    draw_offer_seat: int | None
    outcome: dict[str, Any] | None
    end_reason: str | None
    rated: bool
    created_at: float
    updated_at: float
    finished_at: float | None
    seats: list[SeatRecord] = field(default_factory=list)
    rating_changes: dict[str, list[int]] | None = None
    """Each rated human's displayed rating before and after this match (``{"<user id>": [before, after]}``),
    written in the transaction that finished it; ``None`` for unrated or unfinished matches."""
    quarantined: bool = False
    """The row is marked damaged in the database (``damage`` was stored)."""
    damage: str | None = None
    """Why the row cannot be played (quarantined, or found undecodable when read: its JSON fields are then empty
    and its seats may be missing); ``None`` for a sound row."""
    time_given: list[int] | None = None
    """How many times each seat gave its opponent extra time (``/match give-time``), by seat; ``None`` while
    nobody has."""

    def times_given(self, seat: int) -> int:
        """How many times ``seat`` gave its opponent extra time in this match."""
        given = self.time_given or []
        return given[seat] if 0 <= seat < len(given) and isinstance(given[seat], int) else 0

    def seat_of(self, user_id: int) -> int | None:
        """Return the seat ``user_id`` holds (the first, if the same member holds two), else ``None``."""
        for seat in self.seats:
            if seat.user_id == user_id and not seat.is_computer:
                return seat.seat
        return None

    @property
    def post_channel_id(self) -> int:
        """Where the match's messages go: its thread if it has one, else its channel."""
        return self.thread_id or self.channel_id


@dataclass
class ChallengeRecord:
    """A stored challenge (``opponent_id is None`` = open to anyone)."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    game: str
    variant: dict[str, Any]
    challenger_id: int
    challenger_name: str
    opponent_id: int | None
    days_per_move: int
    status: str
    match_id: int | None
    created_at: float
    expires_at: float
    challenger_seat: int = 0
    """The seat the challenger takes when the challenge is accepted (0 moves first)."""


@dataclass
class OutboxRecord:
    """News the bot still has to deliver: a ``"reminder"`` or a ``"result"`` of ``match_id`` at ``ply``, tried
    ``attempts`` times so far, next at ``next_at`` (epoch seconds)."""

    id: int
    match_id: int
    kind: str
    ply: int
    attempts: int
    next_at: float
    created_at: float


@dataclass
class MoveRecord:
    """One entry of the append-only move log."""

    match_id: int
    ply: int
    seat: int
    notation: str
    created_at: float


@dataclass
class PremoveRecord:
    """One conditional-move line of a waiting seat (``/match premove``): when the opponent plays ``if_move`` in the
    position after ``ply`` moves, ``reply`` is played for ``seat``; ``then_if``/``then_reply`` is the optional
    deeper pair (both or neither), kept as the seat's line for the turn after. Moves are canonical notation."""

    match_id: int
    seat: int
    ply: int
    if_move: str
    reply: str
    then_if: str | None = None
    then_reply: str | None = None
    created_at: float = 0.0


@dataclass
class SettingsRecord:
    """A server's settings (defaults when the server never changed them)."""

    guild_id: int
    days_per_move: int = 3
    use_threads: bool = True
    allowed_channels: list[int] = field(default_factory=list)
    max_active: int = 25
    rate_computer: bool = False
    vacation_days: int = 14
    """Each member's vacation allowance per calendar year in this server, in days (0: no vacations)."""


@dataclass
class VacationRecord:
    """A member's vacation in one server: from ``started_at`` until ``ended_at`` (``None`` while it lasts) or at the
    latest ``ends_by``, when the allowance it started with runs out (epoch seconds); ``days`` is what it cost
    (``None`` while it lasts)."""

    id: int
    guild_id: int
    user_id: int
    started_at: float
    ends_by: float
    ended_at: float | None
    days: int | None


@dataclass
class MemberPrefs:
    """A member's preferences, the same in every server (defaults for a member who never set them)."""

    user_id: int
    dm_turns: bool = False
    """A direct message when it becomes their turn (after an opponent's move, and at the reminder)."""
    pings: bool = True
    """Boards and reminders may @-mention them."""


@dataclass
class RatingRecord:
    """A player's rating and record in one server and game."""

    guild_id: int
    game: str
    user_id: int
    display_name: str
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int
    best_vs_par: int | None



@dataclass(frozen=True)
class Shards:
    """The Discord shards one bot process serves: ``ids`` out of ``count``.

    A server (guild) belongs to shard ``(guild_id >> 22) % count`` (Discord's formula, "Sharding" in the Gateway
    documentation). The deadline pass, the outbox and the resuming of computer turns of a process take only the
    work of its own servers, and leave the rest to the processes that serve them.

    Raises:
        ValueError: ``count`` below 1, no ids, an id repeated or outside ``0 .. count - 1``.
    """

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"the shard count must be at least 1, not {self.count}")
        if not self.ids:
            raise ValueError("a process serves at least one shard")
        if len(set(self.ids)) != len(self.ids):
            raise ValueError("a shard id is named twice")
        outside = [shard for shard in self.ids if not 0 <= shard < self.count]
        if outside:
            raise ValueError(f"shard {outside[0]} is outside 0-{self.count - 1} (the shard count is {self.count})")

    def shard_of(self, guild_id: int) -> int:
        """The shard of server ``guild_id``."""
        return (guild_id >> 22) % self.count

    def serves(self, guild_id: int) -> bool:
        """``True`` when server ``guild_id`` is on one of :attr:`ids`."""
        return self.shard_of(guild_id) in self.ids

    def where(self, column: str = "guild_id") -> str:
        """An SQL condition (both dialects) true for rows whose server ``column`` is on one of :attr:`ids`."""
        ids = ", ".join(str(int(shard)) for shard in sorted(self.ids))
        return f"(({column} >> 22) % {int(self.count)}) IN ({ids})"


def _shard_where(shards: Shards | None, column: str = "guild_id") -> str:
    """`` AND`` :meth:`Shards.where`, or nothing for a process that serves every shard (``None``)."""
    return "" if shards is None else f" AND {shards.where(column)}"


MATCH_FIELDS: frozenset[str] = frozenset({
    "state", "status", "ply", "current_seat", "deadline", "reminded", "draw_offer_seat", "outcome", "end_reason",
    "updated_at", "finished_at", "rating_changes", "time_given",
})
"""The columns :meth:`Tx.update_match` may set (the version is bumped by the update itself)."""

_JSON_FIELDS = frozenset({"state", "outcome", "rating_changes", "time_given"})

_MATCH_COLUMNS = (
    "id, guild_id, channel_id, thread_id, game, variant, initial_state, state, status, version, ply, "
    "current_seat, days_per_move, deadline, reminded, draw_offer_seat, outcome, end_reason, rated, created_at, "
    "updated_at, finished_at, rating_changes, damage, time_given"
)
_SEAT_VALUES = "s.seat, s.user_id, s.display_name, s.level, p.pings, p.dm_turns, v.ends_by"
"""Per seat: the seat, the member, their preferences (``NULL`` when never set) and their open vacation's end in the
match's server (``NULL`` when not on vacation)."""
_SEATS_FROM = (
    "FROM seats s LEFT JOIN member_prefs p ON p.user_id = s.user_id "
    "LEFT JOIN vacations v ON v.guild_id = matches.guild_id AND v.user_id = s.user_id AND v.ended_at IS NULL "
    "WHERE s.match_id = matches.id"
)
_SEATS_JSON = (
    "(SELECT json_group_array(json_array(seat, user_id, display_name, level, pings, dm_turns, ends_by)) FROM "  # noqa: S608 - module constants
    f"(SELECT {_SEAT_VALUES} {_SEATS_FROM} ORDER BY s.seat)) AS seats_json"
)
_MATCH_SELECT = f"SELECT {_MATCH_COLUMNS}, {_SEATS_JSON} FROM matches"  # noqa: S608 - column lists are module constants; values are bound parameters
"""A match row with its seats in one query."""

_CHALLENGE_COLUMNS = ("id, guild_id, channel_id, message_id, game, variant, challenger_id, challenger_name, "
                      "opponent_id, days_per_move, status, match_id, created_at, expires_at, challenger_seat")
_RATING_COLUMNS = "guild_id, game, user_id, display_name, mu, sigma, games, wins, losses, draws, best_vs_par"


_DUE_AT = "CASE WHEN reminded = 0 THEN deadline - days_per_move * 86400.0 / 3.0 ELSE deadline END"
"""When something next falls due for an active match with a deadline (epoch seconds): its reminder while it was not
sent, else its forfeit. The expression of the ``matches_due`` index (migration 4): queries must use it verbatim,
with :data:`_DUE_WHERE`, for SQLite to use the index."""
_DUE_WHERE = "status = 'active' AND deadline IS NOT NULL"

PROVISIONAL_GAMES = 5
"""Rated games before a rating is established; provisional ratings rank after the established ones (a constant of the
``ratings_rank`` index, migration 4)."""
_RANK_ORDER = "games < 5, ROUND(1000 + 40 * (mu - 3 * sigma)) DESC, wins DESC, display_name, user_id"
"""A duel leaderboard's order: established first, then by displayed rating, wins, name (the ``ratings_rank`` index)."""
_PAR_ORDER = "best_vs_par, games DESC, display_name, user_id"
"""A solitaire board's order: best result against par, then more games (the ``ratings_par`` index)."""


def _reversed_order(order: str) -> str:
    """``order`` (an ORDER BY list) with every term's direction flipped (for walking an index from its end)."""
    terms = [term.strip() for term in order.split(",")]
    return ", ".join(term[: -len(" DESC")] if term.endswith(" DESC") else f"{term} DESC" for term in terms)


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _match_from_row(row: Row) -> MatchRecord:
    """Decode a match row; a row whose JSON or seats cannot be decoded comes back with ``damage`` saying why
    (never raises for bad data, so one damaged row cannot take down a list or a pass)."""
    try:
        return _decode_match(row)
    except (ValueError, TypeError, KeyError) as error:
        reason = f"the stored row cannot be decoded ({type(error).__name__}: {str(error)[:120]})"
        return MatchRecord(
            id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], thread_id=row["thread_id"],
            game=str(row["game"]), variant={}, initial_state={}, state={}, status=row["status"],
            version=row["version"], ply=row["ply"], current_seat=row["current_seat"],
            days_per_move=row["days_per_move"], deadline=row["deadline"], reminded=bool(row["reminded"]),
            draw_offer_seat=row["draw_offer_seat"], outcome=None, end_reason=row["end_reason"],
            rated=bool(row["rated"]), created_at=row["created_at"], updated_at=row["updated_at"],
            finished_at=row["finished_at"], damage=row["damage"] or reason, quarantined=row["damage"] is not None,
        )


def _decode_match(row: Row) -> MatchRecord:
    match = MatchRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], thread_id=row["thread_id"],
        game=row["game"], variant=json.loads(row["variant"]), initial_state=json.loads(row["initial_state"]),
        state=json.loads(row["state"]), status=row["status"], version=row["version"], ply=row["ply"],
        current_seat=row["current_seat"], days_per_move=row["days_per_move"], deadline=row["deadline"],
        reminded=bool(row["reminded"]), draw_offer_seat=row["draw_offer_seat"],
        outcome=json.loads(row["outcome"]) if row["outcome"] else None, end_reason=row["end_reason"],
        rated=bool(row["rated"]), created_at=row["created_at"], updated_at=row["updated_at"],
        finished_at=row["finished_at"],
        rating_changes=json.loads(row["rating_changes"]) if row["rating_changes"] else None,
        damage=row["damage"], quarantined=row["damage"] is not None,
        time_given=json.loads(row["time_given"]) if row["time_given"] else None,
    )
    for name in ("variant", "initial_state", "state"):
        if not isinstance(getattr(match, name), dict):
            raise TypeError(f"{name} is not a JSON object")
    match.seats = [SeatRecord(int(seat), int(user_id), str(name), level, pings is None or bool(pings), bool(dm),
                              None if away is None else float(away))
                   for seat, user_id, name, level, pings, dm, away in json.loads(row["seats_json"])]
    return match


_OUTBOX_COLUMNS = "id, match_id, kind, ply, attempts, next_at, created_at"
_VACATION_COLUMNS = "id, guild_id, user_id, started_at, ends_by, ended_at, days"


def _vacation_from_row(row: Row) -> VacationRecord:
    return VacationRecord(row["id"], row["guild_id"], row["user_id"], row["started_at"], row["ends_by"],
                          row["ended_at"], row["days"])


def _outbox_from_row(row: Row) -> OutboxRecord:
    return OutboxRecord(row["id"], row["match_id"], row["kind"], row["ply"], row["attempts"], row["next_at"],
                        row["created_at"])


def _challenge_from_row(row: Row) -> ChallengeRecord:
    return ChallengeRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], message_id=row["message_id"],
        game=row["game"], variant=json.loads(row["variant"]), challenger_id=row["challenger_id"],
        challenger_name=row["challenger_name"], opponent_id=row["opponent_id"], days_per_move=row["days_per_move"],
        status=row["status"], match_id=row["match_id"], created_at=row["created_at"], expires_at=row["expires_at"],
        challenger_seat=row["challenger_seat"],
    )


def _rating_from_row(row: Row) -> RatingRecord:
    return RatingRecord(row["guild_id"], row["game"], row["user_id"], row["display_name"], row["mu"], row["sigma"],
                        row["games"], row["wins"], row["losses"], row["draws"], row["best_vs_par"])


class ReadTx:
    """The read queries, over one connection inside a read (or write) body. Never kept after the body returns.

    Args:
        conn: the connection, inside the body's transaction, in the thread that runs the body.
    """

    _match_select: ClassVar[str] = _MATCH_SELECT
    """A match row with its seats (the seats' JSON aggregate is spelt per backend)."""
    _group_concat: ClassVar[str] = "group_concat(display_name, ', ')"
    """The opponents' names joined by ``", "`` in seat order."""
    _rowid: ClassVar[str] = "rowid"
    """A column naming one physical row of a table."""
    _like: ClassVar[str] = "LIKE"
    """Pattern matching that ignores the case of ASCII letters."""
    _for_update: ClassVar[str] = ""
    """Appended to a write body's read of rows it is about to change, to lock them until the transaction ends
    (PostgreSQL's ``FOR UPDATE OF {table}``, ``{table}`` filled in).
    Empty on SQLite, whose ``BEGIN IMMEDIATE`` already serialises writers."""
    _skip_locked: ClassVar[str] = ""
    """Appended to a read that claims work: rows another transaction holds are skipped, not waited for (PostgreSQL's
    ``FOR UPDATE OF {table} SKIP LOCKED``). Empty on SQLite (one writer at a time: nothing is ever held by another)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def _limit(self, limit: int) -> int | None:
        """A ``LIMIT`` parameter: a negative ``limit`` means none (SQLite reads ``-1`` so)."""
        return limit

    def _all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        rows: list[Row] = self._conn.execute(sql, tuple(params)).fetchall()
        return rows

    def _one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        row: Row | None = self._conn.execute(sql, tuple(params)).fetchone()
        return row

    # ------------------------------------------------------------ matches

    def get_match(self, match_id: int) -> MatchRecord | None:
        """Load a match with its seats, or ``None``."""
        row = self._one(f"{self._match_select} WHERE id = ?", (match_id,))
        return _match_from_row(row) if row is not None else None

    def match_in_thread(self, thread_id: int) -> MatchRecord | None:
        """Return the one match whose thread is ``thread_id``, or ``None`` when none is, or when more than one
        row names it (then nothing can say which match is meant, and the member names it)."""
        rows = self._all(f"{self._match_select} WHERE thread_id = ? LIMIT 2", (thread_id,))
        return _match_from_row(rows[0]) if len(rows) == 1 else None

    def active_matches_of(self, guild_id: int, user_id: int, limit: int = -1, offset: int = 0) -> list[MatchRecord]:
        """Return ``user_id``'s active matches in ``guild_id`` that are not quarantined as damaged, most recently
        active first: all of them, or the ``limit`` after the first ``offset``."""
        rows = self._all(
            f"{self._match_select} WHERE guild_id = ? AND status = 'active' AND damage IS NULL AND id IN "  # noqa: S608 - column lists are module constants; values are bound parameters
            "(SELECT match_id FROM seats WHERE user_id = ? AND level IS NULL) ORDER BY updated_at DESC, id DESC "
            "LIMIT ? OFFSET ?",
            (guild_id, user_id, self._limit(limit), offset),
        )
        return [_match_from_row(row) for row in rows]

    def match_choices(self, guild_id: int, user_id: int, titles: Mapping[str, str], needle: str = "",
                      limit: int = 25) -> list[tuple[int, str]]:
        """The labels of ``user_id``'s active matches in ``guild_id`` of the games in ``titles`` (game key to title),
        most recently active first, at most ``limit``, built and filtered in SQL without decoding a state.

        Returns ``(match id, label)`` pairs; a label reads ``"#12 Chopsticks vs bob (your move)"`` (``waiting``
        when another seat is to move, ``solo`` without opponents), cut to 100 characters, and contains ``needle``
        (ASCII letters in any case).
        """
        if not titles:
            return []
        params: dict[str, object] = {"user": user_id, "guild": guild_id, "limit": limit,
                                     "needle": "%" + re.sub(r"([\\%_])", r"\\\1", needle) + "%"}
        cases = []
        for index, (key, title) in enumerate(titles.items()):
            params[f"key{index}"], params[f"title{index}"] = key, title
            cases.append(f"WHEN :key{index} THEN :title{index}")
        label = (
            f"substr('#' || m.id || ' ' || (CASE m.game {' '.join(cases)} END) || ' vs ' || "  # noqa: S608 - module text and placeholders only
            f"coalesce((SELECT {self._group_concat} FROM (SELECT display_name FROM seats o "
            "WHERE o.match_id = m.id AND o.user_id != :user ORDER BY o.seat) AS opponents), 'solo') || ' (' || "
            "(CASE WHEN (SELECT t.user_id FROM seats t WHERE t.match_id = m.id AND t.seat = m.current_seat) = :user "
            "THEN 'your move' ELSE 'waiting' END) || ')', 1, 100)"
        )
        keys = ", ".join(f":key{index}" for index in range(len(titles)))
        rows = self._conn.execute(
            f"SELECT id, label FROM (SELECT m.id, m.updated_at, {label} AS label FROM matches m "  # noqa: S608 - module text and placeholders only
            f"WHERE m.guild_id = :guild AND m.status = 'active' AND m.game IN ({keys}) "
            "AND m.id IN (SELECT match_id FROM seats WHERE user_id = :user AND level IS NULL)) AS labelled "
            f"WHERE label {self._like} :needle ESCAPE '\\' ORDER BY updated_at DESC, id DESC LIMIT :limit", params,
        ).fetchall()
        return [(int(row[0]), str(row[1])) for row in rows]

    def count_active(self, guild_id: int, user_id: int, *, sound_only: bool = False) -> int:
        """Number of ``user_id``'s active matches in ``guild_id`` (with ``sound_only``, those not quarantined)."""
        row = self._one(
            "SELECT COUNT(*) FROM matches m JOIN seats s ON s.match_id = m.id "
            "WHERE m.guild_id = ? AND m.status = 'active' AND s.user_id = ? AND s.level IS NULL "
            "AND (? = 0 OR m.damage IS NULL)",
            (guild_id, user_id, int(sound_only)),
        )
        return int(row[0]) if row else 0

    def count_open_challenges(self, guild_id: int, user_id: int, now: float) -> int:
        """Number of ``user_id``'s open, unexpired challenges in ``guild_id`` at ``now`` (epoch seconds)."""
        row = self._one("SELECT COUNT(*) FROM challenges WHERE guild_id = ? AND challenger_id = ? AND "
                        "status = 'open' AND expires_at > ?", (guild_id, user_id, now))
        return int(row[0]) if row else 0

    def damaged_matches_of(self, guild_id: int, user_id: int) -> list[int]:
        """Ids of ``user_id``'s quarantined matches in ``guild_id`` that were active when found damaged."""
        rows = self._all("SELECT m.id FROM matches m JOIN seats s ON s.match_id = m.id WHERE m.guild_id = ? AND "
                         "m.status = 'active' AND m.damage IS NOT NULL AND s.user_id = ? AND s.level IS NULL "
                         "ORDER BY m.id", (guild_id, user_id))
        return [int(r[0]) for r in rows]

    def due_outbox(self, now: float, shards: Shards | None = None) -> list[OutboxRecord]:
        """News whose next attempt is due at ``now`` (epoch seconds), oldest first (with ``shards``, only news of
        their servers' matches)."""
        if shards is None:
            rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE next_at <= ? ORDER BY next_at, id", (now,))  # noqa: S608 - column lists are module constants; values are bound parameters
        else:
            rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE next_at <= ? AND match_id IN "  # noqa: S608 - module constants
                             f"(SELECT id FROM matches WHERE {shards.where()}) ORDER BY next_at, id", (now,))
        return [_outbox_from_row(row) for row in rows]

    def next_outbox(self, shards: Shards | None = None) -> float | None:
        """When the next news delivery is due (epoch seconds), or ``None`` when the outbox is empty (with ``shards``,
        of news of their servers' matches)."""
        if shards is None:
            row = self._one("SELECT MIN(next_at) FROM outbox")
        else:
            row = self._one(f"SELECT MIN(next_at) FROM outbox WHERE match_id IN "  # noqa: S608 - module constants
                            f"(SELECT id FROM matches WHERE {shards.where()})")
        return float(row[0]) if row and row[0] is not None else None

    def due_match_ids(self, now: float, shards: Shards | None = None) -> list[int]:
        """Ids of the active matches whose deadline passed or whose reminder (a third of the time left) is due at
        ``now`` (epoch seconds), the earliest due first; with ``shards``, only matches of their servers. Reads only
        the due entries of an index (``matches_due``), however many matches are active."""
        rows = self._all(f"SELECT id FROM matches WHERE {_DUE_WHERE} AND {_DUE_AT} <= ?{_shard_where(shards)} "  # noqa: S608 - module constants
                         f"ORDER BY {_DUE_AT}, id", (now,))
        return [int(row[0]) for row in rows]

    def next_deadline(self, shards: Shards | None = None) -> float | None:
        """The earliest time (epoch seconds) at which a reminder or a forfeit falls due, or ``None`` (the first
        entry of the ``matches_due`` index; with ``shards``, the first of their servers')."""
        row = self._one(f"SELECT {_DUE_AT} FROM matches WHERE {_DUE_WHERE}{_shard_where(shards)} "  # noqa: S608 - module constants
                        f"ORDER BY {_DUE_AT}, id LIMIT 1")
        return float(row[0]) if row and row[0] is not None else None

    def computer_to_move(self, shards: Shards | None = None) -> list[int]:
        """Active matches whose seat to move is the computer's (after a restart nobody else would move them); with
        ``shards``, only matches of their servers."""
        rows = self._all("SELECT m.id FROM matches m JOIN seats s ON s.match_id = m.id AND s.seat = m.current_seat "  # noqa: S608 - module constants
                         f"WHERE m.status = 'active' AND s.level IS NOT NULL{_shard_where(shards, 'm.guild_id')} "
                         "ORDER BY m.id")
        return [int(r[0]) for r in rows]

    def raw_match(self, match_id: int) -> dict[str, Any] | None:
        """A match row exactly as stored (JSON columns as text), with ``seats`` and ``moves`` as lists of rows,
        for an admin to inspect (also a damaged row); ``None`` if there is none."""
        row = self._one("SELECT * FROM matches WHERE id = ?", (match_id,))
        if row is None:
            return None
        found = dict(row)
        found["seats"] = [dict(r) for r in self._all("SELECT * FROM seats WHERE match_id = ? ORDER BY seat",
                                                     (match_id,))]
        found["moves"] = [dict(r) for r in self._all("SELECT * FROM moves WHERE match_id = ? ORDER BY ply",
                                                     (match_id,))]
        return found

    def all_match_ids(self) -> list[int]:
        """Every match id, ascending (for integrity checks and replays)."""
        return [int(r[0]) for r in self._all("SELECT id FROM matches ORDER BY id")]

    def get_moves(self, match_id: int) -> list[MoveRecord]:
        """Return the match's move log in ply order."""
        rows = self._all("SELECT match_id, ply, seat, notation, created_at FROM moves WHERE match_id = ? "
                         "ORDER BY ply", (match_id,))
        return [MoveRecord(r["match_id"], r["ply"], r["seat"], r["notation"], r["created_at"]) for r in rows]

    def premoves_of(self, match_id: int, seat: int) -> list[PremoveRecord]:
        """``seat``'s conditional-move lines in ``match_id``, in the order they were stored."""
        rows = self._all("SELECT match_id, seat, ply, if_move, reply, then_if, then_reply, created_at FROM premoves "
                         "WHERE match_id = ? AND seat = ? ORDER BY created_at, if_move", (match_id, seat))
        return [PremoveRecord(r["match_id"], r["seat"], r["ply"], r["if_move"], r["reply"], r["then_if"],
                              r["then_reply"], r["created_at"]) for r in rows]

    # ------------------------------------------------------------ challenges

    def get_challenge(self, challenge_id: int) -> ChallengeRecord | None:
        """Load a challenge or ``None``."""
        row = self._one(f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,))  # noqa: S608 - column lists are module constants; values are bound parameters
        return _challenge_from_row(row) if row else None

    def expired_challenges(self, now: float, shards: Shards | None = None) -> list[ChallengeRecord]:
        """Open challenges whose time ran out at ``now`` (epoch seconds); with ``shards``, of their servers only."""
        rows = self._all(f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE status = 'open' AND expires_at <= ?"  # noqa: S608 - column lists are module constants; values are bound parameters
                         f"{_shard_where(shards)}", (now,))
        return [_challenge_from_row(row) for row in rows]

    def next_challenge_expiry(self, shards: Shards | None = None) -> float | None:
        """The earliest expiry (epoch seconds) of an open challenge (with ``shards``, of their servers), or
        ``None``."""
        row = self._one(f"SELECT MIN(expires_at) FROM challenges WHERE status = 'open'{_shard_where(shards)}")  # noqa: S608 - module constants
        return float(row[0]) if row and row[0] is not None else None

    # ------------------------------------------------------------ settings, ratings, meta

    def get_settings(self, guild_id: int) -> SettingsRecord:
        """Return a server's settings (defaults if never set)."""
        row = self._one("SELECT days_per_move, use_threads, allowed_channels, max_active, rate_computer, "
                        "vacation_days FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            return SettingsRecord(guild_id)
        return SettingsRecord(guild_id, row["days_per_move"], bool(row["use_threads"]),
                              list(json.loads(row["allowed_channels"])), row["max_active"], bool(row["rate_computer"]),
                              row["vacation_days"])

    def get_rating(self, guild_id: int, game: str, user_id: int) -> RatingRecord | None:
        """A player's rating row, or ``None`` before their first finished match."""
        row = self._one(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",  # noqa: S608 - column lists are module constants; values are bound parameters
                        (guild_id, game, user_id))
        return _rating_from_row(row) if row else None

    def ratings_of_game(self, guild_id: int, game: str) -> list[RatingRecord]:
        """All rating rows of a server and game (unsorted)."""
        rows = self._all(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND game = ?", (guild_id, game))  # noqa: S608 - column lists are module constants; values are bound parameters
        return [_rating_from_row(row) for row in rows]

    def ratings_of_user(self, guild_id: int, user_id: int) -> list[RatingRecord]:
        """A player's rating rows in a server, one per game played, by game key (the ``ratings_member`` index)."""
        rows = self._all(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY game",  # noqa: S608 - column lists are module constants; values are bound parameters
                         (guild_id, user_id))
        return [_rating_from_row(row) for row in rows]

    def leaderboard_page(self, guild_id: int, game: str, *, solitaire: bool, offset: int,
                         limit: int) -> tuple[int, int, list[RatingRecord]]:
        """One page of a leaderboard, ranked in SQL along an index (``ratings_rank``, ``ratings_par``).

        Returns ``(ranked, offset, rows)``: how many rows the board ranks, the offset used (``offset``, or that of
        the last page of ``limit`` rows when ``offset`` is past the end), and the rows ranked ``offset + 1`` to
        ``offset + limit`` in order. A duel board (``solitaire=False``) ranks every row of ``game``, established
        ratings (:data:`PROVISIONAL_GAMES` games or more) first, then by displayed rating
        (``round(1000 + 40 * (mu - 3 * sigma))``), wins, name; a solitaire board the rows with a result, by best
        result against par, then more games.
        """
        where = "guild_id = ? AND game = ?" + (" AND best_vs_par IS NOT NULL" if solitaire else "")
        order = _PAR_ORDER if solitaire else _RANK_ORDER
        count = self._one(f"SELECT COUNT(*) FROM ratings WHERE {where}", (guild_id, game))  # noqa: S608 - module constants
        ranked = int(count[0]) if count else 0
        if offset >= ranked > 0:  # past the end: the last page
            offset = (ranked - 1) // limit * limit
        first = offset
        walk = order
        if offset > ranked // 2:  # the back half: walk the index from its end, so no page skips over half the board
            walk = _reversed_order(order)
            offset, limit = max(0, ranked - offset - limit), min(limit, max(0, ranked - offset))
        rows = self._all(
            f"SELECT {_RATING_COLUMNS} FROM ratings WHERE {self._rowid} IN (SELECT {self._rowid} FROM ratings "  # noqa: S608 - module constants
            f"WHERE {where} "
            f"ORDER BY {walk} LIMIT ? OFFSET ?) ORDER BY {order}",
            (guild_id, game, limit, offset),
        )
        return ranked, first, [_rating_from_row(row) for row in rows]

    # ------------------------------------------------------------ vacations, member preferences

    def active_matches_anywhere(self, user_id: int) -> list[MatchRecord]:
        """``user_id``'s active matches in every server that are not quarantined, most recently active first (along
        ``seats_user``)."""
        rows = self._all(
            f"{self._match_select} WHERE status = 'active' AND damage IS NULL AND id IN "  # noqa: S608 - column lists are module constants; values are bound parameters
            "(SELECT match_id FROM seats WHERE user_id = ? AND level IS NULL) ORDER BY updated_at DESC, id DESC",
            (user_id,),
        )
        return [_match_from_row(row) for row in rows]

    def open_vacation(self, guild_id: int, user_id: int) -> VacationRecord | None:
        """The member's vacation in ``guild_id`` that has not been ended, or ``None`` (``vacations_open``)."""
        row = self._one(f"SELECT {_VACATION_COLUMNS} FROM vacations WHERE guild_id = ? AND user_id = ? "  # noqa: S608 - column lists are module constants; values are bound parameters
                        "AND ended_at IS NULL", (guild_id, user_id))
        return _vacation_from_row(row) if row else None

    def vacation_days_spent(self, guild_id: int, user_id: int, since: float, until: float) -> int:
        """Days the member's ended vacations in ``guild_id`` that started in ``[since, until)`` (epoch seconds) cost."""
        row = self._one("SELECT COALESCE(SUM(days), 0) FROM vacations WHERE guild_id = ? AND user_id = ? AND "
                        "started_at >= ? AND started_at < ? AND ended_at IS NOT NULL",
                        (guild_id, user_id, since, until))
        return int(row[0]) if row else 0

    def due_vacations(self, now: float, shards: Shards | None = None) -> list[VacationRecord]:
        """Open vacations whose allowance ran out at ``now`` (epoch seconds), the earliest first (``vacations_due``;
        with ``shards``, only those of their servers)."""
        rows = self._all(f"SELECT {_VACATION_COLUMNS} FROM vacations WHERE ended_at IS NULL AND ends_by <= ?"  # noqa: S608 - column lists are module constants; values are bound parameters
                         f"{_shard_where(shards)} ORDER BY ends_by, id", (now,))
        return [_vacation_from_row(row) for row in rows]

    def next_vacation_end(self) -> float | None:
        """When the next open vacation runs out (epoch seconds), or ``None``."""
        row = self._one("SELECT MIN(ends_by) FROM vacations WHERE ended_at IS NULL")
        return float(row[0]) if row and row[0] is not None else None

    def member_prefs(self, user_id: int) -> MemberPrefs:
        """A member's preferences (defaults if never set)."""
        row = self._one("SELECT dm_turns, pings FROM member_prefs WHERE user_id = ?", (user_id,))
        return MemberPrefs(user_id, bool(row["dm_turns"]), bool(row["pings"])) if row else MemberPrefs(user_id)

    def get_meta(self, key: str) -> str | None:
        """Read a key of the ``meta`` table (e.g. the synced command-tree hash)."""
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None


class Tx(ReadTx):
    """The read queries plus the writes, inside one write transaction (a write body's argument).

    Raising from the body rolls every write back.
    """

    # ------------------------------------------------------------ matches

    def insert_match(
        self, *, guild_id: int, channel_id: int, game: str, variant: dict[str, Any], state: dict[str, Any],
        current_seat: int | None, days_per_move: int, deadline: float | None, rated: bool, now: float,
        seats: Sequence[SeatRecord],
    ) -> int:
        """Insert an active match (``state`` is also its initial state) with its seats; return its id."""
        text = _json(state)
        cursor = self._conn.execute(
            "INSERT INTO matches (guild_id, channel_id, game, variant, initial_state, state, status, current_seat, "
            "days_per_move, deadline, rated, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?) RETURNING id",
            (guild_id, channel_id, game, json.dumps(variant), text, text, current_seat, days_per_move, deadline,
             int(rated), now, now),
        )
        match_id = int(cursor.fetchone()[0])
        self._conn.executemany(
            "INSERT INTO seats (match_id, seat, user_id, display_name, level) VALUES (?, ?, ?, ?, ?)",
            [(match_id, s.seat, s.user_id, s.display_name, s.level) for s in seats],
        )
        return match_id

    def update_match(self, match_id: int, expected_version: int, **fields: Any) -> bool:
        """Set ``fields`` of a match if its version is still ``expected_version``, and bump the version.

        Keys are column names from :data:`MATCH_FIELDS`; ``state`` and ``outcome`` are JSON-encoded here,
        booleans stored as 0/1. Returns ``False`` (and changes nothing) when the version moved on. Setting a status
        other than ``"active"`` (the match ended) also deletes the match's conditional moves.

        Raises:
            ValueError: a key is not an updatable column.
        """
        unknown = sorted(set(fields) - MATCH_FIELDS)
        if unknown:
            raise ValueError(f"not updatable match columns: {', '.join(unknown)}")
        encoded = {
            key: (_json(value) if key in _JSON_FIELDS and value is not None
                  else int(value) if isinstance(value, bool) else value)
            for key, value in fields.items()
        }
        assignments = "".join(f"{key} = ?, " for key in encoded)  # keys are whitelisted above
        cursor = self._conn.execute(
            f"UPDATE matches SET {assignments}version = version + 1 WHERE id = ? AND version = ?",  # noqa: S608 - column lists are module constants; values are bound parameters
            (*encoded.values(), match_id, expected_version),
        )
        if cursor.rowcount != 1:
            return False
        if fields.get("status", "active") != "active":  # an ended match forgets every conditional move stored in it
            self.delete_premoves(match_id)
        return True

    def lock_match(self, match_id: int) -> MatchRecord | None:
        """Load a match (or ``None``) and hold its row until the transaction ends: a concurrent writer of the same
        match in another process waits for this transaction, then reads what it wrote (PostgreSQL's ``FOR
        UPDATE``; on SQLite the plain read, as ``BEGIN IMMEDIATE`` already holds every other writer off)."""
        row = self._one(f"{self._match_select} WHERE id = ?{self._for_update.format(table='matches')}",
                        (match_id,))
        return _match_from_row(row) if row is not None else None

    def claim_match(self, match_id: int) -> MatchRecord | None:
        """Load a match and hold its row until the transaction ends, unless another transaction holds it: then
        ``None`` at once, as for a match that does not exist (PostgreSQL's ``FOR UPDATE SKIP LOCKED``; on SQLite the
        plain read). The deadline pass claims each due match so, so that of several processes exactly one acts on
        it and none waits for another."""
        row = self._one(f"{self._match_select} WHERE id = ?{self._skip_locked.format(table='matches')}",
                        (match_id,))
        return _match_from_row(row) if row is not None else None

    def wait_briefly_for_locks(self, milliseconds: int) -> None:
        """For the rest of this transaction, give up on a row another transaction holds after ``milliseconds``
        (raising the backend's transient "lock not available" error, one of ``Database.TransientError``) instead of
        waiting until it is free or the server finds a deadlock. On SQLite nothing: one writer at a time, so no row
        is ever held by another transaction."""

    @contextlib.contextmanager
    def savepoint(self, name: str = "item") -> Iterator[None]:
        """Run the ``with`` block as a nested transaction: when it raises, its writes alone are rolled back (and the
        error propagates); the rest of the transaction stands. ``name`` is a plain identifier."""
        if not name.isidentifier():
            raise ValueError(f"not a savepoint name: {name!r}")
        quoted = f'"{name}"'  # a quoted identifier: also a word either dialect reserves
        self._conn.execute(f"SAVEPOINT {quoted}")
        try:
            yield
        except BaseException:
            self._conn.execute(f"ROLLBACK TO SAVEPOINT {quoted}")
            self._conn.execute(f"RELEASE SAVEPOINT {quoted}")
            raise
        self._conn.execute(f"RELEASE SAVEPOINT {quoted}")

    def quarantine_match(self, match_id: int, reason: str) -> None:
        """Mark a match damaged with ``reason`` and take it out of the deadline pass (its deadline is cleared);
        its status and data are kept as found, for an admin to inspect."""
        self._conn.execute("UPDATE matches SET damage = ?, deadline = NULL, version = version + 1 WHERE id = ?",
                           (reason, match_id))

    def add_outbox(self, match_id: int, kind: str, ply: int, now: float, next_at: float | None = None) -> None:
        """Queue news (``"reminder"`` or ``"result"``) of ``match_id`` at ``ply`` (once per kind and ply), first
        tried at ``next_at`` (default ``now``, epoch seconds)."""
        self._conn.execute("INSERT INTO outbox (match_id, kind, ply, next_at, created_at) "
                           "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           (match_id, kind, ply, now if next_at is None else next_at, now))

    def claim_outbox(self, now: float, until: float, limit: int, shards: Shards | None = None) -> list[OutboxRecord]:
        """Claim up to ``limit`` news due at ``now`` (epoch seconds), oldest first, for this transaction's process
        to deliver: their next attempt moves to ``until`` (a lease), so no other process takes them meanwhile, and
        a process that dies before it delivered them leaves them to whoever claims them after ``until``. News
        another transaction is claiming is skipped, not waited for. With ``shards``, only news of their servers'
        matches. Returns the news as they were before the claim (``attempts`` and ``next_at`` unchanged)."""
        shard_filter = "" if shards is None else f" AND match_id IN (SELECT id FROM matches WHERE {shards.where()})"  # noqa: S608 - module text
        rows = self._all(f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE next_at <= ?{shard_filter} "  # noqa: S608 - module constants
                         f"ORDER BY next_at, id LIMIT ?{self._skip_locked.format(table='outbox')}", (now, limit))
        claimed = [_outbox_from_row(row) for row in rows]
        if claimed:
            self._conn.executemany("UPDATE outbox SET next_at = ? WHERE id = ?", [(until, news.id) for news in claimed])
        return claimed

    def take_lease(self, name: str, now: float, until: float) -> bool:
        """Take the lease ``name`` until ``until`` (epoch seconds) if nobody holds it at ``now``; ``True`` when this
        transaction took it. Of several processes asking at once exactly one gets it (a concurrent taker waits for
        the first to commit, then finds the lease held). Leases are rows ``lease:<name>`` of ``meta``; a process
        that dies holding one leaves it to expire."""
        cursor = self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value "
            "WHERE CAST(meta.value AS DOUBLE PRECISION) <= ?", (f"lease:{name}", repr(float(until)), now))
        return cursor.rowcount == 1

    def drop_lease(self, name: str) -> None:
        """Give the lease ``name`` back (taken with :meth:`take_lease`)."""
        self._conn.execute("DELETE FROM meta WHERE key = ?", (f"lease:{name}",))

    def outbox_delivered(self, outbox_id: int) -> None:
        """Forget news that was delivered (or can never be: the match moved on, the channel is gone)."""
        self._conn.execute("DELETE FROM outbox WHERE id = ?", (outbox_id,))

    def outbox_retry(self, outbox_id: int, next_at: float) -> None:
        """Count a failed attempt and try again at ``next_at`` (epoch seconds)."""
        self._conn.execute("UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?", (next_at, outbox_id))

    def set_thread(self, match_id: int, thread_id: int | None) -> None:
        """Record the match's thread (does not bump the version: it is not part of the game)."""
        self._conn.execute("UPDATE matches SET thread_id = ? WHERE id = ?", (thread_id, match_id))

    def append_move(self, match_id: int, ply: int, seat: int, notation: str, now: float) -> None:
        """Append a move to the log.

        Raises:
            IntegrityError: the backend's (``Database.IntegrityError``): the ply is already logged, or there is no
                such match.
        """
        self._conn.execute(
            "INSERT INTO moves (match_id, ply, seat, notation, created_at) VALUES (?, ?, ?, ?, ?)",
            (match_id, ply, seat, notation, now),
        )

    def put_premove(self, line: PremoveRecord) -> None:
        """Store a conditional-move line, replacing the seat's line for the same expected move in that match."""
        self._conn.execute(
            "INSERT INTO premoves (match_id, seat, ply, if_move, reply, then_if, then_reply, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (match_id, seat, if_move) DO UPDATE SET ply = excluded.ply, "
            "reply = excluded.reply, then_if = excluded.then_if, then_reply = excluded.then_reply, "
            "created_at = excluded.created_at",
            (line.match_id, line.seat, line.ply, line.if_move, line.reply, line.then_if, line.then_reply,
             line.created_at),
        )

    def delete_premoves(self, match_id: int, seat: int | None = None, if_move: str | None = None) -> int:
        """Delete conditional-move lines of ``match_id``: all, ``seat``'s, or ``seat``'s line for ``if_move``;
        returns how many."""
        sql = "DELETE FROM premoves WHERE match_id = ?"
        params: list[object] = [match_id]
        if seat is not None:
            sql += " AND seat = ?"
            params.append(seat)
            if if_move is not None:
                sql += " AND if_move = ?"
                params.append(if_move)
        return int(self._conn.execute(sql, params).rowcount)

    # ------------------------------------------------------------ challenges

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

    # ------------------------------------------------------------ settings, ratings, meta

    def put_settings(self, settings: SettingsRecord, now: float) -> None:
        """Insert or replace a server's settings."""
        self._conn.execute(
            "INSERT INTO guild_settings (guild_id, days_per_move, use_threads, allowed_channels, max_active, "
            "rate_computer, vacation_days, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id) DO UPDATE SET days_per_move = excluded.days_per_move, "
            "use_threads = excluded.use_threads, "
            "allowed_channels = excluded.allowed_channels, max_active = excluded.max_active, "
            "rate_computer = excluded.rate_computer, vacation_days = excluded.vacation_days, "
            "updated_at = excluded.updated_at",
            (settings.guild_id, settings.days_per_move, int(settings.use_threads),
             json.dumps(sorted(settings.allowed_channels)), settings.max_active, int(settings.rate_computer),
             settings.vacation_days, now),
        )

    def lock_rating(self, fresh: RatingRecord, now: float) -> RatingRecord:
        """The rating row of ``fresh``'s server, game and member, held until the transaction ends (so that two
        processes finishing matches of the same member count both); ``fresh`` (a new player's record) is stored
        first, at ``now``, when the member has none yet. Write it back with :meth:`put_rating`. A body that locks
        several rows locks them in member-id order, so that two such bodies never wait for each other in a ring."""
        self._conn.execute(
            f"INSERT INTO ratings ({_RATING_COLUMNS}, updated_at) "  # noqa: S608 - column lists are module constants; values are bound parameters
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id) DO NOTHING",
            (fresh.guild_id, fresh.game, fresh.user_id, fresh.display_name, fresh.mu, fresh.sigma, fresh.games,
             fresh.wins, fresh.losses, fresh.draws, fresh.best_vs_par, now),
        )
        row = self._one(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?"  # noqa: S608 - module constants
                        f"{self._for_update.format(table='ratings')}", (fresh.guild_id, fresh.game, fresh.user_id))
        assert row is not None  # inserted above, or there already
        return _rating_from_row(row)

    def put_rating(self, rating: RatingRecord, now: float) -> None:
        """Insert or replace a rating row."""
        self._conn.execute(
            f"INSERT INTO ratings ({_RATING_COLUMNS}, updated_at) "  # noqa: S608 - column lists are module constants; values are bound parameters
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id) DO UPDATE SET "
            "display_name = excluded.display_name, mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
            "wins = excluded.wins, losses = excluded.losses, draws = excluded.draws, "
            "best_vs_par = excluded.best_vs_par, updated_at = excluded.updated_at",
            (rating.guild_id, rating.game, rating.user_id, rating.display_name, rating.mu, rating.sigma,
             rating.games, rating.wins, rating.losses, rating.draws, rating.best_vs_par, now),
        )

    # ------------------------------------------------------------ vacations, member preferences

    def insert_vacation(self, guild_id: int, user_id: int, started_at: float, ends_by: float) -> int:
        """Open a vacation; return its id.

        Raises:
            IntegrityError: the backend's: the member already has an open vacation in ``guild_id``.
        """
        cursor = self._conn.execute("INSERT INTO vacations (guild_id, user_id, started_at, ends_by) "
                                    "VALUES (?, ?, ?, ?) RETURNING id", (guild_id, user_id, started_at, ends_by))
        return int(cursor.fetchone()[0])

    def close_vacation(self, vacation_id: int, ended_at: float, days: int) -> bool:
        """End an open vacation at ``ended_at`` (epoch seconds), costing ``days``; ``False`` if it had ended."""
        cursor = self._conn.execute("UPDATE vacations SET ended_at = ?, days = ? WHERE id = ? AND ended_at IS NULL",
                                    (ended_at, days, vacation_id))
        return cursor.rowcount == 1

    def shift_deadlines(self, guild_id: int, user_id: int, seconds: float, after: float) -> int:
        """Move by ``seconds`` the deadline of every sound active match in ``guild_id`` in which ``user_id`` holds the
        seat to move and whose deadline is later than ``after`` (epoch seconds); return how many moved. The version
        is not bumped (the position and the turn are unchanged, so the buttons of the current board stay valid)."""
        cursor = self._conn.execute(
            "UPDATE matches SET deadline = deadline + ? WHERE guild_id = ? AND status = 'active' AND damage IS NULL "
            "AND deadline IS NOT NULL AND deadline > ? AND id IN (SELECT s.match_id FROM seats s WHERE s.user_id = ? "
            "AND s.level IS NULL AND s.seat = matches.current_seat)",
            (seconds, guild_id, after, user_id),
        )
        return cursor.rowcount

    def put_member_prefs(self, prefs: MemberPrefs, now: float) -> None:
        """Insert or replace a member's preferences."""
        self._conn.execute(
            "INSERT INTO member_prefs (user_id, dm_turns, pings, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET dm_turns = excluded.dm_turns, pings = excluded.pings, "
            "updated_at = excluded.updated_at",
            (prefs.user_id, int(prefs.dm_turns), int(prefs.pings), now),
        )

    def put_meta(self, key: str, value: str) -> None:
        """Write a key of the ``meta`` table."""
        self._conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))
