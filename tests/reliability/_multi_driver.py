"""One bot process of the multi-process test: a :class:`bot.service.MatchService` on a shared database, driven by
the test over stdin/stdout, one JSON object a line each way, with the time of every step given by the test (the
same moment in every process).

Run as ``python -m tests.reliability._multi_driver DATABASE [SHARD_COUNT SHARD_IDS]`` (``SHARD_IDS`` as
``NAPKIN_SHARD_IDS`` reads, e.g. ``0,1``). It answers ``{"ready": pid}`` once the database is open, then one line
per request:

* ``{"op": "play", "now": T, "moves": [[match, guild, user, text], ...]}`` → ``{"applied": [[match, ply, version,
  notation], ...], "refused": [error class names]}``: each move submitted through :meth:`MatchService.play`.
* ``{"op": "due", "now": T}`` → ``{"reminded", "forfeited", "aborted", "expired": [ids], "delivered": [[kind,
  match, ply], ...]}``: one deadline pass, then the news claimed and "delivered" (reported here, then settled) as
  the deadline task does.
* ``{"op": "resume", "now": T}`` → ``{"moves": [[match, ply, version], ...]}``: the computer turns pending in the
  database, each resumed under a claim as the deadline task does at start-up.
* ``{"op": "hold-due", "now": T}``: a deadline pass that stops for good inside its first transaction, right after
  it ended the first due match (answers ``{"holding": match}`` first), for the test to kill.
* ``{"op": "hold-news", "now": T}``: claims the due news and stops without delivering them (answers ``{"claimed":
  [[kind, match, ply], ...]}`` first), for the test to kill.
* ``{"op": "end", "now": T, "match": M, "guild": G, "user": U, "at": W, "settle_at": S}`` → ``{"ended": M,
  "advanced": [tournament ids], "announced": [[round, kind], ...]}``: at the wall-clock time ``W`` (the same instant
  in every process), ``U`` resigns match ``M``; at ``S`` the end is settled as the bot's tournament task settles it
  (the next round paired, if this was the last game of one), then the due tournament news claimed and "posted"
  (reported here, then settled).
* ``{"op": "hold-pairing", "now": T, "tournament": N}``: takes the lease of the tournament's next round and stops
  before writing it (answers ``{"holding": round}`` first), for the test to kill.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
import time
from typing import Any

from bot.config import parse_shard_ids
from bot.service import MatchService, ServiceError, finisher
from games import RulesError
from storage import Database, MatchRecord, Shards, Tx
from tests.reliability._support import Clock

COMPUTER_ID = 999


def _say(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


def _hold_forever() -> None:
    threading.Event().wait()


async def _play(service: MatchService, moves: list[list[Any]]) -> dict[str, Any]:
    applied, refused = [], []
    for match_id, guild_id, user_id, text in moves:
        try:
            result = await service.play(match_id, guild_id, user_id, text)
        except (ServiceError, RulesError) as error:
            refused.append(type(error).__name__)
            continue
        applied.append([match_id, result.match.ply, result.match.version, result.notation])
    return {"applied": applied, "refused": refused}


async def _deliver(service: MatchService) -> list[list[Any]]:
    delivered = []
    while True:
        batch = await service.claim_news()
        for news in batch:
            delivered.append([news.kind, news.match_id, news.ply])
            await service.news_done(news)
        if not batch:
            return delivered


async def _due(service: MatchService) -> dict[str, Any]:
    work = await service.process_due()
    return {"reminded": [m.id for m in work.reminded], "forfeited": [m.id for m in work.forfeited],
            "aborted": [m.id for m in work.aborted], "expired": [c.id for c in work.expired],
            "delivered": await _deliver(service)}


async def _resume(service: MatchService) -> dict[str, Any]:
    moves = []
    for match_id in await service.computer_turns():
        if not await service.claim_computer_turn(match_id):
            continue
        try:
            moves += [[match_id, r.match.ply, r.match.version] for r in await service.computer_replies(match_id)]
        finally:
            await service.release_computer_turn(match_id)
    return {"moves": moves}


async def _end(service: MatchService, request: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(max(0.0, float(request["at"]) - time.time()))
    await service.resign(int(request["match"]), int(request["guild"]), int(request["user"]))
    rounds = service.services.tournament_rounds
    await asyncio.sleep(max(0.0, float(request["settle_at"]) - time.time()))
    advanced = await rounds.settle_pending()
    announced = []
    while batch := await rounds.claim_news():
        for news in batch:
            announced.append([news.round, news.kind])
            await rounds.news_done(news)
    return {"ended": request["match"], "advanced": advanced, "announced": announced}


async def _hold_pairing(service: MatchService, tournament_id: int) -> None:
    rounds = service.services.tournament_rounds
    original = rounds._write_round

    async def hold(step: Any, result: Any) -> bool:  # the pairing is computed, under the lease: stop before writing
        _say({"holding": step.round_number})
        await asyncio.get_running_loop().run_in_executor(None, _hold_forever)
        return await original(step, result)

    rounds._write_round = hold  # type: ignore[method-assign]
    await rounds.advance(tournament_id)


async def _hold_due(service: MatchService) -> None:
    original = finisher.time_is_up

    def ended_then_hold(tx: Tx, match: MatchRecord, now: float, *, queue: bool = True) -> MatchRecord:
        ended = original(tx, match, now, queue=queue)  # written, not committed: the transaction stays open
        _say({"holding": match.id})
        _hold_forever()
        return ended

    finisher.time_is_up = ended_then_hold
    await service.process_due()


async def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.getLogger("bot.service").setLevel(logging.INFO)  # a match left for the next pass says why
    shards = Shards(int(argv[1]), parse_shard_ids(argv[2])) if len(argv) > 2 else None
    db = await Database.open(argv[0])
    clock = Clock()
    service = MatchService(db, computer_id=COMPUTER_ID, clock=clock, shards=shards)
    _say({"ready": os.getpid()})
    loop = asyncio.get_running_loop()
    try:
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            request = json.loads(line)
            clock.now = float(request["now"])
            op = request["op"]
            if op == "play":
                _say(await _play(service, request["moves"]))
            elif op == "due":
                _say(await _due(service))
            elif op == "resume":
                _say(await _resume(service))
            elif op == "hold-due":
                await _hold_due(service)
            elif op == "end":
                _say(await _end(service, request))
            elif op == "hold-pairing":
                await _hold_pairing(service, int(request["tournament"]))
            elif op == "hold-news":
                claimed = await service.claim_news()
                _say({"claimed": [[news.kind, news.match_id, news.ply] for news in claimed]})
                await loop.run_in_executor(None, _hold_forever)
            else:
                _say({"error": f"unknown op {op}"})
    finally:
        await db.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
