"""Tests of the Chopsticks rules core, solver and computer player against ``seeds/chopsticks.json``."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES
from games.chopsticks import GAME
from games.chopsticks.computer import best_moves, solve
from games.chopsticks.rules import (
    MAX_PLIES,
    ChopsticksState,
    SelfTap,
    Split,
    Tap,
    Variant,
    format_move,
    parse_move,
    successors,
)
from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.outcome import Termination

VECTORS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "seeds" / "chopsticks.json").read_text(encoding="utf-8")
)


TERMINATIONS = {"both hands dead": Termination.NATURAL, "third repetition": Termination.REPETITION}
"""The seed vectors name how a game ends in words; the outcome carries it as a termination."""


def position(vector: dict[str, Any]) -> ChopsticksState:
    """The hand-made start position a vector describes."""
    return ChopsticksState.start(vector["variant"], vector["hands"], vector["seat"])


def played(vector: dict[str, Any]) -> ChopsticksState:
    """A vector's position after its moves."""
    state = position(vector)
    for text in vector["moves"]:
        state = state.play(text)
    return state


def every_move() -> list[Tap | SelfTap | Split]:
    """Every well-formed move."""
    moves: list[Tap | SelfTap | Split] = [Tap(h, t) for h in (0, 1) for t in (0, 1)]
    moves += [SelfTap(0), SelfTap(1)]
    moves += [Split(a, b) for a in range(5) for b in range(5)]
    return moves


# ------------------------------------------------------------------------------------------- variants


def test_registry_and_defaults() -> None:
    assert GAMES["chopsticks"] is GAME
    assert GAME.variant_defaults() == VECTORS["variant_defaults"]
    state = GAME.new_state()
    assert state.hands == ((1, 1), (1, 1))
    assert state.current_seat == 0
    assert state.ply == 0
    assert state.last_move is None
    assert state.outcome is None


def test_every_combination_of_options_starts() -> None:
    variants = Variant.every()
    assert len(set(variants)) == 48
    for variant in variants:
        state = GAME.new_state(variant.to_dict())
        assert state.variant == variant
        assert state.to_dict()["variant"] == variant.to_dict()


@pytest.mark.parametrize("vector", VECTORS["invalid_variants"], ids=lambda v: json.dumps(v["variant"]))
def test_invalid_variants_are_named(vector: dict[str, Any]) -> None:
    with pytest.raises(InvalidVariant) as error:
        GAME.new_state(vector["variant"])
    for text in vector["mentions"]:
        assert text in str(error.value)


# ------------------------------------------------------------------------------------------- notation


@pytest.mark.parametrize("vector", VECTORS["notation"]["parse"], ids=lambda v: v["text"])
def test_parse_is_tolerant_and_formats_canonically(vector: dict[str, Any]) -> None:
    move = parse_move(vector["text"])
    assert format_move(move) == vector["canonical"]
    assert GAME.new_state().parse_move(vector["text"]) == move


@pytest.mark.parametrize("text", VECTORS["notation"]["invalid"])
def test_malformed_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidMove):
        parse_move(text)


def test_round_trip_of_every_move() -> None:
    texts = set()
    for move in every_move():
        text = format_move(move)
        texts.add(text)
        assert parse_move(text) == move
        assert parse_move(f"  {text.lower()}  ") == move
    assert len(texts) == len(every_move())


def test_format_rejects_non_moves() -> None:
    with pytest.raises(InvalidMove):
        format_move(Split(5, 0))
    with pytest.raises(InvalidMove):
        format_move(Tap(2, 0))


# ---------------------------------------------------------------------------------------------- rules


@pytest.mark.parametrize("vector", VECTORS["legal_moves"], ids=lambda v: v["name"])
def test_legal_moves_per_variant(vector: dict[str, Any]) -> None:
    state = position(vector)
    assert [format_move(move) for move in state.legal_moves()] == vector["legal"]


@pytest.mark.parametrize("vector", VECTORS["legal_moves"], ids=lambda v: v["name"])
def test_apply_accepts_exactly_the_legal_moves(vector: dict[str, Any]) -> None:
    state = position(vector)
    legal = set(state.legal_moves())
    for move in every_move():
        if move in legal:
            assert state.apply(move).ply == 1
        else:
            with pytest.raises(IllegalMove, match="Legal moves: "):
                state.apply(move)


@pytest.mark.parametrize("vector", VECTORS["applies"], ids=lambda v: v["name"])
def test_apply(vector: dict[str, Any]) -> None:
    before = position(vector)
    after = before.play(vector["move"])
    assert after.hands == tuple(tuple(hands) for hands in vector["result"])
    assert after.current_seat == vector["next_seat"]
    assert after.last_move == parse_move(vector["move"])
    assert before.ply == 0
    assert after.ply == 1
    assert after.previous_hands == before.hands
    if "winner" in vector:
        assert after.outcome is not None
        assert after.outcome.winner == vector["winner"]
        assert after.outcome.termination is TERMINATIONS[vector["reason"]]
        assert GAME.describe_end(after.outcome) == "both hands are dead"
        assert not after.outcome.draw
        assert after.legal_moves() == []
    else:
        assert after.outcome is None


@pytest.mark.parametrize("vector", VECTORS["illegal"], ids=lambda v: f"{v['hands']} {v['move']}")
def test_illegal_moves_say_why(vector: dict[str, Any]) -> None:
    state = position(vector)
    with pytest.raises(IllegalMove) as error:
        state.play(vector["move"])
    for text in vector["mentions"]:
        assert text in str(error.value)


def test_no_move_after_the_end() -> None:
    finished = played(VECTORS["states"]["finished"])
    assert finished.is_over
    with pytest.raises(IllegalMove, match="The game is over"):
        finished.play("LL")
    with pytest.raises(IllegalMove):
        GAME.computer_move(finished, "easy", random.Random(0))


def test_third_repetition_draws() -> None:
    vector = VECTORS["repetition"]
    state = position(vector)
    for number, text in enumerate(vector["moves"], start=1):
        assert not state.is_over
        state = state.play(text)
        if number < vector["draw_at_ply"]:
            assert state.outcome is None
    assert state.ply == vector["draw_at_ply"]
    assert state.outcome is not None
    assert state.outcome.draw
    assert state.outcome.winner is None
    assert state.outcome.termination is TERMINATIONS[vector["reason"]]
    assert GAME.describe_end(state.outcome) == "third repetition"
    assert state.repetitions() == 3
    assert state.current_seat is None


def test_two_hundred_plies_draw() -> None:
    """A seeded walk that never wins and never repeats a position three times is drawn at exactly ply 200."""
    rng = random.Random(7)
    state = GAME.new_state({"rollover": True})
    while not state.is_over:
        assert state.ply < MAX_PLIES
        calm = [move for move in state.legal_moves() if not state.apply(move).is_over]
        state = state.apply(rng.choice(calm) if calm else rng.choice(state.legal_moves()))
    assert state.ply == MAX_PLIES
    assert state.outcome is not None
    assert state.outcome.draw
    assert state.outcome.termination is Termination.MOVE_LIMIT


def test_bad_start_positions() -> None:
    with pytest.raises(InvalidState):
        ChopsticksState.start(None, ((0, 0), (1, 1)))
    with pytest.raises(InvalidState):
        ChopsticksState.start(None, ((5, 1), (1, 1)))
    with pytest.raises(InvalidState):
        ChopsticksState.start(None, ((1, 1), (1, 1)), seat=2)
    with pytest.raises(InvalidVariant):
        ChopsticksState.start({"splits": "all"})


# ----------------------------------------------------------------------------------------- state dict


def test_state_dict_round_trip() -> None:
    for name in ("running", "finished"):
        state = played(VECTORS["states"][name])
        data = json.loads(json.dumps(state.to_dict()))
        assert data["game"] == "chopsticks"
        assert data["variant"] == state.variant.to_dict()
        assert data["ply"] == len(VECTORS["states"][name]["moves"])
        assert data["last_move"] == VECTORS["states"][name]["moves"][-1]
        restored = GAME.load(data)
        assert restored == state
        assert restored.to_dict() == data


def invalid_state_cases() -> list[tuple[str, dict[str, Any]]]:
    states = VECTORS["states"]
    return ([("running", case) for case in states["invalid_running"]]
            + [("finished", case) for case in states["invalid_finished"]])


@pytest.mark.parametrize(("base", "case"), invalid_state_cases(), ids=lambda value: json.dumps(value)[:60])
def test_impossible_states_are_rejected(base: str, case: dict[str, Any]) -> None:
    data = copy.deepcopy(played(VECTORS["states"][base]).to_dict())
    data.update(case.get("set", {}))
    if "drop" in case:
        del data[case["drop"]]
    with pytest.raises(InvalidState) as error:
        ChopsticksState.from_dict(data)
    for text in case["mentions"]:
        assert text.lower() in str(error.value).lower()


def test_a_stored_outcome_that_the_replay_does_not_give_is_refused() -> None:
    data = played(VECTORS["states"]["finished"]).to_dict()
    data["outcome"] = {**data["outcome"], "winner": 1 - data["outcome"]["winner"]}
    with pytest.raises(InvalidState, match="outcome"):
        ChopsticksState.from_dict(data)


def test_non_dict_state_is_rejected() -> None:
    with pytest.raises(InvalidState):
        ChopsticksState.from_dict(["chopsticks"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------- solver


@pytest.mark.parametrize("claim", VECTORS["solver"]["claims"], ids=lambda v: v["name"])
def test_solver_reproduces_the_seed_claims(claim: dict[str, Any]) -> None:
    value, distance = solve(claim["variant"]).evaluate(claim["hands"], claim["seat"])
    assert value == claim["value"]
    assert distance is not None
    assert distance > 0


@pytest.mark.parametrize("vector", VECTORS["solver"]["positions"], ids=lambda v: v["name"])
def test_solver_small_positions(vector: dict[str, Any]) -> None:
    evaluation = solve(vector["variant"]).evaluate(vector["hands"], vector["seat"])
    assert evaluation == (vector["value"], vector["distance"])


def test_seed_strategy_configurations_are_won() -> None:
    strategy = VECTORS["solver"]["strategy"]
    solution = solve(strategy["variant"])
    for mine, theirs in strategy["configurations"]:
        for my_hands in {tuple(mine), tuple(reversed(mine))}:
            for their_hands in {tuple(theirs), tuple(reversed(theirs))}:
                # The opponent is to move and must be lost.
                assert solution.lookup(their_hands, my_hands).value == "loss", (mine, theirs)


@pytest.mark.parametrize("variant", Variant.every(), ids=lambda v: "-".join(str(x) for x in v.to_dict().values()))
def test_solution_is_consistent_with_the_moves(variant: Variant) -> None:
    """Every solved value agrees with its successors (the retrograde-analysis equations), every rule set."""
    solution = solve(variant)
    assert solve(variant.to_dict()) is solution  # cached per rule set
    count = 0
    for mine, theirs, evaluation in solution.items():
        count += 1
        if mine == (0, 0):
            assert evaluation == ("loss", 0)
            continue
        children = [solution.lookup(new_theirs, new_mine) for _, new_mine, new_theirs in
                    successors(mine, theirs, variant)]
        losses = [child.distance for child in children if child.value == "loss"]
        wins = [child.distance for child in children if child.value == "win"]
        if evaluation.value == "win":
            assert losses
            assert evaluation.distance == min(losses) + 1
        elif evaluation.value == "loss":
            assert len(wins) == len(children)
            assert evaluation.distance == max(wins) + 1
        else:
            assert not losses
            assert any(child.value == "draw" for child in children)
            assert evaluation.distance is None
    assert count == 25 * 24


def test_solver_rejects_finished_positions() -> None:
    with pytest.raises(KeyError):
        solve().lookup((1, 1), (0, 0))
    with pytest.raises(KeyError):
        solve().lookup((5, 1), (1, 1))


# ------------------------------------------------------------------------------------------- computer


def play_out(variant: dict[str, Any], levels: tuple[str, str], seed: int) -> ChopsticksState:
    rng = random.Random(seed)
    state = GAME.new_state(variant)
    while not state.is_over:
        state = state.apply(GAME.computer_move(state, levels[state.seat_to_move], rng))  # type: ignore[arg-type]
    return state


@pytest.mark.slow  # strength: hard against easy, played out over the variants
@pytest.mark.parametrize("hard_seat", [0, 1])
def test_hard_never_loses_to_easy(hard_seat: int) -> None:
    levels = ("hard", "easy") if hard_seat == 0 else ("easy", "hard")
    for seed in range(12):
        outcome = play_out({}, levels, seed).outcome
        assert outcome is not None
        assert outcome.winner in (hard_seat, None), seed
    for seed, variant in enumerate(Variant.every()[::3]):
        outcome = play_out(variant.to_dict(), levels, seed).outcome
        assert outcome is not None
        assert outcome.winner in (hard_seat, None), variant


def test_hard_wins_from_the_start_as_first_player() -> None:
    state = play_out({}, ("hard", "easy"), 3)
    assert state.outcome is not None
    assert state.outcome.winner == 0
    solution = solve()
    # The winner hurries: the game is at most as long as the solved distance.
    assert state.ply <= solution.evaluate(((1, 1), (1, 1)), 0).distance  # type: ignore[operator]


def test_hard_takes_the_fastest_win_and_delays_a_loss() -> None:
    solution = solve()
    for mine, theirs, evaluation in solution.items():
        if mine == (0, 0) or evaluation.value == "draw":
            continue
        state = ChopsticksState.start(None, (mine, theirs), 0)
        for move in best_moves(state):
            child = state.apply(move)
            if child.is_over:
                assert evaluation == ("win", 1)
                continue
            value, distance = solution.evaluate(child.hands, child.seat_to_move)
            if evaluation.value == "win":
                assert value == "loss"
                assert distance == evaluation.distance - 1
            else:
                assert value == "win"
                assert distance == evaluation.distance - 1


def test_hard_avoids_a_third_repetition_while_winning() -> None:
    vector = VECTORS["repetition_avoidance"]
    state = played(vector)
    solution = solve(vector["variant"])
    repeating = parse_move(vector["repeating_move"])
    distances = {}
    for move in state.legal_moves():
        child = state.apply(move)
        value, distance = solution.evaluate(child.hands, child.seat_to_move)
        if value == "loss":
            distances[move] = distance
    # By the solver alone the repeating move is the unique fastest win, but it ends the game drawn.
    assert min(distances, key=distances.__getitem__) == repeating
    assert sorted(distances.values())[0] < sorted(distances.values())[1]
    outcome = state.apply(repeating).outcome
    assert outcome is not None
    assert outcome.termination is Termination.REPETITION
    chosen = best_moves(state)
    assert repeating not in chosen
    assert chosen
    assert all(move in distances for move in chosen)
    assert {distances[move] for move in chosen} == {min(d for m, d in distances.items() if m != repeating)}


def test_levels_are_deterministic_and_legal() -> None:
    for level in ("easy", "medium", "hard"):
        first = play_out({}, (level, level), 11)
        second = play_out({}, (level, level), 11)
        assert first.moves == second.moves
    state = GAME.new_state()
    with pytest.raises(ValueError, match="Unknown level 'expert'"):
        GAME.computer_move(state, "expert", random.Random(0))  # type: ignore[arg-type]


def test_medium_mixes_perfect_and_random_moves() -> None:
    state = ChopsticksState.start(None, ((3, 0), (2, 2)), 0)
    perfect = set(best_moves(state))
    legal = state.legal_moves()
    assert 0 < len(perfect) < len(legal)
    rng = random.Random(5)
    trials = 400
    hits = sum(GAME.computer_move(state, "medium", rng) in perfect for _ in range(trials))
    expected = 0.7 + 0.3 * len(perfect) / len(legal)
    assert abs(hits / trials - expected) < 0.08


# ---------------------------------------------------------------------------------------- random play

VARIANTS = st.fixed_dictionaries(
    {},
    optional={
        "rollover": st.booleans(),
        "self_taps": st.booleans(),
        "splits": st.sampled_from(["transfer", "even", "none"]),
        "suicide": st.booleans(),
        "swaps": st.booleans(),
    },
)


@settings(max_examples=40, deadline=None)
@given(variant=VARIANTS, seed=st.integers(0, 2**32 - 1), level=st.sampled_from(["easy", "medium"]))
def test_random_play_ends_within_the_draw_rules(variant: dict[str, Any], seed: int, level: str) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(variant)
    while not state.is_over:
        assert state.legal_moves(), "a running game always has a legal move"
        assert state.repetitions() < 3
        move = GAME.computer_move(state, level, rng)  # type: ignore[arg-type]
        assert parse_move(format_move(move)) == move
        state = state.apply(move)
    outcome = state.outcome
    assert outcome is not None
    assert state.ply <= MAX_PLIES
    assert state.current_seat is None
    if outcome.winner is not None:
        assert state.hands[1 - outcome.winner] == (0, 0)
        assert outcome.termination is Termination.NATURAL
    elif outcome.termination is Termination.REPETITION:
        assert state.repetitions() == 3
    else:
        assert outcome.termination is Termination.MOVE_LIMIT
        assert state.ply == MAX_PLIES
    assert all(state.positions.count(pos) <= 3 for pos in state.positions)
    assert ChopsticksState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
