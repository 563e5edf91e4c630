"""The tournament services alone (both backends): every refusal quoting what it refuses and changing nothing, late
entries with their ½-point byes, withdrawals (a Swiss pairs them no more, a round robin forfeits their remaining
games), a game lost on time withdrawing its loser, an unstarted game forfeited rather than aborted, the organizer
ending an idle game, tournaments that start at their time, and a round paired exactly once however many times the
end of its last game is noticed (concurrently, or after a restart)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from bot.service import (
    MatchOver,
    NotAllowed,
    NotFound,
    Player,
    Services,
    pairing,
    tournament_director,
    tournament_rounds,
)
from bot.service.errors import BadOption, LimitReached
from bot.service.tournaments import GRACE, MAX_LIVE
from games import InvalidVariant
from i18n import Text
from storage import Database, ReadTx, TournamentRecord, Tx
from tests.reliability._support import Clock, full_snapshot

pytestmark = pytest.mark.both_backends

DAY = 86400.0
GUILD, OTHER = 7, 8
PLAYERS = [Player(100 + n, f"p{n}") for n in range(1, 11)]
P1, P2, P3, P4, P5 = PLAYERS[:5]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def services(db: Database, clock: Clock) -> Services:
    return Services(db, clock=clock, computer_id=999, computer_name="Napkin Games")


async def _cup(services: Services, players: list[Player], *, fmt: str = "swiss", rounds: int | None = 3,
               start: bool = True, **options: object) -> TournamentRecord:
    tournament = await services.tournaments.create(guild_id=GUILD, channel_id=1, organizer=players[0], name="Cup",
                                                   game="chopsticks", variant={}, fmt=fmt,
                                                   rounds=rounds if fmt == "swiss" else None, **options)
    for player in players:
        await services.tournaments.join(tournament.id, GUILD, player)
    if start:
        tournament = await services.tournaments.start(tournament.id, GUILD, players[0].user_id)
    return tournament


async def _games(db: Database, tournament_id: int, round_number: int) -> list:
    return [b for b in await db.read(ReadTx.tournament_pairings, tournament_id, round_number) if b.kind == "game"]


async def _play_both(services: Services, match_id: int) -> None:
    """Each side makes a move (so the game counts as played)."""
    for _ in range(2):
        match = await services.reading.get_match(match_id)
        mover = match.seats[match.current_seat]
        await services.moves.play(match_id, GUILD, mover.user_id, "LL")


async def _finish_round(services: Services, db: Database, tournament_id: int, round_number: int, *,
                        settle: bool = True) -> None:
    """Every game of the round still running: both move, the second seat resigns; then (with ``settle``) the ends
    are settled."""
    for board in await _games(db, tournament_id, round_number):
        if (await services.reading.get_match(board.match_id)).status != "active":
            continue
        await _play_both(services, board.match_id)
        await services.endings.resign(board.match_id, GUILD, board.second_id)
    if settle:
        await services.tournament_rounds.settle_pending()


async def test_refusals_say_what_was_refused_and_change_nothing(services: Services, db: Database) -> None:
    cup = await _cup(services, [P1, P2], start=False)
    league = await _cup(services, [P1, P2, P3], fmt="round_robin")
    before = await full_snapshot(db)
    tournaments = services.tournaments
    refusals = [
        (NotAllowed, "played alone", tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1, name="Solo",
                                                        game="groebner_nim", variant={"mode": "solitaire"})),
        (NotFound, "`chess`", tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1, name="x", game="chess",
                                                 variant={})),
        (InvalidVariant, None, tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1, name="x",
                                                  game="differences", variant={"n": 99})),
        (BadOption, "`rounds:3` is for a Swiss", tournaments.create(
            guild_id=GUILD, channel_id=1, organizer=P1, name="x", game="chopsticks", variant={}, fmt="round_robin",
            rounds=3)),
        (BadOption, "`days:0`", tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1, name="x",
                                                   game="chopsticks", variant={}, days_per_move=0)),
        (BadOption, "`" + "n" * 40 + "…`", tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1,
                                                              name="n" * 61, game="chopsticks", variant={})),
        (BadOption, "`bad\x00name`", tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1, name="bad\x00name",
                                                     game="chopsticks", variant={})),
        (BadOption, "`max_players:40` is too many for a round robin", tournaments.create(
            guild_id=GUILD, channel_id=1, organizer=P1, name="x", game="chopsticks", variant={}, fmt="round_robin",
            max_players=40)),
        (BadOption, "`starts_in:0`", tournaments.create(guild_id=GUILD, channel_id=1, organizer=P1, name="x",
                                                        game="chopsticks", variant={}, starts_in=0)),
        (NotAllowed, f"You are in #{cup.id} “Cup” already", tournaments.join(cup.id, GUILD, P2)),
        (NotAllowed, "round robin under way", tournaments.join(league.id, GUILD, P4)),
        (NotFound, f"no tournament #{cup.id} in this server", tournaments.join(cup.id, OTHER, P4)),
        (NotAllowed, "Only the organizer", tournaments.join(cup.id, GUILD, P2, level="hard")),
        (NotAllowed, "Only the organizer", tournaments.start(cup.id, GUILD, P2.user_id)),
        (NotAllowed, "Only the organizer", tournaments.cancel(cup.id, GUILD, P2.user_id)),
        (NotAllowed, "has not started: `/tournament leave`", tournaments.withdraw(cup.id, GUILD, P2.user_id)),
        (NotAllowed, "can no longer be left", tournaments.leave(league.id, GUILD, P2.user_id)),
        (NotAllowed, "You are not in", tournaments.leave(cup.id, GUILD, P4.user_id)),
        (NotAllowed, "only an open tournament can start", tournaments.start(league.id, GUILD, P1.user_id)),
        (NotAllowed, "You are not in", tournaments.withdraw(league.id, GUILD, P4.user_id)),
    ]
    for error, text, attempt in refusals:
        with pytest.raises(error) as caught:
            await attempt
        assert text is None or text in str(caught.value), (text, str(caught.value))
        assert text is None or isinstance(caught.value.args[0], Text), text  # through the catalog
    assert await full_snapshot(db) == before
    with pytest.raises(NotAllowed) as caught:
        await tournaments.join(cup.id, GUILD, P2)
    assert caught.value.args[0].render("fr") == f"Vous êtes déjà inscrit au tournoi n° {cup.id} « Cup »."
    lone = await _cup(services, [P5], start=False)
    with pytest.raises(NotAllowed, match="needs at least 2 players to start; 1 is entered"):
        await tournaments.start(lone.id, GUILD, P5.user_id)
    assert (await services.tournament_reading.get(lone.id, GUILD)).status == "open"


async def test_a_server_has_a_bound_on_live_tournaments_and_one_full_is_full(services: Services) -> None:
    small = await _cup(services, [P1, P2], start=False, max_players=2)
    with pytest.raises(LimitReached, match="is full: 2 players"):
        await services.tournaments.join(small.id, GUILD, P3)
    for _ in range(MAX_LIVE - 1):
        await _cup(services, [P1], start=False)
    with pytest.raises(LimitReached, match=f"{MAX_LIVE} tournaments open or running"):
        await _cup(services, [P1], start=False)


async def test_a_late_entrant_gets_half_point_byes_until_half_the_rounds(services: Services, db: Database) -> None:
    cup = await _cup(services, [P1, P2, P3, P4], rounds=4)
    entered = await services.tournaments.join(cup.id, GUILD, P5)  # round 1 under way: missed it
    assert (entered.late_byes, entered.entry.joined_round) == (1, 2)
    byes = [b for b in await db.read(ReadTx.tournament_pairings, cup.id, 1) if b.first_id == P5.user_id]
    assert [(b.kind, b.first_points) for b in byes] == [("half_bye", 0.5)]
    await _finish_round(services, db, cup.id, 1)
    round_two = await db.read(ReadTx.tournament_pairings, cup.id, 2)
    assert P5.user_id in {b.first_id for b in round_two} | {b.second_id for b in round_two}
    with pytest.raises(NotAllowed, match="late entries close once half its rounds have started"):
        await services.tournaments.join(cup.id, GUILD, PLAYERS[5])
    view = await services.tournament_reading.view(cup.id, GUILD)
    assert next(line.points for line in view.standings if line.key == P5.user_id) >= 0.5


async def test_a_swiss_withdrawal_resigns_the_game_and_pairs_them_no_more(services: Services,
                                                                          db: Database) -> None:
    cup = await _cup(services, PLAYERS[:4])
    board = (await _games(db, cup.id, 1))[0]
    withdrawn = await services.tournaments.withdraw(cup.id, GUILD, board.first_id)
    assert withdrawn.resigned is not None and withdrawn.resigned.id == board.match_id and withdrawn.forfeited == 0
    match = await services.reading.get_match(board.match_id)
    assert match.status == "finished" and match.outcome["winner"] == 1
    with pytest.raises(NotAllowed, match="withdrawn from"):
        await services.tournaments.withdraw(cup.id, GUILD, board.first_id)
    await _finish_round(services, db, cup.id, 1)
    paired = {b.first_id for b in await db.read(ReadTx.tournament_pairings, cup.id, 2)} | \
        {b.second_id for b in await db.read(ReadTx.tournament_pairings, cup.id, 2)}
    assert board.first_id not in paired and len(paired - {None}) == 3  # three left: one of them has the bye
    view = await services.tournament_reading.view(cup.id, GUILD)
    assert next(line for line in view.standings if line.key == board.first_id).withdrawn


async def test_a_round_robin_withdrawal_forfeits_the_remaining_games(services: Services, db: Database) -> None:
    league = await _cup(services, PLAYERS[:4], fmt="round_robin")
    assert league.rounds == 3
    quitter = PLAYERS[3].user_id
    withdrawn = await services.tournaments.withdraw(league.id, GUILD, quitter)
    assert withdrawn.forfeited == 2 and withdrawn.resigned is not None
    for number in (1, 2):
        await _finish_round(services, db, league.id, number)
    forfeits = [b for b in await db.read(ReadTx.tournament_pairings, league.id) if b.kind == "forfeit"]
    assert len(forfeits) == 2 and all(quitter in (b.first_id, b.second_id) for b in forfeits)
    for board in forfeits:
        points = {board.first_id: board.first_points, board.second_id: board.second_points}
        assert points[quitter] == 0.0 and sorted(points.values()) == [0.0, 1.0] and board.played is False
    await _finish_round(services, db, league.id, 3)
    assert (await services.tournament_reading.get(league.id, GUILD)).status == "finished"


async def test_losing_on_time_withdraws_and_an_unstarted_game_is_forfeited_not_aborted(
        services: Services, db: Database, clock: Clock) -> None:
    cup = await _cup(services, PLAYERS[:4], days_per_move=1)
    first, second = await _games(db, cup.id, 1)
    with pytest.raises(NotAllowed, match="tournament game: it cannot be called off"):
        await services.endings.abort(first.match_id, GUILD, first.first_id)
    await _play_both(services, second.match_id)  # both moved; then its first seat, to move again, runs out of time
    clock.now += DAY + 60  # nobody moved in the first game: its player to move runs out of time too
    work = await services.deadlines.process_due()
    assert sorted(m.id for m in work.forfeited) == sorted([first.match_id, second.match_id]) and not work.aborted
    await services.tournament_rounds.settle_pending()
    never_moved = await db.read(ReadTx.tournament_entry, cup.id, first.first_id)
    assert (never_moved.withdrawn_round, never_moved.withdrawn_reason) == (2, "no-show")
    timed_out = await db.read(ReadTx.tournament_entry, cup.id, second.first_id)
    assert (timed_out.withdrawn_round, timed_out.withdrawn_reason) == (2, "lost on time")
    board = (await db.read(ReadTx.tournament_pairings, cup.id, 1))[0]
    assert (board.first_points, board.second_points, board.played) == (0.0, 1.0, False)  # a forfeit
    assert (await services.tournament_reading.get(cup.id, GUILD)).current_round == 2
    round_two = await db.read(ReadTx.tournament_pairings, cup.id, 2)
    paired = {b.first_id for b in round_two} | {b.second_id for b in round_two}
    assert {first.first_id, second.first_id}.isdisjoint(paired)


async def test_a_game_resigned_or_forfeited_before_both_sides_moved_has_a_result_but_no_rating(
        services: Services, db: Database, clock: Clock) -> None:
    cup = await _cup(services, PLAYERS[:4], days_per_move=1)
    first, second = await _games(db, cup.id, 1)
    resigned = await services.endings.resign(second.match_id, GUILD, second.second_id)  # nobody has moved
    assert (resigned.status, resigned.rated) == ("finished", False)  # not aborted: the round needs its result
    assert resigned.rating_changes in (None, {})
    clock.now += DAY + 60
    work = await services.deadlines.process_due()
    assert [m.id for m in work.forfeited] == [first.match_id]
    assert not (await services.reading.get_match(first.match_id)).rated
    assert await db.fetchall("SELECT * FROM ratings") == []  # neither game moved anyone's rating
    await services.tournament_rounds.settle_pending()
    boards = await db.read(ReadTx.tournament_pairings, cup.id, 1)
    assert sorted((b.first_points, b.second_points, b.played) for b in boards) == [(0.0, 1.0, False),
                                                                                   (1.0, 0.0, False)]


async def test_the_organizer_ends_a_game_idle_past_its_deadline_and_a_day(services: Services, db: Database,
                                                                          clock: Clock) -> None:
    cup = await _cup(services, PLAYERS[:2], days_per_move=2)
    board = (await _games(db, cup.id, 1))[0]
    await _play_both(services, board.match_id)
    await services.vacations.start(GUILD, board.first_id)  # the player to move is away: the deadline is paused
    clock.now += 2 * DAY + GRACE - 60
    with pytest.raises(NotAllowed, match="not idle long enough"):
        await services.tournaments.end_idle_game(cup.id, GUILD, P1.user_id, board.match_id, manager=False)
    clock.now += 120
    assert (await services.deadlines.process_due()).forfeited == []  # the deadline itself is still ahead
    with pytest.raises(NotAllowed, match="Only the organizer"):
        await services.tournaments.end_idle_game(cup.id, GUILD, P2.user_id, board.match_id, manager=False)
    ended = await services.tournaments.end_idle_game(cup.id, GUILD, P2.user_id, board.match_id, manager=True)
    assert ended.status == "finished" and ended.outcome["termination"] == "out_of_time"
    with pytest.raises(MatchOver):
        await services.tournaments.end_idle_game(cup.id, GUILD, P1.user_id, board.match_id, manager=False)
    assert (await services.tournament_reading.get(cup.id, GUILD)).status == "finished"  # its one round (of 1) is over


async def test_a_tournament_starts_at_its_time_or_waits_for_players(services: Services, db: Database,
                                                                    clock: Clock) -> None:
    timed = await _cup(services, PLAYERS[:3], start=False, starts_in=2)
    lonely = await _cup(services, PLAYERS[3:4], start=False, starts_in=1)
    assert await services.tournament_rounds.sweep_starts() == []
    clock.now += 2 * 3600
    assert await services.tournament_rounds.sweep_starts() == [timed.id]
    assert (await services.tournament_reading.get(timed.id, GUILD)).current_round == 1
    waiting = await services.tournament_reading.get(lonely.id, GUILD)
    assert waiting.status == "open" and waiting.starts_at is None
    news = await services.outbox.claim()
    assert sorted((n.subject_id, n.kind) for n in news) == [(timed.id, "round"), (lonely.id, "waiting")]


async def test_a_round_is_paired_once_however_often_its_end_is_noticed(services: Services, db: Database) -> None:
    cup = await _cup(services, PLAYERS[:6])
    for board in await _games(db, cup.id, 1):
        await _play_both(services, board.match_id)
        await services.endings.resign(board.match_id, GUILD, board.first_id)
    # three notices of the same end at once (three listeners, or a pass and a sweep), and a second process's view
    again = Services(db, clock=services.clock, computer_id=999)
    await asyncio.gather(services.tournament_rounds.settle_pending(), services.tournament_rounds.advance(cup.id),
                         again.tournament_rounds.sweep(), again.tournament_rounds.advance(cup.id))
    assert await db.read(ReadTx.paired_rounds, cup.id) == [(1, "dutch"), (2, "dutch")]
    assert len(await _games(db, cup.id, 2)) == 3
    ids = await db.read(ReadTx.all_match_ids)
    assert len(ids) == 6  # three games a round, no match started twice
    assert await again.tournament_rounds.sweep() == []  # a later sweep (a restart) finds nothing to do


async def test_a_crash_between_the_last_end_and_the_pairing_is_recovered_at_start(services: Services,
                                                                                   db: Database) -> None:
    cup = await _cup(services, PLAYERS[:4])
    games = await _games(db, cup.id, 1)
    crashed = Services(db, clock=services.clock, computer_id=999)  # a process that dies before it reacts
    for board in games:
        await _play_both(crashed, board.match_id)
        await crashed.endings.resign(board.match_id, GUILD, board.second_id)
    assert crashed.tournament_rounds.pending  # noted, never settled: the process is gone
    assert await db.read(ReadTx.paired_rounds, cup.id) == [(1, "dutch")]
    restarted = Services(db, clock=services.clock, computer_id=999)
    assert await restarted.tournament_rounds.sweep() == [cup.id]
    assert [n for n, _ in await db.read(ReadTx.paired_rounds, cup.id)] == [1, 2]
    assert await restarted.tournament_rounds.sweep() == []
    news = await restarted.outbox.claim()
    assert [(n.kind, n.seq) for n in news] == [("round", 1), ("round", 2)]  # round 1's was never posted either


async def test_two_writers_of_one_round_store_it_once(services: Services, db: Database, clock: Clock) -> None:
    # two processes that both computed round 2 (as two would after a lease ran out): the tournament's row lock, and
    # behind it the round's primary key, let exactly one of them store it
    cup = await _cup(services, PLAYERS[:4])
    await _finish_round(services, db, cup.id, 1)
    assert [n for n, _ in await db.read(ReadTx.paired_rounds, cup.id)] == [1, 2]
    await _finish_round(services, db, cup.id, 2, settle=False)
    second = await Database.open(db.path)
    try:
        other = Services(second, clock=clock, computer_id=999)
        steps = [await database.write(tournament_director._next_step, cup.id, clock.now)
                 for database in (db, second)]
        assert all(step.round_number == 3 for step in steps)
        pairings = [pairing.pair_round(step.request) for step in steps]
        written = await asyncio.gather(services.tournament_rounds.director._store(steps[0], pairings[0]),
                                       other.tournament_rounds.director._store(steps[1], pairings[1]))
        assert sorted(type(step).__name__ for step in written) == ["Nothing", "Paired"]
    finally:
        await second.close()
    assert [n for n, _ in await db.read(ReadTx.paired_rounds, cup.id)] == [1, 2, 3]
    assert len(await _games(db, cup.id, 3)) == 2


async def test_notes_of_ended_matches_are_bounded(services: Services, db: Database, monkeypatch) -> None:
    cup = await _cup(services, PLAYERS[:2])
    board = (await _games(db, cup.id, 1))[0]
    rounds = services.tournament_rounds
    monkeypatch.setattr(tournament_rounds, "PENDING_CAP", 3)
    await services.endings.resign(board.match_id, GUILD, board.first_id)  # noted: one pending
    ended = await services.reading.get_match(board.match_id)
    for fake in range(1_000_000, 1_000_005):  # ends nobody settles (a script): the notes stay within the cap
        rounds.note_end(dataclasses.replace(ended, id=fake))
        assert len(rounds.pending) <= 3
    assert board.match_id not in rounds.pending  # dropped with the overflow...
    assert await rounds.settle_pending() == [cup.id]  # ...and found by the sweep that replaces the notes
    assert (await services.tournament_reading.get(cup.id, GUILD)).status == "finished"


async def test_a_pairing_that_fails_is_tried_again_and_the_start_stands(services: Services, db: Database,
                                                                         clock: Clock, monkeypatch) -> None:
    cup = await _cup(services, PLAYERS[:4], start=False)
    calls = 0
    real = services.computer.pair

    async def broken_once(function, *args, budget):  # a worker that died mid-pairing, once
        nonlocal calls
        calls += 1
        if calls == 1:
            raise TimeoutError("the pairing took too long")
        return await real(function, *args, budget=budget)

    monkeypatch.setattr(services.computer, "pair", broken_once)
    started = await services.tournaments.start(cup.id, GUILD, P1.user_id)
    assert (started.status, started.current_round) == ("running", 0)  # started; round 1 not paired yet
    rounds = services.tournament_rounds
    assert set(rounds.stalled) == {cup.id} and "the pairing took too long" in (rounds.stalled_reason(cup.id) or "")
    assert await rounds.retry_stalled() == []  # its back-off is not over
    assert await rounds.next_work() == rounds.stalled[cup.id].next_at  # the task is woken for it
    clock.now = rounds.stalled[cup.id].next_at
    assert await rounds.retry_stalled() == [cup.id]
    assert (await services.tournament_reading.get(cup.id, GUILD)).current_round == 1 and calls == 2
    assert rounds.stalled == {}


# ---------------------------------------------------------------- round 4: faults and results that mean something


async def test_a_lease_left_by_a_dead_process_wakes_its_tournament_when_it_runs_out(services: Services,
                                                                                    db: Database,
                                                                                    clock: Clock) -> None:
    cup = await _cup(services, PLAYERS[:4])
    await _finish_round(services, db, cup.id, 1, settle=False)
    lease = f"{tournament_director.LEASE_PREFIX}{cup.id}:2"
    until = clock.now + tournament_director.PAIRING_LEASE
    assert await db.write(Tx.take_lease, lease, clock.now, until)  # a process took it, then died
    assert await services.tournament_rounds.settle_pending() == []  # held: nothing to do here yet
    assert await services.tournament_rounds.next_work() == until  # the task is woken when it runs out, not hours later
    assert await services.tournament_rounds.retry_expired() == []
    clock.now = until + 1
    assert await services.tournament_rounds.retry_expired() == [cup.id]
    assert [number for number, _ in await db.read(ReadTx.paired_rounds, cup.id)] == [1, 2]
    assert await db.read(ReadTx.leases, tournament_director.LEASE_PREFIX) == []


async def test_a_member_who_joins_while_a_round_is_paired_gets_a_bye_and_plays_from_the_next(
        services: Services, db: Database, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    cup = await _cup(services, PLAYERS[:4], rounds=4)
    late = PLAYERS[5]
    real = services.computer.pair

    async def join_meanwhile(function, *args, budget):  # the pairing of round 2 is read; the member joins now
        result = await real(function, *args, budget=budget)
        if args[0].round_number == 2:
            await services.tournaments.join(cup.id, GUILD, late)
        return result

    monkeypatch.setattr(services.computer, "pair", join_meanwhile)
    await _finish_round(services, db, cup.id, 1)
    pairings = await db.read(ReadTx.tournament_pairings, cup.id)
    theirs = [(p.round, p.kind, p.first_points) for p in pairings if late.user_id in (p.first_id, p.second_id)]
    assert theirs == [(1, "half_bye", 0.5), (2, "half_bye", 0.5)]  # never silently missing a round
    entry = await db.read(ReadTx.tournament_entry, cup.id, late.user_id)
    assert entry.joined_round == 3
    news = [n for n in await services.outbox.due() if n.kind == "round" and n.seq == 2]
    view = await services.tournament_reading.news(news[0])
    assert [e.user_id for e in view.late] == [late.user_id]  # the round's news tells them
    await _finish_round(services, db, cup.id, 2)
    assert any(late.user_id in (p.first_id, p.second_id) for p in await _games(db, cup.id, 3))


async def test_a_tournament_in_which_no_game_was_played_has_no_podium_and_counts_for_nobody(
        services: Services, db: Database) -> None:
    # ten 1-round tournaments against a second account that resigns before moving: no tournament won
    for _ in range(10):
        cup = await _cup(services, [P1, P2], rounds=1)
        [board] = await _games(db, cup.id, 1)
        loser = board.first_id if board.first_id == P2.user_id else board.second_id
        await services.endings.resign(board.match_id, GUILD, loser)
        await services.tournament_rounds.settle_pending()
        assert (await services.tournament_reading.get(cup.id, GUILD)).status == "finished"
        entries = await db.read(ReadTx.tournament_entries, cup.id)
        assert {entry.final_rank for entry in entries} == {None}
        [news] = [n for n in await services.outbox.due() if n.kind == "final" and n.subject_id == cup.id]
        assert not (await services.tournament_reading.news(news)).played
    assert await services.tournament_reading.of_member(GUILD, P1.user_id) == (0, 0, 0)
    assert await services.tournament_reading.of_member(GUILD, P2.user_id) == (0, 0, 0)
