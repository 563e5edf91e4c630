"""Exact searches of Gröbner Nim checked against brute force over the engine's own states; the start rule."""

from __future__ import annotations

import gc
import random
import time
from collections import OrderedDict

import pytest

from games.groebner_nim import GAME, computer
from games.groebner_nim.computer import (
    MIN_START_TURNS,
    BudgetSpent,
    DuelSolver,
    Positions,
    exact_par,
    fair_start,
    start_passes,
    target_heads,
)
from games.groebner_nim.rules import (
    POINTS_PER_STICK,
    GroebnerNimState,
    Pair,
    format_sticks,
    pair_result,
    random_start,
)
from games.search import collector_paused


def custom(sticks: tuple, order: str, **options: object) -> GroebnerNimState:
    state = GAME.new_state({"start": format_sticks(sticks), "order": order, **options})
    assert state.sticks == sticks and state.variant.order == order
    return state


def brute_force_par(state: GroebnerNimState, limit: int = 12) -> int:
    """Breadth-first search over every legal pair (including pairs that add nothing) with the engine's apply."""
    level = [state]
    for turns in range(1, limit + 1):
        seen: dict[tuple, GroebnerNimState] = {}
        for current in level:
            for move in current.legal_moves():
                child = current.apply(move)
                if child.is_over:
                    return turns
                seen.setdefault((child.sticks, child._picked_set), child)
        level = list(seen.values())
    raise AssertionError("no finish within the limit")


def brute_force_value(state: GroebnerNimState) -> int:
    """Exact margin (points of the seat to move minus the other's) over every legal pair, memoised on the full
    position (the sticks and the set of picked pairs): no parity argument, no pruning."""
    memo: dict[tuple, int] = {}

    def value(current: GroebnerNimState) -> int:
        if current.is_over:
            return 0
        key = (current.sticks, current._picked_set)
        if key in memo:
            return memo[key]
        best = None
        for move in current.legal_moves():
            child = current.apply(move)
            gain = POINTS_PER_STICK if child.added[-1] is not None else 0
            rest = value(child)
            found = gain + rest if child.current_seat == current.current_seat else gain - rest
            best = found if best is None else max(best, found)
        assert best is not None
        memo[key] = best
        return best

    return value(state)


def small_starts(count: int, order: str, seeds: range, max_par: int) -> list[tuple]:
    """Raw random starts whose par is small enough for brute force."""
    found = []
    for seed in seeds:
        sticks = random_start(count, order, random.Random(seed))
        if exact_par(sticks, order).turns <= max_par:
            found.append(sticks)
    return found


@pytest.mark.parametrize("order", ["grevlex", "lex"])
def test_the_search_reduces_every_pair_as_the_rules_do(order: str) -> None:
    """The searches reduce by memoised normal forms (continued from the parent position's); every pair of every
    position of random games, descended one stick at a time, must add exactly the stick the rules' reduction adds."""
    checked = zeros = 0
    for seed in range(12):
        rng = random.Random(seed)
        start = random_start(4, order, rng)
        positions = Positions(order, target_heads(start, order))
        position = positions.root(start)
        while positions.missing(position) and len(positions.sticks(position)) < 14:
            sticks = positions.sticks(position)
            adding = positions.adding(position)
            for j in range(1, len(sticks)):
                for i in range(j):
                    assert adding.get((i, j)) == pair_result(sticks, i, j, order), (seed, sticks, i, j)
                    checked += 1
                    zeros += (i, j) not in adding
            # the grouped form holds the same pairs, each stick once, in the order of its first pair
            grouped = positions.grouped(position)
            assert {pair: stick for stick, pairs in grouped for pair in pairs} == adding
            assert [stick for stick, _ in grouped] == list(dict.fromkeys(adding.values()))
            assert positions.adding_count(position) == len(adding)
            # counted from the parent's: the basis heads that are not yet the head of a stick
            assert positions.missing(position) == len(positions.target - {stick.head for stick in sticks})
            position = rng.choice(positions.moves(position))[1]
            assert positions.sticks(position)[:-1] == sticks
    assert checked > 1000 and 0 < zeros < checked


@pytest.mark.slow  # equivalence: exact par against brute force
@pytest.mark.parametrize("order", ["grevlex", "lex"])
def test_exact_par_agrees_with_brute_force(order: str) -> None:
    starts = small_starts(2, order, range(40), 4) + small_starts(3, order, range(10), 3)
    assert len(starts) >= 20
    pars = set()
    for sticks in starts:
        state = custom(sticks, order, mode="solitaire")
        found = exact_par(sticks, order)
        assert found.exact and found.lower == found.turns == state.par and state.par_exact
        assert brute_force_par(state) == state.par
        pars.add(state.par)
        # the plan itself finishes in par turns, each pair adding a stick
        for pair in found.plan:
            state = state.apply(GAME.state_class.from_dict(state.to_dict()).parse_move(f"{pair[0] + 1}-{pair[1] + 1}"))
            assert state.added[-1] is not None
        assert state.is_over and state.ply == len(found.plan)
    assert len(pars) >= 3  # the sample is not all one-move games


def test_exact_par_out_of_budget_is_an_upper_bound() -> None:
    sticks = next(s for s in (random_start(6, "grevlex", random.Random(seed)) for seed in range(50))
                  if exact_par(s, "grevlex").turns >= 4)
    full = exact_par(sticks, "grevlex")
    cut = exact_par(sticks, "grevlex", nodes=1)
    assert full.exact and not cut.exact
    assert cut.lower <= full.turns <= cut.turns and len(cut.plan) == cut.turns


# Raw random 2-stick starts (seeds of ``random_start``) whose full game tree, every pair that adds nothing
# included, is small enough for brute force; their values are computed here, not stored.
BRUTE_FORCE_SEEDS = (14, 17, 18, 21, 34, 40, 42, 44, 46, 56)


@pytest.mark.slow  # equivalence: duel values against brute force
@pytest.mark.parametrize("bonus", [False, True])
def test_duel_value_agrees_with_brute_force(bonus: bool) -> None:
    order = "grevlex"
    values = set()
    for seed in BRUTE_FORCE_SEEDS:
        sticks = random_start(2, order, random.Random(seed))
        state = custom(sticks, order, bonus_turn=bonus)
        solver = DuelSolver(sticks, order, bonus)
        found = solver.solve(sticks, start_passes(solver.positions, sticks), 200_000)
        assert found.value == brute_force_value(state)
        values.add(found.value)
        # one ply in, with pairs that add nothing on the board: the hard computer's choice keeps the value
        state = state.apply(state.legal_moves()[0])
        if state.is_over:
            continue
        adding = set(state.adding_pairs())
        passes = sum(pair not in adding for pair in state.unpicked_pairs())
        value = solver.solve(state.sticks, passes, 200_000).value
        assert value == brute_force_value(state)
        child = state.apply(GAME.computer_move(state, "hard", random.Random(0)))
        gain = POINTS_PER_STICK if child.added[-1] is not None else 0
        rest = brute_force_value(child)
        assert (gain + rest if child.current_seat == state.current_seat else gain - rest) == value
    assert len(values) >= 2 or bonus


def test_duel_solver_says_when_out_of_budget() -> None:
    sticks = random_start(5, "grevlex", random.Random(3))
    solver = DuelSolver(sticks, "grevlex", False)
    with pytest.raises(BudgetSpent):
        solver.solve(sticks, start_passes(solver.positions, sticks), 1)


def never_finishes_within_two(state: GroebnerNimState) -> bool:
    """Independent of the search module: every sequence of one or two legal pairs leaves the game running."""
    for first in state.legal_moves():
        after = state.apply(first)
        if after.is_over or any(after.apply(second).is_over for second in after.legal_moves()):
            return False
    return True


@pytest.mark.parametrize(("mode", "count", "order"), [("duel", 2, "grevlex"), ("duel", 2, "lex"),
                                                      ("solitaire", 2, "grevlex"), ("duel", 3, "grevlex")])
def test_random_starts_are_never_trivial(mode: str, count: int, order: str) -> None:
    for seed in range(12):
        state = GAME.new_state({"mode": mode, "sticks": count, "order": order}, random.Random(seed))
        assert len(state.sticks) == count and state.variant.order == order and state.seats == (1 if mode ==
                                                                                                "solitaire" else 2)
        assert never_finishes_within_two(state)
        if mode == "solitaire":
            assert state.par >= MIN_START_TURNS


def test_default_duel_starts_are_draws_under_perfect_play() -> None:
    """The documented fairness condition on a sample: exact value 0 with a large budget, and by brute force
    where the game tree is tiny."""
    brute = 0
    for seed in range(30):
        state = GAME.new_state(None, random.Random(seed))
        assert state.variant.sticks == 2 and not state.variant.bonus_turn
        solver = DuelSolver(state.sticks, "grevlex", False)
        assert solver.solve(state.sticks, 0, 200_000).value == 0
        if len(solver.positions) <= 6:
            assert brute_force_value(state) == 0
            brute += 1
    assert brute >= 2


def test_fair_start_is_reproducible() -> None:
    first = fair_start(2, "grevlex", True, False, random.Random(11))
    assert first == fair_start(2, "grevlex", True, False, random.Random(11))
    assert first == GAME.new_state(None, random.Random(11)).sticks


def test_custom_starts_stay_as_typed() -> None:
    state = GAME.new_state({"start": "x^3+1, x*y^2+y^3"})  # a one-move game, kept as typed
    assert format_sticks(state.sticks) == "x^3 + 1, x*y^2 + y^3"
    assert state.apply(state.legal_moves()[0]).is_over


def test_the_start_note_names_a_forced_win_only_for_typed_duel_starts() -> None:
    from games import GAMES

    game = GAMES["groebner_nim"]
    typed = game.new_state({"start": "x^3+1, x*y^2+y^3"})
    assert game.start_note(typed) == ("This start is a forced win for the first player: with perfect play they "
                                      "score 3 points more.")
    assert game.start_note(game.new_state({"mode": "solitaire", "start": "x^3+1, x*y^2+y^3"})) is None
    assert game.start_note(game.new_state({}, random.Random(4))) is None  # random starts are drawn fair


@pytest.mark.slow  # strength: hard's choice checked by exact search
def test_hard_keeps_the_value_with_the_pair_that_leaves_most_ways_to_go_wrong() -> None:
    order = "grevlex"
    chosen = 0
    for seed in BRUTE_FORCE_SEEDS[:5]:
        state = custom(random_start(2, order, random.Random(seed)), order)
        while not state.is_over:
            adding = set(state.adding_pairs())
            pairs = [pair for pair in state.unpicked_pairs() if pair in adding]
            pairs += [pair for pair in state.unpicked_pairs() if pair not in adding][:1]  # one pass stands for all

            def worth(pair: object, state: GroebnerNimState = state) -> int:
                child = state.apply(pair)
                gain = POINTS_PER_STICK if child.added[-1] is not None else 0
                rest = brute_force_value(child)
                return gain + rest if child.current_seat == state.current_seat else gain - rest

            values = {pair: worth(pair) for pair in pairs}
            best = max(values.values())
            keeping = [pair for pair, value in values.items() if value == best]

            def erring(pair: object, state: GroebnerNimState = state) -> float:
                """The share of the opponent's replies after ``pair`` that lose value for it: every pair that adds
                a stick, and a pair that adds nothing when those are odd in number (an even number of them is
                worth no pass at all, as the solver counts)."""
                child = state.apply(pair)
                if child.is_over:
                    return 0.0
                theirs = brute_force_value(child)
                adds = set(child.adding_pairs())
                zeros = [reply for reply in child.unpicked_pairs() if reply not in adds]
                replies = sorted(adds, key=str) + (zeros[:1] if len(zeros) % 2 else [])
                bad = 0
                for reply in replies:
                    after = child.apply(reply)
                    gain = POINTS_PER_STICK if after.added[-1] is not None else 0
                    bad += gain - brute_force_value(after) < theirs
                return bad / len(replies) if replies else 0.0

            move = GAME.computer_move(state, "hard", random.Random(seed))
            assert values.get(move, worth(move)) == best
            if len(keeping) > 1 and len({erring(pair) for pair in keeping}) > 1:
                assert erring(move) == max(erring(pair) for pair in keeping)
                chosen += 1
            state = state.apply(move)
    assert chosen >= 1


def test_the_clock_stops_a_search_its_nodes_would_let_finish() -> None:
    sticks = random_start(3, "grevlex", random.Random(7))
    passes = start_passes(DuelSolver(sticks, "grevlex", False).positions, sticks)
    found = DuelSolver(sticks, "grevlex", False).solve(sticks, passes, 20_000)
    assert 64 < found.nodes < 20_000  # solved, and long enough for the clock to be looked at
    with pytest.raises(BudgetSpent):
        DuelSolver(sticks, "grevlex", False).solve(sticks, passes, 20_000, deadline=0.0)


def test_a_reserve_for_freeing_stops_the_search_before_its_deadline() -> None:
    # The second exact search of a hard move stops early enough that freeing the positions it holds fits before the
    # cap: with a reserve of a second a position and an hour to go, it stops once it holds some 3,600 positions.
    sticks = random_start(3, "grevlex", random.Random(7))
    passes = start_passes(DuelSolver(sticks, "grevlex", False).positions, sticks)
    solver = DuelSolver(sticks, "grevlex", False)
    found = solver.solve(sticks, passes, 20_000, deadline=time.process_time() + 3600.0)
    held = len(solver.positions)
    assert held > 64  # the search needs more positions than the clock's first look
    with pytest.raises(BudgetSpent):
        DuelSolver(sticks, "grevlex", False).solve(sticks, passes, 20_000, deadline=time.process_time() + 3600.0,
                                                   reserve=3600.0 / (held // 2))
    assert DuelSolver(sticks, "grevlex", False).solve(sticks, passes, 20_000, deadline=time.process_time() + 3600.0,
                                                      reserve=3600.0 / (held * 4)) == found


def test_the_hard_move_reserves_time_to_free_its_second_search(monkeypatch: pytest.MonkeyPatch) -> None:
    import games.groebner_nim.computer as computer

    reserves = []
    real = computer.DuelSolver.solve

    def solve(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        reserves.append(kwargs.get("reserve", 0.0))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(computer.DuelSolver, "solve", solve)
    monkeypatch.setattr(computer, "DUEL_NODES", 1)  # the first exact search runs out: the second follows
    state = GAME.new_state({"start": format_sticks(random_start(4, "grevlex", random.Random(3)))})
    computer.hard_move(state)
    assert reserves == [0.0, computer.FREE_SECONDS_PER_POSITION]


def test_a_hard_move_past_its_cpu_cap_still_plays_a_searched_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    import games.groebner_nim.computer as computer

    state = GAME.new_state({"start": format_sticks(random_start(4, "grevlex", random.Random(3)))})
    searched = []
    real = computer.duel_search
    monkeypatch.setattr(computer, "HARD_CPU_SECONDS", 0.0)
    monkeypatch.setattr(computer, "duel_search", lambda *a, **k: searched.append(k) or real(*a, **k))
    move = computer.hard_move(state)
    assert searched and searched[0]["deadline"] <= time.process_time()  # the cap was in force
    assert move in state.adding_pairs()  # depth 1 always completes: a pair that adds a stick, not a random one


def test_shared_solvers_are_dropped_oldest_first_beyond_their_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(computer, "_SOLVERS", OrderedDict())
    starts = [random_start(2, "grevlex", random.Random(seed)) for seed in range(3)]
    solvers = []
    for sticks in starts:
        solver = computer.duel_solver(sticks, "grevlex", False)
        solver.solve(sticks, start_passes(solver.positions, sticks), 200_000)
        solvers.append(solver)
    sizes = [len(solver.positions) for solver in solvers]
    assert min(sizes) > 1 and list(computer._SOLVERS.values()) == solvers
    # room for the two most recent: using the first again drops the second, the least recently used
    monkeypatch.setattr(computer, "SOLVER_POSITIONS", sizes[0] + sizes[2])
    assert computer.duel_solver(starts[0], "grevlex", False) is solvers[0]
    assert list(computer._SOLVERS.values()) == [solvers[2], solvers[0]]
    # the one in use stays whatever its size
    monkeypatch.setattr(computer, "SOLVER_POSITIONS", 1)
    assert computer.duel_solver(starts[2], "grevlex", False) is solvers[2]
    assert list(computer._SOLVERS.values()) == [solvers[2]]


def _fallback_position(monkeypatch: pytest.MonkeyPatch) -> tuple[GroebnerNimState, dict[Pair, int], Pair]:
    """A position (3 sticks, two pairs in) with the exact value of each pair, and the pair of its depth-limited
    search held to 5 positions, which gives 3 points away; hard's first exact search is held to 5 positions too."""
    state = GAME.new_state({"start": format_sticks(random_start(3, "grevlex", random.Random(7)))})
    rng = random.Random(7)
    for _ in range(2):
        state = state.apply(rng.choice(state.adding_pairs()))
    exact = computer.move_values(state, 100_000)
    assert exact is not None
    values = {pair: value.amount for pair, value in exact.items()}
    monkeypatch.setattr(computer, "_SOLVERS", OrderedDict())
    monkeypatch.setattr(computer, "DUEL_NODES", 5)
    monkeypatch.setattr(computer, "FALLBACK_DUEL_NODES", 5)
    fallback = computer.duel_search(state, nodes=5)
    assert values[fallback] < max(values.values())
    return state, values, fallback


def test_a_hard_move_leaves_no_reference_cycles_for_the_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a move dropped (the depth-limited search, a solver that ran out) is freed by reference counting when
    the move returns, not left for the collector's next pass."""
    state, _, _ = _fallback_position(monkeypatch)
    gc.collect()
    with collector_paused():
        assert computer.duel_search(state, nodes=200) is not None
        monkeypatch.setattr(computer, "DEEP_DUEL_NODES", 5)  # the second exact search runs out too: dropped
        assert computer.hard_move(state) in state.unpicked_pairs()
        assert not computer._SOLVERS
        assert gc.collect() == 0


def test_when_the_first_exact_search_runs_out_a_deeper_one_overrules_the_fallback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    state, values, fallback = _fallback_position(monkeypatch)
    best = max(values.values())
    with pytest.raises(BudgetSpent):
        adding = set(state.adding_pairs())
        passes = sum(pair not in adding for pair in state.unpicked_pairs())
        DuelSolver(state.sticks[:state.start_count], "grevlex", False).solve(state.sticks, passes, 5)
    monkeypatch.setattr(computer, "DEEP_DUEL_NODES", 0)  # no second search: the fallback's pair
    assert computer.hard_move(state) == fallback
    monkeypatch.setattr(computer, "DEEP_DUEL_NODES", 100_000)
    assert values[computer.hard_move(state)] == best


def test_a_deeper_search_that_runs_out_still_plays_a_pair_it_proved_better_than_the_fallback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The same position: the deeper search begins with the fallback's pair and, when it runs out after proving
    # another pair better, plays that one (before, it played the fallback's pair whenever it ran out).
    state, values, fallback = _fallback_position(monkeypatch)
    solve = DuelSolver.solve
    outcomes: list[BudgetSpent | None] = []

    def watched(self: DuelSolver, *args: object, **kwargs: object) -> object:
        try:
            found = solve(self, *args, **kwargs)  # type: ignore[arg-type]
        except BudgetSpent as spent:
            outcomes.append(spent)
            raise
        outcomes.append(None)
        return found

    monkeypatch.setattr(DuelSolver, "solve", watched)
    overruled = 0
    for deep in range(1, 400, 3):
        monkeypatch.setattr(computer, "_SOLVERS", OrderedDict())
        monkeypatch.setattr(computer, "DEEP_DUEL_NODES", deep)
        outcomes.clear()
        move = computer.hard_move(state)
        assert isinstance(outcomes[0], BudgetSpent)  # the first search ran out, so the deeper one ran
        deeper = outcomes[1]
        if deeper is None:
            break  # from here on the deeper search finishes
        assert values[move] >= values[fallback]
        if move != fallback:
            assert deeper.proven is not None and deeper.proven.best == move.indices
            overruled += 1
    assert overruled > 0 and deeper is None
