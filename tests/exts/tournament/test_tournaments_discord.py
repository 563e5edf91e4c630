"""Tournaments played through the real bot under SimCord: a 9-player, 4-round Swiss and a 6-player round robin of
Chopsticks played to the final standings (games ended by resignation, agreement and on time), the computer as an
entrant, a late entrant's ½-point byes, withdrawals, and a restart in the middle of a round.

Asserted on the way: nobody meets twice, nobody gets two byes, seats alternate and balance, every round is paired
once and only after the previous one ended, the standings and tie-breaks posted equal a hand-computed table (round
robin) or the stored results (Swiss), and the podium is posted once."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from bot.client import NapkinBot
from bot.service import Services, load_state, standings
from bot.service.tournament_reading import TournamentView
from storage import Database, ReadTx, TournamentPairingRecord
from tests.bot.helpers import World, command_for
from tests.reliability._support import legal_texts, match_of

pytestmark = pytest.mark.both_backends

DAY = 86400.0


class Cup:
    """A tournament driven through Discord by a world's members."""

    def __init__(self, env: Any, db: Database, world: World, tournament_id: int) -> None:
        self.env, self.db, self.world, self.id = env, db, world, tournament_id
        self.by_id = {member.id: member for member in world.members.values()}

    @classmethod
    async def create(cls, env: Any, db: Database, world: World, organizer: str, **options: Any) -> Cup:
        game = options.pop("game", "chopsticks")
        result = await world[organizer].slash(world.channel, "tournament create", game=game, **options)
        assert not result.ephemeral, result.response.content
        assert "opens tournament" in result.response.content
        tournaments = await db.fetchall("SELECT id FROM tournaments ORDER BY id DESC LIMIT 1")
        return cls(env, db, world, tournaments[0][0])

    async def join(self, *names: str) -> None:
        for name in names:
            result = await self.world[name].slash(self.world.channel, "tournament join", tournament=str(self.id))
            assert not result.ephemeral, result.response.content

    async def boards(self, round_number: int | None = None) -> list[TournamentPairingRecord]:
        return await self.db.read(ReadTx.tournament_pairings, self.id, round_number)

    async def paired(self) -> list[int]:
        return [number for number, _ in await self.db.read(ReadTx.paired_rounds, self.id)]

    async def view(self) -> TournamentView:
        return await self.env.bot.services.tournament_reading.view(self.id, self.world.guild.id)

    async def move(self, match_id: int) -> None:
        """The member to move in ``match_id`` plays its first legal move, from the channel."""
        match = await match_of(self.db, match_id)
        state = load_state(match)
        name, options = command_for(match.game, state, legal_texts(state, 1)[0])
        mover = self.by_id[match.seats[match.current_seat].user_id]
        result = await mover.slash(self.world.channel, name, match=str(match_id), **options)
        assert result.ephemeral or result.response is not None

    async def play(self, board: TournamentPairingRecord, result: str) -> None:
        """Both sides move, then the game ends: ``first``/``second`` wins (the other resigns), or ``draw``."""
        assert board.match_id is not None
        for _ in range(2):
            await self.move(board.match_id)
        channel = self.world.channel
        first, second = self.by_id[board.first_id], self.by_id[board.second_id or 0]
        if result == "draw":
            await first.slash(channel, "match draw", match=str(board.match_id))
            await second.slash(channel, "match draw", match=str(board.match_id))
        else:
            loser = second if result == "first" else first
            await loser.slash(channel, "match resign", match=str(board.match_id))
        assert (await match_of(self.db, board.match_id)).status == "finished"


def _check_pairings(games: list[TournamentPairingRecord]) -> None:
    """Nobody met twice; nobody had two byes; seats balanced: no player two more first seats than second or the
    other way, and never three in a row."""
    pairs = [frozenset((g.first_id, g.second_id)) for g in games if g.second_id is not None]
    assert len(pairs) == len(set(pairs)), "a repeat pairing"
    byes = Counter(g.first_id for g in games if g.kind == "bye")
    assert all(count == 1 for count in byes.values()), byes
    seats: dict[int, list[int]] = {}
    for g in sorted(games, key=lambda g: g.round):
        if g.kind == "game" and g.played:
            seats.setdefault(g.first_id, []).append(0)
            seats.setdefault(g.second_id or 0, []).append(1)
    for player, played in seats.items():
        assert abs(played.count(0) - played.count(1)) <= 2, (player, played)
        assert all(played[i:i + 3] not in ([0, 0, 0], [1, 1, 1]) for i in range(len(played) - 2)), (player, played)


def _final_posts(world: World) -> list[Any]:
    return [m for m in world.channel.history() if "is over" in m.content]


def _standings_lines(message: Any) -> list[str]:
    return message.embeds[0].description.splitlines()


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_nine_player_four_round_swiss_played_to_the_podium(simcord_env, db: Database) -> None:
    names = [f"p{n}" for n in range(1, 10)]
    world = World(simcord_env, *names)
    cup = await Cup.create(simcord_env, db, world, "p1", name="Spring cup", rounds=4, days=1)
    await cup.join(*names)
    started = await world["p1"].slash(world.channel, "tournament start", tournament=str(cup.id))
    assert "starts" in started.response.content
    points: Counter[int] = Counter()
    for number in range(1, 5):
        assert await cup.paired() == list(range(1, number + 1)), "each round paired once, in turn"
        boards = await cup.boards(number)
        games = [b for b in boards if b.kind == "game"]
        byes = [b for b in boards if b.kind == "bye"]
        assert len(byes) == 1 and len(games) == 4
        points[byes[0].first_id] += 2  # (half-points)
        for index, board in enumerate(games):
            outcome = ("first", "second", "draw", "first")[(index + number) % 4]
            await cup.play(board, outcome)
            points[board.first_id] += {"first": 2, "second": 0, "draw": 1}[outcome]
            points[board.second_id or 0] += {"first": 0, "second": 2, "draw": 1}[outcome]
            if index < len(games) - 1:
                assert await cup.paired() == list(range(1, number + 1)), "paired before the round ended"
        announced = [m for m in world.channel.history() if m.embeds and
                     m.embeds[0].title and f"round {number + 1} of 4" in m.embeds[0].title]
        assert len(announced) == (1 if number < 4 else 0)
    view = await cup.view()
    assert view.tournament.status == "finished" and view.completed == 4
    all_games = await cup.boards()
    _check_pairings(all_games)
    assert all(g.played for g in all_games if g.kind == "game")
    # the standings are the stored results: every point the test gave, each player's line
    assert {line.key: line.points * 2 for line in view.standings} == {k: Fraction(v) for k, v in points.items()}
    assert view.standings == standings.standings("swiss", view.entries, all_games, 4)
    finals = _final_posts(world)
    assert len(finals) == 1, "the podium is posted once"
    final = finals[0]
    podium = [line for line in view.standings if line.rank <= 3]
    assert all(line.name in final.content for line in podium) and "🥇" in final.content
    assert [_parsed(text) for text in _standings_lines(final)] == [
        (line.rank, line.name, standings.points_text(line.points), *map(standings.tiebreak_text, line.tiebreaks),
         line.games) for line in view.standings]
    assert final.attachments and final.attachments[0].filename == "standings.png"
    alt = final.attachments[0].description
    assert alt.startswith("Standings table: ") and len(alt) <= 1024
    assert all(f"{line.rank}. {line.name}: " in alt for line in podium), alt
    thanks = [m for m in world.channel.history() if m.content.startswith("Thanks for playing")]
    assert len(thanks) == 1 and all(f"<@{member.id}>" in thanks[0].content for member in world.members.values())
    entries = {e.user_id: e.final_rank for e in view.entries}
    assert sorted(entries.values()) == sorted(line.rank for line in view.standings)


def _parsed(text: str) -> tuple[int, str, str, str, str, int]:
    """``(rank, name, points, first tie-break, second tie-break, games)`` of a standings line of the embed
    (```  1.` 🥇 **p2** · 3 · BH-1 8½ · SB 10 · 4 games · 1000``)."""
    rank = int(text.split("`")[1].strip().rstrip("."))
    parts = text.split(" · ")
    return (rank, text.split("**")[1], parts[1], parts[2].split(" ", 1)[1], parts[3].split(" ", 1)[1],
            int(parts[4].split(" ")[0]))


# Six players, numbered by entry (all unrated): the lower number wins, except three games.
UPSETS = {frozenset({1, 6}): 6, frozenset({2, 3}): 3, frozenset({2, 5}): None}
# Hand-computed final table (FIDE Berger table of six; scores from the results above):
#   P1 beat 2, 3, 4, 5, lost to 6: 4 points, SB 2½ + 4 + 2 + 1½ = 10, 4 wins
#   P3 beat 2, 4, 5, 6, lost to 1: 4 points, SB 2½ + 2 + 1½ + 1 = 7, 4 wins
#   P2 beat 4, 6, drew 5: 2½, SB 2 + 1 + ½ × 1½ = 3¾, 2 wins
#   P4 beat 5, 6: 2, SB 1½ + 1 = 2½, 2 wins
#   P5 drew 2, beat 6: 1½, SB ½ × 2½ + 1 = 2¼, 1 win
#   P6 beat 1: 1, SB 4, 1 win
ROUND_ROBIN_TABLE = [
    (1, "r1", "4", "10", "4"), (2, "r3", "4", "7", "4"), (3, "r2", "2½", "3¾", "2"), (4, "r4", "2", "2½", "2"),
    (5, "r5", "1½", "2¼", "1"), (6, "r6", "1", "4", "1"),
]


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_six_player_round_robin_ends_with_the_hand_computed_table(simcord_env, db: Database) -> None:
    names = [f"r{n}" for n in range(1, 7)]
    world = World(simcord_env, *names)
    cup = await Cup.create(simcord_env, db, world, "r1", name="League", format="round_robin", days=2)
    await cup.join(*names)
    await world["r1"].slash(world.channel, "tournament start", tournament=str(cup.id))
    number = {member.id: int(name[1:]) for name, member in world.members.items()}
    met: list[frozenset[int]] = []
    for round_number in range(1, 6):
        assert await cup.paired() == list(range(1, round_number + 1))
        boards = await cup.boards(round_number)
        assert len(boards) == 3 and all(b.kind == "game" for b in boards)
        for board in boards:
            a, b = number[board.first_id], number[board.second_id or 0]
            met.append(frozenset({a, b}))
            winner = UPSETS.get(frozenset({a, b}), min(a, b))
            await cup.play(board, "draw" if winner is None else "first" if winner == a else "second")
    assert sorted(met, key=sorted) == sorted((frozenset({a, b}) for a in range(1, 7) for b in range(a + 1, 7)),
                                             key=sorted), "everyone met everyone once"
    view = await cup.view()
    assert view.tournament.status == "finished" and view.tournament.rounds == 5
    table = [(line.rank, line.name, standings.points_text(line.points),
              standings.tiebreak_text(line.tiebreaks[0]), standings.tiebreak_text(line.tiebreaks[1]))
             for line in view.standings]
    assert table == ROUND_ROBIN_TABLE
    finals = _final_posts(world)
    assert len(finals) == 1
    lines = _standings_lines(finals[0])
    assert [line.split("**")[1] for line in lines] == [row[1] for row in ROUND_ROBIN_TABLE]
    assert "SB 10" in lines[0] and "W 4" in lines[0] and "🥇" in lines[0]
    assert "🥇 **r1**" in finals[0].content and "🥈 **r3**" in finals[0].content
    standings_shown = await world["r4"].slash(world.channel, "tournament standings", tournament=str(cup.id))
    assert standings_shown.response.embeds[0].description.splitlines() == lines
    stats = await world["r4"].slash(world.channel, "stats", user=world["r1"])
    fields = {field.name: field.value for field in stats.response.embeds[0].fields}
    assert fields["Tournaments"] == "1 finished tournament · 1 won · on the podium 1 time"
    fourth = await world["r4"].slash(world.channel, "stats")
    assert {f.name: f.value for f in fourth.response.embeds[0].fields}["Tournaments"].endswith("0 won · on the "
                                                                                              "podium 0 times")


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_restart_in_the_middle_of_a_round_loses_nothing_and_pairs_nothing_twice(simcord_env,
                                                                                        db: Database) -> None:
    world = World(simcord_env, "a1", "a2", "a3", "a4")
    cup = await Cup.create(simcord_env, db, world, "a1", name="Night cup", rounds=2)
    await cup.join("a1", "a2", "a3", "a4")
    await world["a1"].slash(world.channel, "tournament start")
    first, last = await cup.boards(1)
    await cup.play(first, "first")
    # the bot dies right after the round's last game ended (committed), before it could react: here that end comes
    # from another process, on its own connection, that never pairs (the bot's own task never hears of it)
    other = await Database.open(db.path)
    try:
        crashed = Services(other, clock=simcord_env.bot.now, computer_id=simcord_env.bot.user.id)
        for _ in range(2):
            match = await match_of(other, last.match_id or 0)
            state = load_state(match)
            await crashed.moves.play(match.id, world.guild.id, match.seats[match.current_seat].user_id,
                                     legal_texts(state, 1)[0])
        await crashed.endings.resign(last.match_id or 0, world.guild.id, last.second_id or 0)
    finally:
        await other.close()
    assert await cup.paired() == [1]
    reopened = await Database.open(db.path)
    try:
        await simcord_env.restart_bot(NapkinBot(reopened))
        await simcord_env.settle()
        assert await cup.paired() == [1, 2]  # the start-up sweep paired it
        rounds = [m for m in world.channel.history() if m.embeds and m.embeds[0].title and
                  "— round" in m.embeds[0].title]
        assert [m.embeds[0].title.rsplit("— ", 1)[1] for m in rounds] == ["round 1 of 2", "round 2 of 2"]
        await simcord_env.restart_bot(NapkinBot(reopened))  # a second restart: nothing to do, nothing posted
        await simcord_env.settle()
        again = [m for m in world.channel.history() if m.embeds and m.embeds[0].title and
                 "— round" in m.embeds[0].title]
        assert len(again) == 2 and await cup.paired() == [1, 2]
        boards = await cup.boards(2)
        for board in boards:
            await cup.play(board, "second")
        assert _final_posts(world) and len(_final_posts(world)) == 1
    finally:
        await reopened.close()


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_withdrawal_mid_tournament_keeps_it_correct(simcord_env, db: Database) -> None:
    names = ["w1", "w2", "w3", "w4", "w5"]
    world = World(simcord_env, *names)
    cup = await Cup.create(simcord_env, db, world, "w1", name="Cup", rounds=3)
    await cup.join(*names)
    await world["w1"].slash(world.channel, "tournament start")
    board = next(b for b in await cup.boards(1) if b.kind == "game")
    quitter = cup.by_id[board.first_id]
    await cup.move(board.match_id or 0)
    said = await quitter.slash(world.channel, "tournament withdraw")
    assert said.ephemeral and f"withdrawn from tournament #{cup.id}" in said.response.content
    text = next(m.content for m in reversed(world.channel.history()) if "withdraws from" in m.content)
    assert f"match #{board.match_id}, is resigned" in text and "will not be paired in later rounds" in text
    assert (await match_of(db, board.match_id or 0)).status == "finished"
    for other in await cup.boards(1):
        if other.kind == "game" and other.match_id != board.match_id:
            await cup.play(other, "first")
    for number in (2, 3):
        boards = await cup.boards(number)
        assert quitter.id not in {b.first_id for b in boards} | {b.second_id for b in boards}
        assert len(boards) == 2  # four players left: two games, no bye
        for other in boards:
            await cup.play(other, "draw")
    view = await cup.view()
    assert view.tournament.status == "finished"
    line = next(line for line in view.standings if line.key == quitter.id)
    assert line.withdrawn and line.points == 0 and line.rank == 5
    _check_pairings(await cup.boards())
    final = _final_posts(world)[0]
    assert "(withdrawn)" in next(row for row in _standings_lines(final) if quitter.name in row)
    refused = await quitter.slash(world.channel, "tournament withdraw", tournament=str(cup.id))
    assert refused.ephemeral and "is finished" in refused.response.content


async def test_the_computer_entered_plays_its_games_at_once_and_pings_respect_notify(simcord_env,
                                                                                    db: Database) -> None:
    world = World(simcord_env, "c1", "c2", "c3")
    await world["c3"].slash(world.channel, "notify", pings="off")
    cup = await Cup.create(simcord_env, db, world, "c1", name="Robot cup", rounds=2, computer="easy")
    refused = await world["c2"].slash(world.channel, "tournament join", tournament=str(cup.id), computer="hard")
    assert refused.ephemeral and "Only the organizer" in refused.response.content
    await cup.join("c1", "c2", "c3")
    await world["c1"].slash(world.channel, "tournament start")
    computer_id = simcord_env.bot.user.id
    for number in (1, 2):
        for board in await cup.boards(number):
            if board.kind != "game":
                continue
            match = await match_of(db, board.match_id or 0)
            if computer_id in (board.first_id, board.second_id):
                human = board.second_id if board.first_id == computer_id else board.first_id
                assert match.seats[match.current_seat].user_id == human  # the computer moved first where it opens
                await cup.move(match.id)
                answered = await match_of(db, match.id)
                assert answered.ply == match.ply + 2 or answered.status != "active"  # it answered at once
                if answered.status == "active":
                    await cup.by_id[human].slash(world.channel, "match resign", match=str(match.id))
            else:
                await cup.play(board, "first")
    view = await cup.view()
    assert view.tournament.status == "finished"
    assert any(entry.is_computer for entry in view.entries)
    thanks = [m for m in world.channel.history() if m.content.startswith("Thanks for playing")]
    assert len(thanks) == 1
    c3 = world["c3"]
    assert f"<@{c3.id}>" not in thanks[0].content and "**c3**" in thanks[0].content  # pings off: named in bold
    assert f"<@{world['c1'].id}>" in thanks[0].content and f"<@{computer_id}>" not in thanks[0].content
    standings = (await world["c2"].slash(world.channel, "tournament standings", tournament=str(cup.id))).response
    embed = standings.embeds[0]  # the computer says what it is, and that its rating is its level's, set
    (line,) = [line for line in embed.description.splitlines() if "(computer, easy" in line]
    assert line.endswith(" · 800*") and "rating is set by its level (easy 800, medium 1000, hard 1200)" in \
        embed.footer.text


@pytest.mark.slow  # a long scenario: days of play or a whole match through SimCord
async def test_a_late_entrant_joins_a_running_swiss_with_half_point_byes(simcord_env, db: Database) -> None:
    world = World(simcord_env, "l1", "l2", "l3", "l4", "l5")
    cup = await Cup.create(simcord_env, db, world, "l1", name="Open", rounds=4)
    await cup.join("l1", "l2", "l3", "l4")
    await world["l1"].slash(world.channel, "tournament start")
    late = await world["l5"].slash(world.channel, "tournament join", tournament=str(cup.id))
    assert "join in round 2, with a ½-point bye for each round missed (1)" in late.response.content
    for board in await cup.boards(1):
        if board.kind == "game":
            await cup.play(board, "first")
    paired = {b.first_id for b in await cup.boards(2)} | {b.second_id for b in await cup.boards(2)}
    assert world["l5"].id in paired
    for board in await cup.boards(2):
        if board.kind == "game":
            await cup.play(board, "first")
    closed = await world.members["l1"].slash(world.channel, "tournament info", tournament=str(cup.id))
    assert closed.ephemeral and "l5" in closed.response.embeds[0].fields[-2].value


async def test_list_info_and_the_tournament_option_autocomplete(simcord_env, db: Database) -> None:
    world = World(simcord_env, "o1", "o2", "o3")
    spring = await Cup.create(simcord_env, db, world, "o1", name="Spring cup", rounds=2)
    await simcord_env.advance_time(21)
    league = await Cup.create(simcord_env, db, world, "o1", name="Summer league", format="round_robin",
                              starts_in=48)
    await spring.join("o1", "o2", "o3")
    await world["o1"].slash(world.channel, "tournament start", tournament=str(spring.id))
    listed = await world["o3"].slash(world.channel, "tournament list")
    lines = listed.response.content.splitlines()
    assert listed.ephemeral and len(lines) == 2
    assert "Summer league" in lines[0] and "open for entries" in lines[0]
    assert "Spring cup" in lines[1] and "round 1 of 2" in lines[1]
    joinable = await world["o3"].autocomplete(world.channel, "tournament join", "tournament", "")
    assert [c["value"] for c in joinable] == [str(league.id), str(spring.id)]
    assert joinable[0]["name"] == f"#{league.id} Summer league (open)"
    startable = await world["o3"].autocomplete(world.channel, "tournament start", "tournament", "")
    assert [c["value"] for c in startable] == [str(league.id)]
    typed = await world["o3"].autocomplete(world.channel, "tournament standings", "tournament", "spr")
    assert [c["value"] for c in typed] == [str(spring.id)]
    info = await world["o3"].slash(world.channel, "tournament info", tournament=str(league.id))
    fields = {field.name: field.value for field in info.response.embeds[0].fields}
    assert "starts by itself <t:" in fields["Where it stands"] and "round robin" in fields["Format"]
    shown = await world["o3"].slash(world.channel, "tournament standings", tournament=str(spring.id))
    assert "standings before the first result" in shown.response.embeds[0].title
    assert shown.response.attachments[0].filename == "standings.png"
    assert shown.response.attachments[0].description.startswith("Standings table: ")
    joined = await world["o3"].slash(world.channel, "tournament join")  # two could be meant: the option is needed
    assert joined.ephemeral and "choose one with the `tournament` option" in joined.response.content
