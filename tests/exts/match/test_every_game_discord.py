"""Every registered game (the tests' tic-tac-toe included) played whole through the real discord.py code paths,
offline: by commands between two members, against the computer, and alone where the game has a solitaire mode.
The commands come from each game's declaration, so a new game is covered with no edit here."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.service import load_state
from games import GAMES
from storage import Database
from tests.bot.helpers import World, command_for, only_match_id, stored
from tests.reliability._support import GAME_KEYS, solitaire_variant, start_command

MAX_PLIES = 400
LONG_MATCHES = {"polygons"}
"""Games whose random whole match runs to hundreds of plies: played in ``make test``, left out of ``make test-fast``."""
WHOLE_MATCH_GAMES = [pytest.param(key, marks=pytest.mark.slow) if key in LONG_MATCHES else key for key in GAME_KEYS]
PYTHON_REPR = re.compile(r"=True|=False|=None|\[\d+(, \d+)+\]|\{'|\(\d+, \d+\)")
"""Python showing through in a text: ``x=True``, ``[20, 15, 7]``, ``{'n': 8}``, ``(3, 4)``."""


def boards(world: World) -> list[Any]:
    """The board messages of the match's thread (those with an image), oldest first."""
    return [m for m in world.thread().history() if m.attachments]


def assert_plain_and_one_live_board(world: World) -> None:
    """Every bot message reads as words (no Python reprs), and only the newest board has buttons."""
    messages = world.thread().history()
    for message in messages:
        assert not PYTHON_REPR.search(message.content or ""), message.content
    live = [m for m in boards(world) if any(getattr(row, "children", None) for row in m.components)]
    assert live in ([], [boards(world)[-1]]), "buttons on a board that is not the newest"


async def _play_out(world: World, db: Database, match_id: int, seed: int) -> None:
    """Play random legal moves by the move commands until the match ends, checking each move's board."""
    rng = random.Random(seed)
    for _ in range(MAX_PLIES):
        match = await stored(db, match_id)
        if match.status != "active":
            return
        state = load_state(match)
        seat = match.seats[state.current_seat]
        actor = next(m for m in world.members.values() if m.id == seat.user_id)
        game = GAMES[match.game]
        notation = state.format_move(game.computer_move(state, "easy", rng))
        name, options = command_for(match.game, state, notation)
        result = await actor.slash(world.thread(), name, **options)
        assert not result.ephemeral, (notation, result.response.content)
        logged = [m for m in await world.env.bot.services.reading.moves(match_id) if m.ply == match.ply + 1]
        assert [m.notation for m in logged] == [notation], "the move asked for is the move stored"
        assert_plain_and_one_live_board(world)
    pytest.fail(f"match {match_id} did not end in {MAX_PLIES} plies")


@pytest.mark.parametrize("game", WHOLE_MATCH_GAMES)
async def test_two_members_play_a_whole_match_by_commands(simcord_env, db: Database, game: str) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, start_command(game), opponent=world["bob"], days=3)
    assert not start.ephemeral, start.response.content
    assert GAMES[game].title in start.response.content
    await world["bob"].click(start.response, label="Accept")
    match_id = await only_match_id(db)
    first = boards(world)[0]
    assert "How to move:" in first.content and f"/{GAMES[game].command} " in first.content
    await _play_out(world, db, match_id, seed=len(game))
    match = await stored(db, match_id)
    assert match.status == "finished" and match.outcome is not None
    assert len(boards(world)) == match.ply + 1, "one board per move, plus the first"
    for ply, board in enumerate(boards(world)):  # every board says itself to a screen reader
        alt = board.attachments[0].description
        assert alt and len(alt) <= 1024 and f"board, move {ply}" in alt, alt
        assert "alice" in alt and "bob" in alt, alt
    last = world.thread().last_message
    assert last.attachments and ("wins" in last.content or "Draw" in last.content or "Finished" in last.content)
    assert "your move" not in last.content and "to move" not in last.content
    assert f"<@{world['alice'].id}>" in last.content and f"<@{world['bob'].id}>" in last.content


@pytest.mark.parametrize("game", WHOLE_MATCH_GAMES)
async def test_a_member_plays_the_computer_to_the_end(simcord_env, db: Database, game: str) -> None:
    world = World(simcord_env, "alice")
    start = await world["alice"].slash(world.channel, start_command(game), opponent=world.bot_member(),
                                       level="easy")
    assert not start.ephemeral, start.response.content
    match_id = await only_match_id(db)
    match = await stored(db, match_id)
    assert any(seat.is_computer and seat.level == "easy" for seat in match.seats)
    await _play_out(world, db, match_id, seed=7)
    match = await stored(db, match_id)
    assert match.status == "finished"
    human_moves = sum(1 for move in await world.env.bot.services.reading.moves(match_id)
                      if not match.seats[move.seat].is_computer)
    assert len(boards(world)) == human_moves + 1, "one board per turn: each of my moves with the computer's answer"
    assert "How to move:" in boards(world)[0].content
    assert f"<@{world['alice'].id}>" in world.thread().last_message.content


@pytest.mark.parametrize("game", [key for key in GAME_KEYS if solitaire_variant(key) is not None])
async def test_solitaire_is_played_alone(simcord_env, db: Database, game: str) -> None:
    world = World(simcord_env, "alice")
    variant: dict[str, Any] = solitaire_variant(game) or {}
    start = await world["alice"].slash(world.channel, start_command(game), **variant)
    assert not start.ephemeral, start.response.content
    match_id = await only_match_id(db)
    assert len((await stored(db, match_id)).seats) == 1
    await _play_out(world, db, match_id, seed=3)
    assert (await stored(db, match_id)).status == "finished"
    pinged = [m for m in world.thread().history() if f"<@{world['alice'].id}>" in (m.content or "")]
    assert not pinged, "solitaire never pings its player about their own moves"


@pytest.mark.parametrize("game", GAME_KEYS)
async def test_autocomplete_offers_legal_moves_where_the_game_suggests(simcord_env, db: Database,
                                                                       game: str) -> None:
    world = World(simcord_env, "alice", "bob")
    start = await world["alice"].slash(world.channel, start_command(game), opponent=world["bob"])
    await world["bob"].click(start.response, label="Accept")
    state = load_state(await stored(db, await only_match_id(db)))
    declared = GAMES[game]
    checked = 0
    for command in declared.moves:
        for param in command.params:
            if param.suggest is None:
                continue
            choices = await world["alice"].autocomplete(world.thread(), f"{declared.command} {command.name}",
                                                        param.name, "")
            expected = [e if isinstance(e, str) else e[1] for e in param.suggest(state, {})][:25]
            assert [c["value"] for c in choices] == expected
            checked += 1
    assert checked or not any(p.suggest for c in declared.moves for p in c.params)


async def test_the_demo_plays_the_tests_own_game_too(tmp_path, capsys) -> None:
    """The demo iterates the registry: the sixth game (tic-tac-toe, registered from tests/extra_games) plays its
    declared demo matches like the real five, and its log replays to its stored state."""
    from bot.demo import run_demo

    await run_demo(tmp_path / "out", games=["tictactoe"], seed=2)
    printed = capsys.readouterr().out
    assert printed.count("== Tic-tac-toe") == len(GAMES["tictactoe"].demo)
    assert "log replays to the stored state: yes" in printed and "NO" not in printed
    assert (tmp_path / "out" / "tictactoe" / "match1-final.png").read_bytes().startswith(b"\x89PNG")
