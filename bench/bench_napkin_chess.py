"""Napkin Chess benchmarks: placement legality, the exact end-of-game decision, computer moves, the free region.

Targets (design brief): legality of one placement with 60 coins down <= 1 ms; exact "can the player move?"
with 60 coins down <= 20 ms (measured cold, on a state without cached witnesses); ``hard`` median <= 1 s per
move (the render of the largest board is in bench_boards).
"""

from __future__ import annotations

import random
import statistics
import time

from bench._timing import Row, timed_row, value_row
from games.napkin_chess import GAME, NapkinState
from renderers.napkin_chess import render_free

NAMES = ["alice", "bob"]


def _play(variant: dict, rng: random.Random, levels: tuple[str, str] = ("easy", "easy"),
          max_coins: int | None = None) -> NapkinState:
    state = GAME.new_state(variant)
    while not state.is_over and (max_coins is None or state.ply < max_coins):
        state = state.apply(GAME.computer_move(state, levels[state.ply % 2], rng))
    return state


def _cold(state: NapkinState) -> NapkinState:
    """The same position with nothing cached (no witnesses inherited from earlier positions)."""
    return NapkinState(state.variant, state.coins)


def run() -> list[Row]:
    """Run the Napkin Chess benchmarks (about 30 s on one idle core)."""
    rows: list[Row] = []
    big = {"width": 50, "height": 50, "supply": [99, 99, 99]}
    sixty = _play(big, random.Random(1), max_coins=60)
    assert sixty.ply == 60
    probe = sixty.sample_placements(2, 1, random.Random(2))[0]
    rows.append(timed_row("napkin: legality of one placement, 60 coins", lambda: sixty.is_legal(probe),
                          limit_ms=1, repeat=200, note="50 x 50 napkin, legal probe (checks every coin)"))
    rows.append(timed_row("napkin: can move? cold, 60 coins, room left", lambda: _cold(sixty).fits(2),
                          limit_ms=20, repeat=20, note="50 x 50, exact: a verified witness"))

    # Jammed positions: random play to the end; the exact proof that nothing fits.
    jammed = _play({"width": 48, "height": 48, "supply": [99, 99, 99], "first_coin_two": False},
                   random.Random(3))
    rows.append(timed_row(f"napkin: can move? cold, jammed, {jammed.ply} coins", lambda: _cold(jammed).fits(2),
                          limit_ms=20, repeat=10, note="48 x 48 random play to the end: proof that no coin fits"))
    tight = _play({"preset": "holed"}, random.Random(4), levels=("medium", "medium"))
    rows.append(timed_row(f"napkin: can move? cold, tight classic end, {tight.ply} coins",
                          lambda: _cold(tight).fits(2), limit_ms=20, repeat=10,
                          note="30 x 30 greedy contact play to the end"))

    # Whole games: apply + the exact end check after every move.
    rng = random.Random(5)
    started = time.perf_counter()
    plies = 0
    for _ in range(5):
        plies += _play({"preset": "classic"}, rng).ply
    rows.append(value_row("napkin: random classic games, per move (apply + end check + easy)",
                          (time.perf_counter() - started) * 1000 / plies, "ms", note=f"{plies} moves"))

    # Computer players: hard (search) against medium on the holed napkin, both seats.
    per_level: dict[str, list[float]] = {"easy": [], "medium": [], "hard": []}
    wins = games = 0
    for seed in range(6):
        rng = random.Random(100 + seed)
        hard_seat = seed % 2
        state = GAME.new_state({"preset": "holed"})
        while not state.is_over:
            level = "hard" if state.ply % 2 == hard_seat else "medium"
            begin = time.perf_counter()
            move = GAME.computer_move(state, level, rng)
            per_level[level].append(time.perf_counter() - begin)
            state = state.apply(move)
        games += 1
        wins += state.outcome.winner == hard_seat
        easy_state = _play({"preset": "holed"}, rng, max_coins=12)
        begin = time.perf_counter()
        GAME.computer_move(easy_state, "easy", rng)
        per_level["easy"].append(time.perf_counter() - begin)
    for level in ("easy", "medium", "hard"):
        samples = [s * 1000 for s in per_level[level]]
        rows.append(Row(f"napkin: computer {level} move (holed classic)", statistics.median(samples), min(samples),
                        max(samples), "ms", "<= 1000 ms" if level == "hard" else "",
                        statistics.median(samples) <= 1000 if level == "hard" else None,
                        f"{len(samples)} moves"))
    rows.append(value_row("napkin: hard wins against medium (holed)", 100.0 * wins / games, "%",
                          note=f"{wins} of {games} games, seats alternating"))

    # Rendering.
    shown = _play({"preset": "holed"}, random.Random(6), levels=("medium", "easy"), max_coins=20)
    rows.append(timed_row("napkin: render free region (size 2)", lambda: render_free(_cold(shown), NAMES, 2),
                          repeat=10, note="cold state: includes the free-region geometry"))
    data = sixty.to_dict()
    rows.append(timed_row("napkin: from_dict, 60 coins (replay + end check)", lambda: NapkinState.from_dict(data),
                          repeat=10))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
