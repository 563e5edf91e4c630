"""Limits that hold and heavy work that is bounded: open challenges count toward the active match limit, a flood of
challenges is cooled down, a solitaire is aborted only before its first move, the computer's searches wait for their
member's turn within the scheduler's bounds, and replays are capped (frames, one at a time per member)."""

from __future__ import annotations

import asyncio

import pytest

from bot.exts.match import REPLAY_FRAMES, replay_frames
from bot.service import LimitReached, NotAllowed, Player, Services, load_state
from bot.utils import queues as _load
from storage import Database, ReadTx
from tests.reliability._support import (
    Clock,
    World,
    full_snapshot,
)

pytestmark = pytest.mark.both_backends

ALICE, BOB = Player(1, "alice"), Player(2, "bob")
GUILD = 10


# ---------------------------------------------------------------- limits


async def test_open_challenges_count_toward_the_active_match_limit(db: Database) -> None:
    services = Services(db)
    await services.settings.update(GUILD, max_active=2)
    for _ in range(2):
        await services.challenges.create(guild_id=GUILD, channel_id=5, game="chopsticks", variant={},
                                         challenger=ALICE, opponent=None)
    with pytest.raises(LimitReached, match="2 open challenges"):
        await services.challenges.create(guild_id=GUILD, channel_id=5, game="chopsticks", variant={},
                                         challenger=ALICE, opponent=None)
    open_ids = [r[0] for r in await db.fetchall("SELECT id FROM challenges WHERE status = 'open'")]
    for number, challenge_id in enumerate(open_ids):
        await services.challenges.accept(challenge_id, GUILD, Player(100 + number, f"m{number}"))
    assert await db.read(ReadTx.count_active, GUILD, ALICE.user_id) == 2


async def test_a_flood_of_challenges_is_cooled_down(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    answers = [await world["alice"].slash(world.channel, "chopsticks start") for _ in range(15)]
    resting = [a for a in answers if a.ephemeral and "takes a rest" in a.response.content]
    assert len(resting) == 5
    assert len(await db.fetchall("SELECT id FROM challenges")) == 10


async def test_solitaire_abort_only_before_the_first_move(db: Database) -> None:
    services = Services(db, clock=Clock())  # a fixed clock: the same start position every run
    match = await services.challenges.start_solo(guild_id=GUILD, channel_id=5, game="groebner_nim",
                                                 variant={"mode": "solitaire", "sticks": 6}, player=ALICE, level=None)
    assert len(match.seats) == 1
    first = load_state(await services.reading.get_match(match.id))
    move = next(m for m in first.legal_moves() if first.apply(m).outcome is None)  # the game goes on after it
    await services.moves.play(match.id, GUILD, ALICE.user_id, first.format_move(move))
    before = await full_snapshot(db)
    with pytest.raises(NotAllowed, match="before its first move"):
        await services.endings.abort(match.id, GUILD, ALICE.user_id)
    assert await full_snapshot(db) == before


# ---------------------------------------------------------------- bounded load


async def test_computer_searches_wait_for_their_members_turn_and_the_scheduler_bounds_them_all() -> None:
    # the per-member share only: the computer pool's scheduler bounds the searches running to its workers and
    # orders them (tests/service/test_scheduler.py); a global gate in front of it would keep a quick move behind slow
    # ones
    queue = _load.computer_queue()
    running = peak = 0
    members: dict[int, int] = {}
    member_peak = 0

    async def search(member: int) -> None:
        nonlocal running, peak, member_peak
        async with queue.slot(member):
            running += 1
            members[member] = members.get(member, 0) + 1
            peak, member_peak = max(peak, running), max(member_peak, members[member])
            await asyncio.sleep(0.01)
            running -= 1
            members[member] -= 1

    await asyncio.gather(*(search(member) for member in range(24)), *(search(7) for _ in range(3)))
    assert member_peak == _load.COMPUTER_PER_MEMBER == 1 and peak == 24 and queue.running == 0


def test_a_long_replay_is_capped() -> None:
    states = list(range(300))
    frames = replay_frames(states)
    assert len(frames) == REPLAY_FRAMES and frames[0] == 0 and frames[-1] == 299 and frames == sorted(frames)
    assert replay_frames(states[:10]) == states[:10]


async def test_a_members_second_replay_at_once_is_refused() -> None:
    line = _load.replay_queue()
    with line.join(1):
        with pytest.raises(LimitReached, match="still being made"):
            line.join(1)
        with line.join(2) as second:  # another member is not refused: theirs is built next
            assert second.ahead == 1 and line.running == 1 and line.waiting == 1
