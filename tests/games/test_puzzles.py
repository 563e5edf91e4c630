"""Puzzles (games/puzzles): the record, what is and is not a puzzle in each game, proofs checked against values
computed here independently (a plain retrograde iteration over Chopsticks' rules, brute-force minimax over the rules
of the Grid Game of Differences, Polygons & Dots and Gröbner Nim), lines, themes, ratings, the puzzles of finished
matches, and :func:`verify` reporting a proof that no longer holds."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from games import GAMES, State
from games.chopsticks.rules import ChopsticksState, Variant, successors
from games.differences.rules import DifferencesState
from games.groebner_nim.rules import GroebnerNimState
from games.polygons.rules import PolygonsState
from games.puzzles import (
    RULES,
    InvalidPuzzle,
    Puzzle,
    Source,
    Step,
    analyse,
    defence,
    find_puzzle,
    from_match,
    judge,
    shipped,
    verify,
)
from games.puzzles.generate import self_play
from games.review import review_notations
from games.values import GameValue
from tests.games.oracles import polygons_margin

SOURCE = Source("self-play", 0, "test", 0)


@functools.cache
def _shipped() -> tuple[Puzzle, ...]:
    return tuple(shipped())


def _of(game: str) -> list[Puzzle]:
    return [puzzle for puzzle in _shipped() if puzzle.game == game]


# ------------------------------------------------------------------------------------------------ the record


def test_a_puzzle_reads_back_from_its_dict_and_its_json_line() -> None:
    for puzzle in (_of("chopsticks")[0], _of("polygons")[-1]):
        assert Puzzle.from_dict(puzzle.to_dict()) == puzzle
        line = puzzle.to_json()
        assert "\n" not in line and Puzzle.from_json(line) == puzzle
        assert puzzle.to_json() == line  # the same puzzle is the same bytes


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.update(line=[*d["line"], "LL"]), "odd number"),
    (lambda d: d.update(proof=d["proof"][:0]), "one step per solver move"),
    (lambda d: d["proof"][0].update(accepted=["nonsense"]), "accepted moves are moves it values"),
    (lambda d: d.update(line=[d["proof"][0]["values"][0][0] if d["proof"][0]["values"][0][0] not in
                              d["proof"][0]["accepted"] else d["proof"][0]["values"][-1][0], *d["line"][1:]]),
     "among its step's accepted moves"),
    (lambda d: d.update(id="differences-0123456789"), "id"),
    (lambda d: d["proof"][0].update(kind="points"), "kind"),
    (lambda d: d.update(rating="1500"), "rating"),
    (lambda d: d["source"].update(kind="dream"), "source"),
    (lambda d: d.pop("themes"), "lacks themes"),
])
def test_a_malformed_puzzle_dict_is_refused_saying_what_is_wrong(change: Callable[[dict[str, Any]], None],
                                                                  words: str) -> None:
    data = _of("chopsticks")[0].to_dict()
    change(data)
    with pytest.raises(InvalidPuzzle, match=words):
        Puzzle.from_dict(data)
    with pytest.raises(InvalidPuzzle, match="not JSON"):
        Puzzle.from_json("{nope")


def test_a_source_says_where_the_position_was_met() -> None:
    assert Source("match", 13, match=14).describe() == "match #14, move 14"
    assert Source("self-play", 6, "1", 12, ("easy", "hard")).describe() == "self-play (seed 1, match 12), move 7"
    source = Source("self-play", 6, "1", 12, ("easy", "hard"))
    assert Source.from_dict(source.to_dict()) == source


def test_a_step_knows_its_best_value_and_each_move_s() -> None:
    step = Step((("a1", GameValue("margin", -1, 2)), ("b2", GameValue("margin", 2, 2))), ("b2",))
    assert step.best == GameValue("margin", 2, 2) and step.value_of("a1").amount == -1
    assert Step.from_dict(step.to_dict()) == step


# ------------------------------------------------------------------------------------------------ Chopsticks

HANDS = [(left, right) for left in range(5) for right in range(5)]


@functools.cache
def chopsticks_oracle(variant: Variant) -> dict[tuple[tuple[int, int], tuple[int, int]], int]:
    """Every position's result for the mover (1 win, 0 draw, -1 loss) by plain value iteration over the rules'
    successors: a position with a child lost for its mover is won, one whose children are all won for their movers
    is lost, the rest drawn."""
    value: dict[tuple[tuple[int, int], tuple[int, int]], int | None] = {}
    children = {}
    for mine in HANDS:
        for theirs in HANDS:
            if theirs == (0, 0):
                continue
            value[(mine, theirs)] = -1 if mine == (0, 0) else None
            if mine != (0, 0):
                children[(mine, theirs)] = [(new_theirs, new_mine) for _, new_mine, new_theirs in
                                            successors(mine, theirs, variant)]
    changed = True
    while changed:
        changed = False
        for position, kids in children.items():
            if value[position] is not None:
                continue
            if any(value[kid] == -1 for kid in kids):
                value[position], changed = 1, True
            elif all(value[kid] == 1 for kid in kids):
                value[position], changed = -1, True
    return {position: 0 if result is None else result for position, result in value.items()}


def _chopsticks_result(state: ChopsticksState, seat: int) -> int:
    """The result of ``state`` for ``seat`` by the oracle."""
    if state.result is not None:
        return 0 if state.result.winner is None else 1 if state.result.winner == seat else -1
    mover = state.seat_to_move
    found = chopsticks_oracle(state.variant)[(state.hands[mover], state.hands[1 - mover])]
    return found if mover == seat else -found


def test_every_chopsticks_puzzle_s_answer_is_the_only_class_that_keeps_the_result_by_a_plain_iteration() -> None:
    puzzles = _of("chopsticks")
    assert len(puzzles) >= 150
    for puzzle in puzzles:
        state: State[Any] = GAMES["chopsticks"].load(puzzle.position)
        for index, step in enumerate(puzzle.proof):
            seat = state.current_seat
            assert seat is not None
            results = {notation: _chopsticks_result(state.play(notation), seat) for notation, _ in step.values}
            best = max(results.values())
            assert {notation for notation, result in results.items() if result == best} == set(step.accepted)
            assert all(step.value_of(notation).amount == result for notation, result in results.items())
            if index == 0:
                assert best >= 0, puzzle.id  # a win or a draw to keep
            state = state.play(puzzle.line[2 * index])
            if 2 * index + 1 < len(puzzle.line):
                reply = puzzle.line[2 * index + 1]
                replies = {state.format_move(move): _chopsticks_result(state.apply(move), 1 - seat)
                           for move in state.legal_moves()}
                assert replies[reply] == max(replies.values()), (puzzle.id, reply)  # the defence is a best one
                state = state.play(reply)


def test_chopsticks_equivalent_moves_are_mirror_images_and_all_count_as_the_answer() -> None:
    start = ChopsticksState.start({}, ((1, 1), (1, 1)), 0)
    puzzle = find_puzzle("chopsticks", start, SOURCE)
    assert puzzle is not None  # the default start is a forced win, by a self-tap
    assert puzzle.answer == ("self LR", "self RL")
    assert puzzle.line == ("self LR",)  # an answer of two moves ends the line: each would need its own defence
    assert puzzle.themes[0].startswith("win in ") and "self-tap" in puzzle.themes


def test_a_chopsticks_win_at_once_is_the_obvious_move_and_no_puzzle() -> None:
    # one finger against a single live hand of four: tapping it wins at once (LR or RR, mirror images)
    state = ChopsticksState.start({}, ((1, 1), (0, 4)), 0)
    analysis = analyse(RULES["chopsticks"], state)
    assert analysis is not None and analysis.unique and set(analysis.answer) == {state.parse_move("LR"),
                                                                                 state.parse_move("RR")}
    assert analysis.problem() == "the answer is the obvious move"
    assert find_puzzle("chopsticks", state, SOURCE) is None


def test_a_lost_chopsticks_position_is_no_puzzle_and_the_match_history_plays_no_part() -> None:
    variant = Variant()
    lost = next(((mine, theirs) for (mine, theirs), result in chopsticks_oracle(variant).items()
                 if result == -1 and mine != (0, 0) and len(successors(mine, theirs, variant)) > 2))
    analysis = analyse(RULES["chopsticks"], ChopsticksState.start({}, lost, 0))
    assert analysis is not None and analysis.problem() is not None and "loss" in analysis.problem()
    # a position met after moves is the puzzle of its hands alone
    played = ChopsticksState.start({}).play("LL").play("LL")
    puzzle = find_puzzle("chopsticks", played, SOURCE)
    fresh = find_puzzle("chopsticks", ChopsticksState.start({}, played.hands, played.seat_to_move), SOURCE)
    assert (puzzle is None) == (fresh is None)
    if puzzle is not None and fresh is not None:
        assert puzzle.position == fresh.position and puzzle.position["moves"] == []


# ------------------------------------------------------------------------------------------------ Differences


def _differences_brute(state: DifferencesState) -> int:
    """Seat 0's final margin under perfect play: minimax over every order of the marks left, by the rules alone."""
    @functools.cache
    def value(marks: tuple[str, ...]) -> int:
        current = DifferencesState.from_dict({**state.to_dict(), "marks": [
            {"seat": i % 2, "square": square} for i, square in enumerate(marks)], "ply": len(marks),
            "last_move": marks[-1] if marks else None})
        if current.is_over:
            odd, even = current.scores
            return odd - even
        values = [value((*marks, current.format_move(move))) for move in current.legal_moves()]
        return max(values) if current.ply % 2 == 0 else min(values)

    return value(tuple(mark["square"] for mark in state.to_dict()["marks"]))


@pytest.mark.slow  # equivalence: proofs against brute-force minimax
def test_differences_proofs_agree_with_brute_force_minimax_over_the_rules() -> None:
    checked = 0
    for puzzle in _of("differences"):
        state = GAMES["differences"].load(puzzle.position)
        if state.n > 7 or state.n - state.ply > 4:
            continue
        seat = state.current_seat
        for notation, value in puzzle.proof[0].values:
            margin = _differences_brute(state.play(notation))
            assert value.amount == (margin if seat == 0 else -margin), (puzzle.id, notation)
        checked += 1
    assert checked >= 30


def test_differences_equivalent_squares_are_mirror_images_or_force_the_same_grid() -> None:
    two_left = [p for p in _of("differences") if "last choice" in p.themes]
    assert two_left
    for puzzle in two_left:
        state = GAMES["differences"].load(puzzle.position)
        finals = {tuple(state.play(move).apply(state.play(move).legal_moves()[0]).rows_by_column)
                  for move in puzzle.answer}
        assert len(puzzle.answer) == 2 and len(finals) == 1  # either square forces the same last mark
    mirrored = [p for p in _of("differences") if len(p.answer) > 1 and "last choice" not in p.themes]
    for puzzle in mirrored:
        state = GAMES["differences"].load(puzzle.position)
        n = state.n
        images = set()
        for move in puzzle.answer:
            rows = tuple(-1 if r is None else r for r in state.play(move).rows_by_column)
            flipped = tuple(-1 if r < 0 else n - 1 - r for r in rows)
            images.add(min(rows, rows[::-1], flipped, flipped[::-1]))
        assert len(images) == 1


def test_a_differences_square_that_scores_best_at_once_is_obvious() -> None:
    rules = RULES["differences"]
    for puzzle in _of("differences")[:60]:
        state = GAMES["differences"].load(puzzle.position)
        analysis = analyse(rules, state)
        assert analysis is not None and not analysis.obvious
        gains = {move: rules.glance(state, move) for move in state.legal_moves()}
        best = max(gains.values())
        assert any(gains[move] == best for move in state.legal_moves() if state.format_move(move)
                   not in puzzle.answer)  # a square outside the answer looks at least as good at once
        assert ("sacrifice" in puzzle.themes) == all(gains[state.parse_move(a)] < best for a in puzzle.answer)


# ------------------------------------------------------------------------------------------------ Polygons


def test_polygons_proofs_agree_with_minimax_over_the_rules_face_count() -> None:
    checked = 0
    for puzzle in _of("polygons"):
        state = GAMES["polygons"].load(puzzle.position)
        assert isinstance(state, PolygonsState)
        if not state.path or len(state.points) - len(state.path) > 4:
            continue
        seat = state.current_seat
        assert seat is not None
        komi = state.komi if seat == 1 else -state.komi
        for notation, value in puzzle.proof[0].values:
            after = state.play(notation)
            if after.is_over:
                odd, even = after.scores
                margin = odd - even if seat == 0 else even - odd
            else:
                margin = -polygons_margin(after.points, after.path, 1 - seat) + komi
            assert value.amount == margin, (puzzle.id, notation)
        checked += 1
    assert checked >= 30


def test_a_polygons_last_segment_puzzle_has_two_choices_and_the_rest_closes_itself() -> None:
    last = [p for p in _of("polygons") if "last segment" in p.themes]
    assert last
    for puzzle in last:
        state = GAMES["polygons"].load(puzzle.position)
        assert len(state.legal_moves()) == 2 and puzzle.line == puzzle.answer


# ------------------------------------------------------------------------------------------------ Gröbner Nim


def groebner_value(state: GroebnerNimState, seat: int) -> int:
    """Brute force over every unpicked pair, by the rules alone: duel, the seat's final points minus the opponent's;
    solitaire, the fewest turns of the whole game."""
    solitaire = state.variant.mode == "solitaire"
    memo: dict[Any, int] = {}

    def rest(current: GroebnerNimState) -> int:  # duel: points the mover gains minus the opponent's; solitaire: turns
        if current.is_over:
            return 0
        key = (current.sticks, frozenset(current.picked), current.current_seat)
        if key not in memo:
            values = []
            for pair in current.legal_moves():
                child = current.apply(pair)
                if solitaire:
                    values.append(1 + rest(child))
                    continue
                gain = 3 if child.added[-1] is not None else 0
                values.append(gain + (rest(child) if child.current_seat == current.current_seat else -rest(child)))
            memo[key] = min(values) if solitaire else max(values)
        return memo[key]

    if solitaire:
        return state.ply + rest(state)
    scores = state.scores
    mover = state.current_seat
    now = scores[seat] - scores[1 - seat]
    return now if mover is None else now + (rest(state) if mover == seat else -rest(state))


SMALL_STARTS = ["x^7*y^5 + x^2*y, x^7*y^7 + x^3*y^3", "x^3*y^6 + x*y^4, x^7*y^9 + x^6*y^9"]
"""Two starts whose whole game brute force walks in seconds (those of the review's tests)."""


@pytest.mark.slow  # equivalence: puzzles against brute force
@pytest.mark.parametrize("variant", [{}, {"bonus_turn": True}, {"mode": "solitaire"}])
def test_groebner_puzzles_are_exactly_the_positions_brute_force_finds(variant: dict[str, Any]) -> None:
    """Every position of a few matches from a small start: a puzzle exactly where brute force over the rules sees
    one class of pairs (the stick they add) keeping the best value, among at least two, a value worth playing and
    more than one stick to add; and its proof is brute force's."""
    game = GAMES["groebner_nim"]
    solitaire = variant.get("mode") == "solitaire"
    found = examined = 0
    for start, seed in itertools.product(SMALL_STARTS, range(3)):
        rng = random.Random(seed)
        state: State[Any] = game.new_state({**variant, "start": start})
        while not state.is_over:
            seat = state.current_seat
            assert isinstance(state, GroebnerNimState) and seat is not None
            values = {move: groebner_value(state.apply(move), seat) for move in state.legal_moves()}
            rank = {move: -value if solitaire else value for move, value in values.items()}
            classes: dict[Any, list[Any]] = {}
            for move in values:
                classes.setdefault(tuple(state.apply(move).sticks), []).append(move)
            best = max(rank.values())
            keeping = [key for key, moves in classes.items() if rank[moves[0]] == best]
            adding = {key for key in classes if len(key) > len(state.sticks)}
            expected = (len(classes) >= 2 and len(keeping) == 1 and (solitaire or best >= 0)
                        and not adding <= set(keeping))
            puzzle = find_puzzle("groebner_nim", state, SOURCE, depth=1)
            examined += 1
            assert (puzzle is not None) == expected, (start, variant, state.to_dict()["picked"])
            if puzzle is not None:
                found += 1
                assert {state.parse_move(move) for move in puzzle.answer} == set(classes[keeping[0]])
                for notation, value in puzzle.proof[0].values:
                    assert value.amount == values[state.parse_move(notation)]
            state = state.apply(game.computer_move(state, "easy", rng))
    assert examined >= 6
    if not variant.get("bonus_turn"):
        assert found >= 1


def test_groebner_pairs_that_add_the_same_stick_are_one_answer() -> None:
    many = [p for p in _of("groebner_nim") if len(p.answer) > 1]
    assert many
    for puzzle in many:
        state = GAMES["groebner_nim"].load(puzzle.position)
        assert len({tuple(state.play(move).sticks) for move in puzzle.answer}) == 1


# ------------------------------------------------------------------------------------------------ every game


@pytest.mark.parametrize("key", sorted(RULES))
def test_each_shipped_puzzle_s_first_position_is_a_puzzle_by_its_proof(key: str) -> None:
    """The stored proof alone says it: one class of moves keeps the best value, every other loses value, the
    best is worth playing for, the line alternates solver and defence and ends with the solver."""
    puzzles = _of(key)
    assert puzzles
    for puzzle in puzzles:
        first = puzzle.proof[0]
        best = max(value.rank for _, value in first.values)
        keeping = {notation for notation, value in first.values if value.rank == best}
        assert keeping == set(first.accepted) and len(keeping) < len(first.values)
        assert first.best.kind == "turns" or first.best.amount >= 0
        assert len(puzzle.line) == 2 * len(puzzle.proof) - 1 <= 2 * judge.MAX_SOLVER_MOVES - 1


def test_napkin_chess_has_no_puzzles_and_says_so() -> None:
    assert "napkin_chess" not in RULES
    state = GAMES["napkin_chess"].new_state()
    assert find_puzzle("napkin_chess", state, SOURCE) is None
    assert from_match("napkin_chess", []) == []
    assert verify(dataclasses.replace(_of("chopsticks")[0], game="napkin_chess")) == "'napkin_chess' has no puzzles"


def test_the_defence_is_the_best_reply_then_the_slowest_loss_then_the_first_in_move_order() -> None:
    rules = RULES["chopsticks"]
    for puzzle in _of("chopsticks"):
        if len(puzzle.line) < 3:
            continue
        state = GAMES["chopsticks"].load(puzzle.position).play(puzzle.line[0])
        values = rules.values(state)
        assert values is not None
        chosen = state.parse_move(puzzle.line[1])
        best = max(value.rank for value in values.values())
        assert values[chosen].rank == best
        if values[chosen].amount < 0:
            assert values[chosen].distance == max(v.distance or 0 for v in values.values() if v.rank == best)
        assert defence(rules, state) == chosen


@pytest.mark.slow  # equivalence: puzzles proven to rate them
def test_ratings_follow_the_stated_rule() -> None:
    for puzzle in _shipped()[::7]:
        state = GAMES[puzzle.game].load(puzzle.position)
        rules = RULES[puzzle.game]
        steps = []
        for index in range(len(puzzle.proof)):
            analysis = analyse(rules, state)
            assert analysis is not None
            steps.append(analysis)
            state = state.play(puzzle.line[2 * index])
            if 2 * index + 1 < len(puzzle.line):
                state = state.play(puzzle.line[2 * index + 1])
        quiet = not (steps[0].at_a_glance & set(steps[0].answer))
        expected = 1000 + 150 * sum(math.log2(len(step.classes)) for step in steps) + 150 * quiet
        assert puzzle.rating == max(600, min(2500, round(expected / 10) * 10))


# ------------------------------------------------------------------------------------------------ matches


def _missed_win(key: str) -> Puzzle:
    return next(p for p in _of(key) if p.value.result == "win" and p.source.kind == "self-play")


@pytest.mark.slow  # equivalence: every move of a match searched exactly
@pytest.mark.parametrize("key", sorted(RULES))
def test_a_match_where_a_player_missed_the_only_win_yields_that_puzzle_from_that_move(key: str) -> None:
    puzzle = _missed_win(key)
    ply = puzzle.source.ply
    assert puzzle.source.seed is not None and puzzle.source.match is not None
    states = [state for state, _ in itertools.islice(self_play(key, puzzle.source.seed, puzzle.source.match),
                                                     ply + 1)]
    moves = [states[i].format_move(states[i + 1].last_move) for i in range(ply)]
    position = states[ply]
    # the player to move throws the win away (a move the proof values below the win), then the match plays on
    blunder = next(notation for notation, value in puzzle.proof[0].values if value.result != "win")
    state = position.play(blunder)
    moves.append(blunder)
    rng = random.Random(3)
    while not state.is_over and len(moves) < 400:
        move = GAMES[key].computer_move(state, "easy", rng)
        moves.append(state.format_move(move))
        state = state.apply(move)
    found = from_match(key, moves, initial_state=states[0].to_dict(), match_id=77, seconds=600)
    if key == "differences":  # a review made beforehand (as stored with a match) gives the same puzzles
        made = review_notations(key, states[0].to_dict(), moves, seconds=600)
        assert from_match(key, moves, initial_state=states[0].to_dict(), match_id=77, reviewed=made) == found
        with pytest.raises(ValueError, match="the review has"):
            from_match(key, moves[:-1], initial_state=states[0].to_dict(), reviewed=made)
    same = [p for p in found if p.id == puzzle.id]
    assert same, [p.source.describe() for p in found]
    match_puzzle = same[0]
    assert match_puzzle.source == Source("match", ply, match=77)
    assert match_puzzle.source.describe() == f"match #77, move {ply + 1}"
    assert (match_puzzle.position, match_puzzle.line, match_puzzle.proof, match_puzzle.themes,
            match_puzzle.rating) == (puzzle.position, puzzle.line, puzzle.proof, puzzle.themes, puzzle.rating)
    assert blunder not in match_puzzle.answer
    assert verify(match_puzzle) is None
    for other in found:  # every puzzle of the match is a move where its player gave value away
        assert moves[other.source.ply] not in other.answer and verify(other) is None


def test_a_match_without_a_mistake_yields_no_puzzle() -> None:
    rng = random.Random(5)
    state: State[Any] = GAMES["chopsticks"].new_state()
    moves = []
    while not state.is_over:
        move = GAMES["chopsticks"].computer_move(state, "perfect", rng)
        moves.append(state.format_move(move))
        state = state.apply(move)
    assert moves and from_match("chopsticks", moves, variant={}) == []


# ------------------------------------------------------------------------------------------------ verify


def test_verify_holds_for_a_fresh_puzzle_and_says_why_a_changed_proof_does_not() -> None:
    puzzle = next(p for p in _of("differences") if len(p.line) >= 3)
    assert verify(puzzle) is None
    data = puzzle.to_dict()
    data["proof"][0]["values"][0][1] += 5
    reason = verify(Puzzle.from_dict(data))
    assert reason is not None and f"`{data['proof'][0]['values'][0][0]}` is now worth" in reason
    data = puzzle.to_dict()
    state = GAMES["differences"].load(puzzle.position).play(puzzle.line[0])
    other = next(state.format_move(m) for m in state.legal_moves() if state.format_move(m) != puzzle.line[1])
    data["line"][1] = other
    reason = verify(Puzzle.from_dict(data))
    assert reason is not None and reason.startswith("defence 1: the best defence is now")
    assert verify(dataclasses.replace(puzzle, rating=puzzle.rating + 10)) == f"the starting rating is now " \
                                                                             f"{puzzle.rating}"
    assert verify(dataclasses.replace(puzzle, themes=("made up",))) is not None
    broken = dict(puzzle.position, marks=[{"seat": 0, "square": "z99"}])
    assert (verify(dataclasses.replace(puzzle, position=broken)) or "").startswith("the position no longer loads")


def test_verify_retires_a_puzzle_when_the_game_s_values_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rules fix that changes one move's exact value (simulated on the search the puzzles ask)."""
    puzzle = _of("polygons")[0]
    rules = RULES["polygons"]
    genuine = rules.values

    def changed(state: State[Any]) -> dict[Any, GameValue] | None:
        values = genuine(state)
        if values is None:
            return None
        move = state.legal_moves()[-1]
        old = values[move]
        return {**values, move: GameValue(old.kind, old.amount + 9, old.distance)}

    monkeypatch.setattr(rules, "values", changed)
    reason = verify(puzzle)
    assert reason is not None and ("is now worth" in reason or "not a puzzle any more" in reason)


def test_the_analysis_of_an_ended_or_unsettled_position_is_none() -> None:
    state: State[Any] = GAMES["differences"].new_state({"n": 4})
    while not state.is_over:
        state = state.apply(state.legal_moves()[0])
    assert analyse(RULES["differences"], state) is None
    assert analyse(RULES["differences"], GAMES["differences"].new_state({"n": 12})) is None  # beyond the exact search
