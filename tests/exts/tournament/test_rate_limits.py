"""A 64-player tournament round posted under Discord's rate limits (emulated, tests/ratelimits.py): the pairings,
the standings and 32 first boards in one channel (threads off), paced by discord.py's own waiting.

The round's last game ends when the channel's message bucket is used up (as a bot process that has just restarted
finds it: Discord remembers, discord.py does not), so the first post is answered 429. Nothing is lost (every board of
the round posted), nothing is posted twice, and the requests Discord was sent are at most 1.1 times the posts:
discord.py waits out the 429 and then learns the bucket from the headers and waits before it is exhausted; the bot
itself never retries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from bot.service import Player, load_state
from storage import Database, ReadTx
from tests.bot.helpers import World
from tests.ratelimits import MESSAGES_BUCKET, rate_limited
from tests.reliability._support import legal_texts, match_of

PLAYERS = 64
MESSAGES = "/channels/{}/messages"


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch):
    with rate_limited(monkeypatch) as seen:
        yield seen


async def _finish_round(env, db: Database, tournament_id: int, number: int, before_last: Callable[[], None]) -> None:
    """Every game of round ``number``: both sides move, then the second seat resigns, through the services but as the
    bot would run them (in its scope: the tournament task the round's end wakes is the bot's, on SimCord's clock)."""
    services = env.bot.services
    pairings = await db.read(ReadTx.tournament_pairings, tournament_id, number)
    games = [board for board in pairings if board.kind == "game"]
    with env._bot_scope():  # (SimCord's private scope, as bench/_harness.py uses its settle step: simcord is pinned)
        for index, board in enumerate(games):
            for _ in range(2):
                match = await match_of(db, board.match_id)
                state = load_state(match)
                mover = match.seats[match.current_seat].user_id
                await services.moves.play(match.id, match.guild_id, mover, legal_texts(state, 1)[0])
            if index == len(games) - 1:
                before_last()
            await services.endings.resign(board.match_id, match.guild_id, board.second_id)


@pytest.mark.slow  # a sweep: a 64-player round paced by emulated rate limits
async def test_a_64_player_round_is_posted_whole_and_once_under_rate_limits(limits, simcord_env, db) -> None:
    env = simcord_env
    names = [f"player{n:02}" for n in range(PLAYERS)]
    world = World(env, *names)
    guild = world.guild.id
    await env.bot.services.settings.update(guild, use_threads=False)
    created = await world["player00"].slash(world.channel, "tournament create", game="chopsticks",
                                            name="Big cup", rounds=2)
    assert "opens tournament" in created.response.content, created.response.content
    tournament = (await db.fetchall("SELECT id FROM tournaments"))[0][0]
    for name in names:
        await env.bot.services.tournaments.join(tournament, guild, Player(world[name].id, name))
    started = await world["player00"].slash(world.channel, "tournament start", tournament=str(tournament))
    assert started.response is not None
    await env.advance_time(120)  # round 1 posted, paced by the buckets
    marks: list[int] = []

    def spend() -> None:  # the channel's message bucket used up when the last game of round 1 ends
        limits.spend(MESSAGES_BUCKET, str(world.channel.id), env.backend.clock.elapsed)
        marks.append(len(limits.log))

    await _finish_round(env, db, tournament, 1, before_last=spend)
    await env.advance_time(120)  # round 2: pairings, standings, 32 boards
    first = marks[0]
    boards = [b for b in await db.read(ReadTx.tournament_pairings, tournament, 2) if b.kind == "game"]
    assert len(boards) == PLAYERS // 2
    channel_path = MESSAGES.format(world.channel.id)
    round_two = [entry for entry in limits.log[first:] if entry[1] == channel_path]
    posts = [status for _, _, status in round_two if status == 200]
    limited = [status for _, _, status in round_two if status == 429]
    print(f"round 2: {len(posts)} posts in the channel, {len(limited)} answered 429, "
          f"{len(round_two)} requests in all")
    assert limited, "the emulated limits never bit: the test proves nothing"
    # every board posted once: the first board of each match of round 2, and one pairings and one standings post
    messages = list(world.channel.history())
    first_boards = Counter(attachment.filename for m in messages for attachment in m.attachments
                           if attachment.filename.endswith("-0.png"))
    wanted = {f"chopsticks-{b.match_id}-0.png" for b in boards}
    assert wanted <= set(first_boards), sorted(wanted - set(first_boards))
    assert all(first_boards[name] == 1 for name in wanted), first_boards
    pairings = [m for m in messages if m.embeds and "round 2 of 2" in (m.embeds[0].title or "")]
    assert len(pairings) == 1
    assert len(round_two) <= 1.1 * len(posts), (len(round_two), len(posts))
