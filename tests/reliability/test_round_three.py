"""Reliability, round three: answers in time whatever they wait on, limits on what pings and what is rated, news
Discord refuses for good, challenges that tell the truth, and rules free to read. Each test names the attack it
holds against (every one of them broke the code before this round)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import renderers
from bot.exts import community
from bot.exts.match import BOARD_REPOSTS
from bot.service import Player, Services, load_state
from bot.service.challenges import CHALLENGES_PER_TARGET
from bot.service.outbox import NEWS_REFUSED_TRIES
from bot.service.ratings import PAIR_RATED_PER_DAY
from bot.utils.boards import headline
from bot.utils.messages import DMS_PER_HOUR
from games import GAMES
from storage import Database, ReadTx
from tests.bot.helpers import buttons
from tests.reliability._support import Clock, World, edit_rows, ephemeral_refusal, service_match

GUILD = 10
ALICE, BOB, CAROL = Player(1, "alice"), Player(2, "bob"), Player(3, "carol")

# ---------------------------------------------------------------- /rules is free to read


async def test_a_newcomer_reads_every_games_rules_in_a_row_and_each_board_is_drawn_once(
        simcord_env, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # reading the rules of 4 games in a row got the 4th refused with a cooldown
    world = World(simcord_env, "newcomer")
    community.example_board.cache_clear()
    drawn: list[str] = []
    real = renderers.render

    def counted(state: Any, *args: Any, **kwargs: Any) -> bytes:
        drawn.append(type(state).__name__)
        return real(state, *args, **kwargs)

    monkeypatch.setattr(renderers, "render", counted)
    for game in [*GAMES, *GAMES]:  # every game, twice
        read = await world["newcomer"].slash(world.channel, "rules", game=game)
        assert read.ephemeral and read.response.embeds[0].title == f"{GAMES[game].title}: rules"
        assert read.response.attachments[0].filename == "example.png"
    assert len(drawn) == len(GAMES)  # each example board drawn once in this process


# ---------------------------------------------------------------- helpers


def _pings(env: Any, user_id: int, since: int = 0) -> int:
    """Messages the bot sent or edited since request ``since`` that may @-mention ``user_id`` (their allowed
    mentions name them)."""
    count = 0
    for entry in env.http_requests[since:]:
        body = entry.json if isinstance(entry.json, dict) else {}
        payload = body.get("data") if entry.path.startswith("/interactions/") else body
        if not isinstance(payload, dict):
            continue
        allowed = payload.get("allowed_mentions") or {}
        assert "users" not in allowed.get("parse", []), payload
        count += str(user_id) in {str(user) for user in allowed.get("users", [])}
    return count


def _dms(member: Any) -> list[str]:
    return [message.content for message in member.user.dm_channel.history()]


def _posts_to(env: Any, channel_ids: set[int], since: int = 0) -> int:
    return sum(1 for entry in env.http_requests[since:] if entry.method == "POST"
               and entry.path in {f"/channels/{channel}/messages" for channel in channel_ids})


# ---------------------------------------------------------------- bounded by design: challenges and direct messages


async def test_challenge_and_cancel_every_five_seconds_pings_the_target_three_times_an_hour(simcord_env,
                                                                                          db: Database) -> None:
    # one member challenged the same member and cancelled, every 5 s for 5 minutes: 48 pings (about 576 an hour)
    env = simcord_env
    world = World(env, "alice", "bob")
    bob = world["bob"]
    since = len(env.http_requests)
    refusals: list[str] = []
    for _ in range(60):
        offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob)
        if offered.ephemeral:
            refusals.append(offered.response.content)
        else:
            cancelled = await world["alice"].click(offered.response, label="Decline")  # the challenger cancels
            assert "Cancelled by" in cancelled.response.content
        await env.advance_time(5)
    assert _pings(env, bob.id, since) == CHALLENGES_PER_TARGET == 3
    to_bob = [text for text in refusals if f"You have challenged <@{bob.id}> 3 times in the last hour" in text]
    assert to_bob and all("cancelled ones count too" in text for text in to_bob)
    assert tuple(await db.fetchone("SELECT COUNT(*) FROM challenges")) == (3,)
    await env.advance_time(3600)  # an hour after the first: one slot is free again
    again = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob)
    assert not again.ephemeral and _pings(env, bob.id, since) == 4
    open_one = await world["alice"].slash(world.channel, "chopsticks start")  # an open challenge pings nobody
    assert not open_one.ephemeral


async def test_a_challenge_that_was_accepted_does_not_count_toward_the_limit(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    for _ in range(CHALLENGES_PER_TARGET + 2):  # friends playing one quick match after another
        offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
        accepted = await world["bob"].click(offered.response, label="Accept")
        assert "Accepted by" in accepted.response.content
        await world["alice"].slash(world.thread(), "match abort")


async def test_direct_messages_to_one_member_are_capped_per_hour(simcord_env, db: Database,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    # a member with pings off is told of each challenge by direct message: a crowd challenging him at once
    env = simcord_env
    caplog.set_level(logging.INFO, logger="bot.utils.messages")
    names = [f"m{n}" for n in range(DMS_PER_HOUR + 3)]
    world = World(env, "bob", *names)
    await world["bob"].slash(world.channel, "notify", pings="off")
    for name in names:
        offered = await world[name].slash(world.channel, "chopsticks start", opponent=world["bob"])
        assert not offered.ephemeral
    assert len(_dms(world["bob"])) == DMS_PER_HOUR
    dropped = [r for r in caplog.records if "direct message" in r.getMessage() and "hour" in r.getMessage()]
    assert len(dropped) == 3
    await env.advance_time(3601)
    late = await world[names[0]].slash(world.channel, "differences start", opponent=world["bob"])
    assert not late.ephemeral and len(_dms(world["bob"])) == DMS_PER_HOUR + 1


# ---------------------------------------------------------------- pings only where wanted


async def test_a_member_with_pings_off_is_challenged_in_bold_and_told_by_direct_message(simcord_env,
                                                                                      db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    bob = world["bob"]
    await bob.slash(world.channel, "notify", pings="off")
    since = len(env.http_requests)
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=bob)
    assert "challenges **bob** to" in offered.response.content and f"<@{bob.id}>" not in offered.response.content
    [told] = _dms(bob)
    assert told.startswith("**alice** challenges you to **Chopsticks** in **") and offered.response.message.jump_url \
        in told
    await bob.click(offered.response, label="Accept")
    for player, move in (("alice", "LL"), ("bob", "LL")):
        await world[player].slash(world.thread(), "chopsticks move", notation=move)
    final = await world["alice"].slash(world.thread(), "match resign")
    rematch = await world["alice"].click(final.response, label="Rematch")
    assert rematch.ephemeral and "Rematch offered" in rematch.response.content
    offer = world.channel.last_message
    assert "challenges **bob** to" in offer.content and "rematch" in offer.content
    assert len(_dms(bob)) == 2 and offer.jump_url in _dms(bob)[-1]
    assert _pings(env, bob.id, since) == 0


async def test_a_member_with_pings_off_is_never_mentioned_whatever_happens(simcord_env, db: Database) -> None:
    # boards, reminders, draw offers, extra time, final boards, rematches, declines and expiries
    env = simcord_env
    world = World(env, "alice", "bob")
    alice, bob = world["alice"], world["bob"]
    for member in (alice, bob):
        await member.slash(world.channel, "notify", pings="off")
    since = len(env.http_requests)
    offered = await alice.slash(world.channel, "chopsticks start", opponent=bob, days=3)
    await bob.click(offered.response, label="Accept")
    thread = world.thread()
    await alice.slash(thread, "chopsticks move", notation="LL")
    await bob.slash(thread, "chopsticks move", notation="LL")
    await alice.slash(thread, "match draw")
    await bob.slash(thread, "match draw", action="decline")
    await bob.slash(thread, "match give-time")
    await env.advance_time(3.1 * 86400)  # alice's reminder (her deadline is a day later: bob gave her time)
    assert any("a third of your time" in m.content for m in thread.history())
    await alice.slash(thread, "chopsticks move", notation="RR")
    final = await bob.slash(thread, "match resign")
    assert "**alice** wins" in final.response.content
    rematch = await alice.click(final.response, label="Rematch")
    assert not rematch.response.content.startswith("Something")
    await bob.click(world.channel.last_message, label="Decline")
    assert world.channel.last_message.content.startswith("**alice**, bob declined")
    await alice.slash(world.channel, "chopsticks start", opponent=bob)
    await env.advance_time(86400 + 60)  # expires unanswered: alice is told
    assert any("nobody accepted your" in m.content for m in world.channel.history())
    assert _pings(env, alice.id, since) == 0 and _pings(env, bob.id, since) == 0


async def test_reposting_a_board_pings_nobody_and_a_flood_of_reposts_is_refused(simcord_env, db: Database) -> None:
    # the player not to move re-posted the board 30 times in a minute: the opponent was @-mentioned 30 times
    env = simcord_env
    world = World(env, "alice", "bob")
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await world["bob"].click(offered.response, label="Accept")
    since = len(env.http_requests)
    answers = [await world["bob"].slash(world.thread(), "match board") for _ in range(30)]
    posted = [answer for answer in answers if not answer.ephemeral]
    refused = [answer for answer in answers if answer.ephemeral]
    assert len(posted) == BOARD_REPOSTS == 5
    assert all("takes a rest" in answer.response.content for answer in refused)
    assert all(f"<@{world['alice'].id}>, your move" in answer.response.content for answer in posted)  # (no ping)
    assert _pings(env, world["alice"].id, since) == 0


# ---------------------------------------------------------------- challenges that tell the truth


async def test_a_challenge_learns_its_message_from_discords_answer(simcord_env, db: Database) -> None:
    # the message id was asked for after the post; when that question failed, the challenge expired with live buttons
    env = simcord_env
    world = World(env, "alice", "bob")
    env.inject_error("GET", "/webhooks/*/*/messages/@original", status=500, times=None)
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    assert tuple(await db.fetchone("SELECT message_id FROM challenges")) == (offered.response.id,)
    await env.advance_time(86400 + 60)
    message = world.channel.history()[0] if world.channel.history()[0].id == offered.response.id else next(
        m for m in world.channel.history() if m.id == offered.response.id)
    assert "expired unanswered" in message.content
    assert all(button.disabled for button in buttons(message).values())


async def test_an_expired_challenge_whose_message_was_never_learned_tells_the_truth(simcord_env,
                                                                                  db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
    await edit_rows(db, "UPDATE challenges SET message_id = NULL")  # as when the post's answer never came
    await env.advance_time(86400 + 60)
    told = world.channel.last_message
    assert told.content.startswith("<@") and "nobody accepted your Chopsticks challenge in time" in told.content
    clicked = await world["bob"].click(offered.response, label="Accept")
    assert ephemeral_refusal(clicked) == "This challenge expired unanswered."
    message = next(m for m in world.channel.history() if m.id == offered.response.id)
    assert all(button.disabled for button in buttons(message).values())
    assert tuple(await db.fetchone("SELECT COUNT(*) FROM matches")) == (0,)


# ---------------------------------------------------------------- news Discord refuses for good


async def _forfeit_in_a_day(env: Any, world: World, db: Database) -> int:
    """A duel in its thread (both sides moved, alice to move, a day per move) that alice will lose on time."""
    offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"], days=1)
    await world["bob"].click(offered.response, label="Accept")
    for player, move in (("alice", "LL"), ("bob", "LL")):
        await world[player].slash(world.thread(), "chopsticks move", notation=move)
    return max(await db.read(ReadTx.all_match_ids))


async def test_news_refused_for_good_is_given_up_recorded_and_told_once(simcord_env, db: Database,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    # the bot lost access to a match's thread and channel, 30 days passed: 726 post attempts, still due
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _forfeit_in_a_day(env, world, db)
    places = {world.thread().id, world.channel.id}
    for place in places:
        env.inject_error("POST", f"/channels/{place}/messages", status=403, code=50001, message="Missing Access",
                         times=None)
    since = len(env.http_requests)
    await env.advance_time(3 * 86400)  # the reminder, the forfeit, and their retries
    attempts = _posts_to(env, places, since)
    assert attempts == 2 * NEWS_REFUSED_TRIES  # the reminder's and the result's, each tried 3 times
    assert await db.read(ReadTx.next_outbox) is None  # nothing left to try, however long the bot runs
    await env.advance_time(2 * 86400)  # (a month of hourly passes would show the same, 30 times slower)
    assert _posts_to(env, places, since) == attempts
    kept = await db.fetchall("SELECT kind, status, attempts, last_error FROM outbox WHERE subject_id = ? AND "
                             "kind IN ('reminder', 'result') ORDER BY id",
                             (match_id,))
    assert [tuple(row)[:3] for row in kept] == [("reminder", "given_up", 3), ("result", "given_up", 3)]
    assert all("Missing Access" in row[3] for row in kept)
    assert (await db.read(ReadTx.get_match, match_id)).status == "finished"
    alice, bob = _dms(world["alice"]), _dms(world["bob"])
    assert len(alice) == 2 and len(bob) == 1  # alice: her reminder, then the result; bob: the result
    assert alice[0].startswith("A third of your time is left in **Chopsticks** match") and \
        "I could not post this reminder there" in alice[0]
    assert alice[1] == bob[0] and bob[0].startswith(f"I could not post the final board of **Chopsticks** match "
                                                    f"#{match_id}") and "alice ran out of time: **bob** wins." in bob[0]
    gave_up = [r for r in caplog.records if r.getMessage().startswith("gave up the")]
    assert len(gave_up) == 2


async def test_news_whose_channel_is_gone_is_given_up_at_once_and_told(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _forfeit_in_a_day(env, world, db)
    for place in (world.thread().id, world.channel.id):
        env.inject_error("POST", f"/channels/{place}/messages", status=404, code=10003, message="Unknown Channel",
                         times=None)
    await env.advance_time(2 * 86400)
    kept = await db.fetchall("SELECT kind, status, attempts FROM outbox WHERE subject_id = ? AND "
                             "kind IN ('reminder', 'result') ORDER BY id", (match_id,))
    assert [tuple(row) for row in kept] == [("reminder", "given_up", 1), ("result", "given_up", 1)]
    assert len(_dms(world["bob"])) == 1 and "its channel is gone" in _dms(world["bob"])[0]


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_news_discord_fails_to_take_for_now_is_still_retried_until_delivered(simcord_env, db: Database,
                                                                                 status: int) -> None:
    env = simcord_env
    world = World(env, "alice", "bob")
    match_id = await _forfeit_in_a_day(env, world, db)
    thread = world.thread()
    env.inject_error("POST", f"/channels/{thread.id}/messages", status=status, times=NEWS_REFUSED_TRIES + 3)
    await env.advance_time(3 * 86400)
    assert await db.fetchall("SELECT * FROM outbox WHERE subject_id = ? AND kind IN ('reminder', 'result')",
                             (match_id,)) == []  # both delivered
    assert any("a third of your time" in m.content for m in thread.history())
    assert "alice ran out of time: **bob** wins." in thread.last_message.content
    assert _dms(world["alice"]) == _dms(world["bob"]) == []


# ---------------------------------------------------------------- ratings that mean something


async def test_resigning_before_both_sides_moved_aborts_so_a_farming_loop_gains_nothing(simcord_env,
                                                                                       db: Database) -> None:
    # two accounts looped challenge, Accept, resign before any move: 93 rated wins, 1000 → 2194 and first place
    env = simcord_env
    world = World(env, "alice", "alt")
    for _ in range(10):
        offered = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["alt"])
        await world["alt"].click(offered.response, label="Accept")
        resigned = await world["alt"].slash(world.thread(), "match resign")
        assert "is aborted: it ended before both sides had moved" in resigned.response.content
    statuses = await db.fetchall("SELECT status, rated FROM matches")
    assert {row[0] for row in statuses} == {"aborted"} and len(statuses) == 10
    assert await db.fetchall("SELECT * FROM ratings") == []
    board = await world["alice"].slash(world.channel, "leaderboard", game="chopsticks")
    assert board.response.embeds[0].description == "No finished rated matches yet."


async def test_a_draw_agreed_before_both_sides_moved_is_an_abort(db: Database) -> None:
    services = Services(db, clock=Clock())
    match = await service_match(services, "differences", GUILD, (ALICE, BOB))
    await services.moves.play(match.id, GUILD, ALICE.user_id, "a1")
    await services.endings.offer_draw(match.id, GUILD, ALICE.user_id)
    ended, agreed = await services.endings.offer_draw(match.id, GUILD, BOB.user_id)
    assert agreed and ended.status == "aborted" and ended.outcome["termination"] == "aborted"
    assert await db.fetchall("SELECT * FROM ratings") == []


async def _rated_win(services: Services, winner: Player, loser: Player) -> Any:
    """A chopsticks duel in which both sides moved, then ``loser`` resigned."""
    match = await service_match(services, "chopsticks", GUILD, (winner, loser))
    for player in (winner, loser):
        await services.moves.play(match.id, GUILD, player.user_id, "LL")
    return await services.endings.resign(match.id, GUILD, loser.user_id)


async def test_rated_results_between_the_same_two_members_count_three_times_a_day(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    ended = []
    for _ in range(5):
        ended.append(await _rated_win(services, ALICE, BOB))
        clock.now += 600
    assert [match.rated for match in ended] == [True, True, True, False, False]
    assert [match.rating_changes is not None for match in ended] == [True, True, True, False, False]
    row = await db.fetchone("SELECT games, wins FROM ratings WHERE user_id = ?", (ALICE.user_id,))
    assert tuple(row) == (PAIR_RATED_PER_DAY, PAIR_RATED_PER_DAY) == (3, 3)
    shown = headline(ended[3], load_state(ended[3]))
    assert "Not rated: alice and bob already have 3 rated results against each other in the last 24 hours" in shown
    assert "Not rated" not in headline(ended[2], load_state(ended[2]))
    other = await _rated_win(services, ALICE, CAROL)  # another opponent still counts
    assert other.rated
    clock.now = ended[0].finished_at + 86400 + 1  # the first result is a day old: one more counts
    assert (await _rated_win(services, ALICE, BOB)).rated
    assert not (await _rated_win(services, ALICE, BOB)).rated


async def test_a_rating_built_on_one_opponent_shows_in_stats(simcord_env, db: Database) -> None:
    env = simcord_env
    world = World(env, "alice", "bob", "carol")
    alice, bob, carol = (Player(world[name].id, name) for name in ("alice", "bob", "carol"))
    services: Services = env.bot.services
    for day in range(3):
        for _ in range(PAIR_RATED_PER_DAY):
            match = await service_match(services, "chopsticks", world.guild.id, (alice, bob))
            for player in (alice, bob):
                await services.moves.play(match.id, world.guild.id, player.user_id, "LL")
            await services.endings.resign(match.id, world.guild.id, bob.user_id)
        if day < 2:
            await env.advance_time(86400)
    match = await service_match(services, "chopsticks", world.guild.id, (alice, carol))
    for player in (alice, carol):
        await services.moves.play(match.id, world.guild.id, player.user_id, "LL")
    await services.endings.resign(match.id, world.guild.id, carol.user_id)
    shown = await world["carol"].slash(world.channel, "stats", user=world["alice"])
    [field] = shown.response.embeds[0].fields
    assert "W/L/D 10/0/0" in field.value
    assert "9 of 10 rated wins (90%) against one member: bob" in field.value
    plain = await world["carol"].slash(world.channel, "stats", user=world["carol"])
    assert "against one member" not in plain.response.embeds[0].fields[0].value
