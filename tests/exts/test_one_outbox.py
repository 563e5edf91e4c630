"""The one outbox (bot/service/outbox.py, bot/exts/outbox.py) and the one end of a match (bot/service/finisher.py):

- a tournament's news Discord refuses for good is given up after the same tries as a match's, and its organizer told;
- a round's news retried after a failure posts its pairings once (each message of a news is noted as posted);
- an idle tournament game ended by its organizer ends through the one end, which tells MatchEnds (the next round
  is paired), as every other end does.
"""

from __future__ import annotations

import sys
from typing import Any

import discord
import pytest

from bot.service import Player, load_state
from bot.service.outbox import NEWS_REFUSED_TRIES
from bot.service.tournaments import GRACE
from storage import Database, ReadTx
from tests.bot.helpers import World
from tests.reliability._support import legal_texts, match_of

DAY = 86400.0


class _Response:
    """What discord.HTTPException reads of an aiohttp response."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Service Unavailable"


def _dms(member: Any) -> list[str]:
    return [message.content for message in member.user.dm_channel.history()] if member.user.dm_channel else []


async def _cup(env: Any, db: Database, world: World, names: list[str], **options: Any) -> int:
    created = await world[names[0]].slash(world.channel, "tournament create", game="chopsticks", name="Cup",
                                          **options)
    assert "opens tournament" in created.response.content, created.response.content
    tournament = (await db.fetchall("SELECT id FROM tournaments ORDER BY id DESC"))[0][0]
    for name in names:
        await env.bot.services.tournaments.join(tournament, world.guild.id, Player(world[name].id, name))
    return int(tournament)


def _posts(env: Any, channel_id: int, since: int, text: str) -> int:
    """Requests posting a message whose embeds or content hold ``text`` to ``channel_id`` since request ``since``."""
    found = 0
    for entry in env.http_requests[since:]:
        if entry.method == "POST" and entry.path == f"/channels/{channel_id}/messages" and text in str(entry.json):
            found += 1
    return found


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_tournament_news_refused_for_good_is_given_up_like_match_news_and_the_organizer_told(
        simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "ann", "ben")
    await env.bot.services.settings.update(world.guild.id, use_threads=False)
    cup = await _cup(env, db, world, ["ann", "ben"], days=1)
    since = len(env.http_requests)
    env.inject_error("POST", f"/channels/{world.channel.id}/messages", status=403, code=50001,
                     message="Missing Access", times=None)
    await world["ann"].slash(world.channel, "tournament start", tournament=str(cup))
    await env.advance_time(3 * DAY)  # the round's news, the game's reminder and forfeit, their retries
    attempts = _posts(env, world.channel.id, since, "round 1 of")
    await env.advance_time(2 * DAY)  # (a month of hourly passes would show the same, only slower)
    rows = await db.fetchall("SELECT kind, status, attempts, last_error FROM outbox ORDER BY id")
    by_kind = {row[0]: tuple(row[1:3]) for row in rows}
    assert by_kind["round"] == ("given_up", NEWS_REFUSED_TRIES)  # not retried every hour, forever
    assert by_kind["result"] == ("given_up", NEWS_REFUSED_TRIES)  # the same tries as a match's news
    assert all("Missing Access" in row[3] for row in rows)
    assert _posts(env, world.channel.id, since, "round 1 of") == attempts == NEWS_REFUSED_TRIES
    assert await db.read(ReadTx.next_outbox) is None  # nothing left to try, however long the bot runs
    organizer = _dms(world["ann"])
    told = [text for text in organizer if "I could not post round 1's pairings of" in text]
    assert len(told) == 1 and "I can no longer post in its channel" in told[0]


async def test_a_round_news_retried_after_a_failure_posts_its_pairings_once(simcord_env, db: Database,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    env = simcord_env
    world = World(env, "ann", "ben", "cat", "dan")
    cup = await _cup(env, db, world, ["ann", "ben", "cat", "dan"], rounds=2)
    await world["ann"].slash(world.channel, "tournament start", tournament=str(cup))
    games = [p for p in await db.read(ReadTx.tournament_pairings, cup, 1) if p.kind == "game"]
    services = env.bot.services
    # round 2's news: its first message (the pairings) goes out, its second (the standings) meets a 503 once
    rounds = sys.modules["bot.exts.tournament._rounds"]  # (the tournament task's module, as discord.py loaded it)
    real = rounds.standings_payload
    failed: list[int] = []

    async def fails_once(*args: Any, **kwargs: Any) -> dict[str, Any]:
        if not failed:
            failed.append(1)
            raise discord.HTTPException(_Response(503), {"code": 0, "message": "Service Unavailable"})
        return await real(*args, **kwargs)

    monkeypatch.setattr(rounds, "standings_payload", fails_once)
    with env._bot_scope():  # (SimCord's private scope: the task woken by the last end is the bot's)
        for board in games:
            for _ in range(2):
                match = await match_of(db, board.match_id)
                await services.moves.play(match.id, world.guild.id, match.seats[match.current_seat].user_id,
                                          legal_texts(load_state(match), 1)[0])
            await services.endings.resign(board.match_id, world.guild.id, board.second_id)
    for _ in range(120):  # the pairing runs in a worker process: wait (bounded) until the failed post is settled
        await env.advance_time(1)
        if failed and await db.fetchall("SELECT 1 FROM outbox WHERE kind = 'round' AND seq = 2 AND attempts = 1"):
            break
    assert failed == [1]
    [news] = await db.fetchall("SELECT parts_done, attempts FROM outbox WHERE kind = 'round' AND seq = 2")
    assert tuple(news) == (1, 1)  # its pairings posted, noted; one failed attempt
    await env.advance_time(300)  # the retry
    assert await db.fetchall("SELECT * FROM outbox") == []  # delivered in the end
    titles = [m.embeds[0].title or "" for m in world.channel.history() if m.embeds]
    assert sum("round 2 of 2" in title for title in titles) == 1, "the pairings posted once"
    assert sum("standings after round 1" in title for title in titles) == 1


async def test_an_idle_game_ended_by_the_organizer_ends_through_the_one_end(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "ann", "ben")
    cup = await _cup(env, db, world, ["ann", "ben"], rounds=1, days=1)
    await world["ann"].slash(world.channel, "tournament start", tournament=str(cup))
    [board] = [p for p in await db.read(ReadTx.tournament_pairings, cup, 1) if p.kind == "game"]
    heard: list[int] = []
    env.bot.services.match_ends.listen(lambda match: heard.append(match.id))
    match = await match_of(db, board.match_id)
    assert match.no_abort  # a tournament's game carries its rule from its creation
    await env.advance_time((match.updated_at + DAY + GRACE + 60) - env.bot.now())
    ended = await world["ann"].slash(world.channel, "tournament end-game", tournament=str(cup),
                                     match=str(board.match_id))
    assert ended.response is not None
    assert heard == [board.match_id], "MatchEnds heard the end once"
    finished = await match_of(db, board.match_id)
    assert finished.status == "finished" and finished.outcome["termination"] == "out_of_time"
    # the round moved on
    assert (await env.bot.services.tournament_reading.get(cup, world.guild.id)).status == "finished"


@pytest.mark.parametrize("action", ["resign", "forfeit"])
async def test_a_tournament_game_is_never_aborted_and_its_no_show_is_withdrawn(simcord_env, db: Database,
                                                                              action: str) -> None:
    env = simcord_env
    world = World(env, "ann", "ben", "cat", "dan")
    cup = await _cup(env, db, world, ["ann", "ben", "cat", "dan"], rounds=2, days=1)
    await world["ann"].slash(world.channel, "tournament start", tournament=str(cup))
    board = next(p for p in await db.read(ReadTx.tournament_pairings, cup, 1) if p.kind == "game")
    mover = next(member for member in world.members.values() if member.id == board.first_id)
    if action == "resign":  # before any move
        await mover.slash(world.channel, "match resign", match=str(board.match_id))
    else:
        await env.advance_time(DAY + 60)
    ended = await match_of(db, board.match_id)
    assert ended.status == "finished"  # not aborted: the pairing scores it
    [scored] = [p for p in await db.read(ReadTx.tournament_pairings, cup, 1) if p.match_id == board.match_id]
    assert (scored.first_points, scored.second_points, scored.played) == (0.0, 1.0, False)  # a forfeit, unplayed
    entry = await db.read(ReadTx.tournament_entry, cup, board.first_id)
    assert (entry.withdrawn_round, entry.withdrawn_reason) == (2, "no-show")
