"""The arena: its interval and sequential test against published values, games with seats alternating and starts
shared by pairs, the audit that finds a move giving exact value away, the yardsticks, and another version's player
run from a git revision."""

from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path

import pytest

from bench import arena, arena_stats
from bench.uct import UctPlayer, random_player
from games import GAMES, Outcome, Termination


@pytest.mark.parametrize(("wins", "games", "low", "high"), [
    # Newcombe (1998), Statistics in Medicine 17: 857-872, table I, method 3 (the score interval, no correction).
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
])
def test_wilson_interval_matches_newcombe(wins: int, games: int, low: float, high: float) -> None:
    found = arena_stats.wilson_interval(wins, games)
    assert found == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def test_sprt_llr_sign_midpoint_and_value() -> None:
    s0, s1 = arena_stats.elo_score(0), arena_stats.elo_score(20)
    assert s0 == 0.5
    assert s1 == pytest.approx(0.52876, abs=1e-5)
    assert arena_stats.sprt_llr(60, 20, 20, 0, 20) > 0 > arena_stats.sprt_llr(20, 20, 60, 0, 20)
    # the score halfway between the hypotheses is evidence for neither
    assert arena_stats.sprt_llr(1000, 0, 1000, -20, 20) == pytest.approx(0.0, abs=1e-9)
    # by hand: n = 100, s = 0.7, var = (0.6 + 0.05) - 0.49 = 0.16
    assert arena_stats.sprt_llr(60, 20, 20, 0, 20) == pytest.approx(100 * (s1 - s0) * (1.4 - s0 - s1) / 0.32)
    low, high = arena_stats.sprt_bounds(0.05, 0.05)
    assert high == pytest.approx(math.log(19)) and low == pytest.approx(-math.log(19))


def test_sprt_accepts_a_clearly_stronger_player_and_rejects_a_weaker_one() -> None:
    hard, easy = arena.level_player("chopsticks", "hard"), arena.level_player("chopsticks", "easy")
    better = arena.sprt("chopsticks", {}, hard, easy, elo0=0, elo1=20, max_games=200)
    worse = arena.sprt("chopsticks", {}, easy, hard, elo0=0, elo1=20, max_games=200)
    assert better.decision == "H1" and better.wins > better.losses
    assert worse.decision == "H0" and worse.losses > worse.wins
    assert better.wins + better.draws + better.losses < 200


def test_sprt_reports_where_it_stands_every_n_games() -> None:
    lines: list[str] = []
    medium, easy = arena.level_player("chopsticks", "medium"), arena.level_player("chopsticks", "easy")
    found = arena.sprt("chopsticks", {}, medium, easy, max_games=25, min_games=1000,
                       progress=arena.sprt_progress(10, "Chopsticks default", lines.append))
    assert found.decision is None and found.wins + found.draws + found.losses == 25
    assert [line.split(" games ")[0] for line in lines] == [f"Chopsticks default: after {n}" for n in (10, 20)]
    assert lines[-1].startswith("Chopsticks default: after 20 games ") and " LLR " in lines[-1]
    assert arena.sprt_progress(0, "Chopsticks default") is None


def test_play_games_alternates_seats_and_counts_from_the_stronger_side() -> None:
    result = arena.play_games("groebner_nim", {"sticks": 3}, arena.level_player("groebner_nim", "medium"),
                              random_player, 6, seed=3, names=("medium", "random"))
    assert [record.seats for record in result.records] == [("medium", "random"), ("random", "medium")] * 3
    assert result.wins + result.draws + result.losses == 6 == result.games
    # games 2k and 2k + 1 share their random start; the next pair has another
    starts = [record.start["sticks"] for record in result.records]
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[0] != starts[2]
    assert result.score == pytest.approx((result.wins + result.draws / 2) / 6)
    moves = sum(len(record.moves) for record in result.records)
    assert len(result.cpu.moves["medium"]) + len(result.cpu.moves["random"]) == moves
    for record in result.records:  # every record replays to its outcome
        state = GAMES["groebner_nim"].load(record.start)
        for text in record.moves:
            state = state.apply(state.parse_move(text))
        assert state.outcome == record.outcome
    again = arena.play_games("groebner_nim", {"sticks": 3}, arena.level_player("groebner_nim", "medium"),
                             random_player, 6, seed=3, names=("medium", "random"))
    assert [r.moves for r in again.records] == [r.moves for r in result.records]


def test_audit_flags_the_move_that_gave_value_away() -> None:
    # Polygons, default variant: after these moves D-A turns an exact margin of 0 into -2 where D-J keeps 0.
    moves = ["2,9", "12,1", "10,7", "2,8", "15,11", "4,5", "11,9", "10,15", "6,6", "12,7", "H-F", "F-C", "C-D", "D-A"]
    start = GAMES["polygons"].new_state({})
    state = start
    for text in moves:
        state = state.apply(state.parse_move(text))
    unfinished = Outcome(None, True, None, Termination.NATURAL)  # the audit reads the moves, not the outcome
    record = arena.GameRecord(0, ("x", "hard"), start.to_dict(), moves, unfinished)
    found = arena.audit_record("polygons", record, "hard")
    assert found.exact >= 1
    flagged = [flag for flag in found.flags if flag.move == "D-A"]
    assert len(flagged) == 1
    assert (flagged[0].before, flagged[0].after) == ("0", "−2")
    assert "D-J" in flagged[0].keeping
    assert "D-J" not in [flag.move for flag in found.flags]


def test_uct_spends_its_cpu_budget_and_plays_legal_moves() -> None:
    player = UctPlayer(20.0)
    state = GAMES["differences"].new_state({"n": 5})
    rng = random.Random(1)
    move = player(state, rng)
    assert move in state.legal_moves()
    assert player.iterations > 1
    assert UctPlayer(lambda: 7.0).budget() == 7.0


def test_a_pairing_names_its_sides() -> None:
    assert arena.split_pairing("hard-medium") == ("hard", "medium")
    assert arena.split_pairing("main~3:hard-uct:50") == ("main~3:hard", "uct:50")
    assert arena.split_pairing("fix-a:hard vs fix-b:hard") == ("fix-a:hard", "fix-b:hard")
    with pytest.raises(ValueError, match="unknown player"):
        arena.make_player("chopsticks", "grandmaster", arena.CpuLog(), "hard")


def test_version_player_plays_the_revision_in_a_process_of_its_own(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
    player = arena.VersionPlayer(head.stdout.strip(), "hard", repo)
    folder = Path(player.folder)
    try:
        assert (folder / "games" / "declaration.py").is_file()  # the revision's rules core, extracted
        state = GAMES["chopsticks"].new_state({})
        assert player(state, random.Random(5)) in state.legal_moves()
        assert player.last_cpu_ms >= 0.0
    finally:
        player.close()
    assert not folder.exists()


def test_make_bench_rows_give_the_score_with_its_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import bench_arena

    monkeypatch.setattr(bench_arena, "SUITE", (("chopsticks", "default", {}),))
    monkeypatch.setattr(bench_arena, "GAMES_PER_PAIRING", 4)
    rows = bench_arena.run()
    assert [row.name for row in rows] == ["arena: Chopsticks default, hard vs medium, score",
                                          "arena: Chopsticks default, medium vs easy, score"]
    for row in rows:
        assert row.low <= row.median <= row.high and row.unit == "%"
        assert "over 4 games" in row.note and "Wilson" in row.note
