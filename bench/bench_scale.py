"""Benchmarks of the bot at scale: what one process serving many servers must keep cheap.

- An unrelated member's move (a Chopsticks move through SimCord) while 0, 1, 2 and 4 ``hard`` Polygons searches
  (lattice 30, 10 dots) run in the computer's worker processes. Target: p50 with 4 searches within 2× of idle.
- What must cost what it returns, on SQLite and on PostgreSQL at 1,000, 10,000 and 100,000 matches (and as many
  rated members): the computer turns to resume at start-up, a member's ``/match list`` page, the deadline pass with
  nothing due (and the next wake-up), the first ``/leaderboard`` page. Target: flat, p50 at 100,000 within 2× of
  1,000 (each backend in a fresh interpreter; PostgreSQL a throwaway cluster).
- ``/leaderboard`` (first and last page) and ``/stats`` through SimCord with 100,000 rated members. Target < 20 ms.
- Move latency through SimCord at plies 1–25 and 176–200 of Chopsticks matches played to the 200-ply limit, on a
  database with only those matches and on one with 100,000 other active matches. Target: within 1.5× of the
  small case at plies 1–25.

Every latency row gives p50 and p99 with the number of samples; all figures are from this machine.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import random
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench._harness import World
from bench._timing import Row, percentile, percentile_rows, value_row
from games import GAMES, State

PASS_SAMPLES = 200
COMMAND_SAMPLES = 100
LONG_MATCHES = 4
"""200-ply matches played per database: 100 moves in each ply range."""
UNRELATED_MOVES = 100
SEARCHES = (0, 1, 2, 4)
SIZES = (1_000, 10_000, 100_000)
RATED_MEMBERS = 100_000
SEARCH_VARIANT = {"size": 30, "dots": 10}
POSTGRES_OPTIONS = "-c synchronous_commit=off -c max_connections=100"
"""The benchmark cluster, as bench_backends runs it."""


def long_line(seed: int) -> list[str]:
    """200 Chopsticks moves (default rules) that reach the 200-ply move limit: at each ply a move that neither
    ends the game early nor repeats a position more than needed, chosen with ``seed``."""
    game = GAMES["chopsticks"]
    rng = random.Random(seed)
    while True:
        state: State[Any] = game.new_state({})
        line: list[str] = []
        while not state.is_over:
            options = [(move, state.apply(move)) for move in state.legal_moves()]
            going = [(m, after) for m, after in options if not after.is_over] or options
            rng.shuffle(going)
            move, after = min(going, key=lambda pair: pair[1].positions.count(pair[1].positions[-1]))
            line.append(state.format_move(move))
            state = after
        if len(line) == 200:
            return line


def _fill_matches(tx: Any, count: int, start: int = 0) -> None:
    """Insert ``count`` active matches (every game, 2,000 members, nothing due for a long time) in guild 99."""
    from storage import SeatRecord

    rng = random.Random(1)
    starts = {key: GAMES[key].new_state({}, rng).to_dict() for key in tuple(GAMES)}
    keys = tuple(GAMES)
    for number in range(start, start + count):
        key = keys[number % len(keys)]
        a, b = 1000 + number % 2000, 3000 + (number * 7) % 2000
        tx.insert_match(guild_id=99, channel_id=98, game=key, variant={}, state=starts[key], current_seat=0,
                        days_per_move=3, deadline=1e12 + number, rated=True, now=1.0 + number,
                        seats=[SeatRecord(0, a, f"m{a}"), SeatRecord(1, b, f"m{b}")])


FIGURES = {
    "resume": "computer turns to resume (at start-up)",
    "list": "/match list, a member's first page",
    "pass": "deadline pass and next wake-up, nothing due",
    "leaderboard": "/leaderboard, first page",
}
"""The reads that must cost what they return, by key: each timed at every size of :data:`SIZES`."""
LIST_MEMBER = 7
"""The member whose ``/match list`` is timed: 20 active and 20 finished matches at every size."""
COMPUTER_TURNS = 5
"""Matches waiting for the computer at every size."""
FLATNESS = 2.0
"""Target: p50 at the largest size within this factor of the p50 at the smallest."""
ROUNDS = 10
"""Each figure's samples at a size are taken in this many rounds, the figures in turn."""


def _fixed(tx: Any) -> None:
    """What stays the same at every size: the listed member's matches and the computer's turns."""
    from storage import SeatRecord

    state = GAMES["chopsticks"].new_state({}).to_dict()
    for number in range(40):
        match_id = tx.insert_match(guild_id=99, channel_id=98, game="chopsticks", variant={}, state=state,
                                   current_seat=0, days_per_move=3, deadline=1e12, rated=True, now=2.0 + number,
                                   seats=[SeatRecord(0, LIST_MEMBER, "member"), SeatRecord(1, 8, "other")])
        if number % 2:
            tx.update_match(match_id, 0, status="finished", current_seat=None, deadline=None)
    for _ in range(COMPUTER_TURNS):
        tx.insert_match(guild_id=99, channel_id=98, game="chopsticks", variant={}, state=state, current_seat=1,
                        days_per_move=3, deadline=None, rated=False, now=1.0,
                        seats=[SeatRecord(0, 9, "member"), SeatRecord(1, 0, "computer (easy)", "easy")])


def _rated(tx: Any, start: int, stop: int) -> None:
    """Rating rows of members ``start`` to ``stop`` on the Chopsticks board of guild 99."""
    tx._conn.executemany(
        "INSERT INTO ratings (guild_id, game, user_id, display_name, mu, sigma, games, wins, losses, draws, "
        "best_vs_par, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(99, "chopsticks", 100_000 + n, f"m{n}", 25 + (n % 997) / 100, 1 + (n % 13) / 10, n % 12, n % 7, n % 5, 0,
          None, 1.0) for n in range(start, stop)])


async def _indexed_samples(database: str) -> dict[str, dict[int, list[float]]]:
    """Each figure of :data:`FIGURES` timed :data:`PASS_SAMPLES` times at every size of :data:`SIZES` (as many
    matches, as many rated members), on ``database`` (empty), through the services the bot calls."""
    from bench._storage import fill_matches
    from bot.service import Services, ratings
    from storage import Database

    db = await Database.open(database)
    services = Services(db, clock=lambda: 1e9)
    samples: dict[str, dict[int, list[float]]] = {key: {} for key in FIGURES}
    calls = {
        "resume": lambda: services.computer_turns.waiting(),
        "list": lambda: services.reading.active_match_page(99, LIST_MEMBER, 1, 10),
        "pass": lambda: _pass(services),
        "leaderboard": lambda: services.ratings.leaderboard(99, "chopsticks", page=1),
    }
    try:
        await db.write(_fixed)
        filled, rated = 40 + COMPUTER_TURNS, 0
        for size in SIZES:
            for start in range(filled, size, 10_000):
                await db.write(fill_matches, min(10_000, size - start))
            for start in range(rated, size, 10_000):
                await db.write(_rated, start, min(start + 10_000, size))
            filled = rated = size
            await _settled(db)
            found = (await calls["resume"](), (await calls["list"]())[0], await calls["leaderboard"]())
            if len(found[0]) != COMPUTER_TURNS or len(found[1]) != 10 or found[2].ranked != size:
                raise RuntimeError(f"at {size:,}: {len(found[0])} computer turns, {len(found[1])} listed, "
                                   f"{found[2].ranked} ranked")
            assert isinstance(found[2], ratings.LeaderboardPage)
            for key in calls:
                samples[key][size] = []
            for _ in range(ROUNDS):  # the figures in turn, a round at a time: a moment of a busy machine is shared
                for key, call in calls.items():
                    for _ in range(PASS_SAMPLES // ROUNDS):
                        began = time.perf_counter()
                        await call()
                        samples[key][size].append((time.perf_counter() - began) * 1000)
    finally:
        await db.close()
    return samples


async def _settled(db: Any) -> None:
    """The database after a bulk fill as it is after a while of ordinary writes: PostgreSQL has statistics of the
    tables; SQLite's write-ahead log is checkpointed and reset (ordinary writes keep it near the autocheckpoint's
    1,000 pages; a fill of 10,000s of rows would otherwise leave every read looking through a log that long)."""
    if db.backend == "postgresql":
        await db.write(lambda tx: tx._conn.execute("ANALYZE"))
    else:
        from storage.sqlite import _in_thread

        await _in_thread(db._writer, lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall())


async def _pass(services: Any) -> None:
    work = await services.deadlines.process_due()
    await services.deadlines.next_wakeup()
    if work.reminded or work.forfeited or work.aborted:
        raise RuntimeError("something was due")


def indexed_rows(backend: str, database: str) -> list[Row]:
    """The rows of :data:`FIGURES` on ``backend``'s ``database``: p50 at each size (p99 and samples in the note),
    then the 100k / 1k ratio of each."""
    samples = asyncio.run(_indexed_samples(database))
    rows: list[Row] = []
    for key, title in FIGURES.items():
        for size in SIZES:
            timed = samples[key][size]
            rows.append(value_row(f"{backend}: {title}, {size:,} matches: p50", percentile(timed, 0.5), "ms",
                                  note=f"p99 {percentile(timed, 0.99):.2f} ms, n={len(timed)}"))
        ratio = percentile(samples[key][SIZES[-1]], 0.5) / percentile(samples[key][SIZES[0]], 0.5)
        rows.append(value_row(f"{backend}: {title}, p50 at {SIZES[-1]:,} / {SIZES[0]:,} matches", ratio, "x",
                              FLATNESS, "at each size as many matches, and as many members rated on the board"))
    return rows


async def _fill_big(db_path: Path) -> None:
    """:data:`SIZES`' largest number of other members' active matches, nothing due for a long time."""
    from storage import Database

    db = await Database.open(db_path)
    try:
        await db.write(_fill_matches, SIZES[-1])
    finally:
        await db.close()


def _sqlite_indexed() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        return indexed_rows("SQLite", str(Path(folder) / "scale.db"))


def _postgres_indexed() -> list[Row]:
    from bench._pgcluster import fresh_database, running_cluster

    with running_cluster(POSTGRES_OPTIONS) as cluster, fresh_database(cluster, "napkin_scale") as url:
        return indexed_rows("PostgreSQL", url)


def _indexed_rows() -> list[Row]:
    """:func:`indexed_rows` on SQLite, then on PostgreSQL (or rows saying why not), each in a fresh interpreter."""
    from bench._pgcluster import NOT_INSTALLED, ClusterUnavailable

    rows: list[Row] = []
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        rows += pool.submit(_sqlite_indexed).result()
        try:
            rows += pool.submit(_postgres_indexed).result()
        except (ClusterUnavailable, ImportError) as error:
            reason = NOT_INSTALLED if isinstance(error, ClusterUnavailable) else "psycopg is not installed"
            rows += [Row(row.name.replace("SQLite", "PostgreSQL"), math.nan, math.nan, math.nan, "", "", None,
                         f"skipped: {reason}") for row in rows]
    return rows


async def _play_line(world: World, line: list[str], samples: dict[str, list[float]]) -> None:
    """Play ``line`` in a new match of alice against bob; time plies 1–25 and 176–200."""
    start = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=0)
    await world["bob"].click(start.response, label="Accept")
    thread = world.thread()
    for ply, notation in enumerate(line, start=1):
        actor = world["alice"] if ply % 2 else world["bob"]
        began = time.perf_counter()
        result = await actor.slash(thread, "chopsticks move", notation=notation)
        elapsed = (time.perf_counter() - began) * 1000
        if result.ephemeral:
            raise RuntimeError(f"ply {ply}: {notation} refused: {result.response.content}")
        if ply <= 25:
            samples["early"].append(elapsed)
        elif ply >= 176:
            samples["late"].append(elapsed)


async def _searching(bot: Any, count: int, stop: asyncio.Event) -> list[asyncio.Task[None]]:
    """Start ``count`` loops of ``hard`` Polygons searches in the bot's computer pool."""
    game = GAMES["polygons"]
    state = game.new_state(SEARCH_VARIANT).to_dict()

    async def loop(number: int) -> None:
        round_ = 0
        while not stop.is_set():
            await bot.computer.choose("polygons", state, "hard", f"bench:{number}:{round_}")
            round_ += 1

    return [asyncio.create_task(loop(number)) for number in range(count)]


async def _unrelated_moves(world: World, bot: Any, lines: list[list[str]]) -> dict[int, list[float]]:
    """Chopsticks moves timed while 0, 1, 2, 4 searches run (each count in a new match)."""
    results: dict[int, list[float]] = {}
    for count, line in zip(SEARCHES, lines, strict=False):
        stop = asyncio.Event()
        tasks = await _searching(bot, count, stop)
        await asyncio.sleep(0.5 if count else 0)  # the searches are under way
        start = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=0)
        await world["bob"].click(start.response, label="Accept")
        thread = world.thread()
        samples = []
        for ply, notation in enumerate(line[:UNRELATED_MOVES], start=1):
            actor = world["alice"] if ply % 2 else world["bob"]
            began = time.perf_counter()
            await actor.slash(thread, "chopsticks move", notation=notation)
            samples.append((time.perf_counter() - began) * 1000)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        results[count] = samples
    return results


LOAD_SEARCHES = 24
LOAD_REPLAYS = 12
LOAD_SAMPLES = 40


async def _under_load(world: World, bot: Any) -> list[float]:
    """An unrelated member's ``/match list`` (its first response) while 24 ``hard`` searches queue in the computer
    pool and 12 GIF replays of a long Napkin Chess match are drawn at once."""
    import renderers

    game = GAMES["napkin_chess"]
    rng = random.Random(5)
    states: list[State[Any]] = [game.new_state({})]
    while not states[-1].is_over and len(states) < 60:
        states.append(states[-1].apply(game.computer_move(states[-1], "easy", rng)))
    names = ["alice", "bob"]
    stop = asyncio.Event()
    searches = await _searching(bot, LOAD_SEARCHES, stop)

    async def replays() -> None:
        while not stop.is_set():
            await asyncio.to_thread(renderers.render_replay, states, names)

    drawing = [asyncio.create_task(replays()) for _ in range(LOAD_REPLAYS)]
    await asyncio.sleep(0.5)
    samples = []
    for _ in range(LOAD_SAMPLES):
        began = time.perf_counter()
        await world["carol"].slash(world.channel, "match list")
        samples.append((time.perf_counter() - began) * 1000)
    stop.set()
    for task in (*searches, *drawing):
        task.cancel()
    await asyncio.gather(*searches, *drawing, return_exceptions=True)
    return samples


async def _command_samples(actor: Any, channel: Any, name: str, **options: Any) -> list[float]:
    samples = []
    for _ in range(COMMAND_SAMPLES):
        began = time.perf_counter()
        result = await actor.slash(channel, name, **options)
        samples.append((time.perf_counter() - began) * 1000)
        if result.ephemeral and name != "stats":
            raise RuntimeError(f"/{name} refused: {result.response.content}")
    return samples


async def _session(db_path: Path, lines: list[list[str]], big: bool) -> dict[str, Any]:
    """Run the bot on ``db_path`` in SimCord; return the samples of this database."""
    import simcord

    from bot.client import NapkinBot
    from storage import Database, RatingRecord, Tx

    db = await Database.open(db_path)
    out: dict[str, Any] = {"early": [], "late": []}
    try:
        bot = NapkinBot(db)
        async with simcord.run(bot) as env:
            with env.time_context():
                world = World(env, "alice", "bob")
                for line in lines[:LONG_MATCHES]:
                    await _play_line(world, line, out)
                if big:
                    lately = bot.now()  # members who played lately: the default board leaves off long-idle ratings

                    def ratings(tx: Tx) -> None:
                        for number in range(RATED_MEMBERS):
                            tx.put_rating(RatingRecord(world.guild.id, "chopsticks", 10_000 + number, f"m{number}",
                                                       25 + (number % 997) / 100, 1 + (number % 13) / 10,
                                                       number % 12, number % 7, number % 5, 0, None),
                                          lately - (number % 400) * 86400.0)
                        tx.put_rating(RatingRecord(world.guild.id, "chopsticks", world["alice"].id, "alice", 26.0,
                                                   1.5, 9, 5, 4, 0, None), lately)

                    await db.write(ratings)
                    alice = world["alice"]
                    out["leaderboard first"] = await _command_samples(alice, world.channel, "leaderboard",
                                                                      game="chopsticks")
                    out["leaderboard middle"] = await _command_samples(alice, world.channel, "leaderboard",
                                                                       game="chopsticks", page=2500)
                    out["leaderboard last"] = await _command_samples(alice, world.channel, "leaderboard",
                                                                     game="chopsticks", page=10**6)
                    out["stats"] = await _command_samples(alice, world.channel, "stats")
                else:
                    out["unrelated"] = await _unrelated_moves(world, bot, lines[LONG_MATCHES:])
                    out["workers"] = bot.computer.workers
                    world.members["carol"] = world.guild.add_member(env.create_user("carol"))
                    out["loaded"] = await _under_load(world, bot)
    finally:
        await db.close()
    return out


def run() -> list[Row]:
    """All rows of this module."""
    rows: list[Row] = []
    lines = [long_line(seed) for seed in range(2)] * ((LONG_MATCHES + len(SEARCHES)) // 2)
    with tempfile.TemporaryDirectory() as folder:
        small = asyncio.run(_session(Path(folder) / "small.db", lines, big=False))
        idle = percentile(small["unrelated"][0], 0.5)
        for count, samples in small["unrelated"].items():
            limit = None if count == 0 else 2 * idle
            rows += percentile_rows(f"unrelated Chopsticks move, {count} hard searches running", samples, limit,
                                    note=f"searches: Polygons {SEARCH_VARIANT} in the computer's {small['workers']} "
                                    "worker processes (more searches than workers queue); target 2x idle p50")
        rows += percentile_rows(f"first response of an unrelated /match list, {LOAD_SEARCHES} hard searches and "
                                f"{LOAD_REPLAYS} replays running", small["loaded"], 3000.0, 3000.0,
                                note="Discord's limit for a first response is 3 s")
        asyncio.run(_fill_big(Path(folder) / "big.db"))
        big = asyncio.run(_session(Path(folder) / "big.db", lines, big=True))
    small_early = percentile(small["early"], 0.5)
    for label, samples in (("small database, plies 1-25", small["early"]),
                           ("small database, plies 176-200", small["late"]),
                           ("100,000 active matches, plies 1-25", big["early"]),
                           ("100,000 active matches, plies 176-200", big["late"])):
        rows += percentile_rows(f"Chopsticks move, {label}", samples, 1.5 * small_early)
    for key, title in (("leaderboard first", "/leaderboard page 1"),
                       ("leaderboard middle", "/leaderboard page 2,500 (the middle)"),
                       ("leaderboard last", "/leaderboard last page"),
                       ("stats", "/stats")):
        rows += percentile_rows(f"{title}, {RATED_MEMBERS:,} rated members", big[key], 20.0)
    return rows + _indexed_rows()
