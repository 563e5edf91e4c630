"""Gröbner Nim benchmarks: the end-of-game test against sympy, the hard computer (the board render is in bench_boards).

Rows:

* end-of-game test after a move (``is_groebner_basis`` on the sticks, skipping picked pairs, as ``apply`` runs
  it) and ``sympy.groebner`` over GF(2) on the same sticks, timed side by side on the same positions, and their
  ratio (target: ours at least 10x faster);
* start generation time per kind of start (target: median <= 0.5 s, max within 1 s);
* the hard computer's move time, duel and solitaire (target: median <= 1 s, max within 2 s);
* how often the exact par search and the exact duel search finish within their node budgets;
* the exact duel search's speed, in microseconds a position, on a middle-game position of 9 sticks that needs
  14,968 positions (target: at most 80 us);
* 200 default duels hard vs hard and 200 medium vs medium: game lengths (no game under 3 turns) and results per
  seat;
* ``bonus_turn``: how often a person gets to move against each computer level.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable

from bench._timing import Row, timed_row, value_row
from games.groebner_nim import GAME
from games.groebner_nim.computer import (
    DUEL_NODES,
    PAR_NODES,
    BudgetSpent,
    DuelSolver,
    duel_solver,
    exact_par,
    finishes_within,
    forget,
    start_par,
    start_plan,
)
from games.groebner_nim.rules import GroebnerNimState, Stick, is_groebner_basis, random_start
from games.search import collector_paused


def _positions(count: int) -> list[GroebnerNimState]:
    """Seeded positions right after a move (both orders, 2–6 start sticks); every third game is played out."""
    positions = []
    for seed in range(count):
        rng = random.Random(seed)
        order = ("grevlex", "lex")[seed % 2]
        state = GAME.new_state({"sticks": 2 + seed % 5, "order": order}, rng)
        for _ in range(rng.randint(1, 6) if seed % 3 else 10**4):
            if state.is_over:
                break
            state = state.apply(rng.choice(state.legal_moves()))
        positions.append(state)
    return positions


def _end_test_rows() -> list[Row]:
    import sympy  # test/bench-only dependency

    x, y = sympy.symbols("x y")
    positions = _positions(24)
    polys = [
        [x**s.head[0] * y**s.head[1] + x**s.tail[0] * y**s.tail[1] for s in state.sticks] for state in positions
    ]
    picked = [[pair.indices for pair in state.picked] for state in positions]

    def ours() -> None:
        for state, done in zip(positions, picked, strict=True):
            is_groebner_basis(state.sticks, state.variant.order, done)

    def theirs() -> None:
        for state, generators in zip(positions, polys, strict=True):
            sympy.groebner(generators, x, y, modulus=2, order=state.variant.order)

    finished = sum(state.is_over for state in positions)
    note = f"{finished} of {len(positions)} positions are finished games (a full check)"
    ours_row = timed_row("groebner_nim end test, 24 positions", ours, repeat=15, note=note)
    sympy_row = timed_row("sympy.groebner, same 24 positions", theirs, repeat=5, note=note)
    ratio = sympy_row.median / ours_row.median
    return [ours_row, sympy_row,
            value_row("groebner_nim end test speed-up vs sympy", ratio, "x", limit=10, at_least=True)]


def _row(name: str, samples: list[float], note: str, limit: float = 1000) -> Row:
    median = statistics.median(samples)
    return Row(name, median, min(samples), max(samples), "ms", f"<= {limit:g} ms", median <= limit and
               max(samples) <= 2 * limit, note + " (target on the median; max within twice it)")


def _timed(fn: Callable[[], object]) -> tuple[object, float]:
    start = time.perf_counter()
    result = fn()
    return result, (time.perf_counter() - start) * 1000.0


def _hard_rows() -> list[Row]:
    duel = []
    for seed in range(6):
        rng = random.Random(100 + seed)
        state = GAME.new_state({"sticks": 4, "order": ("grevlex", "lex")[seed % 2]}, rng)
        for _ in range(3):
            if state.is_over:
                break
            move, ms = _timed(lambda state=state, rng=rng: GAME.computer_move(state, "hard", rng))
            duel.append(ms)
            state = state.apply(move)  # type: ignore[arg-type]
    solitaire = []
    for seed in range(12):
        rng = random.Random(200 + seed)
        state = GAME.new_state({"mode": "solitaire", "sticks": 6, "order": ("grevlex", "lex")[seed % 2]}, rng)
        start_plan.cache_clear()  # the first move of a start searches its plan
        solitaire.append(_timed(lambda state=state, rng=rng: GAME.computer_move(state, "hard", rng))[1])
    return [
        _row("groebner_nim hard move (duel, 4 sticks)", duel,
             f"{len(duel)} moves in 6 games (exact search, then the depth-limited one when it runs out)"),
        _row("groebner_nim hard first move (solitaire, 6 sticks)", solitaire, "12 starts; later moves reuse the plan"),
    ]


def _start_rows() -> list[Row]:
    rows = []
    for options, count in (({}, 60), ({"mode": "solitaire"}, 60), ({"sticks": 4}, 12), ({"sticks": 6}, 12),
                           ({"mode": "solitaire", "sticks": 6}, 12)):
        samples = []
        for seed in range(count):
            start_par.cache_clear()
            draw = random.Random(5000 + seed)
            samples.append(_timed(lambda draw=draw, options=options: GAME.new_state(options, draw))[1])
        label = ", ".join(f"{key} {value}" for key, value in options.items()) or "default duel"
        rows.append(_row(f"groebner_nim start generation ({label})", samples, f"{count} seeded starts", 500))
    return rows


def _play(options: dict[str, object], levels: tuple[str, str], seed: int) -> GroebnerNimState:
    rng = random.Random(seed)
    state = GAME.new_state(options, rng)
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        state = state.apply(GAME.computer_move(state, levels[seat], rng))  # type: ignore[arg-type]
    return state


def _duel_rows(level: str, games: int) -> list[Row]:
    """``games`` default duels between two ``level`` computers; the two players swap seats every game."""
    lengths: Counter[int] = Counter()
    seat_results: Counter[str] = Counter()
    player_wins = [0, 0]
    for seed in range(games):
        state = _play({}, (level, level), 9000 + seed)
        lengths[state.ply] += 1
        outcome = state.outcome
        assert outcome is not None
        key = "draw" if outcome.draw else f"seat {outcome.winner + 1}"  # type: ignore[operator]
        seat_results[key] += 1
        if not outcome.draw:
            player_wins[(outcome.winner + seed) % 2] += 1  # type: ignore[operator]
    shortest = min(lengths)
    spread = ", ".join(f"{ply}: {count}" for ply, count in sorted(lengths.items()))
    results = (f"first seat won {seat_results['seat 1']}, second seat won {seat_results['seat 2']}, "
               f"{seat_results['draw']} draws; player A won {player_wins[0]}, player B {player_wins[1]}")
    return [
        value_row(f"groebner_nim {level} vs {level}, {games} default duels: shortest game", shortest, "turns",
                  limit=3, at_least=True, note=f"game lengths (turns: games) {spread}"),
        value_row(f"groebner_nim {level} vs {level}: second-seat wins", seat_results["seat 2"], "games",
                  note=results),
    ]


MIDDLE_GAME = tuple(Stick(head, tail) for head, tail in (
    ((3, 9), (3, 7)), ((9, 1), (6, 4)), ((9, 1), (6, 1)), ((2, 9), (9, 1)),  # the start
    ((7, 4), (3, 7)), ((6, 8), (6, 7)), ((6, 7), (3, 7)), ((6, 4), (6, 1)), ((5, 7), (6, 1))))
"""A duel (grevlex) after 5 turns, 12 unpicked pairs adding nothing, from the arena's hard vs medium, game 21: the
exact search proves +3 for the mover with 14,968 positions (the hard player's budget is far smaller)."""


def _search_speed_row() -> Row:
    samples = []
    for _ in range(3):
        solver = DuelSolver(MIDDLE_GAME[:4], "grevlex", False)
        with collector_paused():  # as a computer move runs
            start = time.process_time()
            found = solver.solve(MIDDLE_GAME, 12, 60_000)
            samples.append((time.process_time() - start) * 1e6 / found.nodes)
    assert found.value == 3 and found.nodes == 14_968, found
    return Row("groebner_nim exact duel search: CPU per position", statistics.median(samples), min(samples),
               max(samples), "us", "<= 80 us", statistics.median(samples) <= 80,
               "a 9-stick middle game solved from scratch (14,968 positions), 3 runs, the collector paused as in a "
               "computer move")


def _exact_rows() -> list[Row]:
    rows = [_search_speed_row()]
    # solitaire par: how often the exact search finishes within PAR_NODES
    for count, starts in ((2, 100), (4, 30), (6, 30)):
        exact, samples = 0, []
        for seed in range(starts):
            sticks = random_start(count, "grevlex", random.Random(7000 + seed))
            found, ms = _timed(lambda sticks=sticks: exact_par(sticks, "grevlex"))
            exact += found.exact  # type: ignore[attr-defined]
            samples.append(ms)
        rows.append(value_row(f"groebner_nim exact par within {PAR_NODES} nodes ({count} sticks)",
                              100 * exact / starts, "%", note=f"{starts} random starts; search time median "
                              f"{statistics.median(samples):.0f} ms, max {max(samples):.0f} ms"))
    # the hard duel computer: solved exactly from the first move
    for label, fair in (("default (fair) starts", True), ("raw non-trivial 2-stick draws", False)):
        solved, samples, tried, seed = 0, [], 0, 0
        while tried < 100:
            seed += 1
            rng = random.Random(8000 + seed)
            if fair:
                sticks = GAME.new_state({}, rng).sticks
            else:
                sticks = random_start(2, "grevlex", rng)
                if finishes_within(sticks, "grevlex", 2):
                    continue
                forget(duel_solver(sticks, "grevlex", False))
            tried += 1
            solver = duel_solver(sticks, "grevlex", False)
            start = time.perf_counter()
            try:
                solver.solve(sticks, 0, DUEL_NODES)
                solved += 1
            except BudgetSpent:
                forget(solver)
            samples.append((time.perf_counter() - start) * 1000.0)
        rows.append(value_row(f"groebner_nim hard duel solved exactly from move 1, {label}", solved, "%",
                              note=f"100 starts, {DUEL_NODES} nodes; time median {statistics.median(samples):.1f} "
                              f"ms, max {max(samples):.0f} ms (fair starts reuse the generator's proof)"))
    return rows


def _bonus_rows() -> list[Row]:
    """``bonus_turn``: a person (modelled as a player who always picks a random pair that adds a stick) against
    each computer level, the computer moving first; how often the person gets to move at all."""
    rows = []
    for level in ("easy", "medium", "hard"):
        moved, longest, person_points, computer_points = 0, 0, 0, 0
        games = 10 if level == "hard" else 100
        for seed in range(games):
            rng = random.Random(11000 + seed)
            state = GAME.new_state({"bonus_turn": True}, rng)
            while not state.is_over:
                if state.current_seat == 0:
                    move = GAME.computer_move(state, level, rng)  # type: ignore[arg-type]
                else:
                    move = rng.choice(state.adding_pairs())
                state = state.apply(move)
            moved += 1 in state.movers
            run = best = 0
            for index, seat in enumerate(state.movers):
                run = run + 1 if index and state.movers[index - 1] == seat else 1
                best = max(best, run)
            longest = max(longest, best)
            computer_points += state.scores[0]
            person_points += state.scores[1]
        rows.append(value_row(f"groebner_nim bonus_turn: person moves against {level} (computer first)",
                              100 * moved / games, "%", note=f"{games} games; longest run of one seat {longest} "
                              f"turns; points computer {computer_points}, person {person_points}"))
    return rows


def run() -> list[Row]:
    """Return the Gröbner Nim benchmark rows (about 30 s)."""
    return [*_end_test_rows(), *_start_rows(), *_hard_rows(), *_exact_rows(), *_duel_rows("hard", 200),
            *_duel_rows("medium", 200), *_bonus_rows()]


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
