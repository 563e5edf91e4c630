"""``/match review`` on Discord: a finished Chopsticks match reviewed by a bystander (the marks, the tally, the
turning point's board attached), posted for everyone on request, and refused with what was typed for a match still
being played, another server's match and a match with no move."""

from __future__ import annotations

import asyncio
import contextlib
import io
import time

import pytest
from PIL import Image

import renderers
from bot.exts.match import waiting_text
from bot.service import replay
from games.values import GameValue
from storage import Database, ReadTx
from tests.bot.helpers import World, snapshot, stored
from tests.reliability._support import start_discord_match

pytestmark = pytest.mark.both_backends

MOVES = ["self LR", "RR", "split 2 2", "self RL", "RL", "split 3 2", "self RL", "LL", "RL", "RR", "RR"]
"""A default-rules game in which alice throws a forced win away at move 7 and bob his at move 10; alice wins."""


async def _finished(world: World, db: Database, players: tuple[str, str] = ("alice", "bob")) -> int:
    match_id = await start_discord_match(world, db, "chopsticks", *players)
    thread = world.thread()
    for ply, notation in enumerate(MOVES):
        result = await world[players[ply % 2]].slash(thread, "chopsticks move", notation=notation)
        assert not result.ephemeral, result.response.content
    assert (await stored(db, match_id)).status == "finished"
    return match_id


def _review_message(result):
    messages = result.followups or [result.response]
    return next(message for message in messages if message.embeds)


async def test_a_bystander_reviews_a_finished_match(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    match_id = await _finished(world, db)
    before = await snapshot(db)
    result = await world["carol"].slash(world.channel, "match review", match=str(match_id))
    assert result.ephemeral
    message = _review_message(result)
    embed = message.embeds[0]
    assert embed.title == f"Review of match #{match_id} · Chopsticks"
    assert embed.description.startswith("Exact values from a complete search")
    assert "With perfect play from the start the first player wins." in embed.description
    lines = [line for line in embed.description.splitlines() if line[:1].isdigit()]
    assert len(lines) == len(MOVES)
    assert lines[0] == "1. `self LR` (alice): win → win · kept the win"
    assert lines[1] == "2. `RR` (bob): loss → loss · lost position: every move loses"
    assert lines[6] == "7. `self RL` (alice): win → loss · blunder: threw away a forced win; `LL` or `RL` kept the win"
    assert lines[9] == "10. `RR` (bob): win → loss · blunder: threw away a forced win; `split 1 1` kept the win"
    fields = {field.name: field.value for field in embed.fields}
    assert fields["Players"] == ("alice: 6 moves (4 giving nothing away, 1 in a lost position, and 1 blunder)\n"
                                 "bob: 5 moves (1 giving nothing away, 3 in a lost position, and 1 blunder)")
    assert fields["Turning point"].startswith("Move 10, `RR` by bob: blunder: threw away a forced win")
    # the attached board is the position before move 10, drawn by the game's renderer
    attachment = message.attachments[0]
    assert attachment.filename == f"review-{match_id}.png"
    assert attachment.description.startswith(f"Review of match #{match_id}: the position before move 10, the turning "
                                             "point. Chopsticks board, move 9.")
    assert len(attachment.description) <= 1024 and "alice: left hand" in attachment.description
    assert embed.image.url == f"attachment://review-{match_id}.png"
    states = replay(await stored(db, match_id), await db.read(ReadTx.get_moves, match_id))
    png = await attachment.read()
    expected = renderers.render(states[9], ["alice", "bob"])
    assert Image.open(io.BytesIO(png)).tobytes() == Image.open(io.BytesIO(expected)).tobytes()
    assert await snapshot(db) == before  # a review changes nothing stored


async def test_a_review_in_the_thread_can_be_posted_for_everyone(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await _finished(world, db)
    result = await world["bob"].slash(world.thread(), "match review", public=True)
    assert not result.ephemeral
    message = _review_message(result)
    assert "blunder" in message.embeds[0].description and message.attachments
    assert "<@" not in (message.content or "")  # pings nobody


async def test_a_review_is_refused_for_a_running_match_another_servers_and_an_empty_one(simcord_env,
                                                                                         db: Database) -> None:
    home = World(simcord_env, "alice", "bob")
    away = World(simcord_env, "dave", "erin")
    foreign = await _finished(away, db, ("dave", "erin"))
    running = await start_discord_match(home, db, "chopsticks")
    await home["alice"].slash(home.thread(), "chopsticks move", notation="LL")
    before = await snapshot(db)
    refused = await home["bob"].slash(home.channel, "match review", match=f"#{running}")
    assert refused.ephemeral
    assert refused.response.content == (f"Match `#{running}` is still being played; a review is for finished "
                                        "matches.")
    inside = await home["alice"].slash(home.thread(), "match review")
    assert inside.ephemeral and f"Match #{running} is still being played" in inside.response.content
    elsewhere = await home["alice"].slash(home.channel, "match review", match=str(foreign))
    assert elsewhere.ephemeral and elsewhere.response.content == f"There is no match #{foreign} in this server."
    assert await snapshot(db) == before
    empty = await start_discord_match(home, db, "chopsticks")
    await home["alice"].slash(home.thread(), "match abort")
    nothing = await home["alice"].slash(home.channel, "match review", match=str(empty))
    assert nothing.ephemeral and f"Match `{empty}` ended before any move was played" in nothing.response.content


@pytest.mark.slow  # strength: a whole review of hard searches
def test_a_napkin_review_is_labelled_an_estimate_and_fits_an_embed() -> None:
    from types import SimpleNamespace

    from bot.exts.match import review_embed
    from games import GAMES
    from games.review import review
    from tests.games.test_review import play

    states = play("napkin_chess", {}, ("medium", "medium"), 5)
    result = review(GAMES["napkin_chess"], states, seconds=120)
    seats = [SimpleNamespace(display_name=name) for name in ("alice", "**bob**")]
    embed = review_embed(SimpleNamespace(id=7, game="napkin_chess", seats=seats), result, "review-7.png")
    assert embed.description.startswith("Estimate from the hard computer player, not exact")
    assert len(embed) <= 6000 and len(embed.description) <= 4096
    assert f"1. `{result.moves[0].move}` (alice): ≈" in embed.description
    assert "(\\*\\*bob\\*\\*)" in embed.description  # names are shown as typed, never as formatting


def test_a_long_review_lists_its_key_moments() -> None:
    from types import SimpleNamespace

    from bot.exts.match import review_embed
    from games.review import MoveReview, Review

    win, loss = GameValue("outcome", 1), GameValue("outcome", -1)
    moves = tuple(MoveReview(ply, (ply - 1) % 2, "split 2 2", "exact", 0, "kept the win", win, win)
                  for ply in range(1, 181))
    moves = (*moves[:99], MoveReview(100, 1, "RR", "exact", 3, "blunder: threw away a forced win; `LL` kept the win",
                                     win, loss, ("LL",)), *moves[100:])
    result = Review("chopsticks", moves, 99, win, False)
    seats = [SimpleNamespace(display_name=name) for name in ("alice", "bob")]
    embed = review_embed(SimpleNamespace(id=3, game="chopsticks", seats=seats), result, "review-3.png")
    assert len(embed.description) <= 4096 and len(embed) <= 6000
    assert "100. `RR` (bob): win → loss · blunder" in embed.description
    assert "Key moments only: 179 other moves are not listed." in embed.description


@pytest.mark.slow  # equivalence: every game's review made twice, in a worker and in the bot
async def test_a_review_in_a_worker_process_is_the_one_made_in_the_bot_for_every_game() -> None:
    import functools
    import random

    from bot.service.computer import ComputerPool
    from games import GAMES

    pool = ComputerPool(1)
    pool.start()
    try:
        for key in GAMES:  # the sixth game too: the worker finds it through the registry's packages
            game = GAMES[key]
            rng = random.Random(key)
            state = game.new_state({}, rng)
            notations = []
            while not state.is_over and len(notations) < 6:
                move = game.computer_move(state, "easy", rng)
                notations.append(state.format_move(move))
                state = state.apply(move)
            work = functools.partial(_review_without_cpu_caps, key, game.new_state({}, random.Random(key)).to_dict(),
                                     notations)
            found = await pool.run(work, budget=600)
            assert found == work() and len(found.moves) == len(notations), key
    finally:
        await pool.close()


def _review_without_cpu_caps(key: str, state: dict, notations: list[str]):
    """``review_notations`` of the moves with every ``hard`` search's CPU cap lifted, in whichever process runs it (the
    test's or a worker's): the cap stops a search sooner on a busy machine, where its move may differ, and the two
    reviews compared must both be the searches' own."""
    import math

    from games.groebner_nim import computer as groebner_nim
    from games.napkin_chess import computer as napkin_chess
    from games.polygons import computer as polygons
    from games.review import review_notations

    computers = (groebner_nim, napkin_chess, polygons)
    caps = [computer.HARD_CPU_SECONDS for computer in computers]
    for computer in computers:
        computer.HARD_CPU_SECONDS = math.inf
    try:
        return review_notations(key, state, notations, seconds=300, seed="worker")
    finally:
        for computer, cap in zip(computers, caps, strict=True):
            computer.HARD_CPU_SECONDS = cap


def _callbacks(env) -> int:
    return sum(1 for entry in env.http_requests if entry.method == "POST" and entry.path.endswith("/callback"))


async def test_a_review_answers_at_once_while_every_slot_is_held_and_says_where_it_stands(simcord_env,
                                                                                          db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    match_id = await _finished(world, db)
    pool = simcord_env.bot.computer
    assert pool.review_slots == pool.workers - 1 >= 1
    notes: list[str] = []
    first_response: list[float] = []

    async def hold_the_lane() -> None:
        """Other servers' long work holds every review slot and one more job of this server waits ahead; the line
        moves once carol's review has answered and said where it stands."""
        async with contextlib.AsyncExitStack() as holders, contextlib.AsyncExitStack() as waiting:
            for server in range(pool.review_slots):
                held = await holders.enter_async_context(pool.long_work(server=10 + server))
                await held.turn()
            ahead = await waiting.enter_async_context(pool.long_work(server=world.guild.id))
            before, began = _callbacks(simcord_env), time.monotonic()
            ready.set()
            while _callbacks(simcord_env) == before:  # carol's command answers while every slot is held
                assert time.monotonic() - began < 3, "the first response took over 3 s"
                await asyncio.sleep(0.005)
            first_response.append(time.monotonic() - began)
            (carols,) = [job for job in pool.line() if job.member == world["carol"].id]
            assert pool.line() == [ahead, carols] and carols.ahead == 1
            notes.append(await _shown(simcord_env, str(waiting_text(match_id, 1))))
            await holders.aclose()  # the job ahead has its turn: carol's is next
            assert ahead.started and carols.ahead == 0 and not carols.started
            notes.append(await _shown(simcord_env, str(waiting_text(match_id, 0))))
        # the job ahead is done: carol's review has its turn

    ready = asyncio.Event()
    holder = asyncio.create_task(hold_the_lane())
    await ready.wait()
    result = await world["carol"].slash(world.channel, "match review", match=str(match_id))
    await holder
    assert first_response and first_response[0] < 3
    assert notes == [f"Your review of match #{match_id} is waiting: 1 review ahead of yours.",
                     f"Your review of match #{match_id} is next."]
    embed = _review_message(result).embeds[0]
    assert embed.title == f"Review of match #{match_id} · Chopsticks" and "blunder" in embed.description
    assert not pool.line() and pool.reviews == 0


async def _shown(env, text: str) -> str:
    """``text`` once the bot has edited a deferred answer to say it."""
    for _ in range(2000):
        if any(entry.method == "PATCH" and entry.path.endswith("/messages/@original")
               and isinstance(entry.json, dict) and entry.json.get("content") == text for entry in env.http_requests):
            return text
        await asyncio.sleep(0.005)
    raise AssertionError(f"never shown: {text}")


async def test_a_members_second_review_at_once_is_refused_at_once(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _finished(world, db)
    pool = simcord_env.bot.computer
    async with pool.long_work(server=world.guild.id, member=world["alice"].id):  # alice's review under way
        again = await world["alice"].slash(world.channel, "match review", match=str(match_id))
    assert again.ephemeral
    assert again.response.content == "Your previous review is still being made; it is posted when it is ready."
