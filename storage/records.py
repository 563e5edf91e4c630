"""The records the queries return: plain dataclasses with JSON already decoded, and the decoders that build them from
result rows (either backend's). Nothing here knows the games' rules or runs SQL (:meth:`Shards.where` only writes a
condition for the queries).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from i18n import pgettext


@dataclass(frozen=True)
class PoolConnections:
    """A connection pool at one instant (:meth:`storage.Database.connections`): connections lent out (``in_use``),
    connections open and idle in the pool (``idle``), and requests waiting for a connection (``waiting``)."""

    in_use: int
    idle: int
    waiting: int


class Row(Protocol):
    """A result row, by column position or name (:class:`sqlite3.Row`, or the PostgreSQL backend's row)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> list[str]: ...


@dataclass
class SeatRecord:
    """One seat of a match: a member (``level is None``) or the computer at ``level``."""

    seat: int
    user_id: int
    name: str
    """The name as stored: the member's display name when the match began; for the computer, its name and level
    (``Napkin Games (medium)``, with the level's English word)."""
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

    @property
    def display_name(self) -> str:
        """The name shown for this seat: a member's as stored; the computer's with its level in the language being
        spoken (:func:`i18n.speaking`: ``Napkin Games (moyen)`` in French), the words its ``level`` choice shows."""
        if self.level is None:
            return self.name
        base = self.name.removesuffix(f" ({self.level})")
        return pgettext("computer seat", "{name} ({level})").format(name=base, level=pgettext("command", self.level))


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
    no_abort: bool = False
    """The match can never be aborted, as lichess's ``NoAbort`` rule (a tournament's game: it ends with a result
    even before both sides moved, which the tournament scores as a forfeit); set when it is created."""
    stored_state: str | None = field(default=None, init=False, repr=False, compare=False)
    """:attr:`state` as the JSON text read from the database (:func:`compact_json` of it, as written), for a cache of
    decoded states to be keyed by without encoding it again; ``None`` in a record built otherwise (a
    ``dataclasses.replace`` copy leaves it out, so it can never describe another state)."""

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
    """News the bot still has to post (the one outbox: :mod:`storage.queries.outbox`).

    Attributes:
        kind: what it is, which also says what its subject is: a match's ``"result"`` or ``"reminder"``, a
            tournament's ``"round"``, ``"final"`` or ``"waiting"``, a challenge's ``"challenge_expired"``, a
            vacation's ``"vacation_over"`` (the features that post them name their kinds).
        subject_id: the match, tournament, challenge or vacation it is about.
        seq: its step in that subject (a match's ply, a tournament's round; else 0): news is queued once per kind,
            subject and step.
        guild_id: the server it is posted in (so a process serves its shards' news).
        parts_done: messages of a multi-message news already posted (a retry posts the others only).
        attempts: failed attempts so far. next_at: when it is (next) due, epoch seconds.
        status: ``"pending"``, or ``"given_up"`` when Discord refused it for good (``last_error``: what it said).
    """

    id: int
    kind: str
    subject_id: int
    seq: int
    guild_id: int
    parts_done: int
    attempts: int
    next_at: float
    created_at: float
    status: str = "pending"
    last_error: str | None = None

    @property
    def match_id(self) -> int:
        """The subject of a match's news (``result``, ``reminder``)."""
        return self.subject_id

    @property
    def ply(self) -> int:
        """The step of a match's news: the ply it was queued at."""
        return self.seq


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
    seasons: str = "off"
    """Separate standings per season: ``off``, ``monthly`` or ``quarterly`` (calendar months or quarters, UTC)."""
    puzzle_channel_id: int | None = None
    """The channel of the server's daily puzzle (``None``: no daily puzzle)."""
    puzzle_hour: int = 12
    """The hour of the day (UTC, 0–23) the daily puzzle is posted."""
    language: str | None = None
    """The language of the server's public posts (boards, news, standings), a shipped locale (``fr``, ``pt_BR``), or
    ``None``: the language Discord reports for the server."""


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
    puzzle_names: bool = False
    """They may be named under the puzzles from their matches ("from alice vs bob, move 14"), when every seat allows
    it."""


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
    updated_at: float | None = field(default=None, compare=False)
    """When the row last changed, that is the member's last game on this board (epoch seconds); ``None`` for a
    record not read from the table. Not part of a record's equality (what it holds is the rating, not when)."""


@dataclass
class TournamentRecord:
    """A stored tournament: a Swiss or a round robin of one game variant in one server's channel.

    ``status`` is ``open`` (taking entries), ``running``, ``finished`` or ``cancelled``; ``current_round`` is the
    round being played (0 before the start); ``rounds`` the planned number (a round robin's is set when it starts).
    Times are epoch seconds."""

    id: int
    guild_id: int
    channel_id: int
    name: str
    game: str
    variant: dict[str, Any]
    format: str
    rounds: int
    days_per_move: int
    max_players: int
    rated: bool
    organizer_id: int
    organizer_name: str
    status: str
    current_round: int
    starts_at: float | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    version: int = 0
    engine: str | None = None
    """The engine that paired the latest round (``dutch``, ``berger``, or the fallback, with its reason)."""


@dataclass
class TournamentEntryRecord:
    """One entrant of a tournament: a member (``level is None``) or the computer at ``level``.

    ``number`` is the starting number (entry order until the start, then by ``rating``); ``joined_round`` the first
    round they are paired in (later than 1 for a late entrant, who gets a ½-point bye for each round missed);
    ``withdrawn_round`` the first round they are no longer paired in (``None`` while in), and ``withdrawn_reason``
    why (``withdrew``, ``lost on time``); ``final_rank`` their place once the tournament finished."""

    tournament_id: int
    user_id: int
    display_name: str
    number: int
    rating: int = 0
    level: str | None = None
    joined_at: float = 0.0
    joined_round: int = 1
    withdrawn_round: int | None = None
    withdrawn_reason: str | None = None
    final_rank: int | None = None

    @property
    def is_computer(self) -> bool:
        """``True`` for the computer."""
        return self.level is not None


@dataclass
class TournamentPairingRecord:
    """One pairing of a tournament round, on its board number: a game (``kind`` ``game``, a match), a forfeit decided
    without a match (``forfeit``), a pairing-allocated bye (``bye``: one point in a Swiss, none in a round robin, whose
    odd player out sits the round out) or a late entrant's ½-point bye (``half_bye``); byes have no ``second_id``.
    Points are ``None`` until the result is in; ``played`` says whether both sides moved (an unplayed game is a
    forfeit to the tie-breaks)."""

    tournament_id: int
    round: int
    board: int
    first_id: int
    second_id: int | None
    kind: str
    match_id: int | None = None
    first_points: float | None = None
    second_points: float | None = None
    played: bool | None = None


@dataclass
class SeasonRecord:
    """A member's record in one server, game and season (``2025-03``, ``2025-Q1``): their rated games, wins, losses
    and draws in that season and their rating after the last of them (``mu``, ``sigma``), ``provisional`` then."""

    guild_id: int
    game: str
    season: str
    user_id: int
    display_name: str
    mu: float
    sigma: float
    provisional: bool
    games: int
    wins: int
    losses: int
    draws: int


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


def compact_json(value: object) -> str:
    """``value`` as the JSON text the queries store (no spaces; keys in their order)."""
    return json.dumps(value, separators=(",", ":"))


# ---------------------------------------------------------------- decoders: one per record, from either backend's row


def match_from_row(row: Row) -> MatchRecord:
    """Decode a match row with its seats (the ``seats_json`` column); a row whose JSON or seats cannot be decoded comes
    back with ``damage`` saying why (never raises for bad data, so one damaged row cannot take down a list or a pass).
    """
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
        time_given=json.loads(row["time_given"]) if row["time_given"] else None, no_abort=bool(row["no_abort"]),
    )
    for name in ("variant", "initial_state", "state"):
        if not isinstance(getattr(match, name), dict):
            raise TypeError(f"{name} is not a JSON object")
    match.seats = [SeatRecord(int(seat), int(user_id), str(name), level, pings is None or bool(pings), bool(dm),
                              None if away is None else float(away))
                   for seat, user_id, name, level, pings, dm, away in json.loads(row["seats_json"])]
    match.stored_state = row["state"]
    return match


def vacation_from_row(row: Row) -> VacationRecord:
    """Decode a row of ``vacations``."""
    return VacationRecord(row["id"], row["guild_id"], row["user_id"], row["started_at"], row["ends_by"],
                          row["ended_at"], row["days"])


def outbox_from_row(row: Row) -> OutboxRecord:
    """Decode a row of ``outbox``."""
    return OutboxRecord(row["id"], row["kind"], row["subject_id"], row["seq"], row["guild_id"], row["parts_done"],
                        row["attempts"], row["next_at"], row["created_at"], row["status"], row["last_error"])


def challenge_from_row(row: Row) -> ChallengeRecord:
    """Decode a row of ``challenges`` (its variant from JSON)."""
    return ChallengeRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], message_id=row["message_id"],
        game=row["game"], variant=json.loads(row["variant"]), challenger_id=row["challenger_id"],
        challenger_name=row["challenger_name"], opponent_id=row["opponent_id"], days_per_move=row["days_per_move"],
        status=row["status"], match_id=row["match_id"], created_at=row["created_at"], expires_at=row["expires_at"],
        challenger_seat=row["challenger_seat"],
    )


def rating_from_row(row: Row) -> RatingRecord:
    """Decode a row of ``ratings``."""
    return RatingRecord(row["guild_id"], row["game"], row["user_id"], row["display_name"], row["mu"], row["sigma"],
                        row["games"], row["wins"], row["losses"], row["draws"], row["best_vs_par"],
                        row["updated_at"] if "updated_at" in row.keys() else None)  # noqa: SIM118 - a Row, not a dict


def move_from_row(row: Row) -> MoveRecord:
    """Decode a row of ``moves``."""
    return MoveRecord(row["match_id"], row["ply"], row["seat"], row["notation"], row["created_at"])


def premove_from_row(row: Row) -> PremoveRecord:
    """Decode a row of ``premoves``."""
    return PremoveRecord(row["match_id"], row["seat"], row["ply"], row["if_move"], row["reply"], row["then_if"],
                         row["then_reply"], row["created_at"])


def tournament_from_row(row: Row) -> TournamentRecord:
    """Decode a row of ``tournaments`` (its variant from JSON)."""
    return TournamentRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"], name=row["name"], game=row["game"],
        variant=json.loads(row["variant"]), format=row["format"], rounds=row["rounds"],
        days_per_move=row["days_per_move"], max_players=row["max_players"], rated=bool(row["rated"]),
        organizer_id=row["organizer_id"], organizer_name=row["organizer_name"], status=row["status"],
        current_round=row["current_round"], starts_at=row["starts_at"], created_at=row["created_at"],
        started_at=row["started_at"], finished_at=row["finished_at"], version=row["version"], engine=row["engine"],
    )


def tournament_entry_from_row(row: Row) -> TournamentEntryRecord:
    """Decode a row of ``tournament_entries``."""
    return TournamentEntryRecord(
        tournament_id=row["tournament_id"], user_id=row["user_id"], display_name=row["display_name"],
        number=row["number"], rating=row["rating"], level=row["level"], joined_at=row["joined_at"],
        joined_round=row["joined_round"], withdrawn_round=row["withdrawn_round"],
        withdrawn_reason=row["withdrawn_reason"], final_rank=row["final_rank"],
    )


def tournament_pairing_from_row(row: Row) -> TournamentPairingRecord:
    """Decode a row of ``tournament_pairings``."""
    return TournamentPairingRecord(
        tournament_id=row["tournament_id"], round=row["round"], board=row["board"], first_id=row["first_id"],
        second_id=row["second_id"], kind=row["kind"], match_id=row["match_id"], first_points=row["first_points"],
        second_points=row["second_points"], played=None if row["played"] is None else bool(row["played"]),
    )


def season_from_row(row: Row) -> SeasonRecord:
    """Decode a row of ``season_records``."""
    return SeasonRecord(row["guild_id"], row["game"], row["season"], row["user_id"], row["display_name"], row["mu"],
                        row["sigma"], bool(row["provisional"]), row["games"], row["wins"], row["losses"],
                        row["draws"])

