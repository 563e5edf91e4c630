"""``napkin puzzles generate`` (games/puzzles/generate.py): the same file for the same seed, progress on standard
error, a bound on the time one position may take, and no file overwritten that is not a puzzles file."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bot.cli import main
from games.puzzles import RULES, read_lines, verify
from games.puzzles.generate import GenerationError, generate_game, self_play


def test_the_same_seed_writes_the_same_file_and_another_seed_another(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    first, second, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    for path, seed in ((first, "7"), (second, "7"), (other, "8")):
        assert main(["puzzles", "generate", "--seed", seed, "--out", str(path), "--game", "chopsticks",
                     "--game", "differences", "--count", "3"]) == 0
    assert first.read_bytes() == second.read_bytes() != other.read_bytes()
    puzzles = read_lines(first.read_text().splitlines())
    assert [p.game for p in puzzles] == ["chopsticks"] * 3 + ["differences"] * 3
    assert all(verify(puzzle) is None and puzzle.source.seed == "7" for puzzle in puzzles)
    err = capsys.readouterr().err
    assert "napkin puzzles: chopsticks: 3/3 puzzles from" in err
    assert "napkin puzzles: wrote 6 puzzles (chopsticks 3, differences 3) to" in err


def test_a_file_that_is_not_a_puzzles_file_is_left_as_it_is(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert main(["puzzles", "generate", "--seed", "1", "--out", str(notes), "--count", "1"]) == 1
    assert notes.read_text() == "my notes\n"
    assert "exists and is not a puzzles file" in capsys.readouterr().err
    assert main(["puzzles", "generate", "--seed", "1", "--out", str(tmp_path), "--count", "1"]) == 1
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.parametrize(("arguments", "words"), [
    (["--game", "napkin_chess"], "napkin_chess has no puzzles"),
    (["--game", "tic_tac_toe"], "unknown game 'tic_tac_toe'"),
    (["--count", "0"], "--count must be at least 1"),
])
def test_bad_arguments_are_one_line_and_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      arguments: list[str], words: str) -> None:
    out = tmp_path / "p.jsonl"
    assert main(["puzzles", "generate", "--seed", "1", "--out", str(out), *arguments]) == 1
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_position_that_takes_longer_than_the_bound_stops_the_run() -> None:
    with pytest.raises(GenerationError, match=r"polygons: examining match 0 move \d+ took more than 1e-06 s"):
        generate_game("polygons", "1", 1, seconds=1e-6)


def test_self_play_replays_a_match_the_same_way_each_time() -> None:
    for key in RULES:
        once = [(state.to_dict(), levels) for state, levels in itertools.islice(self_play(key, "3", 2), 40)]
        again = [(state.to_dict(), levels) for state, levels in itertools.islice(self_play(key, "3", 2), 40)]
        assert once == again and once
        assert all(level in RULES[key].plan.levels for level in once[0][1])
