"""``/puzzle`` and the daily puzzle through the real discord.py code paths (SimCord): a puzzle solved by the pick list
and by the Answer modal, failed and shown; a multi-move puzzle with the bot's defence; the rating moved by the
glicko2 library's values; no repeats; bad input quoted with nothing changed; someone else's puzzle refused; a puzzle
whose proof no longer holds retired and never shown; the daily post through the outbox, answered privately and
revealed in its thread after a simulated day, with nothing of the answer shown to others before; the monthly
table."""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import discord
import glicko2  # type: ignore[import-untyped]
import pytest

import renderers
from bot.exts.puzzles import PickSelect, ShowButton
from bot.service import MatchOver, Player
from bot.service.daily_puzzles import DAILY_NEWS
from bot.service.puzzles import line_state, solver_seat
from games import GAMES
from games.puzzles import Puzzle, Step, forced, shipped
from games.puzzles.generate import self_play
from storage import Database, ReadTx
from tests.bot.helpers import World, buttons, until
from tests.reliability._support import service_match

SHIPPED = shipped()
DAY = 86400.0


def _first(game: str, length: int = 1, skip: int = 0) -> Puzzle:
    return [p for p in SHIPPED if p.game == game and len(p.line) == length][skip]


def _wrong(puzzle: Puzzle, step: int = 0) -> str:
    return next(move for move, _ in puzzle.proof[step].values if move not in puzzle.proof[step].accepted)


def _use(env: Any, puzzles: list[Puzzle]) -> None:
    """The bot serves only ``puzzles`` (seeded choice)."""
    env.bot.services.puzzles.source = lambda: puzzles
    env.bot.services.puzzles.rng = random.Random(3)


def _shown(result: Any) -> Any:
    """The message an interaction answered with (the response, else the last follow-up)."""
    return result.response if result.response is not None else result.followups[-1]


def _ids(message: Any) -> list[str]:
    """The custom ids of a message's components (a response's raw rows, or a channel message's)."""
    rows = message.components
    if rows and isinstance(rows[0], dict):
        return [item["custom_id"] for row in rows for item in row.get("components", []) if "custom_id" in item]
    return list(buttons(message))


def _select_id(message: Any) -> str:
    return next(cid for cid in _ids(message) if cid.startswith("napkin:pz:pick:"))


async def _attempts(db: Database) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in await db.fetchall("SELECT * FROM puzzle_attempts ORDER BY id")]


async def test_a_puzzle_solved_from_the_pick_list_raises_the_rating_by_glicko2(simcord_env, db: Database) -> None:
    two = {p.id: p for p in (_first("chopsticks"), _first("chopsticks", skip=1))}
    _use(simcord_env, list(two.values()))
    world = World(simcord_env, "alice")
    asked = await world["alice"].slash(world.channel, "puzzle next", game="chopsticks")
    assert asked.ephemeral
    puzzle = two[(await _attempts(db))[-1][2]]
    shown = _shown(asked)
    assert "**Puzzle** · Chopsticks" in shown.content and "You are **alice**" in shown.content
    alt = shown.attachments[0].description
    assert alt and "alice" in alt and "opponent" in alt and len(alt) <= 1024
    solved = await world["alice"].select(shown, [puzzle.answer[0]], custom_id=_select_id(shown))
    assert solved.ephemeral
    text = _shown(solved).content
    member = glicko2.Player()
    member.update_player([puzzle.rating], [350], [1])
    assert "Solved!" in text and f"1500 → **{round(member.getRating())}**" in text and "streak 1" in text
    player = await db.read(ReadTx.puzzle_player, world["alice"].id)
    assert player is not None and player.rating == pytest.approx(member.getRating()) and player.rating > 1500
    nothing_public = [m for m in world.channel.history() if puzzle.answer[0] in m.content]
    assert nothing_public == []  # all of it was ephemeral
    again = await world["alice"].click(_shown(solved), label="Next Chopsticks puzzle")
    assert _shown(again).attachments and (await _attempts(db))[-1][2] != puzzle.id  # never the same puzzle twice
    assert len(await _attempts(db)) == 2


async def test_a_typed_answer_fails_then_bad_input_is_quoted_and_the_answer_shown(simcord_env, db: Database) -> None:
    puzzle = next(p for p in SHIPPED if p.game == "differences" and len(p.proof[0].values) > 25)
    _use(simcord_env, [puzzle])
    world = World(simcord_env, "alice")
    shown = _shown(await world["alice"].slash(world.channel, "puzzle next"))
    assert not any(cid.startswith("napkin:pz:pick:") for cid in _ids(shown))  # over 25 moves: typed, not picked
    modal = await world["alice"].click(shown, label="Answer")
    assert modal.modal is not None
    wrong = _wrong(puzzle)
    failed = await world["alice"].submit_modal(modal, {"napkin:pz:move": wrong})
    text = _shown(failed).content
    assert f"`{wrong}` is not the best move" in text and "1500 → **" in text and "(−" in text
    player = await db.read(ReadTx.puzzle_player, world["alice"].id)
    assert player is not None and player.rating < 1500 and player.streak == 0
    before = await _attempts(db)
    modal = await world["alice"].click(_shown(failed), label="Answer")
    bad = await world["alice"].submit_modal(modal, {"napkin:pz:move": "zz99"})
    assert bad.ephemeral and "`zz99` is not a move here" in _shown(bad).content
    assert await _attempts(db) == before and await db.read(ReadTx.puzzle_player, world["alice"].id) == player
    answer = await world["alice"].click(_shown(failed), label="Show the answer")
    assert f"The answer: `{puzzle.line[0]}`" in _shown(answer).content
    assert await db.read(ReadTx.puzzle_player, world["alice"].id) == player  # rated once: at the wrong answer


@pytest.mark.parametrize("game", ["chopsticks", "polygons"])
async def test_a_multi_move_puzzle_plays_the_bots_defence(simcord_env, db: Database, game: str) -> None:
    puzzle = next(p for p in SHIPPED if p.game == game and len(p.line) == 3 and solver_seat(p) == 1)  # the second
    _use(simcord_env, [puzzle])
    world = World(simcord_env, "alice")
    shown = _shown(await world["alice"].slash(world.channel, "puzzle next"))
    first = await world["alice"].select(shown, [puzzle.line[0]], custom_id=_select_id(shown))
    reply = _shown(first)
    assert f"Right: `{puzzle.line[0]}`. The opponent answers `{puzzle.line[1]}`" in reply.content
    stale = await world["alice"].select(shown, [puzzle.line[0]], custom_id=_select_id(shown))
    assert "out of date" in _shown(stale).content  # the first board's list no longer answers
    typed = await world["alice"].submit_modal(await world["alice"].click(shown, label="Answer"),
                                              {"napkin:pz:move": puzzle.line[2]})
    assert "out of date" in _shown(typed).content  # nor its Answer (the move typed is for the newest board)
    done = await world["alice"].select(reply, [puzzle.line[2]], custom_id=_select_id(reply))
    assert "Solved!" in _shown(done).content
    end = forced(line_state(puzzle, 3))
    names = ["opponent", "opponent"]
    names[solver_seat(puzzle)] = "alice"
    assert _shown(done).attachments[0].description == renderers.alt_text(end, names)  # alice is still her seat
    stored = (await _attempts(db))[-1]
    assert stored[6:8] == (2, 2)  # both solver moves found, in two tries


async def test_someone_elses_puzzle_is_refused_and_nothing_changes(simcord_env, db: Database) -> None:
    puzzle = _first("polygons")
    _use(simcord_env, [puzzle])
    world = World(simcord_env, "alice", "bob")
    shown = _shown(await world["alice"].slash(world.channel, "puzzle next"))
    before = await _attempts(db)
    attempt_id = int(next(cid for cid in _ids(shown) if cid.startswith("napkin:pz:show:")).rsplit(":", 1)[1])
    # alice's answer is only hers to see: a public message with her puzzle's components stands for any way bob could
    # send their ids (a forged interaction)
    view = discord.ui.View(timeout=None)
    view.add_item(ShowButton(attempt_id))
    view.add_item(PickSelect(attempt_id, 0, [puzzle.answer[0]]))
    channel = simcord_env.bot.get_channel(world.channel.id)
    await channel.send("alice's puzzle", view=view)
    await simcord_env.settle()
    public = world.channel.last_message
    refused = await world["bob"].click(public, label="Show the answer")
    assert refused.ephemeral and "This is alice's puzzle" in _shown(refused).content
    picked = await world["bob"].select(public, [puzzle.answer[0]], custom_id=f"napkin:pz:pick:{attempt_id}:0")
    assert picked.ephemeral and "This is alice's puzzle" in _shown(picked).content
    assert await _attempts(db) == before and await db.read(ReadTx.puzzle_player, world["alice"].id) is None


async def test_a_puzzle_whose_proof_no_longer_holds_is_retired_never_shown(simcord_env, db: Database) -> None:
    bad = _first("groebner_nim")
    step = bad.proof[0]
    values = tuple((m, dataclasses.replace(v, amount=v.amount + 1)) if m == step.accepted[0] else (m, v)
                   for m, v in step.values)
    broken = dataclasses.replace(bad, proof=(Step(values, step.accepted), *bad.proof[1:]))
    _use(simcord_env, [broken, _first("chopsticks")])
    world = World(simcord_env, "alice")
    refused = await world["alice"].slash(world.channel, "puzzle next", game="groebner_nim")
    assert refused.ephemeral and "Gröbner Nim has no puzzles" in _shown(refused).content
    stored = await db.read(ReadTx.get_puzzle, broken.id)
    assert stored is not None and stored.retired_at is not None
    served = _shown(await world["alice"].slash(world.channel, "puzzle next"))
    assert "Chopsticks" in served.content


async def test_the_daily_puzzle_is_posted_through_the_outbox_and_revealed_after_the_day(simcord_env,
                                                                                        db: Database) -> None:
    env = simcord_env
    puzzle = _first("chopsticks")
    _use(env, [puzzle])
    world = World(env, "alice", "bob", "cat")
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(env.create_user("boss"), roles=[admins])
    set_up = await boss.slash(world.channel, "settings", puzzle_channel=world.channel, puzzle_hour=0)
    assert "Daily puzzle: in <#" in _shown(set_up).content
    await env.advance_time(1)
    daily = await db.read(ReadTx.latest_daily, world.guild.id)
    assert daily is not None and daily.puzzle_id == puzzle.id and daily.message_id is not None
    assert not await env.bot.services.outbox.of_subject(daily.id, [DAILY_NEWS])  # delivered through the outbox
    post = next(m for m in world.channel.history() if m.id == daily.message_id)
    assert "**Daily puzzle**" in post.content and post.attachments and post.attachments[0].description
    solving = await world["bob"].click(post, label="Solve it")
    assert solving.ephemeral
    board = _shown(solving)
    wrong = await world["bob"].select(board, [_wrong(puzzle)], custom_id=_select_id(board))
    assert "is not the best move" in _shown(wrong).content and "rating" not in _shown(wrong).content  # unrated
    right = await world["bob"].select(_shown(wrong), [puzzle.answer[0]], custom_id=_select_id(_shown(wrong)))
    assert "Solved, in 2 tries" in _shown(right).content
    cat = _shown(await world["cat"].click(post, label="Solve it"))
    await world["cat"].click(cat, label="Show the answer")
    thread = world.thread()
    public = [m.content for m in (*world.channel.history(), *thread.history())]
    assert not any(f"`{puzzle.answer[0]}`" in text for text in public)  # nothing of the answer before the reveal
    await env.advance_time(DAY)
    revealed = await db.read(ReadTx.get_daily, daily.id)
    assert revealed is not None and revealed.revealed
    reveal = thread.history()[-1].content
    assert f"the answer** `{puzzle.answer[0]}`" in reveal and "1. bob — 2 tries" in reveal
    assert "1 member looked at the answer" in reveal and "cat" not in reveal
    closed = next(m for m in world.channel.history() if m.id == daily.message_id)
    assert all(button.disabled for button in buttons(closed).values())  # the day is over: Solve it is disabled
    with pytest.raises(MatchOver, match="day is over"):
        await env.bot.services.daily_puzzles.start_daily(daily.id, world["alice"].id, "alice", world.guild.id)
    table = _shown(await world["alice"].slash(world.channel, "puzzle month"))
    assert "1. bob — 1 puzzle in 2 tries" in table.content


def _missed_win_match() -> tuple[Puzzle, list[str]]:
    """A Chopsticks puzzle met in self-play from the default start, and a match that reaches its position, where the
    player to move throws the win away, then plays on (at random) to the end."""
    game = GAMES["chopsticks"]
    start = game.new_state().to_dict()
    for puzzle in SHIPPED:
        if puzzle.game != "chopsticks" or puzzle.value.result != "win" or puzzle.source.kind != "self-play":
            continue
        assert puzzle.source.seed is not None and puzzle.source.match is not None
        states = [s for s, _ in itertools.islice(self_play("chopsticks", puzzle.source.seed, puzzle.source.match),
                                                 puzzle.source.ply + 1)]
        if states[0].to_dict() != start:
            continue
        moves = [states[i].format_move(states[i + 1].last_move) for i in range(puzzle.source.ply)]
        blunder = next(notation for notation, value in puzzle.proof[0].values if value.result != "win")
        state = states[-1].play(blunder)
        moves.append(blunder)
        rng = random.Random(5)
        while not state.is_over:
            move = game.computer_move(state, "easy", rng)
            moves.append(state.format_move(move))
            state = state.apply(move)
        return puzzle, moves
    raise AssertionError("no such puzzle")


async def test_a_reviewed_match_where_a_win_was_missed_gives_its_server_that_puzzle(simcord_env, db: Database) -> None:
    env = simcord_env
    _use(env, [])  # no shipped puzzles: only what the server's own matches give
    puzzle, moves = _missed_win_match()
    world = World(env, "alice", "bob")
    elsewhere = World(env, "cat")
    services = env.bot.services
    match = await service_match(services, "chopsticks", world.guild.id, (Player(world["alice"].id, "alice"),
                                                                         Player(world["bob"].id, "bob")))
    for notation in moves:
        current = await services.reading.get_match(match.id)
        assert current.current_seat is not None
        await services.moves.play(match.id, world.guild.id, current.seats[current.current_seat].user_id, notation)
    assert (await services.reading.get_match(match.id)).status == "finished"
    reviewed = await world["alice"].slash(world.channel, "match review", match=str(match.id))
    assert reviewed.ephemeral
    stored = await db.read(ReadTx.get_puzzle, puzzle.id)
    assert stored is not None and stored.guild_id == world.guild.id  # kept for this server
    refused = await elsewhere["cat"].slash(elsewhere.channel, "puzzle next")
    assert "You have tried every puzzle" in _shown(refused).content  # another server's members never get it
    shown = _shown(await world["bob"].slash(world.channel, "puzzle next"))
    served = await db.read(ReadTx.get_puzzle, (await _attempts(db))[-1][2])
    assert served is not None and served.guild_id == world.guild.id and "**Puzzle** · Chopsticks" in shown.content
    source = Puzzle.from_json(served.record).source  # the missed win, or another move the match gave value away
    assert (source.kind, source.match) == ("match", match.id) and moves[source.ply] not in Puzzle.from_json(
        served.record).answer
    answer = _shown(await world["bob"].click(shown, label="Show the answer"))
    assert f"From match #{match.id}, move {source.ply + 1}." in answer.content
    assert "alice" not in answer.content  # the players are never named


async def _play_to_the_end(world: World, match_id: int, moves: list[str]) -> None:
    """The seats to move play ``moves`` through the service, and the match is over."""
    services = world.env.bot.services
    for notation in moves:
        current = await services.reading.get_match(match_id)
        assert current.current_seat is not None
        await services.moves.play(match_id, world.guild.id, current.seats[current.current_seat].user_id, notation)
    assert (await services.reading.get_match(match_id)).status == "finished"


async def test_a_finished_match_where_a_win_was_missed_gives_its_server_that_puzzle_unreviewed(
        simcord_env, db: Database) -> None:
    env = simcord_env
    _use(env, [])  # no shipped puzzles: only what the server's own matches give
    puzzle, moves = _missed_win_match()
    world = World(env, "alice", "bob")
    services = env.bot.services
    match = await service_match(services, "chopsticks", world.guild.id, (Player(world["alice"].id, "alice"),
                                                                         Player(world["bob"].id, "bob")))
    assert await db.read(ReadTx.get_puzzle, puzzle.id) is None
    await _play_to_the_end(world, match.id, moves)
    # the examination, woken by the match's end, runs in the computer's long lane: wait for it (at most a minute)
    await until(lambda: services.match_puzzles.examined == 1, 0.05)
    stored = await db.read(ReadTx.get_puzzle, puzzle.id)
    assert stored is not None and stored.guild_id == world.guild.id  # no /match review was asked for
    assert services.match_puzzles.examined == 1 and services.match_puzzles.waiting == 0
    found = Puzzle.from_json(stored.record)
    assert (found.source.kind, found.source.match, found.source.ply) == ("match", match.id, puzzle.source.ply)
    shown = _shown(await world["bob"].slash(world.channel, "puzzle next"))
    assert "**Puzzle** · Chopsticks" in shown.content


async def test_a_match_puzzle_names_its_players_only_when_both_allow_it(simcord_env, db: Database) -> None:
    env = simcord_env
    _use(env, [])
    _, moves = _missed_win_match()
    world = World(env, "alice", "bob", "cat", "dan")
    services = env.bot.services
    match = await service_match(services, "chopsticks", world.guild.id, (Player(world["alice"].id, "alice"),
                                                                         Player(world["bob"].id, "bob")))
    await _play_to_the_end(world, match.id, moves)
    await until(lambda: services.match_puzzles.examined == 1, 0.05)
    allowed = _shown(await world["alice"].slash(world.channel, "notify", puzzle_names="on"))
    assert "Your name under puzzles: on" in allowed.content and allowed.ephemeral
    assert (await services.vacations.prefs(world["alice"].id)).puzzle_names  # stored
    assert not (await services.vacations.prefs(world["bob"].id)).puzzle_names  # off by default

    async def answer_shown_to(name: str) -> tuple[str, int]:
        shown = _shown(await world[name].slash(world.channel, "puzzle next"))
        served = await db.read(ReadTx.get_puzzle, (await _attempts(db))[-1][2])
        assert served is not None and served.guild_id == world.guild.id
        source = Puzzle.from_json(served.record).source
        assert (source.kind, source.match) == ("match", match.id)
        return _shown(await world[name].click(shown, label="Show the answer")).content, source.ply + 1

    answer, move = await answer_shown_to("cat")  # only alice allows it: nobody is named
    assert f"From match #{match.id}, move {move}." in answer and "alice" not in answer and "bob" not in answer
    await world["bob"].slash(world.channel, "notify", puzzle_names="on")
    answer, move = await answer_shown_to("dan")  # both allow it
    assert f"From alice vs bob, move {move}." in answer and f"match #{match.id}" not in answer
