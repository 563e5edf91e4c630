"""Grid Game of Differences rules core: the source's example, scoring, notation, legality, serialisation,
random play-throughs and the computer players. Vectors come from ``seeds/differences.json``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES, IllegalMove, InvalidMove, InvalidState, InvalidVariant, Termination
from games.differences import GAME
from games.differences.computer import SWINDLE_CANDIDATES, exact_limit, greedy_move, mcts_move, solve
from games.differences.rules import (
    FILES,
    MAX_N,
    MIN_N,
    DifferencesState,
    Square,
    count_points,
    differences,
    parse_square,
)
from tests.games.oracles import differences_best_moves as best_moves

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "seeds" / "differences.json").read_text())


def play(n: int, marks: list[str], unique: bool = False) -> DifferencesState:
    state = GAME.new_state({"n": n, "unique": unique})
    for text in marks:
        state = state.play(text)
    return state


def grid_marks(rows_top_first: list[str]) -> list[str]:
    """Squares of the x's in a grid drawn top row first (the source's picture)."""
    n = len(rows_top_first)
    marks = []
    for index, line in enumerate(rows_top_first):
        cells = line.split()
        assert len(cells) == n
        marks += [f"{FILES[col]}{n - index}" for col, cell in enumerate(cells) if cell == "x"]
    return marks


def brute_force(state: DifferencesState) -> int:
    """Plain minimax over every continuation (no pruning, no table): the reference for :func:`solve`."""
    if state.is_over:
        first, second = state.scores
        return first - second
    values = [brute_force(state.apply(move)) for move in state.legal_moves()]
    return max(values) if state.current_seat == 0 else min(values)


# ------------------------------------------------------------------------------------- source example


@pytest.mark.parametrize("unique", [False, True])
def test_seed_example_scores(unique: bool) -> None:
    example = VECTORS["seed_example"]
    marks = grid_marks(example["grid_top_row_first"])
    state = play(example["variant"]["n"], marks, unique)
    assert state.is_over
    assert list(state.difference_lists[0]) == example["row_differences"]
    assert list(state.difference_lists[1]) == example["column_differences"]
    expected = example["scores_unique"] if unique else example["scores"]
    assert list(state.scores) == expected
    assert state.outcome is not None
    assert list(state.outcome.scores or ()) == expected
    assert state.outcome.winner == example["winner"]
    assert not state.outcome.draw
    assert state.outcome.termination is Termination.NATURAL
    assert GAME.describe_end(state.outcome) == "the grid is full"


def test_seed_example_scores_do_not_depend_on_order() -> None:
    example = VECTORS["seed_example"]
    marks = grid_marks(example["grid_top_row_first"])
    shuffled = marks[:]
    random.Random(5).shuffle(shuffled)
    assert play(9, shuffled).scores == play(9, marks).scores == (5, 7)
    assert play(9, shuffled, unique=True).scores == (2, 6)


@pytest.mark.parametrize("vector", VECTORS["games"], ids=lambda v: v["about"])
def test_own_full_games(vector: dict) -> None:
    for unique, key in ((False, "scores"), (True, "scores_unique")):
        state = play(vector["n"], vector["marks"], unique)
        assert state.is_over
        assert list(state.difference_lists[0]) == vector["row_differences"]
        assert list(state.difference_lists[1]) == vector["column_differences"]
        first, second = vector[key]
        assert state.scores == (first, second)
        outcome = state.outcome
        assert outcome is not None
        assert outcome.draw == (first == second)
        assert outcome.winner == (None if first == second else (0 if first > second else 1))


@pytest.mark.parametrize("vector", VECTORS["running"], ids=lambda v: v["about"])
def test_running_scores(vector: dict) -> None:
    for unique, key in ((False, "scores"), (True, "scores_unique")):
        state = play(vector["n"], vector["marks"], unique)
        assert not state.is_over
        assert state.outcome is None
        assert list(state.difference_lists[0]) == vector["row_differences"]
        assert list(state.difference_lists[1]) == vector["column_differences"]
        assert list(state.scores) == vector[key]


def test_scoring_helpers() -> None:
    assert differences([4, 8, None, 3]) == (4, 5)
    assert differences([None, None]) == ()
    assert count_points([3, 3, 1, 2]) == 3
    assert count_points([3, 3, 1, 2], unique=True) == 2
    assert count_points([]) == 0


# ------------------------------------------------------------------------------------- notation, legality


@pytest.mark.parametrize("vector", VECTORS["notation"], ids=lambda v: repr(v["text"]))
def test_notation_parses(vector: dict) -> None:
    square = GAME.new_state().parse_move(vector["text"])
    assert square == Square(vector["col"], vector["row"])
    assert GAME.new_state().format_move(square) == vector["square"]


@pytest.mark.parametrize("vector", VECTORS["malformed"], ids=lambda v: repr(v["text"]))
def test_malformed_text_is_rejected(vector: dict) -> None:
    with pytest.raises(InvalidMove, match=vector["message"]):
        GAME.new_state().parse_move(vector["text"])


@given(col=st.integers(0, MAX_N - 1), row=st.integers(0, MAX_N - 1))
@settings(max_examples=60, deadline=None)
def test_notation_round_trip(col: int, row: int) -> None:
    state = GAME.new_state()
    square = Square(col, row)
    assert state.parse_move(state.format_move(square)) == square
    assert parse_square(state.format_move(square).upper()) == square


@pytest.mark.parametrize(("col", "row"), [(-1, 0), (0, 15), (15, 3), (True, 0)])
def test_squares_outside_the_notation_cannot_be_built(col: int, row: int) -> None:
    with pytest.raises(InvalidMove, match="a1 to o15"):
        Square(col, row)


@pytest.mark.parametrize("vector", VECTORS["illegal"], ids=lambda v: f"{v['marks']}+{v['move']}")
def test_illegal_squares_are_rejected_with_the_reason(vector: dict) -> None:
    state = play(vector["n"], vector["marks"])
    before = state.to_dict()
    with pytest.raises(IllegalMove) as caught:
        state.play(vector["move"])
    assert vector["message"] in str(caught.value)
    assert str(caught.value).endswith(".")
    assert state.to_dict() == before


def test_conflict_message_lists_the_legal_lines() -> None:
    state = play(8, ["c5", "e2"])
    with pytest.raises(IllegalMove) as caught:
        state.play("e5")
    message = str(caught.value)
    assert "free column (a, b, d, f, g, and h)" in message
    assert "free row (1, 3, 4, 6, 7, and 8)" in message


def test_conflict_message_in_the_members_language() -> None:
    state = play(8, ["c5", "e2"])
    with pytest.raises(IllegalMove) as caught:
        state.play("e5")
    text = caught.value.args[0]
    assert text.render("fr") == ("e5 partage la ligne 5 avec c5 et la colonne e avec e2. Une marque doit aller dans "
                                 "une colonne libre (a, b, d, f, g et h) et une ligne libre (1, 3, 4, 6, 7 et 8).")
    assert "freie Spalte (a, b, d, f, g und h)" in text.render("de")


def test_legal_moves_are_exactly_the_free_lines() -> None:
    state = play(5, ["b2", "d4"])
    legal = {move.name for move in state.legal_moves()}
    assert legal == {f"{col}{row}" for col in "ace" for row in (1, 3, 5)}
    for col in range(5):
        for row in range(5):
            square = Square(col, row)
            if square.name in legal:
                assert state.apply(square).last_move == square
            else:
                with pytest.raises(IllegalMove):
                    state.apply(square)


def test_marks_record_who_placed_them() -> None:
    state = play(6, ["a1", "b3", "c5"])
    assert [(mark.seat, mark.square.name) for mark in state.marks] == [(0, "a1"), (1, "b3"), (0, "c5")]
    assert state.current_seat == 1
    assert state.ply == 3
    assert state.last_move == Square(2, 4)


# ------------------------------------------------------------------------------------- variants, state


@pytest.mark.parametrize("vector", VECTORS["variants"]["valid"], ids=repr)
def test_valid_variants(vector: dict) -> None:
    state = GAME.new_state(vector["variant"], random.Random(0))
    assert (state.n, state.unique) == (vector["n"], vector["unique"])
    assert state.ply == 0
    assert len(state.legal_moves()) == state.n ** 2


@pytest.mark.parametrize("vector", VECTORS["variants"]["invalid"], ids=repr)
def test_invalid_variants_name_the_option(vector: dict) -> None:
    with pytest.raises(InvalidVariant, match=vector["message"]):
        GAME.new_state(vector["variant"])


def test_variant_defaults_and_registry() -> None:
    assert GAME.variant_defaults() == {"n": 8, "unique": False}
    assert GAMES["differences"] is GAME
    assert GAME.new_state().variant == GAME.variant_defaults()
    assert GAME.new_state().to_dict()["variant"] == GAME.variant_defaults()


def test_round_trip_through_json() -> None:
    state = play(7, ["c3", "f1", "a7"], unique=True)
    data = json.loads(json.dumps(state.to_dict()))
    assert data["game"] == "differences"
    assert data["variant"] == {"n": 7, "unique": True}
    assert data["ply"] == 3
    assert data["last_move"] == "a7"
    assert data["marks"] == [{"seat": 0, "square": "c3"}, {"seat": 1, "square": "f1"}, {"seat": 0, "square": "a7"}]
    loaded = GAME.load(data)
    assert loaded == state
    assert loaded.scores == state.scores
    assert loaded.play("b2").to_dict() == state.play("b2").to_dict()


@pytest.mark.parametrize("vector", VECTORS["invalid_states"], ids=lambda v: v["why"])
def test_impossible_states_are_rejected(vector: dict) -> None:
    with pytest.raises(InvalidState):
        DifferencesState.from_dict(vector["data"])


def test_from_dict_rejects_non_dicts() -> None:
    with pytest.raises(InvalidState):
        DifferencesState.from_dict(["differences"])  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------- random play


@given(n=st.integers(MIN_N, MAX_N), unique=st.booleans(), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_random_games_end_after_n_marks(n: int, unique: bool, seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state({"n": n, "unique": unique})
    while not state.is_over:
        assert state.current_seat == state.ply % 2
        assert len(state.legal_moves()) == (n - state.ply) ** 2
        first, second = state.scores
        assert 0 <= first <= n - 1 and 0 <= second <= n - 1
        state = state.apply(GAME.computer_move(state, "easy", rng))
        assert DifferencesState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    assert state.ply == n
    assert state.current_seat is None
    assert state.legal_moves() == []
    assert sorted(state.rows_by_column) == list(range(n))  # type: ignore[type-var]
    assert sorted(state.columns_by_row) == list(range(n))  # type: ignore[type-var]
    assert [mark.seat for mark in state.marks] == [i % 2 for i in range(n)]
    assert all(len(diffs) == n - 1 for diffs in state.difference_lists)
    outcome = state.outcome
    assert outcome is not None and outcome.scores is not None
    assert all(0 <= score <= n - 1 for score in outcome.scores)
    assert outcome.draw == (outcome.scores[0] == outcome.scores[1])
    with pytest.raises(IllegalMove, match="The game is over"):
        state.apply(Square(0, 0))
    with pytest.raises(IllegalMove):
        GAME.computer_move(state, "hard", rng)


# ------------------------------------------------------------------------------------- solver, computer


@pytest.mark.parametrize("vector", VECTORS["solved"],
                         ids=lambda v: f"n{v['variant']['n']}{'u' if v['variant']['unique'] else ''}-{len(v['marks'])}")
def test_solve_matches_the_vectors(vector: dict) -> None:
    state = play(vector["variant"]["n"], vector["marks"], vector["variant"]["unique"])
    assert solve(state) == vector["value"]


@pytest.mark.slow  # cross-check: the solver against brute force
@pytest.mark.parametrize(("n", "unique", "placed", "seed"),
                         [(4, False, 0, 0), (4, True, 0, 0), (5, False, 1, 1), (5, True, 1, 2), (6, False, 3, 3),
                          (6, True, 2, 4), (7, False, 3, 5), (9, True, 5, 6), (12, False, 8, 7)])
def test_solve_equals_brute_force(n: int, unique: bool, placed: int, seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state({"n": n, "unique": unique})
    for _ in range(placed):
        state = state.apply(rng.choice(state.legal_moves()))
    value = brute_force(state)
    assert solve(state) == value
    found, moves = best_moves(state)
    assert found == value
    assert moves
    assert all(solve(state.apply(move)) == value for move in moves)


def test_solve_of_a_finished_game_is_its_score_difference() -> None:
    state = play(4, VECTORS["games"][0]["marks"])
    assert solve(state) == 3 - 2


@pytest.mark.parametrize("n", [4, 5, 6])
@pytest.mark.parametrize("unique", [False, True])
def test_hard_plays_exactly_on_small_grids(n: int, unique: bool) -> None:
    assert exact_limit(n) >= n
    for game in range(6):
        rng = random.Random(100 * n + game)
        hard_seat = game % 2
        opponent = "easy" if game < 4 else "medium"
        state = GAME.new_state({"n": n, "unique": unique})
        while not state.is_over:
            if state.current_seat == hard_seat:
                move = GAME.computer_move(state, "hard", rng)
                assert solve(state.apply(move)) == solve(state)
            else:
                move = GAME.computer_move(state, opponent, rng)
            state = state.apply(move)


@pytest.mark.slow  # strength: hard against easy, 100 games
def test_hard_never_loses_to_easy() -> None:
    losses = []
    for game in range(100):
        rng = random.Random(game)
        hard_seat = game % 2
        state = GAME.new_state({"n": 6, "unique": game % 4 >= 2})
        while not state.is_over:
            level = "hard" if state.current_seat == hard_seat else "easy"
            state = state.apply(GAME.computer_move(state, level, rng))
        outcome = state.outcome
        assert outcome is not None
        if outcome.winner is not None and outcome.winner != hard_seat:
            losses.append(game)
    assert losses == []


def test_hard_is_deterministic_for_a_seed() -> None:
    state = play(8, ["d4", "e6", "b1"])
    first = GAME.computer_move(state, "hard", random.Random(9))
    assert first == GAME.computer_move(state, "hard", random.Random(9))
    assert first in state.legal_moves()


def test_monte_carlo_search_returns_a_legal_move() -> None:
    state = play(12, ["a1", "l12"])
    assert 12 - state.ply > exact_limit(12)
    move = mcts_move(state, random.Random(1), iterations=400)
    assert move in state.legal_moves()
    assert move == mcts_move(state, random.Random(1), iterations=400)


def test_monte_carlo_search_finds_the_best_move_near_the_end() -> None:
    decisive = 0
    for seed in range(8):
        rng = random.Random(seed)
        state = GAME.new_state({"n": 6})
        for _ in range(3):
            state = state.apply(rng.choice(state.legal_moves()))
        values = {move: solve(state.apply(move)) for move in state.legal_moves()}
        best = (max if state.current_seat == 0 else min)(values.values())
        decisive += len(set(values.values())) > 1
        assert values[mcts_move(state, random.Random(seed), iterations=1500)] == best
    assert decisive >= 3


def test_medium_maximises_the_running_difference() -> None:
    # on 10 x 10, more than four marks remain after these moves: medium's exact ending has not begun
    for seed in range(5):
        rng = random.Random(seed)
        state = GAME.new_state({"n": 10})
        for _ in range(3 + seed % 3):
            state = state.apply(rng.choice(state.legal_moves()))
        seat = state.current_seat
        assert seat is not None

        def gain(move: Square, state: DifferencesState = state, seat: int = seat) -> int:
            scores = state.apply(move).scores
            return scores[seat] - scores[1 - seat]

        best = max(gain(move) for move in state.legal_moves())
        assert gain(greedy_move(state, rng)) == best
        assert gain(GAME.computer_move(state, "medium", rng)) == best


def test_medium_plays_the_last_four_marks_exactly() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new_state({"n": 9})
        while state.n - state.ply > 4 - seed % 3:
            state = state.apply(rng.choice(state.legal_moves()))
        _, best = best_moves(state)
        assert GAME.computer_move(state, "medium", rng) in best


def test_computer_move_rejects_unknown_levels() -> None:
    with pytest.raises(ValueError, match="levels"):
        GAME.computer_move(GAME.new_state(), "expert", random.Random(0))  # type: ignore[arg-type]


def test_tree_search_finishes_its_play_outs_exactly() -> None:
    # three marks left: every child's play-outs end in the exact search, so the search finds a best move
    for seed in range(4):
        rng = random.Random(seed)
        state = GAME.new_state({"n": 6})
        while state.n - state.ply > 3:
            state = state.apply(rng.choice(state.legal_moves()))
        _, best = best_moves(state)
        assert mcts_move(state, random.Random(seed), iterations=400) in best


def test_hard_keeps_the_value_with_the_move_that_leaves_most_ways_to_go_wrong() -> None:
    compared = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = GAME.new_state({"n": 7})
        while state.n - state.ply > 4:
            state = state.apply(rng.choice(state.legal_moves()))
        seat0 = state.current_seat == 0
        value = solve(state)
        optimal = [move for move in state.legal_moves() if solve(state.apply(move)) == value]

        def erring(move: Square, state: DifferencesState = state, value: int = value, seat0: bool = seat0) -> float:
            child = state.apply(move)
            replies = child.legal_moves()
            return sum((solve(child.apply(r)) > value) if seat0 else (solve(child.apply(r)) < value)
                       for r in replies) / len(replies)

        move = GAME.computer_move(state, "hard", random.Random(seed))
        assert move in optimal
        if len(optimal) <= SWINDLE_CANDIDATES and len({erring(m) for m in optimal}) > 1:
            assert erring(move) == max(erring(m) for m in optimal)
            compared += 1
    assert compared >= 3
