"""Conditional moves (``/match premove``) under SimCord: the reply is played in the transaction of the move it
answers, a deeper pair waits for the next turn, any other move discards the lines and their owner is told privately,
the opponent never sees them, and every refusal quotes what was typed and stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.service import load_state
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, move_button, pinged, snapshot, stored

pytestmark = pytest.mark.both_backends


async def _duel(world: World, db: Database, game: str = "differences", **options: Any) -> int:
    result = await world["alice"].slash(world.channel, f"{game} start", opponent=world["bob"], **options)
    await world["bob"].click(result.response, label="Accept")
    return max(await db.read(ReadTx.all_match_ids))


async def _lines(db: Database) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in await db.fetchall(
        "SELECT match_id, seat, ply, if_move, reply, then_if, then_reply FROM premoves ORDER BY seat, if_move")]


def _private(result: Any) -> str:
    assert result.ephemeral, result.response.content
    return result.response.content



def _seen_by(world: World, member: str, *channels: Any) -> list[str]:
    """Every text ``member`` can read: the messages of ``channels`` as they see them (ephemeral ones to others
    hidden), and their direct messages with the bot."""
    viewer = world[member]
    texts = [m.content for channel in channels for m in channel.history(viewer=viewer)]
    return texts + [m.content for m in viewer.user.dm_channel.history()]


async def test_the_reply_is_played_in_the_transaction_of_the_move_it_answers(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    stored_reply = await world["alice"].slash(thread, "match premove", if_they_play="B2", reply="c3", then_if="d4",
                                              then_reply="e5")
    text = _private(stored_reply)
    assert "if bob plays `b2`, you play `c3`; then if bob plays `d4`, you play `e5`" in text
    assert await _lines(db) == [(match_id, 0, 1, "b2", "c3", "d4", "e5")]  # canonical notation, at ply 1
    before = await stored(db, match_id)
    assert before.version == 1  # storing a line leaves the match row alone

    committed: list[tuple[int, int]] = []  # (ply, version) after each write transaction
    real_write = db.write

    async def spy(body: Any, *args: Any) -> Any:
        result = await real_write(body, *args)
        row = await db.fetchone("SELECT ply, version FROM matches WHERE id = ?", (match_id,))
        committed.append((row[0], row[1]))
        return result

    since = len(simcord_env.http_requests)
    db.write = spy  # type: ignore[method-assign]
    try:
        played = await world["bob"].slash(thread, "differences mark", square="b2")
    finally:
        db.write = real_write  # type: ignore[method-assign]
    # one transaction took the match from ply 1 to ply 3: no commit ever held bob's move without alice's answer
    assert committed and committed[0] == (3, 3) and all(ply != 2 for ply, _ in committed)
    moves = await db.read(ReadTx.get_moves, match_id)
    assert [(m.ply, m.seat, m.notation) for m in moves] == [(1, 0, "a1"), (2, 1, "b2"), (3, 0, "c3")]
    assert moves[1].created_at == moves[2].created_at
    board = played.response
    assert "bob played `b2`; alice's conditional move `c3` was played." in board.content
    assert f"<@{world['bob'].id}>, your move" in board.content
    assert board.attachments and len([m for m in thread.history() if "move 3" in m.content]) == 1  # one board
    assert pinged(simcord_env, since, "alice's conditional move `c3`") == {world["bob"].id}
    # the deeper pair is alice's line for this turn
    assert await _lines(db) == [(match_id, 0, 3, "d4", "e5", None, None)]
    listing = _private(await world["alice"].slash(thread, "match premove"))
    assert "1. If bob plays `d4`, you play `e5`." in listing
    second = await world["bob"].slash(thread, "differences mark", square="d4")
    assert "bob played `d4`; alice's conditional move `e5` was played." in second.response.content
    assert (await stored(db, match_id)).ply == 5 and await _lines(db) == []


async def test_another_move_discards_the_lines_and_tells_their_owner_privately(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    await world["alice"].slash(thread, "match premove", if_they_play="h8", reply="g7")
    await world["alice"].slash(thread, "match premove", if_they_play="h7", reply="g6", then_if="f5",
                               then_reply="e4")
    assert len(await _lines(db)) == 2
    played = await world["bob"].slash(thread, "differences mark", square="b2")
    assert (await stored(db, match_id)).ply == 2 and await _lines(db) == []
    assert "bob played `b2`." in played.response.content and "conditional" not in played.response.content
    dms = [m.content for m in world["alice"].user.dm_channel.history()]
    assert len(dms) == 1
    assert f"Match #{match_id}" in dms[0] and "bob played `b2`" in dms[0] and "discarded" in dms[0]
    assert "It is your move." in dms[0]
    assert not any(square in dms[0] for square in ("h8", "g7", "h7", "g6", "f5", "e4"))
    listing = _private(await world["alice"].slash(thread, "match premove"))
    assert "You hold no conditional moves" in listing
    # bob saw nothing of them, anywhere
    seen = _seen_by(world, "bob", thread, world.channel)
    assert not any("conditional" in t or any(s in t for s in ("h8", "g7", "h7", "g6", "f5", "e4")) for t in seen)


async def test_when_the_direct_message_fails_the_board_says_only_that_lines_were_discarded(
        simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    await world["alice"].slash(thread, "match premove", if_they_play="h8", reply="g7")
    simcord_env.inject_error("POST", f"/channels/{world['alice'].user.dm_channel.id}/messages", status=403,
                             message="Cannot send messages to this user", code=50007)
    played = await world["bob"].slash(thread, "differences mark", square="b2")
    board = played.response.content
    assert "alice's conditional moves did not expect this move and were discarded." in board
    assert "h8" not in board and "g7" not in board
    assert await _lines(db) == []


async def test_the_opponent_never_sees_stored_lines(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    match_id = await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    secret = ("h8", "g7", "f6", "e5")
    await world["alice"].slash(thread, "match premove", if_they_play=secret[0], reply=secret[1], then_if=secret[2],
                               then_reply=secret[3])
    await world["alice"].slash(thread, "match premove")  # her listing: only for her
    board = await world["bob"].slash(thread, "match board")
    history = await world["bob"].slash(thread, "match history")
    await world["carol"].slash(thread, "match board")
    refused = await world["bob"].slash(thread, "match premove")  # bob's own (empty) listing, not alice's
    assert "You hold no conditional moves" in _private(refused)
    files = {a.filename: await a.read() for a in history.response.attachments}
    export = json.loads(files[f"match-{match_id}.json"])
    texts = [*_seen_by(world, "bob", thread, world.channel), *_seen_by(world, "carol", thread, world.channel),
             json.dumps(export), history.response.content, board.response.content]
    for text in texts:
        assert "alice's conditional" not in text and "you play" not in text, text
        assert not any(f"`{s}`" in text or f'"{s}"' in text for s in secret), text
    assert [m["move"] for m in export["moves"]] == ["a1"] and set(export) >= {"moves", "final_state"}
    assert len(await _lines(db)) == 1 and (await stored(db, match_id)).ply == 1


@pytest.mark.parametrize(("options", "quoted"), [
    ({"if_they_play": "a1", "reply": "c3"}, "`a1`"),  # X: a marked square
    ({"if_they_play": "z9", "reply": "c3"}, "`z9`"),  # X: off the grid
    ({"if_they_play": "b2", "reply": "b2"}, "`b2`"),  # Y: the square X marked
    ({"if_they_play": "b2", "reply": "knight e5"}, "`knight e5`"),  # Y: not a square
    ({"if_they_play": "b2", "reply": "c3", "then_if": "c3", "then_reply": "d4"}, "`c3`"),  # X2 after X, Y
    ({"if_they_play": "b2", "reply": "c3", "then_if": "d4", "then_reply": "d4"}, "`d4`"),  # Y2 after X2
    ({"if_they_play": "b2", "reply": "c3", "then_if": "d4"}, "`then_reply`"),  # half a deeper pair
    ({"if_they_play": "b2"}, "`reply`"),
    ({"reply": "c3"}, "`if_they_play`"),
    ({"if_they_play": "b2", "reply": "c3", "action": "list"}, "`b2`"),
    ({"if_they_play": "b2", "reply": "c3", "action": "cancel"}, "`reply`"),
    ({"if_they_play": "ｂ２", "reply": "c3"}, "`ｂ２`"),
    ({"if_they_play": "b2", "reply": "x" * 300}, "far too long"),
])
async def test_illegal_lines_are_refused_quoting_the_text_and_nothing_is_stored(
        simcord_env, db: Database, options: dict[str, str], quoted: str) -> None:
    world = World(simcord_env, "alice", "bob")
    await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    before = await snapshot(db)
    refused = _private(await world["alice"].slash(thread, "match premove", **options))
    assert quoted in refused, refused
    assert "Stored" not in refused
    assert await snapshot(db) == before and await _lines(db) == []


async def test_only_the_waiting_player_of_a_members_match_may_store(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    await _duel(world, db)
    thread = world.thread()
    own_turn = _private(await world["alice"].slash(thread, "match premove", if_they_play="b2", reply="c3"))
    assert "It is your move" in own_turn
    stranger = _private(await world["carol"].slash(thread, "match premove", if_they_play="b2", reply="c3"))
    assert "You are not playing" in stranger
    await world["alice"].slash(thread, "differences mark", square="a1")
    bob_to_move = _private(await world["bob"].slash(thread, "match premove", if_they_play="b2", reply="c3"))
    assert "It is your move" in bob_to_move
    assert await _lines(db) == []


async def test_refused_against_the_computer_and_in_solitaire(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    await world["alice"].slash(world.channel, "chopsticks start", opponent=world.bot_member(), level="easy",
                               seat="second")
    thread = world.thread()
    computer = _private(await world["alice"].slash(thread, "match premove", if_they_play="LL", reply="RR"))
    assert "against the computer" in computer and "member" in computer
    await world["alice"].slash(thread, "match resign")
    await world["alice"].slash(world.channel, "groebner start", mode="solitaire")
    solo = max(await db.read(ReadTx.all_match_ids))
    refused = _private(await world["alice"].slash(world.channel, "match premove", if_they_play="1-2", reply="1-3",
                                                  match=str(solo)))
    assert "solitaire" in refused and "no opponent" in refused
    assert await _lines(db) == []


async def test_cancel_one_or_all_and_a_replaced_line(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    await world["alice"].slash(thread, "match premove", if_they_play="b2", reply="c3")
    replaced = _private(await world["alice"].slash(thread, "match premove", if_they_play="b2", reply="d4"))
    assert "replaces your earlier line for `b2`" in replaced and "1 conditional move here" in replaced
    await world["alice"].slash(thread, "match premove", if_they_play="h8", reply="g7")
    assert [line[3:5] for line in await _lines(db)] == [("b2", "d4"), ("h8", "g7")]
    one = _private(await world["alice"].slash(thread, "match premove", if_they_play="H8", action="cancel"))
    assert "Cancelled your line for `h8`" in one
    assert [line[3] for line in await _lines(db)] == ["b2"]
    everything = _private(await world["alice"].slash(thread, "match premove", action="cancel"))
    assert "Cancelled your 1 conditional move in match" in everything
    again = _private(await world["alice"].slash(thread, "match premove", action="cancel"))
    assert "nothing to cancel" in again
    assert await _lines(db) == [] and (await stored(db, match_id)).ply == 1


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_reply_may_end_the_match_and_an_ended_match_forgets_its_lines(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _duel(world, db, game="tictactoe")
    thread = world.thread()
    for actor, square in (("alice", "a1"), ("bob", "b1"), ("alice", "a2")):
        await world[actor].slash(thread, "tictactoe mark", square=square)
    await world["alice"].slash(thread, "match premove", if_they_play="c1", reply="a3")
    await world["alice"].slash(thread, "match premove", if_they_play="a3", reply="c1")
    played = await world["bob"].slash(thread, "tictactoe mark", square="c1")
    match = await stored(db, match_id)
    assert match.status == "finished" and match.outcome["winner"] == 0 and match.ply == 5
    assert "bob played `c1`; alice's conditional move `a3` was played." in played.response.content
    assert "**alice** wins" in played.response.content and await _lines(db) == []

    second = await _duel(world, db)
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    await both_sides_move(world, db, second)  # bob's first move, and alice's: a resignation is then a result
    state = load_state(await stored(db, second))
    theirs = state.format_move(next(iter(state.legal_moves())))
    mine = next(iter(state.play(theirs).legal_moves()))
    await world["alice"].slash(thread, "match premove", if_they_play=theirs,
                               reply=state.play(theirs).format_move(mine))
    assert len(await _lines(db)) == 1
    await world["bob"].slash(thread, "match resign")
    assert (await stored(db, second)).status == "finished" and await _lines(db) == []


async def test_lines_are_stored_and_listed_in_the_games_notation(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    match_id = await _duel(world, db, game="chopsticks")
    thread = world.thread()
    await world["alice"].slash(thread, "chopsticks move", notation="LL")
    first = _private(await world["alice"].slash(thread, "match premove", if_they_play="ll", reply="self lr"))
    assert "if bob plays `LL`, you play `self LR`. You hold 1 conditional move here; only you see it." in first
    second = _private(await world["alice"].slash(thread, "match premove", if_they_play="RR", reply="LL"))
    assert "You hold 2 conditional moves here; only you see them." in second
    listing = _private(await world["alice"].slash(thread, "match premove"))
    assert "1. If bob plays `LL`, you play `self LR`.\n2. If bob plays `RR`, you play `LL`." in listing
    assert await _lines(db) == [(match_id, 0, 1, "LL", "self LR", None, None), (match_id, 0, 1, "RR", "LL", None, None)]
    board = thread.last_message  # bob answers with a button: the same path, the same transaction
    await world["bob"].click(board, custom_id=move_button(board, "RR").custom_id)
    assert "bob played `RR`; alice's conditional move `LL` was played." in thread.last_message.content
    assert (await stored(db, match_id)).ply == 3 and await _lines(db) == []


async def test_autocomplete_offers_the_legal_moves_along_the_line(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    await _duel(world, db, n=5)  # one mark per column and per row
    thread = world.thread()
    await world["alice"].slash(thread, "differences mark", square="a1")
    first = [c["value"] for c in await world["alice"].autocomplete(thread, "match premove", "if_they_play", "")]
    assert len(first) == 16 and not any(v.startswith("a") or v.endswith("1") for v in first)
    reply = await world["alice"].autocomplete(thread, "match premove", "reply", "c", if_they_play="b2")
    assert [c["value"] for c in reply] == ["c3", "c4", "c5"]
    deeper = await world["alice"].autocomplete(thread, "match premove", "then_reply", "", if_they_play="b2",
                                               reply="c3", then_if="d4")
    assert [c["value"] for c in deeper] == ["e5"]
    assert await world["alice"].autocomplete(thread, "match premove", "reply", "", if_they_play="a1") == []
