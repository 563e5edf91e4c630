"""Child process of the memory benchmark: fill a database with 10,000 active matches, serve one move in each
game through SimCord, load every active match as a state and hold them, print the resident memory in MB (last line
of output).

Usage: ``python -m bench.memory_probe DB_PATH``.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

import psutil

from bench._harness import World, command_for
from bot.service import load_state
from games import GAMES
from storage import Database, MatchRecord, ReadTx

ACTIVE_MATCHES = 10_000


async def fill(db_path: Path) -> None:
    """Insert ``ACTIVE_MATCHES`` active matches spread over the five games and 2,000 members."""
    from storage import SeatRecord, Tx

    db = await Database.open(db_path)
    rng = random.Random(1)
    starts = {key: GAMES[key].new_state({}, rng).to_dict() for key in tuple(GAMES)}
    def insert_all(tx: Tx) -> None:
        for number in range(ACTIVE_MATCHES):
            key = tuple(GAMES)[number % len(tuple(GAMES))]
            a, b = 1000 + number % 2000, 1000 + (number * 7 + 1) % 2000
            tx.insert_match(guild_id=99, channel_id=98, game=key, variant={}, state=starts[key], current_seat=0,
                            days_per_move=3, deadline=1e12, rated=True, now=1.0,
                            seats=[SeatRecord(0, a, f"m{a}"), SeatRecord(1, b, f"m{b}")])

    await db.write(insert_all)
    await db.close()


async def serve(db_path: Path) -> float:
    """Start the bot on the database, play one move in a new match of each game, return RSS in MB."""
    import simcord

    from bot.client import NapkinBot
    db = await Database.open(db_path)
    try:
        async with simcord.run(NapkinBot(db)) as env:
            with env.time_context():
                world = World(env, "alice", "bob")
                rng = random.Random(3)
                groups = {"napkin_chess": "napkin", "groebner_nim": "groebner"}
                for key in tuple(GAMES):
                    start = await world["alice"].slash(world.channel, f"{groups.get(key, key)} start",
                                                       opponent=world["bob"])
                    await world["bob"].click(start.response, label="Accept")
                    match = await db.read(ReadTx.get_match, max(await db.read(ReadTx.all_match_ids)))
                    assert match is not None
                    state = load_state(match)
                    notation = state.format_move(GAMES[key].computer_move(state, "easy", rng))
                    name, options = command_for(key, state, notation)
                    await world["alice"].slash(world.thread(), name, **options)
                loaded = [load_state(match) for match in await db.read(_all_active)]
                assert len(loaded) >= ACTIVE_MATCHES
                return psutil.Process().memory_info().rss / 1e6
    finally:
        await db.close()


def _all_active(tx: ReadTx) -> list[MatchRecord]:
    """Every active match of the database, with its seats (what a bot holding them all in memory keeps)."""
    return [match for match_id in tx.all_match_ids() if (match := tx.get_match(match_id)) and
            match.status == "active"]


def main() -> None:
    """Fill, serve, print the RSS."""
    path = Path(sys.argv[1])
    asyncio.run(fill(path))
    print(f"{asyncio.run(serve(path)):.1f}")


if __name__ == "__main__":
    main()
