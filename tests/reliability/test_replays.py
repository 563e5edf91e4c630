"""GIF replays under load: one built at a time per process in order of arrival, every ``/match history`` answered
at once with where it stands ("2 replays ahead of yours"), a line of bounded length with a polite refusal beyond it.

The line itself (:class:`bot.utils.queues.Line`) is driven with plain asyncio tasks; the command through the real bot
under SimCord, with every request reaching discord.py before it handles any (:func:`_support.burst`).
"""

from __future__ import annotations

import asyncio
import io
import re
import threading
import time
from typing import Any

import pytest
from PIL import Image

import renderers
from bot.client import NapkinBot
from bot.service import LimitReached
from bot.utils import queues
from storage import Database
from tests.reliability._support import World, burst, ephemeral_refusal, start_discord_match


async def _wait_in(line: queues.Line, member: int, log: list[tuple[str, int]], hold: asyncio.Event) -> list[int]:
    """Join ``line`` as ``member``, wait for the turn (collecting the positions told), run until ``hold`` is set."""
    told = []
    with line.join(member) as place:
        async for ahead in place.turns():
            told.append(ahead)
        log.append(("start", member))
        await hold.wait()
        log.append(("end", member))
    return told


async def _settle() -> None:
    """Let every task that can run, run (a few turns of the event loop)."""
    for _ in range(10):
        await asyncio.sleep(0)


async def test_replays_are_built_one_at_a_time_in_order_of_arrival() -> None:
    line = queues.replay_queue()
    log: list[tuple[str, int]] = []
    holds = [asyncio.Event() for _ in range(queues.REPLAY_LINE)]
    tasks = [asyncio.create_task(_wait_in(line, member, log, holds[member])) for member in range(len(holds))]
    await _settle()
    assert line.running == queues.REPLAY_SLOTS == 1 and line.waiting == len(holds) - 1
    for member in range(len(holds) - 1, 0, -1):  # the later ones ready first: they still wait their turn
        holds[member].set()
    await _settle()
    assert log == [("start", 0)]
    holds[0].set()
    await asyncio.gather(*tasks)
    assert log == [(event, member) for member in range(len(holds)) for event in ("start", "end")]
    assert line.running == line.waiting == 0


async def test_a_waiting_member_is_told_the_place_as_it_moves() -> None:
    line = queues.replay_queue()
    log: list[tuple[str, int]] = []
    holds = [asyncio.Event() for _ in range(queues.REPLAY_LINE)]
    tasks = [asyncio.create_task(_wait_in(line, member, log, holds[member])) for member in range(len(holds))]
    await _settle()
    for hold in holds:  # each replay finishing moves everyone behind it up by one
        hold.set()
        await _settle()
    told = await asyncio.gather(*tasks)
    assert told == [list(range(member, 0, -1)) for member in range(len(holds))]  # ..., 2 ahead, next, then it runs


async def test_a_full_line_refuses_politely_and_changes_nothing() -> None:
    line = queues.replay_queue()
    places = [line.join(member) for member in range(queues.REPLAY_LINE)]
    with pytest.raises(LimitReached, match=r"^Sorry, the bot is busy making 6 replays right now; please try again"):
        line.join(99)
    assert (line.running, line.waiting) == (1, queues.REPLAY_LINE - 1)
    assert [place.ahead for place in places] == list(range(queues.REPLAY_LINE))
    places[0].leave()
    places[0].leave()  # leaving twice is harmless
    with line.join(99) as late:
        assert late.ahead == queues.REPLAY_LINE - 1 and places[1].ahead == 0


async def test_a_cancelled_wait_leaves_the_line() -> None:
    line = queues.replay_queue()
    first = line.join(1)
    log: list[tuple[str, int]] = []
    waiting = asyncio.create_task(_wait_in(line, 2, log, asyncio.Event()))
    await _settle()
    third = line.join(3)
    assert third.ahead == 2
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert third.ahead == 1 and line.waiting == 1 and log == []
    first.leave()
    assert third.ahead == 0


def _note_position(text: str) -> int | None:
    if "is next: one replay is being made first" in text:
        return 1
    found = re.search(r"is queued: (\d+) replays ahead of yours", text)
    return int(found.group(1)) if found else None


async def test_history_requests_at_once_are_answered_at_once_and_built_one_by_one(
        simcord_env: Any, simcord_bot: NapkinBot, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seven members ask for the replay of a match at once, the line holding six: every one of them is answered
    before any replay is built (six deferred, the seventh refused), the six replays are built one after the other,
    and each waiting member reads their place, counting down to "next", before the replay replaces it."""
    members = [f"m{i}" for i in range(queues.REPLAY_LINE + 1)]
    world = World(simcord_env, "alice", "bob", *members)
    match_id = await start_discord_match(world, db, "chopsticks")
    thread = world.thread()
    for actor, move in ((world["alice"], "LL"), (world["bob"], "LL"), (world["alice"], "RR")):
        await actor.slash(thread, "chopsticks move", notation=move)

    def callbacks() -> list[Any]:
        return [e for e in simcord_env.http_requests if e.path.endswith("/callback") and isinstance(e.json, dict)]

    answered_before_build: list[int] = []
    running = peak = 0
    guard = threading.Lock()
    real = renderers.render_replay

    def slow(*args: Any, **kwargs: Any) -> bytes:
        nonlocal running, peak
        with guard:
            running += 1
            peak = max(peak, running)
        deadline = time.monotonic() + 20
        while len(callbacks()) < start + len(members) and time.monotonic() < deadline:  # everyone answered first
            time.sleep(0.005)
        answered_before_build.append(len(callbacks()) - start)
        try:
            return real(*args, **kwargs)
        finally:
            with guard:
                running -= 1

    monkeypatch.setattr(renderers, "render_replay", slow)
    start = len(callbacks())
    since = len(simcord_env.http_requests)
    results = []
    async with burst(simcord_env):
        for name in members:
            results.append(await world[name].slash(thread, "match history"))

    assert all(result.acknowledged for result in results)
    refused = [result for result in results if result.ephemeral]
    assert len(refused) == 1
    assert "busy making 6 replays" in ephemeral_refusal(refused[0])
    served = [result for result in results if not result.ephemeral]
    assert len(served) == queues.REPLAY_LINE
    for result in served:
        assert result.response.content.startswith(f"**Chopsticks** · match #{match_id}\n1. LL 2. LL 3. RR")
        files = {a.filename: await a.read() for a in result.response.attachments}
        gif = next(a for a in result.response.attachments if a.filename.endswith(".gif"))
        assert gif.description.startswith("Animated replay of Chopsticks: 4 positions from the start to move 3, ")
        assert "Chopsticks board, move 3." in gif.description and len(gif.description) <= 1024
        assert Image.open(io.BytesIO(files[f"match-{match_id}.gif"])).n_frames == 4
    assert peak == 1 and answered_before_build == [len(members)] * queues.REPLAY_LINE

    # Each member's first answer was the deferral (or the refusal), never a wait; then the notes, per token.
    first_kinds = [e.json["type"] for e in callbacks()[start:]]
    assert sorted(first_kinds) == [4] + [5] * queues.REPLAY_LINE
    notes: dict[str, list[int]] = {}
    for entry in simcord_env.http_requests[since:]:
        if entry.method == "PATCH" and entry.path.endswith("/messages/@original") and isinstance(entry.json, dict):
            position = _note_position(entry.json.get("content") or "")
            if position is not None:
                notes.setdefault(entry.path.split("/")[3], []).append(position)
    assert sorted(told[0] for told in notes.values()) == list(range(1, queues.REPLAY_LINE))
    for told in notes.values():
        assert told == sorted(told, reverse=True) and len(set(told)) == len(told) and told[-1] == 1, told
    assert not any(_note_position(result.response.content) for result in served)  # the replay replaced the note
