"""Random positions of every game, every variant up to its largest, for the alt-text and legibility tests.

Each game's positions are every position of seeded random matches (random variants, random legal moves; Napkin Chess
by its easy computer, which places at random) until :data:`PER_GAME` are gathered: the same positions every run.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from typing import Any

from games import GAMES, State
from games.chopsticks import ChopsticksState, Variant
from games.groebner_nim.rules import MAX_EXPONENT, initial_state, random_start, read_variant
from games.polygons.rules import DOTS_MAX, SIZE_MAX, SIZE_MIN, max_dots_per_seat

PER_GAME = 1000
"""Positions per game (the issue asks for at least 1,000)."""


def _chopsticks(rng: random.Random) -> Iterator[State[Any]]:
    state: State[Any] = ChopsticksState.start(rng.choice(Variant.every()))
    yield state
    while not state.is_over and state.ply < 40:
        state = state.apply(rng.choice(list(state.legal_moves())))
        yield state


def _differences(rng: random.Random) -> Iterator[State[Any]]:
    state = GAMES["differences"].new_state({"n": rng.randint(4, 15), "unique": rng.random() < 0.5})
    yield state
    while not state.is_over:
        state = state.apply(rng.choice(list(state.legal_moves())))
        yield state


def _napkin_chess(rng: random.Random) -> Iterator[State[Any]]:
    game = GAMES["napkin_chess"]
    big = rng.random() < 0.3
    variant = {"width": 60 if big else rng.randint(8, 60), "height": 60 if big else rng.randint(8, 60),
               "coins_2": rng.randint(1, 99), "coins_3": rng.randint(0, 99), "coins_4": rng.randint(0, 99),
               "hole": rng.random() < 0.5, "first_coin_two": rng.random() < 0.5,
               "scoring": rng.choice(["points", "last_mover"])}
    state = game.new_state(variant)
    yield state
    while not state.is_over and state.ply < 90:
        state = state.apply(game.computer_move(state, "easy", rng))
        yield state


def _polygons(rng: random.Random) -> Iterator[State[Any]]:
    size = SIZE_MAX if rng.random() < 0.3 else rng.randint(SIZE_MIN, SIZE_MAX)
    dots = rng.randint(3, min(DOTS_MAX, max_dots_per_seat(size)))
    state = GAMES["polygons"].new_state({"size": size, "dots": dots, "komi": rng.randint(0, 9)})
    yield state
    while not state.is_over:
        state = state.apply(rng.choice(list(state.legal_moves())))
        yield state


def _groebner_start(rng: random.Random, count: int, order: str) -> str:
    """A custom start of ``count`` sticks with exponents up to :data:`MAX_EXPONENT` (the largest the rules accept)."""
    sticks = []
    for _ in range(count):
        points = rng.sample([(a, b) for a in range(MAX_EXPONENT + 1) for b in range(MAX_EXPONENT + 1)], 2)
        sticks.append(" + ".join(f"x^{a}*y^{b}" for a, b in points))
    return ", ".join(sticks)


def _groebner_nim(rng: random.Random) -> Iterator[State[Any]]:
    options = {"mode": rng.choice(["duel", "duel", "solitaire"]), "order": rng.choice(["grevlex", "lex"]),
               "bonus_turn": rng.random() < 0.3, "sticks": rng.randint(2, 6)}
    while True:
        if rng.random() < 0.5:
            try:
                variant, start = read_variant({**options, "start": _groebner_start(rng, options["sticks"],
                                                                                    options["order"])})
            except ValueError:  # already a Gröbner basis: draw again
                continue
        else:
            variant, _ = read_variant(options)
            start = random_start(variant.sticks, variant.order, rng)
        break
    assert start is not None
    par = (rng.randint(2, 12), rng.random() < 0.5) if variant.mode == "solitaire" else (None, False)
    state: State[Any] = initial_state(variant, start, par)
    yield state
    while not state.is_over and state.ply < 60:
        state = state.apply(rng.choice(list(state.legal_moves())))
        yield state


GAMES_PLAYED: dict[str, Callable[[random.Random], Iterator[State[Any]]]] = {
    "chopsticks": _chopsticks,
    "differences": _differences,
    "napkin_chess": _napkin_chess,
    "polygons": _polygons,
    "groebner_nim": _groebner_nim,
}


@functools.cache
def positions(key: str, count: int = PER_GAME) -> tuple[State[Any], ...]:
    """``count`` positions of the game ``key`` from seeded random matches (cached per test process)."""
    rng = random.Random(f"positions:{key}")
    found: list[State[Any]] = []
    while len(found) < count:
        found.extend(GAMES_PLAYED[key](rng))
    return tuple(found[:count])
