"""The arena in brief: each game and variant of the arena's table plays ``hard`` against ``medium`` and ``medium``
against ``easy`` over a few games (seats alternating), and each row gives the score with its 95 % Wilson interval
as min and max, and the CPU per move of both sides. The full table, at the hundreds of games its figures need, is
``make arena`` (``python -m bench.arena``, about an hour per game at 200 games a pairing)."""

from __future__ import annotations

import statistics

from bench._timing import Row
from bench.arena import SUITE, CpuLog, make_player, play_games
from games import GAMES

GAMES_PER_PAIRING = 6
SLOW = {"napkin_chess": 2}
"""Games whose computer players take seconds a game: fewer games per pairing here."""
PAIRINGS = (("hard", "medium"), ("medium", "easy"))


def run() -> list[Row]:
    """One row per game, variant and pairing (about a minute and a half)."""
    rows: list[Row] = []
    for game_key, label, variant in SUITE:
        games = SLOW.get(game_key, GAMES_PER_PAIRING)
        for stronger, weaker in PAIRINGS:
            cpu = CpuLog()
            first = make_player(game_key, stronger, cpu, weaker)
            second = make_player(game_key, weaker, cpu, stronger)
            result = play_games(game_key, variant, first, second, games, names=(stronger, weaker),
                                variant_label=label, cpu=cpu)
            low, high = result.interval
            times = {name: statistics.median(cpu.moves.get(name) or [0.0]) for name in (stronger, weaker)}
            note = (f"W/D/L {result.wins}/{result.draws}/{result.losses} over {result.games} games, min/max = 95% "
                    f"Wilson interval; CPU/move median {stronger} {times[stronger]:.1f} ms, {weaker} "
                    f"{times[weaker]:.1f} ms; the full table: make arena")
            rows.append(Row(f"arena: {GAMES[game_key].title} {label}, {stronger} vs {weaker}, score",
                            100 * result.score, 100 * low, 100 * high, "%", note=note))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
