"""Seasons and rating uncertainty: sigma grows with the time since a member's last rated game (and goes into their
next update), a rating left alone long enough is provisional again and left off the default leaderboard, and a
server with seasons shows the current season's standings by default and earlier ones on request, while the rating
itself carries on."""

from __future__ import annotations

import math

import discord
import pytest
from openskill.models import PlackettLuce

from bot.service import Player, Services, ratings, seasons, uncertainty
from i18n import Text
from storage import Database, ReadTx
from tests.bot.helpers import World, both_sides_move, stored
from tests.reliability._support import Clock, service_match, start_discord_match

DAY = 86400.0
GUILD = 7
ALICE, BOB = Player(11, "alice"), Player(12, "bob")

pytestmark = pytest.mark.both_backends


def test_sigma_grows_from_the_last_game_to_the_documented_figures() -> None:
    assert uncertainty.grown(5.0, 0.0, 365 * DAY) == pytest.approx(7.5)  # a year away: provisional again
    assert uncertainty.grown(6.7, 0.0, 130 * DAY) == pytest.approx(7.5, abs=0.05)  # five games: about four months
    assert uncertainty.grown(5.0, 0.0, 700 * DAY) == uncertainty.SIGMA_START  # never above the start
    assert uncertainty.grown(5.0, 100.0, 50.0) == 5.0 and uncertainty.grown(5.0, None, 1e9) == 5.0
    days_to_start = (uncertainty.SIGMA_START ** 2 - 25) / uncertainty.VARIANCE_PER_DAY
    assert 500 < days_to_start < 540  # "about 17 months"
    assert not uncertainty.is_provisional(5, 5.0, 0.0, 364 * DAY)
    assert uncertainty.is_provisional(5, 5.0, 0.0, 366 * DAY)
    assert uncertainty.is_provisional(4, 1.0) and uncertainty.is_provisional(30, 7.51)


def test_a_season_is_named_by_its_month_or_quarter_in_utc() -> None:
    march = 1_741_000_000.0  # 2025-03-03
    assert seasons.season_of("monthly", march) == "2025-03"
    assert seasons.season_of("quarterly", march) == "2025-Q1"
    assert seasons.season_of("off", march) is None

    def words(key: str, locale: str) -> str:
        return Text("{season}", {"season": seasons.season_words(key)}).render(locale)

    assert words("2025-03", "en") == "March 2025" and words("2025-Q1", "en") == "Q1 2025"
    assert words("2025-03", "fr") == "mars 2025" and words("2025-Q1", "fr") == "T1 2025"
    assert words("2025-03", "pt_BR") == "março de 2025" and words("2025-Q1", "de") == "Q1 2025"
    assert seasons.season_words("2025-13") == "2025-13"


PAIR_SPACING = 8 * 3600 + 60
"""Seconds between two rated games of the same pair in these tests: three in any 24 hours count."""


async def both_play(services: Services, match_id: int) -> None:
    """Each side of a Chopsticks match moves once (a match resigned before that is aborted, unrated)."""
    for _ in range(2):
        match = await services.reading.get_match(match_id)
        assert match.current_seat is not None
        await services.moves.play(match_id, GUILD, match.seats[match.current_seat].user_id, "LL")


async def test_the_next_game_after_time_away_starts_from_the_grown_sigma(db: Database) -> None:
    clock = Clock(1_700_000_000.0)
    services = Services(db, clock=clock)
    first = await service_match(services, "chopsticks", GUILD, (ALICE, BOB))
    await both_play(services, first.id)
    await services.endings.resign(first.id, GUILD, BOB.user_id)
    alice = await db.read(ReadTx.get_rating, GUILD, "chopsticks", ALICE.user_id)
    bob = await db.read(ReadTx.get_rating, GUILD, "chopsticks", BOB.user_id)
    assert alice is not None and bob is not None and alice.updated_at == clock.now
    clock.now += 200 * DAY  # alice and bob stay away 200 days
    second = await service_match(services, "chopsticks", GUILD, (ALICE, BOB))
    await both_play(services, second.id)
    finished = await services.endings.resign(second.id, GUILD, BOB.user_id)
    model = PlackettLuce()
    grown = [uncertainty.grown(row.sigma, row.updated_at, clock.now) for row in (alice, bob)]
    assert all(g > row.sigma for g, row in zip(grown, (alice, bob), strict=True))
    [[a], _] = model.rate([[model.rating(mu=alice.mu, sigma=grown[0])], [model.rating(mu=bob.mu, sigma=grown[1])]],
                            ranks=[0, 1])
    after = await db.read(ReadTx.get_rating, GUILD, "chopsticks", ALICE.user_id)
    assert after is not None and math.isclose(after.mu, a.mu) and math.isclose(after.sigma, a.sigma)
    # the change shown on the final board starts from the rating the leaderboard showed (its last game's)
    assert finished.rating_changes is not None
    assert finished.rating_changes[str(ALICE.user_id)] == [ratings.display_rating(alice.mu, alice.sigma),
                                                           ratings.display_rating(a.mu, a.sigma), 1, 1]


async def jump(env: object, seconds: float) -> None:
    """Move the simulated clock ``seconds`` on at once (the bot's timers then run once, not once an hour: months pass
    in a test)."""
    env.backend.advance_clock(seconds)  # type: ignore[attr-defined]
    await env.settle()  # type: ignore[attr-defined]


async def _series(world: World, db: Database, games: int, winner: str = "alice", loser: str = "bob") -> None:
    """``games`` rated wins of ``winner`` over ``loser``, each played into by both and resigned, eight hours apart (at
    most three rated results a day count between the same two members)."""
    for _ in range(games):
        await jump(world.env, PAIR_SPACING)
        match_id = await start_discord_match(world, db, "chopsticks", challenger=winner, accepter=loser)
        await both_sides_move(world, db, match_id)
        await world[loser].slash(world.thread(), "match resign")
        assert (await stored(db, match_id)).rated


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_rating_left_alone_for_a_year_is_provisional_and_off_the_leaderboard(simcord_env,
                                                                                     db: Database) -> None:
    world = World(simcord_env, "alice", "bob", "carol")
    await _series(world, db, 20)  # alice and bob: established (20 games, sigma near 5)
    await _series(world, db, 5, "carol", "alice")  # carol: 5 games, alice 25
    board = await world["carol"].slash(world.channel, "leaderboard", game="chopsticks")
    names = [line.split("**")[1] for line in board.response.embeds[0].description.splitlines()]
    assert set(names) == {"alice", "bob", "carol"} and "?" not in board.response.embeds[0].description
    await jump(simcord_env, 100 * DAY)  # carol's sigma (five games) passes 7.5; alice's and bob's do not
    board = await world["carol"].slash(world.channel, "leaderboard", game="chopsticks")
    names = [line.split("**")[1] for line in board.response.embeds[0].description.splitlines()]
    assert names == ["alice", "bob"]
    assert "provisional:true" in board.response.embeds[0].footer.text
    everyone = await world["carol"].slash(world.channel, "leaderboard", game="chopsticks", provisional=True)
    lines = everyone.response.embeds[0].description.splitlines()
    marked = {line.split("**")[1]: line.split(" · ")[1].endswith("?") for line in lines}
    assert marked == {"alice": False, "bob": False, "carol": True}
    stats = await world["carol"].slash(world.channel, "stats", user=world["carol"])
    value = stats.response.embeds[0].fields[0].value
    assert "?" in value.split(" · ")[0] and "last rated game <t:" in value
    await jump(simcord_env, 300 * DAY)  # a year without a game: everyone provisional again
    board = await world["carol"].slash(world.channel, "leaderboard", game="chopsticks")
    assert "No established ratings yet" in board.response.embeds[0].description


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_seasons_are_separate_standings_while_the_rating_carries_on(simcord_env, db: Database) -> None:
    world = World(simcord_env, "alice", "bob")
    admins = world.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))
    boss = world.guild.add_member(simcord_env.create_user("boss"), roles=[admins])
    changed = await boss.slash(world.channel, "settings", seasons="monthly")
    assert "Seasons (separate leaderboards; ratings carry on): monthly" in changed.response.content
    january = seasons.season_of("monthly", simcord_env.bot.now())
    await _series(world, db, 6, "alice", "bob")
    rating_then = await db.read(ReadTx.get_rating, world.guild.id, "chopsticks", world["alice"].id)
    await jump(simcord_env, 40 * DAY)
    february = seasons.season_of("monthly", simcord_env.bot.now())
    assert (january, february) == ("2026-01", "2026-02")
    await _series(world, db, 2, "bob", "alice")
    board = await world["bob"].slash(world.channel, "leaderboard", game="chopsticks", provisional=True)
    embed = board.response.embeds[0]
    assert embed.title.endswith("season February 2026")
    lines = embed.description.splitlines()
    assert [line.split("**")[1] for line in lines] == ["alice", "bob"] or lines[0].endswith("2/0/0")
    bob_line = next(line for line in lines if "**bob**" in line)
    assert bob_line.endswith("2/0/0")  # this season's record only
    earlier = await world["bob"].slash(world.channel, "leaderboard", game="chopsticks", season=january)
    lines = earlier.response.embeds[0].description.splitlines()
    assert lines[0].startswith("`  1.` **alice**") or lines[0].startswith("` 1.` **alice**")
    assert lines[0].endswith("6/0/0")
    alice_in_january = int(lines[0].split(" · ")[1].rstrip("?"))
    assert alice_in_january == ratings.display_rating(rating_then.mu, rating_then.sigma)
    all_time = await world["bob"].slash(world.channel, "leaderboard", game="chopsticks", season="all")
    assert "6/2/0" in all_time.response.embeds[0].description  # the rating (and record) carry on
    rating_now = await db.read(ReadTx.get_rating, world.guild.id, "chopsticks", world["alice"].id)
    assert rating_now.games == 8 and rating_now.mu != rating_then.mu
    choices = await world["bob"].autocomplete(world.channel, "leaderboard", "season", "", game="chopsticks")
    assert [c["value"] for c in choices] == ["2026-02", "2026-01", "all"]
    wrong = await world["bob"].slash(world.channel, "leaderboard", game="chopsticks", season="spring")
    assert wrong.ephemeral and "`spring` is not a season" in wrong.response.content
