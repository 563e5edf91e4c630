"""The puzzle service without Discord (bot/service/puzzles.py): loading the shipped set once, the next puzzle near
the member's rating and never one they attempted, judging right, wrong and malformed answers, the rating moved by
Glicko-2 (the glicko2 library's own values) in the judging transaction, someone else's attempt, retiring a puzzle
whose proof no longer holds, and the daily puzzle queued through the outbox once a day."""

from __future__ import annotations

import dataclasses
import random

import glicko2  # type: ignore[import-untyped]
import pytest

from bot.service import BadOption, MatchOver, NotAllowed, Player, Services
from bot.service.daily_puzzles import DAILY_NEWS, REVEAL_NEWS, day_start
from bot.service.puzzles import PuzzleService, line_state
from games import GAMES
from games.puzzles import Puzzle, Step, shipped
from storage import Database, ReadTx
from tests.reliability._support import service_match

SHIPPED = shipped()
NOW = 1_765_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def _one_move(game: str) -> Puzzle:
    return next(p for p in SHIPPED if p.game == game and len(p.line) == 1)


def _service(db: Database, puzzles: list[Puzzle], clock: Clock | None = None) -> PuzzleService:
    return PuzzleService(db, clock=clock or Clock(), rng=random.Random(1), source=lambda: puzzles)


def _wrong(puzzle: Puzzle, step: int = 0) -> str:
    return next(move for move, _ in puzzle.proof[step].values if move not in puzzle.proof[step].accepted)


async def test_loading_is_idempotent_by_id_and_digest(db: Database) -> None:
    service = _service(db, SHIPPED)
    assert await service.load(SHIPPED) == len(SHIPPED)
    assert await service.load(SHIPPED) == 0
    changed = dataclasses.replace(SHIPPED[0], themes=(*SHIPPED[0].themes, "changed"))
    assert await service.load([changed]) == 1
    counts = await service.counts()
    assert sum(counts.values()) == len(SHIPPED) and set(counts) == {"chopsticks", "differences", "groebner_nim",
                                                                    "polygons"}


async def test_the_next_puzzle_is_near_the_rating_and_never_repeats(db: Database) -> None:
    service = _service(db, SHIPPED)
    seen: set[str] = set()
    for _ in range(6):
        player = await db.read(ReadTx.puzzle_player, 7)
        rating = 1500 if player is None else player.rating  # it falls with every answer shown
        served = await service.next(7, "ann", game="chopsticks")
        assert served.puzzle.game == "chopsticks" and not served.again
        assert await service.next(7, "ann") == dataclasses.replace(served, again=True)  # the open one, again
        ratings = sorted(abs(p.rating - rating) for p in SHIPPED if p.game == "chopsticks" and p.id not in seen)
        assert abs(served.puzzle.rating - rating) <= ratings[4]  # among the five nearest it has not had
        assert served.puzzle.id not in seen
        seen.add(served.puzzle.id)
        await service.show(served.attempt.id, 7)


async def test_a_right_answer_solves_and_moves_both_ratings_by_glicko2(db: Database) -> None:
    puzzle = _one_move("differences")
    service = _service(db, [puzzle])
    served = await service.next(7, "ann")
    judged = await service.answer(served.attempt.id, 7, f"  {puzzle.answer[-1]} ")  # any accepted move, spaces kept
    assert judged.verdict == "solved" and judged.attempt.solved and judged.attempt.finished
    member, problem = glicko2.Player(), glicko2.Player(puzzle.rating, 350, 0.06)
    member.update_player([puzzle.rating], [350], [1])
    problem.update_player([1500], [350], [0])
    assert judged.rating_before == 1500 and judged.rating_after == pytest.approx(member.getRating())
    assert judged.rating_after > 1500
    assert judged.player is not None and (judged.player.streak, judged.player.rated, judged.player.solved) == (1, 1, 1)
    stored = await db.read(ReadTx.get_puzzle, puzzle.id)
    assert stored is not None and stored.rating == pytest.approx(problem.getRating())
    assert stored.rating < puzzle.rating
    assert stored.plays == 1
    with pytest.raises(MatchOver):
        await service.answer(served.attempt.id, 7, puzzle.answer[0])


async def test_a_wrong_answer_is_rated_once_and_the_line_can_still_be_found(db: Database) -> None:
    puzzle = next(p for p in SHIPPED if p.game == "chopsticks" and len(p.line) == 3)
    service = _service(db, [puzzle])
    served = await service.next(7, "ann")
    wrong = await service.answer(served.attempt.id, 7, _wrong(puzzle))
    assert wrong.verdict == "wrong" and wrong.attempt.solved is False and not wrong.attempt.finished
    assert wrong.worth is not None and wrong.best is not None and wrong.worth.rank < wrong.best.rank
    assert wrong.rating_after is not None and wrong.rating_after < 1500
    assert wrong.player is not None and wrong.player.streak == 0
    again = await service.answer(served.attempt.id, 7, _wrong(puzzle))  # not rated again
    assert again.rating_after is None and again.player == wrong.player
    right = await service.answer(served.attempt.id, 7, puzzle.line[0])
    assert right.verdict == "right" and right.defence == puzzle.line[1] and right.attempt.progress == 1
    assert right.state.to_dict() == line_state(puzzle, 2).to_dict()  # the bot's defence is played
    solved = await service.answer(served.attempt.id, 7, puzzle.line[2])
    assert solved.verdict == "solved" and solved.attempt.finished and solved.attempt.solved is False
    assert solved.attempt.tries == 4 and solved.rating_after is None


async def test_bad_input_and_someone_elses_puzzle_change_nothing(db: Database) -> None:
    puzzle = _one_move("polygons")
    service = _service(db, [puzzle])
    served = await service.next(7, "ann")
    before = await db.fetchall("SELECT * FROM puzzle_attempts")
    with pytest.raises(BadOption, match="`zz9 top` is not a move here"):
        await service.answer(served.attempt.id, 7, "zz9 top")
    with pytest.raises(NotAllowed, match="ann's puzzle"):
        await service.answer(served.attempt.id, 8, puzzle.answer[0])
    with pytest.raises(NotAllowed):
        await service.show(served.attempt.id, 8)
    assert await db.fetchall("SELECT * FROM puzzle_attempts") == before
    assert await db.read(ReadTx.puzzle_player, 7) is None


async def test_a_puzzle_whose_proof_no_longer_holds_is_retired_and_never_served(db: Database) -> None:
    good, bad = _one_move("chopsticks"), _one_move("groebner_nim")
    step = bad.proof[0]
    values = tuple((move, dataclasses.replace(value, amount=value.amount + 1)) if move == step.accepted[0]
                   else (move, value) for move, value in step.values)
    broken = dataclasses.replace(bad, proof=(Step(values, step.accepted), *bad.proof[1:]))
    service = _service(db, [good, broken])
    with pytest.raises(BadOption, match="has no puzzles"):
        await service.next(7, "ann", game="groebner_nim")
    retired = await db.read(ReadTx.get_puzzle, broken.id)
    assert retired is not None and retired.retired_at is not None and "is now worth" in (retired.retired_why or "")
    assert (await service.next(7, "ann")).puzzle.id == good.id


async def test_the_daily_puzzle_is_planned_once_a_day_through_the_outbox(db: Database) -> None:
    clock = Clock()
    services = Services(db, clock=clock)
    services.puzzles.source = lambda: SHIPPED[:200]
    assert await services.daily_puzzles.plan_daily() is None  # no server has a channel
    await services.settings.update(5, puzzle_channel_id=66, puzzle_hour=9)
    wait = await services.daily_puzzles.plan_daily()
    start = day_start(NOW, 9)
    assert wait == pytest.approx(start + 86400 - NOW)
    daily = await db.read(ReadTx.latest_daily, 5)
    assert daily is not None and (daily.post_at, daily.reveal_at, daily.channel_id) == (start, start + 86400, 66)
    news = {(n.kind, n.subject_id, n.next_at) for n in await services.outbox.of_subject(daily.id, [DAILY_NEWS,
                                                                                                   REVEAL_NEWS])}
    assert news == {(DAILY_NEWS, daily.id, NOW), (REVEAL_NEWS, daily.id, start + 86400)}
    await services.daily_puzzles.plan_daily()
    assert await db.read(ReadTx.latest_daily, 5) == daily  # once a day
    clock.now = start + 86400
    await services.daily_puzzles.plan_daily()
    tomorrow = await db.read(ReadTx.latest_daily, 5)
    assert tomorrow is not None and tomorrow.id != daily.id and tomorrow.puzzle_id != daily.puzzle_id
    attempt = await services.daily_puzzles.start_daily(tomorrow.id, 7, "ann", 5)
    with pytest.raises(NotAllowed, match="another server"):
        await services.daily_puzzles.start_daily(tomorrow.id, 7, "ann", 6)
    puzzle = attempt.puzzle
    judged = await services.puzzles.answer(attempt.attempt.id, 7, _wrong(puzzle))
    assert judged.rating_after is None and await db.read(ReadTx.puzzle_player, 7) is None  # daily: not rated
    with pytest.raises(MatchOver, match="over"):
        await services.daily_puzzles.start_daily(daily.id, 8, "ben", 5)  # yesterday's, revealed at its end
    clock.now = tomorrow.reveal_at
    with pytest.raises(MatchOver, match="day is over"):  # an answer after the day ends is not counted
        await services.puzzles.answer(attempt.attempt.id, 7, puzzle.answer[0])
    assert (await db.read(ReadTx.get_attempt, attempt.attempt.id)) == judged.attempt


async def test_ended_matches_wait_for_their_examination_within_a_cap_and_beyond_it_are_dropped(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    services = Services(db, clock=Clock())
    rung: list[int] = []
    line = services.match_puzzles
    line.wake = lambda: rung.append(line.waiting)
    line.cap = 2
    alice, bob = Player(1, "alice"), Player(2, "bob")
    ended = []
    for game in ("chopsticks", "chopsticks", "napkin_chess", "chopsticks"):
        match = await service_match(services, game, 7, (alice, bob))
        if game == "chopsticks":  # a move played, then resigned: a finished match with a move to examine
            state = GAMES[game].new_state()
            assert match.current_seat is not None
            mover = match.seats[match.current_seat].user_id
            await services.moves.play(match.id, 7, mover, state.format_move(state.legal_moves()[0]))
        resigned = await services.endings.resign(match.id, 7, match.seats[0].user_id)
        assert resigned.status != "active"
        ended.append(match.id)
    # the Napkin Chess match has no exact values: not in line; the third Chopsticks match finds the line full
    assert rung == [1, 2] and line.waiting == 2 and line.dropped == 1
    assert f"match {ended[3]} is not examined for puzzles: 2 matches are waiting already" in caplog.text
