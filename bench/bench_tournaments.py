"""Benchmarks of tournaments: pairing one Swiss round and the standings of a large tournament.

- Pairing round 5 of a Swiss whose scores are spread as after four rounds (random results, the history built by the
  matching engine, which is quick) at 16, 64 and 256 players, with the engine chosen (caissify-pairings' FIDE Dutch
  system, pure Python on networkx) and its alternative (networkx's maximum-weight matching) side by side; and the
  Dutch engine at :data:`bot.service.pairing.DUTCH_PLAYERS`, the default ``max_players``, which must pair
  within 10 s. Target: 64 players within 1 s. Pairing runs in a worker process in the bot (never on the event
  loop); here it runs in this process, one round at a time.
- ``/tournament standings`` of 256 players after four rounds: the standings computed from the stored games and the
  first page drawn as the image. Target: 100 ms.
"""

from __future__ import annotations

import random
import time

from bench._timing import Row, timed_row, value_row
from bot.service import pairing, standings
from storage import TournamentEntryRecord, TournamentPairingRecord

SIZES = (16, 64, 256)
ROUNDS_PLAYED = 4


def simulate(players: int, rounds: int, seed: int = 1) -> tuple[list[TournamentEntryRecord],
                                                                 list[TournamentPairingRecord]]:
    """A Swiss of ``players`` after ``rounds`` rounds: random results (45% first seat wins, 45% second, 10% draws),
    paired by the matching engine; the entries and the stored boards."""
    rng = random.Random(seed)
    entries = [TournamentEntryRecord(1, 1000 + i, f"player {i}", i + 1, 1600 - 3 * i) for i in range(players)]
    games: list[TournamentPairingRecord] = []
    for number in range(1, rounds + 1):
        fed = standings.entrants(entries, games, number - 1, number)
        for board, pair in enumerate(pairing.pair_swiss(fed, number, rounds + 3, engine="matching").boards, 1):
            if pair.second is None:
                games.append(TournamentPairingRecord(1, number, board, pair.first, None, "bye", first_points=1.0,
                                                  played=False))
                continue
            draw = rng.random()
            first = 1.0 if draw < 0.45 else 0.0 if draw < 0.9 else 0.5
            games.append(TournamentPairingRecord(1, number, board, pair.first, pair.second, "game",
                                              match_id=number * 10_000 + board, first_points=first,
                                              second_points=1 - first, played=True))
    return entries, games


def _pairing_row(players: int, engine: pairing.Engine, repeat: int, limit_ms: float | None = None) -> Row:
    entries, games = simulate(players, ROUNDS_PLAYED)
    fed = standings.entrants(entries, games, ROUNDS_PLAYED, ROUNDS_PLAYED + 1)
    used: list[str] = []

    def pair() -> None:
        used.append(pairing.pair_swiss(fed, ROUNDS_PLAYED + 1, ROUNDS_PLAYED + 3, engine=engine).engine)

    name = {"dutch": "FIDE Dutch (caissify-pairings)", "matching": "max-weight matching (networkx)"}[engine]
    row = timed_row(f"tournament: pair Swiss round 5, {players} players, {name}", pair, limit_ms=limit_ms,
                    repeat=repeat)
    row.note = f"engine used: {used[-1]}" + (f"; {row.note}" if row.note else "")
    if used[-1] != engine:
        row.ok = False
    return row


def _standings_row() -> Row:
    import renderers.standings

    entries, games = simulate(256, ROUNDS_PLAYED, seed=2)

    def standings_page() -> None:
        lines = standings.standings("swiss", entries, games, ROUNDS_PLAYED)
        rows = [[str(line.rank), line.name, standings.points_text(line.points),
                 *(standings.tiebreak_text(value) for value in line.tiebreaks), str(line.games), str(line.rating)]
                for line in lines[:renderers.standings.PAGE_ROWS]]
        renderers.standings.render_standings("Spring cup · after round 4 of 7", renderers.standings.SWISS_COLUMNS,
                                             rows)

    return timed_row("tournament: /tournament standings, 256 players: computed and page 1 drawn", standings_page,
                     limit_ms=100.0, repeat=20)


def run() -> list[Row]:
    """The tournament rows (about two minutes, most of it the Dutch engine at 256 players)."""
    rows = []
    for players in SIZES:
        repeat = 10 if players <= 16 else 3
        rows.append(_pairing_row(players, "dutch", 1 if players > 128 else repeat,
                                 limit_ms=1000.0 if players == 64 else None))
        rows.append(_pairing_row(players, "matching", repeat))
    started = time.perf_counter()
    rows.append(_pairing_row(pairing.DUTCH_PLAYERS, "dutch", 1, limit_ms=10_000.0))
    rows[-1].name = f"tournament: pair Swiss round 5, {pairing.DUTCH_PLAYERS} players (default max_players), FIDE Dutch"
    rows.append(value_row("tournament: default max_players (the most the Dutch engine pairs within 10 s)",
                          pairing.DUTCH_PLAYERS, "players",
                          note=f"measured above in {time.perf_counter() - started:.1f} s"))
    rows.append(_standings_row())
    return rows
