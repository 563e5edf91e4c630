"""Reviews of finished matches (games/review.py): every exact mark agrees with a value computed here independently
(a plain retrograde iteration over Chopsticks' state graph, brute-force minimax on small Differences grids and small
Gröbner Nim starts), estimates are labelled as such, and the time budget is kept."""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest

from games import GAMES, State
from games.chopsticks.rules import ChopsticksState, Variant, successors
from games.differences.rules import DifferencesState
from games.groebner_nim import GroebnerNimState
from games.review import ALTERNATIVES, Review, estimate_verdict, exact_verdict, review, review_notations
from games.values import Estimate, GameValue

HANDS = [(left, right) for left in range(5) for right in range(5)]


def play(key: str, variant: dict[str, Any], levels: tuple[str, ...], seed: int, limit: int = 400) -> list[State[Any]]:
    """A computer-versus-computer match from its start, as the list of its states."""
    game = GAMES[key]
    rng = random.Random(seed)
    states = [game.new_state(variant, random.Random(seed))]
    while not states[-1].is_over and len(states) <= limit:
        state = states[-1]
        states.append(state.apply(game.computer_move(state, levels[state.current_seat], rng)))
    return states


def check_exact_marks(result: Review, states: list[State[Any]], value_of: Callable[[State[Any], int], int]) -> None:
    """Every move of ``result`` is exact, and its before/after values, alternatives and severity are those that
    ``value_of(state, seat)`` (an independent exact value) gives."""
    for mark, state, after in zip(result.moves, states, states[1:], strict=False):
        seat = state.current_seat
        values = {move: value_of(state.apply(move), seat) for move in state.legal_moves()}
        best = max(values.values())
        assert mark.basis == "exact", mark
        assert mark.seat == seat and mark.move == state.format_move(after.last_move)
        assert mark.before is not None and mark.after is not None
        assert mark.before.amount == best, (mark, best)
        assert mark.after.amount == values[after.last_move], mark
        lost = mark.after.rank < mark.before.rank
        assert lost == (values[after.last_move] != best)
        if lost:
            assert mark.keeping and all(values[state.parse_move(text)] == best for text in mark.keeping)
            assert len(mark.keeping) <= ALTERNATIVES
            assert mark.severity >= 1 and any(word in str(mark.verdict) for word in ("kept", "held", "finished"))
        else:
            assert mark.severity == 0 and not mark.keeping


# ------------------------------------------------------------------------------------------------ Chopsticks


@functools.cache
def iterated_values(variant: Variant) -> dict[tuple[tuple[int, int], tuple[int, int]], int]:
    """The game-graph value (1 win, 0 draw, -1 loss) of every position for the mover, by plain value iteration to a
    fixed point: a position with a child lost for its mover is won, one whose children are all won for their mover
    is lost, the rest (cycles nobody can leave to their advantage) are drawn."""
    positions = [(mine, theirs) for mine in HANDS for theirs in HANDS if theirs != (0, 0)]
    value: dict[tuple[tuple[int, int], tuple[int, int]], int | None] = {
        position: (-1 if position[0] == (0, 0) else None) for position in positions}
    children = {position: [(new_theirs, new_mine) for _, new_mine, new_theirs in successors(*position, variant)]
                for position in positions if position[0] != (0, 0)}
    changed = True
    while changed:
        changed = False
        for position, kids in children.items():
            if value[position] is not None:
                continue
            if any(kid[0] == (0, 0) or value[kid] == -1 for kid in kids):
                value[position], changed = 1, True
            elif all(value[kid] == 1 for kid in kids):
                value[position], changed = -1, True
    return {position: 0 if found is None else found for position, found in value.items()}


def chopsticks_value(state: State[Any], seat: int) -> int:
    assert isinstance(state, ChopsticksState)
    if state.outcome is not None:
        winner = state.outcome.winner
        return 0 if winner is None else 1 if winner == seat else -1
    mover = state.seat_to_move
    found = iterated_values(state.variant)[(state.hands[mover], state.hands[1 - mover])]
    return found if mover == seat else -found


@pytest.mark.slow  # equivalence: review marks against a retrograde iteration
def test_chopsticks_marks_agree_with_a_retrograde_iteration_on_every_move_of_every_variant() -> None:
    verdicts: set[str] = set()
    reviewed = 0
    for variant, seed in itertools.product(Variant.every(), range(3)):
        states = play("chopsticks", variant.to_dict(), ("medium", "easy"), seed, limit=150)
        result = review(GAMES["chopsticks"], states, seconds=60)
        assert result.basis == "exact" and not result.out_of_time
        check_exact_marks(result, states, chopsticks_value)
        reviewed += len(result.moves)
        verdicts.update(str(mark.verdict).split(";")[0] for mark in result.moves)
        blunders = [index for index, mark in enumerate(result.moves) if mark.severity == 3]
        assert result.turning_point == (blunders[-1] if blunders else None)
    assert reviewed > 1000
    assert {"kept the win", "held the draw", "lost position: every move loses", "blunder: threw away a forced win",
            "blunder: turned a draw into a loss"} <= verdicts


def test_a_seeded_chopsticks_match_reads_as_players_expect() -> None:
    moves = ["self LR", "RR", "split 2 2", "self RL", "RL", "split 3 2", "self RL", "LL", "RL", "RR", "RR"]
    result = review_notations("chopsticks", GAMES["chopsticks"].new_state().to_dict(), moves)
    assert result.start_value == GameValue("outcome", 1, result.start_value.distance)
    assert str(result.moves[6].line("alice")) == (
        "7. `self RL` (alice): win → loss · blunder: threw away a forced win; `LL` or `RL` kept the win")
    assert result.turning_point == 9 and str(result.moves[9].verdict).startswith("blunder: threw away a forced win")
    assert result.counts(0) == {0: 5, 3: 1} and result.counts(1) == {0: 4, 3: 1}


def test_a_chopsticks_win_beyond_the_move_limit_is_a_draw() -> None:
    state = ChopsticksState.start({}, ((1, 1), (1, 1)))
    won = GAMES["chopsticks"].exact_value(state, 0)
    assert won.amount == 1 and won.distance
    late = ChopsticksState(state.variant, state.hands, 0, ("x",) * (201 - won.distance), state.positions, None)
    assert GAMES["chopsticks"].exact_value(late, 0) == GameValue("outcome", 0, None)


# ------------------------------------------------------------------------------------------------ Differences


def differences_value(state: State[Any], seat: int) -> int:
    """Brute-force minimax of the final point margin (seat's points minus the opponent's)."""
    assert isinstance(state, DifferencesState)

    def search(current: DifferencesState) -> int:
        if current.outcome is not None:
            first, second = current.scores
            return first - second
        values = [search(current.apply(move)) for move in current.legal_moves()]
        return max(values) if current.current_seat == 0 else min(values)

    found = search(state)
    return found if seat == 0 else -found


@pytest.mark.parametrize(("n", "unique"), [(4, False), (4, True), (5, False)])
def test_differences_endgame_values_agree_with_brute_force(n: int, unique: bool) -> None:
    for seed in range(2):
        states = play("differences", {"n": n, "unique": unique}, ("easy", "medium"), seed)
        start = 1 if n == 5 else 0  # (the empty 5 x 5 grid is a second of brute force; its children suffice)
        result = review(GAMES["differences"], states, seconds=60)
        assert result.basis == "exact"
        check_exact_marks(Review(result.game, result.moves[start:], None, None, False), states[start:],
                          differences_value)


@pytest.mark.slow  # equivalence: a whole review searched
def test_differences_is_not_solved_while_many_marks_remain() -> None:
    states = play("differences", {"n": 8}, ("easy", "easy"), 1)
    result = review(GAMES["differences"], states, seconds=120)
    assert result.basis == "exact"  # 8 marks left on the empty 8 x 8 grid: the hard player's exact limit
    bigger = play("differences", {"n": 11}, ("easy", "easy"), 1)
    result = review(GAMES["differences"], bigger, seconds=120)
    bases = [mark.basis for mark in result.moves]
    assert bases == ["choice"] * 4 + ["exact"] * 7 and result.basis == "mixed"
    assert str(result.moves[0].verdict).startswith("not solved; the computer")


# ------------------------------------------------------------------------------------------------ Gröbner Nim


def groebner_value(state: State[Any], seat: int) -> int:
    """Brute force over every unpicked pair: duel, the seat's final points minus the opponent's; solitaire, the
    fewest turns of the whole game."""
    assert isinstance(state, GroebnerNimState)
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


GROEBNER_STARTS = ["x^7*y^5 + x^2*y, x^7*y^7 + x^3*y^3", "x^3*y^6 + x*y^4, x^7*y^9 + x^6*y^9"]


@pytest.mark.slow  # equivalence: review marks against brute force
@pytest.mark.parametrize("start", GROEBNER_STARTS)
@pytest.mark.parametrize("variant", [{}, {"bonus_turn": True}, {"mode": "solitaire"}])
def test_groebner_exact_marks_agree_with_brute_force(start: str, variant: dict[str, Any]) -> None:
    levels = ("easy",) if variant.get("mode") == "solitaire" else ("easy", "hard")
    for seed in range(2):
        states = play("groebner_nim", {**variant, "start": start}, levels, seed)
        result = review(GAMES["groebner_nim"], states, seconds=60)
        assert result.basis == "exact"
        for mark, state, after in zip(result.moves, states, states[1:], strict=False):
            seat = state.current_seat
            assert mark.before is not None and mark.after is not None
            assert mark.before.amount == (min if variant.get("mode") else max)(
                groebner_value(state.apply(pair), seat) for pair in state.legal_moves())
            assert mark.after.amount == groebner_value(after, seat)
            if mark.after.rank < mark.before.rank:
                assert groebner_value(state.apply(state.parse_move(mark.keeping[0])), seat) == mark.before.amount


def test_groebner_says_not_solved_when_the_search_runs_out_of_budget() -> None:
    from games.groebner_nim.computer import move_review

    states = play("groebner_nim", {"start": GROEBNER_STARTS[0]}, ("easy", "easy"), 0)
    assert move_review(states[0], states[1].last_move, nodes=1) is None
    assert move_review(states[0], states[1].last_move) is not None


# ------------------------------------------------------------------------------------------------ estimates


def test_napkin_chess_is_reviewed_as_an_estimate_from_the_hard_player() -> None:
    states = play("napkin_chess", {"width": 16, "height": 12}, ("medium", "easy"), 3)
    result = review(GAMES["napkin_chess"], states, seconds=120)
    assert result.basis == "estimate" and result.start_value is None
    for mark in result.moves:
        assert mark.basis == "estimate" and mark.hard_move is not None
        assert mark.played_estimate is not None and mark.played_estimate.kind == "margin"
        assert str(mark.values_text()).startswith("≈")
        assert "computer" in str(mark.verdict)


@pytest.mark.slow  # equivalence: a whole review searched
def test_polygons_placements_are_estimated_and_its_last_segments_exact() -> None:
    states = play("polygons", {"dots": 3, "size": 6}, ("hard", "easy"), 2)
    result = review(GAMES["polygons"], states, seconds=120)
    bases = [mark.basis for mark in result.moves]
    assert bases[:6] == ["estimate"] * 6 and set(bases[6:]) == {"exact"} and result.basis == "mixed"
    assert all(mark.before is not None and mark.before.kind == "margin" for mark in result.moves[6:])


def said(found: tuple[int, Any]) -> tuple[int, str]:
    """A verdict as English reads it: its severity and its mark's words."""
    severity, mark = found
    return severity, str(mark)


def test_verdicts_use_the_fields_terms() -> None:
    win, draw, loss = (GameValue("outcome", amount) for amount in (1, 0, -1))
    assert said(exact_verdict(win, win)) == (0, "kept the win")
    assert said(exact_verdict(win, loss, ["RR"])) == (3, "blunder: threw away a forced win; `RR` kept the win")
    assert said(exact_verdict(win, draw)) == (3, "blunder: let a forced win slip to a draw")
    assert said(exact_verdict(draw, loss, ["e5", "f2"])) == (
        3, "blunder: turned a draw into a loss; `e5` or `f2` held the draw")
    plus3, plus1 = GameValue("margin", 3), GameValue("margin", 1)
    assert said(exact_verdict(plus3, plus1, ["1-2"])) == (
        1, "inaccuracy: gave away 2 points; `1-2` kept a win by 3 points")
    assert said(exact_verdict(GameValue("margin", 6), GameValue("margin", 0)))[1].startswith(
        "blunder: let a forced win")
    assert said(exact_verdict(GameValue("turns", 5), GameValue("turns", 7)))[1] == "mistake: 2 turns more than needed"
    assert said(estimate_verdict(Estimate("margin", 1.0), Estimate("margin", 5.0), "3@4,4", False)) == (
        2, "mistake: the computer prefers `3@4,4`")
    assert said(estimate_verdict(Estimate("margin", 4.5), Estimate("margin", 5.0), "3@4,4", False))[0] == 0


def test_the_time_budget_is_kept_and_said() -> None:
    states = play("chopsticks", {}, ("easy", "easy"), 4)
    ticks = itertools.count()
    result = review(GAMES["chopsticks"], states, seconds=2.5, clock=lambda: float(next(ticks)))
    assert result.out_of_time
    assert [mark.basis for mark in result.moves][:2] == ["exact", "exact"]
    assert {mark.basis for mark in result.moves[3:]} == {"none"}
    assert str(result.moves[-1].verdict) == "not reviewed (time ran out)"


@pytest.mark.slow  # equivalence: every game's review made twice, whole and piece by piece
@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_review_made_piece_by_piece_is_the_whole_review(key: str) -> None:
    from games.review import assemble, review_piece, review_rest

    game = GAMES[key]
    for seed in range(1 if key in ("napkin_chess", "polygons") else 2):  # their estimates are the slow ones
        played = play(key, {}, ("medium", "easy"), seed, limit=8)
        start = played[0].to_dict()
        notations = [state.format_move(after.last_move) for state, after in itertools.pairwise(played)]
        states = [game.load(start)]  # as stored: the moves' notation (Napkin Chess rounds its points)
        for notation in notations:
            states.append(states[-1].play(notation))
        whole = review_notations(key, start, notations, seconds=600, seed=f"s{seed}")
        pieces = [review_piece(key, start, notations, ply, seed=f"s{seed}") for ply in range(1, len(notations) + 1)]
        assert assemble(key, pieces) == whole == review(game, states, seconds=600, seed=f"s{seed}")
        assert len(whole.moves) == len(notations) and not whole.out_of_time
        # out of time after three moves: the same marks, then the rest not reviewed, as the whole review's
        short = review(game, states, seconds=2.5, clock=functools.partial(next, itertools.count()), seed=f"s{seed}")
        cut = assemble(key, [*pieces[:3], *review_rest(key, start, notations, 4)])
        assert cut == short and (cut.out_of_time or len(notations) <= 3)
    with pytest.raises(IndexError, match="no move 99"):
        review_piece(key, start, notations, 99)


def test_a_verdict_reads_in_the_readers_language_with_its_moves_and_values() -> None:
    win, loss = GameValue("outcome", 1), GameValue("outcome", -1)
    _, mark = exact_verdict(win, loss, ["RR", "LL"])
    assert mark.render("fr") == "gaffe : a gâché un gain forcé ; `RR` ou `LL` gardait le gain"
    _, mark = exact_verdict(GameValue("margin", 3), GameValue("margin", 1), ["1-2"])
    assert mark.render("de") == "Ungenauigkeit: 2 Punkte verschenkt; `1-2` hielt einen Sieg mit 3 Punkten"
    assert GameValue("turns", 1).describe().render("pt_BR") == "1 turno"
    assert GameValue("turns", 5).describe().render("es_ES") == "5 turnos"
