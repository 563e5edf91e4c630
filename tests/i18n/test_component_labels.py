"""Buttons, select menus and the answer box speak the language of what they are on (SimCord, the real discord.py code
paths): a challenge's Accept / Decline and a final board's Rematch the server's, like the message's words; the
components under a member's own puzzle, and the box they type a move in, the member's; the daily puzzle's button the
server's. Clicks find a component by its ``custom_id`` (what it does), never by a label's language."""

from __future__ import annotations

import random
from typing import Any

import discord

from bot.local_play import Languages
from games.puzzles import Puzzle, shipped
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, labels, only_match_id, press, stored


def _shown(result: Any) -> Any:
    """The message an interaction answered with (the response, else the last follow-up)."""
    return result.response if result.response is not None else result.followups[-1]


def _chopsticks_puzzles(count: int) -> list[Puzzle]:
    return [p for p in shipped() if p.game == "chopsticks" and len(p.line) == 1][:count]


def _serve(env: Any, puzzles: list[Puzzle]) -> None:
    """The bot serves only ``puzzles`` (seeded choice)."""
    env.bot.services.puzzles.source = lambda: puzzles
    env.bot.services.puzzles.rng = random.Random(3)


async def test_a_challenge_and_a_rematch_in_a_french_server_have_french_buttons_that_work(
        simcord_env, db: Database, languages: Languages) -> None:
    world = World(simcord_env, "alice", "bob")
    languages.server = "fr"
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=3)
    assert offered.response.content.startswith("**alice** défie "), offered.response.content
    assert list(labels(offered.response).values()) == ["Accepter", "Refuser"]
    accepted = await press(world["bob"], offered.response, "accept")
    assert not accepted.ephemeral
    match_id = await only_match_id(db)
    assert (await stored(db, match_id)).status == "active"
    challenge = next(m for m in world.channel.history() if m.content.startswith("**alice** défie "))
    assert challenge.content.endswith(f"\nAccepté par **bob** : partie n° {match_id}."), challenge.content
    assert list(labels(challenge).values()) == ["Accepter", "Refuser"]  # disabled, still in French
    assert all(button.disabled for row in challenge.components for button in row.children)
    await both_sides_move(world, db, match_id)  # both sides moved: only then is a resignation a result
    await world["bob"].slash(world.thread(), "match resign")
    final = world.thread().last_message
    assert list(labels(final).values()) == ["Revanche"]
    rematch = await press(world["bob"], final, "rematch")
    assert rematch.ephemeral
    again = world.channel.last_message
    assert again.content.startswith("**bob** défie "), again.content
    assert list(labels(again).values()) == ["Accepter", "Refuser"]
    declined = await press(world["alice"], again, "decline")
    assert declined.response.content.endswith("\nRefusé par **alice**."), declined.response.content


async def test_a_pt_br_members_puzzle_has_portuguese_buttons_and_answer_box(simcord_env, db: Database,
                                                                            languages: Languages) -> None:
    puzzles = _chopsticks_puzzles(2)
    _serve(simcord_env, puzzles)
    world = World(simcord_env, "alice")
    languages.members[world["alice"].id] = "pt-BR"  # the server stays English: a puzzle is the member's alone
    asked = await world["alice"].slash(world.channel, "puzzle next", game="chopsticks")
    assert asked.ephemeral
    shown = _shown(asked)
    assert list(labels(shown).values()) == ["Escolha seu lance", "Responder", "Mostrar a resposta"]
    assert "toque em **Responder** para digitá-lo." in shown.content, shown.content
    box = await press(world["alice"], shown, "answer")
    modal = box.modal
    assert modal is not None and modal["title"] == "Seu lance"
    (field,) = [item for row in modal["components"] for item in row["components"]]
    assert (field["custom_id"], field["label"], field["placeholder"]) == (
        "napkin:pz:move", "Seu lance", "como o comando de lance do jogo aceita")
    attempt = (await db.fetchall("SELECT puzzle_id FROM puzzle_attempts ORDER BY id"))[-1][0]
    puzzle = next(p for p in puzzles if p.id == attempt)
    wrong = next(move for move, _ in puzzle.proof[0].values if move not in puzzle.proof[0].accepted)
    failed = _shown(await world["alice"].submit_modal(box, {"napkin:pz:move": wrong}))
    assert f"`{wrong}` não é o melhor lance" in failed.content, failed.content
    assert list(labels(failed).values())[-2:] == ["Responder", "Mostrar a resposta"]
    answered = _shown(await press(world["alice"], failed, "show"))
    assert list(labels(answered).values()) == ["Próximo problema: Palitinhos", "Qualquer jogo"]
    following = _shown(await press(world["alice"], answered, "next"))
    assert list(labels(following).values())[-2:] == ["Responder", "Mostrar a resposta"]
    languages.members.clear()  # the same open puzzle, to an English member: English buttons
    english = _shown(await world["alice"].slash(world.channel, "puzzle next"))
    assert list(labels(english).values())[-2:] == ["Answer", "Show the answer"]


async def test_the_daily_puzzles_button_is_in_the_servers_language(simcord_env, db: Database,
                                                                   languages: Languages) -> None:
    env = simcord_env
    _serve(env, _chopsticks_puzzles(1))
    world = World(env, "alice")
    languages.server = "de"
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(env.create_user("boss"), roles=[admins])
    await boss.slash(world.channel, "settings", puzzle_channel=world.channel, puzzle_hour=0)
    await env.advance_time(1)
    daily = await db.read(ReadTx.latest_daily, world.guild.id)
    assert daily is not None and daily.message_id is not None
    post = next(m for m in world.channel.history() if m.id == daily.message_id)
    assert "Drücke **Lösen**, um privat zu antworten" in post.content, post.content
    assert list(labels(post).values()) == ["Lösen"]
    hint = world.thread().history()[-1].content
    assert hint.startswith("Antworte privat mit **Lösen** oben;"), hint
    solving = await press(world["alice"], post, "solve")
    assert solving.ephemeral and list(labels(_shown(solving)).values())[-2:] == ["Answer", "Show the answer"]
