"""Computer players: median move time per game and level, and the strength of ``hard`` measured as its score
against ``easy`` and ``medium`` over fixed seeds (seats alternating; a win counts 1, a draw ½).

Solitaire Gröbner Nim has no opponent and is measured by the game's own module (turns against par).
"""

from __future__ import annotations

import random
import statistics
import time

from bench._timing import Row, value_row
from games import GAMES, LEVELS, State

GAMES_PER_PAIRING = 10
SMALL_VARIANTS: dict[str, dict[str, object]] = {}


def _play(key: str, levels: tuple[str, str], seed: int, timings: dict[str, list[float]]) -> State:
    game = GAMES[key]
    rng = random.Random(seed)
    state = game.new_state(SMALL_VARIANTS.get(key, {}), rng)
    while not state.is_over:
        level = levels[state.current_seat or 0]
        began = time.perf_counter()
        move = game.computer_move(state, level, rng)  # type: ignore[arg-type]
        timings[level].append((time.perf_counter() - began) * 1000)
        state = state.apply(move)
    return state


def run() -> list[Row]:
    """Rows: per game and level the median move time; per game hard's score against easy and medium."""
    rows: list[Row] = []
    for key in GAMES:
        timings: dict[str, list[float]] = {level: [] for level in LEVELS}
        for opponent in ("easy", "medium"):
            points = 0.0
            for number in range(GAMES_PER_PAIRING):
                hard_seat = number % 2
                levels = ("hard", opponent) if hard_seat == 0 else (opponent, "hard")
                outcome = _play(key, levels, 1000 + number, timings).outcome
                assert outcome is not None
                if outcome.draw:
                    points += 0.5
                elif outcome.winner == hard_seat:
                    points += 1
            rows.append(value_row(f"{key}: hard vs {opponent}, score over {GAMES_PER_PAIRING} games (seats "
                                  "alternating)", points / GAMES_PER_PAIRING * 100, "%"))
        for level in LEVELS:
            samples = timings[level]
            if not samples:  # perfect: not among the pairings above
                continue
            median = statistics.median(samples)
            limit = 1000.0 if level == "hard" else None
            rows.append(Row(f"{key}: {level} move time", median, min(samples), max(samples), "ms",
                            f"<= {limit:g} ms" if limit else "", None if limit is None else median <= limit,
                            f"{len(samples)} moves"))
    return rows
