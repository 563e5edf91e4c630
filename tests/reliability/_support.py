"""Shared helpers of the reliability tests: every game's match set-up, whole-database snapshots, the
log/state consistency check, the mention audit of every request the bot made, and a burst of interactions
that reach the bot before it handles any of them."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
from collections.abc import Iterable, Iterator
from typing import Any

from discord import app_commands

import renderers
from bench._harness import World, burst, command_for, delivered_at_once
from bot.errors import GENERIC as GENERIC_TEXT
from bot.service import Player, ServiceError, Services, load_state, ratings, replay
from games import GAMES, RulesError, State
from storage import Database, MatchRecord, ReadTx, Tx
from storage.transfer import table_selects

GENERIC = str(GENERIC_TEXT)  # the English reply (the tests' members read English)

GAME_KEYS: tuple[str, ...] = tuple(GAMES)
"""Every registered game (the tests' extra games included: see tests/conftest.py)."""

__all__ = [  # re-exported for the test modules
    "GAME_KEYS",
    "Clock",
    "World",
    "assert_consistent",
    "assert_no_mention_escapes",
    "assert_ratings_match_results",
    "burst",
    "command_for",
    "delivered_at_once",
    "edit_rows",
    "ephemeral_refusal",
    "full_snapshot",
    "hands_over_turn",
    "is_domain_error",
    "legal_texts",
    "match_of",
    "quick_settle",
    "require_game",
    "service_match",
    "shuffled",
    "solitaire_variant",
    "start_command",
    "start_discord_match",
]


def solitaire_variant(game: str) -> dict[str, Any] | None:
    """A solitaire variant of ``game`` (from its demo matches), or ``None`` when the game has none."""
    declared = GAMES[game]
    return next((dict(demo.variant) for demo in declared.demo if declared.seats_for(demo.variant) == 1), None)


def require_game(game: str, *, renderer: bool = True) -> None:
    """Fail the calling test unless ``game`` is registered (and, when the test posts boards, its renderer
    imports)."""
    assert game in GAMES, f"{game} is not a registered game"
    if renderer:
        renderers.renderer_for(game)


def is_domain_error(error: BaseException) -> bool:
    """The refusals the bot answers on purpose: those of tests/conftest.py, and an option discord.py could not
    convert (a user who is not a member of the server, for a member option)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return isinstance(error, ServiceError | RulesError | app_commands.CheckFailure | app_commands.TransformerError
                      | app_commands.CommandNotFound | app_commands.CommandSignatureMismatch)


# ---------------------------------------------------------------- the database


_selects: dict[str, dict[str, str]] = {}


async def full_snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (settings and meta included; the tables read from the database's catalogue once),
    as committed, to prove that a refused action changed nothing. Either backend. ``seen_locales`` is left out: it
    records the language Discord reported with an interaction, refused or not (what the member sent, not what the
    action changed)."""
    if db.path not in _selects:
        _selects[db.path] = await asyncio.to_thread(table_selects, db.path)
    selects = {table: sql for table, sql in _selects[db.path].items() if table != "seen_locales"}
    assert {"matches", "moves", "seats", "challenges", "ratings", "guild_settings", "meta"} <= set(selects)

    def body(tx: ReadTx) -> dict[str, list[tuple[Any, ...]]]:
        return {table: [tuple(row) for row in tx._conn.execute(sql).fetchall()] for table, sql in selects.items()}

    return await db.read(body)


async def edit_rows(db: Database, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Change stored rows behind the service's back, the way a hand edit, a bad restore or an old bug would: one
    statement (``?`` placeholders, the same text on either backend) in one committed transaction."""
    def body(tx: Tx) -> None:
        tx._conn.execute(sql, params)

    await db.write(body)


async def match_of(db: Database, match_id: int) -> MatchRecord:
    """The stored match (fails if missing)."""
    match = await db.read(ReadTx.get_match, match_id)
    assert match is not None, match_id
    return match


async def assert_consistent(db: Database, match_id: int) -> list[State]:
    """Check one match against its log: one move per ply, plies 1..n, ``matches.ply == n``, every logged move
    made by the seat whose turn it was, the replay reproducing the stored state, whose turn and the scores,
    and a finished-by-the-rules outcome equal to the replay's. Returns the replayed states."""
    match = await match_of(db, match_id)
    moves = await db.read(ReadTx.get_moves, match_id)
    assert [m.ply for m in moves] == list(range(1, len(moves) + 1)), f"match {match_id}: gaps or duplicate plies"
    assert match.ply == len(moves), f"match {match_id}: ply {match.ply} but {len(moves)} logged moves"
    assert match.version >= match.ply
    states = replay(match, moves)
    for move, before in zip(moves, states[:-1], strict=True):
        assert move.seat == before.current_seat, f"match {match_id} ply {move.ply}: played out of turn"
    final = states[-1]
    assert final.to_dict() == match.state, f"match {match_id}: stored state differs from the replay of its log"
    assert load_state(match).to_dict() == final.to_dict()
    if match.status == "active":
        assert final.outcome is None
        assert match.current_seat == final.current_seat
    elif match.status == "aborted":
        assert match.current_seat is None and match.outcome is not None
        assert match.outcome["termination"] == "aborted" and match.outcome["winner"] is None
    else:
        assert match.status == "finished" and match.current_seat is None and match.outcome is not None
        if final.outcome is not None:  # ended by the rules (not by resignation, draw, forfeit or abort)
            assert match.outcome == final.outcome.to_dict()
        elif match.status == "finished":
            scores = final.scores
            assert match.outcome["scores"] == (list(scores) if scores is not None else None)
    return states


async def assert_ratings_match_results(db: Database, guild_id: int) -> None:
    """Every finished rated match is counted exactly once in each of its human players' records (the result and
    the ratings are written in the transaction that ends the match)."""
    expected: dict[tuple[str, int], int] = {}
    for row in await db.fetchall("SELECT id FROM matches WHERE guild_id = ? AND status = 'finished' AND rated = 1",
                                 (guild_id,)):
        match = await match_of(db, row[0])
        for seat in match.seats:
            if not seat.is_computer:
                key = (ratings.board_key(match.game, solitaire=len(match.seats) == 1), seat.user_id)
                expected[key] = expected.get(key, 0) + 1
    found = {(r[0], r[1]): r[2] for r in await db.fetchall(
        "SELECT game, user_id, games FROM ratings WHERE guild_id = ?", (guild_id,))}
    assert found == expected


# ---------------------------------------------------------------- moves


def legal_texts(state: State, limit: int = 40) -> list[str]:
    """Up to ``limit`` legal moves of ``state`` in canonical notation."""
    return [state.format_move(m) for m in list(state.legal_moves())[:limit]]


def hands_over_turn(state: State, text: str) -> bool:
    """``True`` when playing ``text`` passes the turn to the other seat (or ends the game)."""
    after = state.play(text)
    return after.current_seat != state.current_seat


# ---------------------------------------------------------------- starting matches


async def service_match(services: Services, game: str, guild_id: int, players: tuple[Player, Player],
                        channel_id: int = 1, days: int | None = None) -> MatchRecord:
    """A two-seat match of ``game`` (default variant, ``days`` per move or the server's) started through the
    service: challenge, then accept."""
    challenge = await services.challenges.create(guild_id=guild_id, channel_id=channel_id, game=game, variant={},
                                                 challenger=players[0], opponent=players[1], days_per_move=days)
    return (await services.challenges.accept(challenge.id, guild_id, players[1])).match


class Clock:
    """A settable epoch clock for the service (``clock.now`` in epoch seconds)."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def start_discord_match(world: World, db: Database, game: str, challenger: str = "alice",
                              accepter: str = "bob", **options: Any) -> int:
    """Challenge and accept through Discord; return the new match's id (the newest in the database)."""
    result = await world[challenger].slash(world.channel, start_command(game), opponent=world[accepter], **options)
    assert not result.ephemeral, result.response.content
    accepted = await world[accepter].click(result.response, label="Accept")
    assert "Accepted by" in accepted.response.content
    return max(await db.read(ReadTx.all_match_ids))


def start_command(game: str) -> str:
    """The slash command that starts ``game``."""
    return f"{GAMES[game].command} start"


# ---------------------------------------------------------------- Discord


def _message_payloads(entry: Any) -> Iterable[dict[str, Any]]:
    body = entry.json
    if not isinstance(body, dict):
        return []
    if entry.path.startswith("/interactions/"):
        data = body.get("data")
        return [data] if isinstance(data, dict) and body.get("type") in (4, 7) else []
    if entry.method in ("POST", "PATCH") and ("/messages" in entry.path or entry.path.startswith("/webhooks/")):
        return [body]
    return []


def assert_no_mention_escapes(env: Any, players: Iterable[int], since: int = 0) -> int:
    """Every message the bot sent or edited (channel messages, interaction responses, follow-ups) since
    request ``since`` restricts pings: no @everyone/@here, no roles, no blanket user pings, and explicitly
    allowed users are players only. Returns the number of messages audited."""
    allowed = set(players)
    audited = 0
    for entry in env.http_requests[since:]:
        for payload in _message_payloads(entry):
            if "content" not in payload and "embeds" not in payload:
                continue
            audited += 1
            mentions = payload.get("allowed_mentions")
            assert mentions is not None, f"{entry.method} {entry.path} sends text without allowed_mentions"
            parse = set(mentions.get("parse", []))
            assert not parse & {"everyone", "roles", "users"}, (entry.path, mentions)
            assert not mentions.get("roles"), (entry.path, mentions)
            users = {int(u) for u in mentions.get("users", [])}
            assert users <= allowed, f"{entry.path} may ping non-players {users - allowed}"
    return audited


@contextlib.contextmanager
def quick_settle(env: Any, idle: float = 0.001) -> Iterator[None]:
    """Let SimCord poll for the bot's pending work every millisecond instead of every 50 ms. Settling still waits
    until the bot is idle; this only stops a reply that needed no I/O from costing a 50 ms sleep (the private
    settle step is the one ``burst`` swaps too)."""
    real = env._settle_internal
    env._settle_internal = functools.partial(real, idle=idle)
    try:
        yield
    finally:
        env._settle_internal = real


def ephemeral_refusal(result: Any) -> str:
    """The text of an ephemeral refusal (fails for a public reply or the generic crash message)."""
    assert result.acknowledged, "interaction left unanswered"
    assert result.ephemeral, result.response.content if result.response else "no response"
    text = result.response.content
    assert text and text != GENERIC, "the bot crashed instead of refusing"
    return text


def shuffled(items: list[Any], seed: int) -> list[Any]:
    """A copy of ``items`` in a seeded random order."""
    copy = list(items)
    random.Random(seed).shuffle(copy)
    return copy
