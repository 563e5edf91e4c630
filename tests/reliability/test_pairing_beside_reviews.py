"""A round's pairing that other servers' reviews cannot hold up: a round that ends while four servers' reviews fill
the workers is paired within its budget."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.service import Player, Services, pairing
from bot.service.computer import ComputerPool
from games import GAMES
from storage import Database, ReadTx
from tests.bot.helpers import until
from tests.reliability._support import Clock

GUILD = 20
PLAYERS = [Player(300 + n, f"p{n}") for n in range(4)]
PIECE_SECONDS = 0.5
"""How long each piece of the other servers' reviews holds its worker."""
REVIEW_PIECES = 40
"""Pieces per review: 20 s of work each, as in the attack."""


# ---------------------------------------------------------------- a round's pairing beside other servers' reviews


class _Waits:
    """A pool observer that keeps every wait it is told of."""

    def __init__(self) -> None:
        self.waits: list[tuple[str, float]] = []

    def waited(self, lane: str, seconds: float) -> None:
        self.waits.append((lane, seconds))

    def fell_back(self, game: str, reason: str) -> None:
        """Not needed here."""


def _piece(seconds: float) -> float:
    """A piece of a review: holds its worker for ``seconds``."""
    time.sleep(seconds)
    return seconds


async def _review(pool: ComputerPool, server: int) -> None:
    async with pool.long_work(server=server) as job:
        for _ in range(REVIEW_PIECES):
            await job.run(_piece, PIECE_SECONDS)


async def test_a_round_ends_while_four_servers_reviews_fill_the_workers_and_is_paired_within_its_budget(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # the pairing waited in the reviews' lane, as one "bot" server, and its 60 s budget counted the wait: it timed
    # out and round 2 was never paired
    budget = 10.0
    monkeypatch.setattr(pairing, "PAIRING_BUDGET", budget)  # (a 4-player round takes milliseconds of it)
    pool = ComputerPool(2)  # one review slot
    waits = _Waits()
    pool.observer = waits
    pool.start()
    services = Services(db, clock=Clock(time.time()), computer=pool, computer_id=999)
    reviews: list[asyncio.Task[None]] = []
    try:
        cup = await services.tournaments.create(guild_id=GUILD, channel_id=1, organizer=PLAYERS[0], name="Cup",
                                                game="chopsticks", variant={}, rounds=2)
        for player in PLAYERS:
            await services.tournaments.join(cup.id, GUILD, player)
        await services.tournaments.start(cup.id, GUILD, PLAYERS[0].user_id)
        games = [p for p in await db.read(ReadTx.tournament_pairings, cup.id, 1) if p.kind == "game"]
        assert len(games) == 2 and (await services.tournament_reading.get(cup.id, GUILD)).current_round == 1

        reviews = [asyncio.create_task(_review(pool, server)) for server in (1, 2, 3, 4)]
        await until(lambda: pool.busy("long") == 1 and len(pool.line()) == 3, 0.01)  # one runs, three wait
        state = GAMES["chopsticks"].new_state({}).to_dict()
        assert (await pool.move("chopsticks", state, "easy", "now")).quick is None  # the other worker is kept for
        #   quick moves from now on: the pairing has to wait for the review's piece under way
        for board in games:  # round 1 ends: each side moves, then the second resigns
            for _ in range(2):
                match = await services.reading.get_match(board.match_id)
                await services.moves.play(board.match_id, GUILD, match.seats[match.current_seat].user_id, "LL")
            await services.endings.resign(board.match_id, GUILD, board.second_id)
        ended = time.perf_counter()
        assert await services.tournament_rounds.settle_pending() == [cup.id]
        paired_after = time.perf_counter() - ended

        assert (await services.tournament_reading.get(cup.id, GUILD)).current_round == 2
        assert len([p for p in await db.read(ReadTx.tournament_pairings, cup.id, 2) if p.kind == "game"]) == 2
        assert services.tournament_rounds.stalled == {}
        assert pool.reviews == 4 and len(pool.line()) == 3  # paired while every review still runs or waits
        assert paired_after < budget + PIECE_SECONDS  # within its budget plus one piece of the reviews
        waited = [seconds for lane, seconds in waits.waits if lane == "pair"][-1]  # (round 1's was the first)
        print(f"round 2 paired {paired_after:.2f} s after round 1 ended; the pairing waited {waited:.3f} s for a "
              f"worker, behind a review piece of {PIECE_SECONDS} s")
    finally:
        for review in reviews:
            review.cancel()
        await asyncio.gather(*reviews, return_exceptions=True)
        await pool.close()
