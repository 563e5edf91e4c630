"""Pairing through our interface: the FIDE Berger tables of a round robin, the FIDE Dutch Swiss fed what its rules
need (no repeat, one bye each, seats alternating and balanced), the maximum-weight matching standing in when the
Dutch engine fails, and a pairing that breaks a rule refused."""

from __future__ import annotations

import random
import warnings

import pytest

from bot.service import pairing, standings
from bot.service.pairing import Board, Entrant, PairingError
from storage import TournamentEntryRecord, TournamentPairingRecord


def test_round_robin_follows_the_fide_berger_table_for_six() -> None:
    # FIDE Handbook C.05 Annex 1, six players: round 1 1-6 2-5 3-4; round 2 6-4 5-3 1-2; round 3 2-6 3-1 4-5;
    # round 4 6-5 1-4 2-3; round 5 3-6 4-2 5-1 (the first named has White: our first seat)
    keys = [101, 102, 103, 104, 105, 106]
    table = {1: [(1, 6), (2, 5), (3, 4)], 2: [(6, 4), (5, 3), (1, 2)], 3: [(2, 6), (3, 1), (4, 5)],
             4: [(6, 5), (1, 4), (2, 3)], 5: [(3, 6), (4, 2), (5, 1)]}
    met = set()
    for number, expected in table.items():
        boards = pairing.pair_round_robin(keys, number).boards
        assert sorted((b.first - 100, b.second - 100) for b in boards) == sorted(expected)
        met |= {frozenset((b.first, b.second)) for b in boards}
    assert len(met) == 15  # everyone meets everyone once
    with pytest.raises(PairingError, match="rounds 1 to 5"):
        pairing.pair_round_robin(keys, 6)


def test_round_robin_of_an_odd_number_rests_each_player_once() -> None:
    keys = [1, 2, 3, 4, 5]
    rests = [b.first for number in range(1, pairing.round_robin_rounds(5) + 1)
             for b in pairing.pair_round_robin(keys, number).boards if b.is_bye]
    assert sorted(rests) == keys


def _simulate(players: int, rounds: int, engine: pairing.Engine, seed: int
              ) -> tuple[list[TournamentEntryRecord], list[TournamentPairingRecord]]:
    """A Swiss played to the end with random results (each game played: both sides moved)."""
    rng = random.Random(seed)
    entries = [TournamentEntryRecord(1, 10 + i, f"p{i}", i + 1, 1500 - 7 * i) for i in range(players)]
    games: list[TournamentPairingRecord] = []
    for number in range(1, rounds + 1):
        fed = standings.entrants(entries, games, number - 1, number)
        result = pairing.pair_swiss(fed, number, rounds, engine=engine)
        assert result.engine == engine
        for board_number, board in enumerate(result.boards, start=1):
            if board.second is None:
                games.append(TournamentPairingRecord(1, number, board_number, board.first, None, "bye",
                                                  first_points=1.0, played=False))
            else:
                points = rng.choice((1.0, 0.0, 0.5))
                games.append(TournamentPairingRecord(1, number, board_number, board.first, board.second, "game",
                                                  match_id=number * 1000 + board_number, first_points=points,
                                                  second_points=1 - points, played=True))
    return entries, games


@pytest.mark.parametrize(("players", "rounds", "engine"), [(9, 4, "dutch"), (16, 5, "dutch"), (11, 5, "matching"),
                                                           (24, 6, "matching")])
def test_swiss_keeps_the_absolute_rules(players: int, rounds: int, engine: pairing.Engine) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the Dutch engine's warning of missing floats would fail the test
        entries, games = _simulate(players, rounds, engine, seed=players)
    pairs = [frozenset((g.first_id, g.second_id)) for g in games if g.second_id is not None]
    assert len(pairs) == len(set(pairs)), "a repeat pairing"
    byes = [g.first_id for g in games if g.kind == "bye"]
    assert len(byes) == rounds * (players % 2) and len(byes) == len(set(byes)), "a second bye"
    for entry in entries:
        seats = [0 if g.first_id == entry.user_id else 1 for g in games
                 if g.second_id is not None and entry.user_id in (g.first_id, g.second_id)]
        assert abs(seats.count(0) - seats.count(1)) <= 2, (entry.user_id, seats)
        if engine == "dutch":
            assert all(seats[i:i + 3] not in ([0, 0, 0], [1, 1, 1]) for i in range(len(seats) - 3)), seats


def test_round_one_is_top_half_against_bottom_half() -> None:
    fed = [Entrant(key, key) for key in range(1, 9)]
    boards = pairing.pair_swiss(fed, 1, 5).boards
    assert sorted(tuple(sorted((b.first, b.second or 0))) for b in boards) == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_the_dutch_engine_refused_without_float_history_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # round 2 fed with no float history at all: caissify warns (its rules need floats), which the wrapper turns into
    # an error, so the round is paired by the matching instead, within the rules, and says so
    fed = [Entrant(1, 1, points=1, seats=(0,), opponents=frozenset({2})),
           Entrant(2, 2, points=0, seats=(1,), opponents=frozenset({1})),
           Entrant(3, 3, points=1, seats=(0,), opponents=frozenset({4})),
           Entrant(4, 4, points=0, seats=(1,), opponents=frozenset({3}))]
    result = pairing.pair_swiss(fed, 2, 3)
    assert result.engine.startswith("matching (the Dutch engine:")
    assert {frozenset((b.first, b.second)) for b in result.boards} == {frozenset({1, 3}), frozenset({2, 4})}
    fed_properly = [Entrant(e.key, e.number, points=e.points, seats=e.seats, floats=("none",),
                            opponents=e.opponents) for e in fed]
    assert pairing.pair_swiss(fed_properly, 2, 3).engine == "dutch"


def test_a_broken_pairing_is_refused_and_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    fed = [Entrant(1, 1, opponents=frozenset({2}), floats=("none",), seats=(0,)),
           Entrant(2, 2, opponents=frozenset({1}), floats=("none",), seats=(1,)),
           Entrant(3, 3, floats=("none",), seats=(None,), byes=1), Entrant(4, 4, floats=("none",), seats=(None,))]
    with pytest.raises(PairingError, match="have met already"):
        pairing.check_swiss([Board(1, 2), Board(3, 4)], fed)
    with pytest.raises(PairingError, match="exactly once"):
        pairing.check_swiss([Board(1, 3), Board(1, 4)], fed)
    with pytest.raises(PairingError, match="had one"):  # player 2 or 3 could have taken the bye
        pairing.check_swiss([Board(1, None), Board(2, 3)], [Entrant(1, 1, byes=1), Entrant(2, 2), Entrant(3, 3)])
    monkeypatch.setattr(pairing, "dutch_pairing", lambda *args: (Board(1, 2), Board(3, 4)))  # a repeat
    result = pairing.pair_swiss(fed, 2, 3)
    assert result.engine.startswith("matching") and "have met already" in result.engine
    assert {frozenset((b.first, b.second)) for b in result.boards} == {frozenset({1, 3}), frozenset({2, 4})}


def test_no_pairing_left_is_said() -> None:
    fed = [Entrant(1, 1, opponents=frozenset({2}), floats=("none",)), Entrant(2, 2, opponents=frozenset({1}),
                                                                              floats=("none",))]
    with pytest.raises(PairingError):
        pairing.pair_swiss(fed, 2, 2)
