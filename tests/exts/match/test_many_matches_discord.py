"""Discord-level: a member with many active matches, a server with many rated members."""

from __future__ import annotations

import random

from games import GAMES
from storage import Database, RatingRecord, SeatRecord, Tx
from tests.bot.helpers import World

DISCORD_MESSAGE_LIMIT = 2000


async def _fill_matches(db: Database, world: World, count: int) -> list[int]:
    """``count`` active matches of alice's against bob, over every game, alice to move in the even ones."""
    alice, bob = world["alice"], world["bob"]
    rng = random.Random(5)
    starts = {key: GAMES[key].new_state({}, rng).to_dict() for key in GAMES}

    def body(tx: Tx) -> list[int]:
        ids = []
        for number in range(count):
            key = list(GAMES)[number % len(GAMES)]
            seats = [SeatRecord(0, alice.id, "alice"), SeatRecord(1, bob.id, "bob")]
            ids.append(tx.insert_match(guild_id=world.guild.id, channel_id=world.channel.id, game=key, variant={},
                                       state=starts[key], current_seat=number % 2, days_per_move=3,
                                       deadline=2e9 + number, rated=True, now=1000.0 + number, seats=seats))
        return ids

    return await db.write(body)


async def test_match_list_answers_with_100_active_matches_page_by_page(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    ids = await _fill_matches(db, world, 100)
    newest_first = ids[::-1]
    seen: list[int] = []
    for page in range(1, 11):
        result = await world["alice"].slash(world.channel, "match list", page=page)
        assert result.ephemeral
        text = result.response.content
        assert len(text) <= DISCORD_MESSAGE_LIMIT
        *lines, footer = text.splitlines()
        assert len(lines) == 10
        more = f" · `/match list page:{page + 1}` for more" if page < 10 else ""
        assert footer == f"Page {page} of 10{more}."
        seen += [int(line.split()[0].lstrip("#")) for line in lines]
    assert seen == newest_first  # every match once, most recently active first
    past_the_end = await world["alice"].slash(world.channel, "match list", page=11)
    assert past_the_end.response.content.splitlines()[-1] == "Page 10 of 10."


async def test_match_autocomplete_reads_only_what_it_shows(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    ids = await _fill_matches(db, world, 100)
    everything = await world["alice"].autocomplete(world.channel, "match board", "match", "")
    assert [int(c["value"]) for c in everything] == ids[::-1][:25]
    newest = ids[-1]
    newest_game = GAMES[list(GAMES)[(len(ids) - 1) % len(GAMES)]].title
    assert everything[0]["name"] == f"#{newest} {newest_game} vs bob (waiting)"
    yours = await world["alice"].autocomplete(world.channel, "match board", "match", "YOUR MOVE")
    assert yours and all(c["name"].endswith("(your move)") for c in yours)
    assert [int(c["value"]) for c in yours] == [i for i in ids[::-1] if (i - ids[0]) % 2 == 0][:25]
    one = await world["alice"].autocomplete(world.channel, "match board", "match", f"#{ids[42]}")
    assert [int(c["value"]) for c in one] == [ids[42]]
    chopsticks = await world["alice"].autocomplete(world.channel, "chopsticks move", "match", "")
    assert chopsticks and all(" Chopsticks vs " in c["name"] for c in chopsticks)
    assert await world["alice"].autocomplete(world.channel, "match board", "match", "100%") == []


async def test_leaderboard_reaches_every_rank_and_stats_find_the_member(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice")
    members = 12_345
    now = simcord_env.bot.now()  # every member played lately (a rating left for long is provisional again)

    def body(tx: Tx) -> None:
        for number in range(members):  # ratings fall with the number: member 0 ranks first
            tx.put_rating(RatingRecord(world.guild.id, "chopsticks", 10_000 + number, f"m{number}",
                                       30.0 - number / 1000, 1.0, 9, 5, 4, 0, None), now)
        tx.put_rating(RatingRecord(world.guild.id, "chopsticks", world["alice"].id, "alice", 25.0, 1.0, 9, 5, 4, 0,
                                   None), now)

    await db.write(body)
    last_page = (members + 1 + 19) // 20
    result = await world["alice"].slash(world.channel, "leaderboard", game="chopsticks", page=600)
    embed = result.response.embeds[0]
    assert embed.footer.text.startswith(f"page 600 of {last_page} ")
    ranks = [int(line.split("`")[1].rstrip(".")) for line in embed.description.splitlines()]
    assert ranks == list(range(11_981, 12_001))
    last = await world["alice"].slash(world.channel, "leaderboard", game="chopsticks", page=10**6)
    lines = last.response.embeds[0].description.splitlines()
    assert lines[-1].startswith(f"`{members + 1}.` **m{members - 1}**")
    stats = await world["alice"].slash(world.channel, "stats")
    assert "W/L/D 5/4/0" in stats.response.embeds[0].fields[0].value
