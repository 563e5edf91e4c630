"""The computer's answer to a member under load: fair and fast.

A member plays Chopsticks against the ``hard`` computer through SimCord (the real bot, its real worker processes: 2,
as on a 2-CPU machine); each sample is one of the member's moves, from the interaction to the board with the
computer's answer posted. Three cases, 60 answers each:

- idle;
- with 4 ``hard`` Polygons searches running (lattice 30, 10 dots, as in ``bench_scale``), each of another server,
  each asked again as soon as it is answered;
- the same, plus 2 ``/match review`` s of a long finished Napkin Chess match (two servers), each started again as
  soon as it is made: every review must still finish.

Target on 2 CPUs: p50 <= 150 ms and p99 <= 400 ms in both loaded cases; reported as ratios to idle. The machine's
load average is in the notes: the figures are wall times, and a shared machine slows everything in them.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._harness import World
from bench._timing import Row, percentile, percentile_rows, value_row
from games import GAMES, State

ANSWERS = 60
SEARCHES = 4
REVIEWS = 2
WORKERS = 2
SEARCH_VARIANT = {"size": 30, "dots": 10}
MEMBERS = ("ann", "ben", "cat", "dan", "eve", "fay")
"""The member who plays takes turns among these names for each new match (a member may start 10 a minute)."""


def _long_match() -> tuple[dict[str, Any], list[str]]:
    game = GAMES["napkin_chess"]
    rng = random.Random(8)
    state: State[Any] = game.new_state({}, random.Random(8))
    start, notations = state.to_dict(), []
    while not state.is_over and len(notations) < 60:
        move = game.computer_move(state, "medium" if len(notations) % 2 else "easy", rng)
        notations.append(state.format_move(move))
        state = state.apply(move)
    return start, notations


async def _answers(world: World, db: Any, count: int, first: int) -> list[float]:
    """``count`` of the computer's answers to members' Chopsticks moves, timed (ms)."""
    from bot.service import load_state
    from storage import ReadTx

    samples: list[float] = []
    rng = random.Random(first)
    number = first
    while len(samples) < count:
        member = world[MEMBERS[number % len(MEMBERS)]]
        number += 1
        started = await member.slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="hard")
        if started.ephemeral:
            raise RuntimeError(f"start refused: {started.response.content}")
        match_id = max(await db.read(ReadTx.all_match_ids))
        thread = world.thread()
        while len(samples) < count:
            match = await db.read(ReadTx.get_match, match_id)
            if match is None or match.status != "active":
                break
            state = load_state(match)
            notation = state.format_move(GAMES["chopsticks"].computer_move(state, "easy", rng))
            began = time.perf_counter()
            result = await member.slash(thread, "chopsticks move", notation=notation)
            samples.append((time.perf_counter() - began) * 1000)
            if result.ephemeral:
                raise RuntimeError(f"{notation} refused: {result.response.content}")
            answered = await db.read(ReadTx.get_match, match_id)
            if answered is not None and answered.status == "active" and answered.ply != match.ply + 2:
                raise RuntimeError("the computer did not answer within the interaction")
    return samples


async def _searching(bot: Any, stop: asyncio.Event) -> list[asyncio.Task[None]]:
    """The searches, each asked again as soon as it is answered; returns once each was answered once (the load is
    under way, as it is on a bot that has been running)."""
    state = GAMES["polygons"].new_state(SEARCH_VARIANT).to_dict()
    answered = [asyncio.Event() for _ in range(SEARCHES)]

    async def loop(number: int) -> None:
        round_ = 0
        while not stop.is_set():
            await bot.computer.move("polygons", state, "hard", f"bench:{number}:{round_}", server=100 + number)
            answered[number].set()
            round_ += 1

    tasks = [asyncio.create_task(loop(number)) for number in range(SEARCHES)]
    for event in answered:
        await event.wait()
    return tasks


async def _reviewing(bot: Any, stop: asyncio.Event, made: list[float]) -> list[asyncio.Task[None]]:
    from bot.service.reviews import review_match

    start, notations = _long_match()

    async def loop(number: int) -> None:
        while not stop.is_set():
            began = time.perf_counter()
            async with bot.computer.long_work(server=200 + number) as job:
                review = await review_match(job, "napkin_chess", start, notations, seed=f"bench:{number}")
            if len(review.moves) != len(notations):
                raise RuntimeError("a review lost moves")
            made.append(time.perf_counter() - began)

    return [asyncio.create_task(loop(number)) for number in range(REVIEWS)]


async def _session(db_path: Path) -> dict[str, Any]:
    import simcord

    from bot.client import NapkinBot
    from storage import Database

    db = await Database.open(db_path)
    out: dict[str, Any] = {"load": [os.getloadavg()[0]]}
    try:
        bot = NapkinBot(db, computer_workers=WORKERS)
        async with simcord.run(bot) as env:
            world = World(env, *MEMBERS)
            await _answers(world, db, 5, 0)  # both workers started, the costs of the moves learnt
            out["idle"] = await _answers(world, db, ANSWERS, 1000)
            for case, reviews in (("searches", False), ("searches and reviews", True)):
                stop = asyncio.Event()
                made: list[float] = []
                tasks = await _searching(bot, stop)
                if reviews:
                    tasks += await _reviewing(bot, stop, made)
                await asyncio.sleep(0.5)
                out[case] = await _answers(world, db, ANSWERS, 2000 + len(out))
                out["load"].append(os.getloadavg()[0])
                if reviews:
                    for _ in range(3000):  # every review still finishes (within five minutes)
                        if len(made) >= REVIEWS:
                            break
                        await asyncio.sleep(0.1)
                    out["reviews"] = list(made)
                stop.set()
                await asyncio.gather(*tasks)
            out["deaths"] = bot.computer.deaths
    finally:
        await db.close()
    return out


def run() -> list[Row]:
    """All rows of this module."""
    with tempfile.TemporaryDirectory() as folder:
        out = asyncio.run(_session(Path(folder) / "answers.db"))
    load = ", ".join(f"{value:.1f}" for value in out["load"])
    rows = percentile_rows("computer's answer to a member (Chopsticks, hard), idle", out["idle"],
                           note=f"{WORKERS} workers; load average 1 min at start and after each case: {load}")
    idle50, idle99 = percentile(out["idle"], 0.5), percentile(out["idle"], 0.99)
    for case in ("searches", "searches and reviews"):
        label = f"{SEARCHES} hard searches" + (f" and {REVIEWS} reviews" if case != "searches" else "")
        samples = out[case]
        rows += percentile_rows(f"computer's answer to a member, {label} running", samples, 150.0, 400.0,
                                note=f"p50 {percentile(samples, 0.5) / idle50:.1f}x idle, "
                                     f"p99 {percentile(samples, 0.99) / idle99:.1f}x idle")
    made = out["reviews"]
    rows.append(value_row(f"reviews of a {len(_long_match()[1])}-move Napkin Chess match made meanwhile "
                          f"(at least {REVIEWS})", len(made), "reviews", REVIEWS, at_least=True,
                          note="seconds each: " + ", ".join(f"{seconds:.1f}" for seconds in made)))
    return rows
