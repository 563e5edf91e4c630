"""One bot process of the multi-process test: the services (:class:`bot.service.Services`) on a shared database,
driven by the test over stdin/stdout, one JSON object a line each way, with the time of every step given by the test
(the same moment in every process).

Run as ``python -m tests.reliability._multi_driver DATABASE [SHARD_COUNT SHARD_IDS]`` (``SHARD_IDS`` as
``NAPKIN_SHARD_IDS`` reads, e.g. ``0,1``). It answers ``{"ready": pid}`` once the database is open, then one line
per request:

* ``{"op": "play", "now": T, "moves": [[match, guild, user, text], ...]}`` → ``{"applied": [[match, ply, version,
  notation], ...], "refused": [error class names]}``: each move submitted through ``Services.moves.play``.
* ``{"op": "due", "now": T}`` → ``{"reminded", "forfeited", "aborted", "expired": [ids], "delivered": [[kind,
  match, ply], ...]}``: one deadline pass, then the news claimed and "delivered" (reported here, then settled) as
  the deadline task does.
* ``{"op": "resume", "now": T}`` → ``{"moves": [[match, ply, version], ...]}``: the computer turns pending in the
  database, each resumed under a claim as the deadline task does at start-up.
* ``{"op": "hold-due", "now": T}``: a deadline pass that stops for good inside its first transaction, right after
  it ended the first due match (answers ``{"holding": match}`` first), for the test to kill.
* ``{"op": "hold-news", "now": T}``: claims the due news and stops without delivering them (answers ``{"claimed":
  [[kind, match, ply], ...]}`` first), for the test to kill.
* ``{"op": "vacation", "now": T, "guild": G, "user": U, "action": "start" | "end"}`` → ``{"vacation": [id, ends_by],
  "deadlines": n}`` (or ``{"refused": name}``): the member's vacation started or ended.
* ``{"op": "accept", "now": T, "challenge": C, "guild": G, "user": U}`` → ``{"match": id}``: the challenge accepted
  by member ``U`` (or ``{"refused": name}``); with ``"then": [M, TEXT]`` member ``M`` then plays ``TEXT`` in the new
  match at once (``{"match": id, "applied": [...], "refused": [...]}`` as for ``play``).
* ``{"op": "settings", "now": T, "guild": G, "changes": {...}}`` → ``{"settings": {...}}``: a server's settings
  changed.
* ``{"op": "hold", "now": T}`` → ``{"armed": true}``: the next request's write transaction stops right before its
  commit, answers ``{"holding": true}`` and waits there (the driver goes on reading) until ``{"op": "release"}``;
  then the held request answers as usual.
* ``{"op": "end", "now": T, "match": M, "guild": G, "user": U, "at": W, "settle_at": S}`` → ``{"ended": M,
  "advanced": [tournament ids], "announced": [[round, kind], ...]}``: at the wall-clock time ``W`` (the same instant
  in every process), ``U`` resigns match ``M``; at ``S`` the end is settled as the bot's tournament task settles it
  (the next round paired, if this was the last game of one), then the due tournament news claimed and "posted"
  (reported here, then settled).
* ``{"op": "hold-pairing", "now": T, "tournament": N}``: takes the lease of the tournament's next round and stops
  before writing it (answers ``{"holding": round}`` first), for the test to kill.

Any other request may carry ``"at": W``: it is then run at the wall-clock time ``W`` (the same instant in every
process), so that two processes race for real rather than one after the other; and ``"linger": S``: its first write
transaction stays open ``S`` seconds more before its commit, its locks held (a process slowed down by its machine).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bot.config import parse_shard_ids
from bot.service import Player, ServiceError, Services, finisher
from games import RulesError
from storage import Database, MatchRecord, Shards, Tx
from tests.reliability._support import Clock

COMPUTER_ID = 999


def _say(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def _hold_forever() -> None:
    threading.Event().wait()


async def _play(services: Services, moves: list[list[Any]]) -> dict[str, Any]:
    applied, refused = [], []
    for match_id, guild_id, user_id, text in moves:
        try:
            result = await services.moves.play(match_id, guild_id, user_id, text)
        except (ServiceError, RulesError) as error:
            refused.append(type(error).__name__)
            continue
        applied.append([match_id, result.match.ply, result.match.version, result.notation])
    return {"applied": applied, "refused": refused}


async def _deliver(services: Services) -> list[list[Any]]:
    delivered = []
    while True:
        batch = await services.outbox.claim()
        for news in batch:
            delivered.append([news.kind, news.match_id, news.ply])
            await services.outbox.done(news)
        if not batch:
            return delivered


async def _due(services: Services) -> dict[str, Any]:
    work = await services.deadlines.process_due()
    return {"reminded": [m.id for m in work.reminded], "forfeited": [m.id for m in work.forfeited],
            "aborted": [m.id for m in work.aborted], "expired": [c.id for c in work.expired],
            "delivered": await _deliver(services)}


async def _resume(services: Services) -> dict[str, Any]:
    moves = []
    for match_id in await services.computer_turns.waiting():
        if not await services.computer_turns.claim(match_id):
            continue
        try:
            moves += [[match_id, r.match.ply, r.match.version] for r in await services.moves.computer_replies(match_id)]
        finally:
            await services.computer_turns.release(match_id)
    return {"moves": moves}


async def _end(services: Services, request: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(max(0.0, float(request["at"]) - time.time()))
    await services.endings.resign(int(request["match"]), int(request["guild"]), int(request["user"]))
    rounds = services.tournament_rounds
    await asyncio.sleep(max(0.0, float(request["settle_at"]) - time.time()))
    advanced = await rounds.settle_pending()
    announced = []
    outbox = services.outbox
    while batch := await outbox.claim():
        for news in batch:
            announced.append([news.seq, news.kind])
            await outbox.done(news)
    return {"ended": request["match"], "advanced": advanced, "announced": announced}


async def _hold_pairing(services: Services, tournament_id: int) -> None:
    rounds = services.tournament_rounds
    director = rounds.director
    original = director._store

    async def hold(step: Any, result: Any) -> Any:  # the pairing is computed, under the lease: stop before writing
        _say({"holding": step.round_number})
        await asyncio.get_running_loop().run_in_executor(None, _hold_forever)
        return await original(step, result)

    director._store = hold  # type: ignore[method-assign]
    await rounds.advance(tournament_id)


async def _hold_due(services: Services) -> None:
    original = finisher.time_is_up

    def ended_then_hold(tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
        ended = original(tx, match, now, queue=queue)  # written, not committed: the transaction stays open
        _say({"holding": match.id})
        _hold_forever()
        return ended

    finisher.time_is_up = ended_then_hold
    await services.deadlines.process_due()


async def _vacation(services: Services, request: dict[str, Any]) -> dict[str, Any]:
    vacations = services.vacations
    try:
        if request["action"] == "start":
            vacation, changed = await vacations.start(request["guild"], request["user"])
        else:
            vacation, changed, _ = await vacations.end(request["guild"], request["user"])
    except ServiceError as error:
        return {"refused": type(error).__name__}
    return {"vacation": [vacation.id, vacation.ends_by], "deadlines": changed}


async def _accept(services: Services, request: dict[str, Any]) -> dict[str, Any]:
    accepter = Player(request["user"], f"member {request['user']}")
    try:
        result = await services.challenges.accept(request["challenge"], request["guild"], accepter)
    except ServiceError as error:
        return {"refused": type(error).__name__}
    if "then" not in request:
        return {"match": result.match.id}
    mover, text = request["then"]
    return {"match": result.match.id, **await _play(services, [[result.match.id, request["guild"], mover, text]])}


async def _settings(services: Services, request: dict[str, Any]) -> dict[str, Any]:
    changed = await services.settings.update(request["guild"], **request["changes"])
    return {"settings": dataclasses.asdict(changed)}


def _linger_next_write(db: Database, seconds: float) -> None:
    """Make the next write of ``db`` wait ``seconds`` right before its commit."""
    real = db.write

    async def write(body: Any, *args: Any, **kwargs: Any) -> Any:
        db.write = real  # type: ignore[method-assign]  # only this once

        def lingering(tx: Tx, *inner: Any, **named: Any) -> Any:
            result = body(tx, *inner, **named)
            time.sleep(seconds)
            return result

        return await real(lingering, *args, **kwargs)

    db.write = write  # type: ignore[method-assign]


def _hold_next_write(db: Database, gate: threading.Event) -> None:
    """Make the next write of ``db`` stop right before its commit until ``gate`` is set."""
    real = db.write

    async def write(body: Any, *args: Any, **kwargs: Any) -> Any:
        db.write = real  # type: ignore[method-assign]  # only this once

        def held(tx: Tx, *inner: Any, **named: Any) -> Any:
            result = body(tx, *inner, **named)
            _say({"holding": True})
            gate.wait()
            return result

        return await real(held, *args, **kwargs)

    db.write = write  # type: ignore[method-assign]


async def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.getLogger("bot.service").setLevel(logging.INFO)  # a match left for the next pass says why
    shards = Shards(int(argv[1]), parse_shard_ids(argv[2])) if len(argv) > 2 else None
    db = await Database.open(argv[0])
    clock = Clock()
    services = Services(db, computer_id=COMPUTER_ID, clock=clock, shards=shards)
    _say({"ready": os.getpid()})
    loop = asyncio.get_running_loop()
    gate: threading.Event | None = None
    held: set[asyncio.Task[None]] = set()

    replies: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {
        "play": lambda request: _play(services, request["moves"]),
        "due": lambda request: _due(services),
        "resume": lambda request: _resume(services),
        "vacation": lambda request: _vacation(services, request),
        "accept": lambda request: _accept(services, request),
        "settings": lambda request: _settings(services, request),
        "end": lambda request: _end(services, request),
    }

    async def answer(op: str, request: dict[str, Any]) -> None:
        if "at" in request and op != "end":  # (``end`` has two instants of its own)
            await asyncio.sleep(max(0.0, float(request["at"]) - time.time()))
        if "linger" in request:
            _linger_next_write(db, float(request["linger"]))
        if op in replies:
            _say(await replies[op](request))
        elif op == "hold-pairing":
            await _hold_pairing(services, int(request["tournament"]))
        elif op == "hold-due":
            await _hold_due(services)
        elif op == "hold-news":
            claimed = await services.outbox.claim()
            _say({"claimed": [[news.kind, news.match_id, news.ply] for news in claimed]})
            await loop.run_in_executor(None, _hold_forever)
        else:
            _say({"error": f"unknown op {op}"})

    try:
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            clock.now = float(request["now"])
            op = request["op"]
            if op == "hold":
                gate = threading.Event()
                _hold_next_write(db, gate)
                _say({"armed": True})
            elif op == "release":
                assert gate is not None
                gate.set()
                gate = None
                await asyncio.gather(*held)
                held.clear()
            elif gate is not None:  # runs while the driver reads on, up to its commit (then waits for the gate)
                held.add(asyncio.create_task(answer(op, request)))
            else:
                await answer(op, request)
    finally:
        await db.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
