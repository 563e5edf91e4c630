"""Tournament standings against crosstables computed by hand: points, Buchholz cut-1 and Sonneborn-Berger with FIDE's
virtual opponent for unplayed rounds (byes, forfeits), round-robin order by Sonneborn-Berger then wins, shared
ranks, and what the pairing engine is fed (seats of played games only, floats, byes, forfeit wins, opponents)."""

from __future__ import annotations

from fractions import Fraction

from bot.service import standings
from storage import TournamentEntryRecord, TournamentPairingRecord

F = Fraction
A, B, C, D, E = 1, 2, 3, 4, 5
ENTRIES = [TournamentEntryRecord(9, key, name, key, 1500 - key) for key, name in
           ((A, "A"), (B, "B"), (C, "C"), (D, "D"), (E, "E"))]


def game(round_: int, board: int, first: int, second: int, first_points: float, played: bool = True,
         kind: str = "game") -> TournamentPairingRecord:
    return TournamentPairingRecord(9, round_, board, first, second, kind,
                                   match_id=100 * round_ + board if kind == "game" else None,
                                   first_points=first_points, second_points=1 - first_points, played=played)


def bye(round_: int, board: int, player: int, points: float = 1.0, kind: str = "bye") -> TournamentPairingRecord:
    return TournamentPairingRecord(9, round_, board, player, None, kind, first_points=points, played=False)


# Five players, three rounds, one bye each round:
#   R1: A–D 1–0, B–E ½–½, C bye.   R2: A–C 0–1, D–B 0–1, E bye.   R3: C–B ½–½, A–E 1–0 (E never moved: unplayed), D bye.
SWISS = [game(1, 1, A, D, 1), game(1, 2, B, E, 0.5), bye(1, 3, C),
         game(2, 1, A, C, 0), game(2, 2, D, B, 0), bye(2, 3, E),
         game(3, 1, C, B, 0.5), game(3, 2, A, E, 1, played=False), bye(3, 3, D)]


def test_swiss_standings_equal_the_hand_computed_crosstable() -> None:
    # Scores: A 2, B 2, C 2½, D 1, E 1½. Opponents' scores count each of their unplayed rounds as ½ (FIDE C.02
    # 13.15.1): A 1½, B 2, C 2, D ½, E 1½. A player's own unplayed round R is a virtual opponent worth
    # SPR + (1 − SfPR) + ½ (3 − R) (13.15.2):
    #   A: D ½ (won), C 2 (lost), virtual R3: 1 + 0 + 0 = 1 (won)  -> BH 3½, cut-1 3,  SB ½ + 0 + 1 = 1½
    #   B: E 1½ (½), D ½ (1), C 2 (½)                              -> BH 4,  cut-1 3½, SB ¾ + ½ + 1 = 2¼
    #   C: virtual R1: 0 + 0 + 1 = 1 (won), A 1½ (won), B 2 (½)     -> BH 4½, cut-1 3½, SB 1 + 1½ + 1 = 3½
    #   D: A 1½ (0), B 2 (0), virtual R3: 0 + 0 + 0 = 0 (won)       -> BH 3½, cut-1 3½, SB 0
    #   E: B 2 (½), virtual R2: ½ + 0 + ½ = 1 (won), virtual R3: 1½ + 1 + 0 = 2½ (lost)
    #                                                               -> BH 5½, cut-1 4½, SB 1 + 1 + 0 = 2
    lines = standings.standings("swiss", ENTRIES, SWISS, 3)
    got = [(line.rank, line.name, line.points, line.tiebreaks, line.games, line.wins) for line in lines]
    assert got == [
        (1, "C", F(5, 2), (F(7, 2), F(7, 2)), 2, 1),
        (2, "B", F(2), (F(7, 2), F(9, 4)), 3, 1),
        (3, "A", F(2), (F(3), F(3, 2)), 2, 2),
        (4, "E", F(3, 2), (F(9, 2), F(2)), 1, 0),
        (5, "D", F(1), (F(7, 2), F(0)), 2, 0),
    ]
    assert [standings.points_text(line.points) for line in lines] == ["2½", "2", "2", "1½", "1"]
    assert [standings.tiebreak_text(line.tiebreaks[1]) for line in lines] == ["3½", "2¼", "1½", "2", "0"]


def test_standings_after_fewer_rounds_count_only_those() -> None:
    lines = standings.standings("swiss", ENTRIES, SWISS, 1)
    # after R1: A 1, C 1 (bye), B ½, E ½, D 0. With one opponent each, Buchholz cut-1 is 0 for all; A's SB is D's 0
    # × 1 = 0 and C's virtual opponent is worth 0 + 0 + ½ (1 − 1) = 0: A is ahead on wins (a bye is no win). B and E
    # (each ½ × ½ = ¼) are equal on everything: a shared rank.
    assert [(line.rank, line.name, line.points) for line in lines] == [
        (1, "A", F(1)), (2, "C", F(1)), (3, "B", F(1, 2)), (3, "E", F(1, 2)), (5, "D", F(0))]
    assert [line.tiebreaks for line in lines][2:4] == [(F(0), F(1, 4))] * 2


def test_what_the_pairing_engine_is_fed() -> None:
    fed = {entrant.key: entrant for entrant in standings.entrants(ENTRIES, SWISS, 3, 4)}
    a, e, c, d = fed[A], fed[E], fed[C], fed[D]
    assert (a.points, a.seats, a.byes, a.forfeit_wins, a.opponents) == (2.0, (0, 0, None), 0, 1, frozenset({D, C, E}))
    # floats: A met D on equal points (none), C on equal points (none); a forfeit is no float
    assert a.floats == ("none", "none", "none")
    # the pairing-allocated bye is a downfloat; C met A with more points before R2 (1 vs 1: none) and B in R3
    # (2 vs 1½: down)
    assert c.floats == ("down", "none", "down") and c.byes == 1
    assert (e.seats, e.floats, e.byes) == ((1, None, None), ("none", "down", "none"), 1)
    assert d.seats == (1, 0, None) and d.floats == ("none", "up", "down")
    assert not a.bye_eligible and not c.bye_eligible and fed[B].bye_eligible  # A won by forfeit: no bye either
    late = TournamentEntryRecord(9, 6, "F", 6, 900, joined_round=5)
    withdrawn = TournamentEntryRecord(9, 7, "G", 7, 900, withdrawn_round=4, withdrawn_reason="withdrew")
    keys = {entrant.key for entrant in standings.entrants([*ENTRIES, late, withdrawn], SWISS, 3, 4)}
    assert keys == {A, B, C, D, E}  # not yet joined, and withdrawn from round 4: not paired


def test_round_robin_ranks_by_berger_then_wins_and_leaves_byes_out() -> None:
    entries = ENTRIES[:3]
    # three players: R1 A–B 1–0, C sits out (a bye); R2 C–A ½–½, B sits out; R3 B–C 1–0, A sits out
    games = [game(1, 1, A, B, 1), bye(1, 2, C, 0.0, "bye"), game(2, 1, C, A, 0.5), bye(2, 2, B, 0.0, "bye"),
             game(3, 1, B, C, 1), bye(3, 2, A, 0.0, "bye")]
    lines = standings.standings("round_robin", entries, games, 3)
    # A 1½ (SB: B 1 × 1 + C ½ × ½ = 1¼), B 1 (SB: C ½ × 1 = ½), C ½ (SB: A 1½ × ½ = ¾); byes count for nothing
    assert [(line.name, line.points, line.tiebreaks) for line in lines] == [
        ("A", F(3, 2), (F(5, 4), F(1))), ("B", F(1), (F(1, 2), F(1))), ("C", F(1, 2), (F(3, 4), F(0)))]
    assert [line.games for line in lines] == [2, 2, 2]


def test_equal_round_robin_scores_are_split_by_berger_then_wins() -> None:
    entries = ENTRIES[:4]
    # A beats B, B beats C, C beats A, and everyone draws with D
    games = [game(1, 1, A, B, 1), game(1, 2, C, D, 0.5), game(2, 1, B, C, 1), game(2, 2, D, A, 0.5),
             game(3, 1, C, A, 1), game(3, 2, B, D, 0.5)]
    lines = standings.standings("round_robin", entries, games, 3)
    # every score is 1½ but D's (1½ too): A, B, C 1½ each with one win; D 1½ with none.
    # SB: A = B 1½ × 1 + D 1½ × ½ = 2¼; B = C 1½ + D ¾ = 2¼; C = A 1½ + D ¾ = 2¼; D = ½ × (1½ × 3) = 2¼
    assert {line.points for line in lines} == {F(3, 2)}
    assert [line.name for line in lines][-1] == "D"  # equal Berger: fewer wins last
    assert [line.rank for line in lines] == [1, 1, 1, 4]
