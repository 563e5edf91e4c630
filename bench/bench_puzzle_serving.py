"""What ``/puzzle next`` and an answer cost, wall-clock, on SQLite with the shipped set stored: the next puzzle near the
member's rating (the nearest among those never attempted, read along the rating index, proven again the first time
this process serves it), its board drawn with alt text, and an answer judged with the rating updated in the same
transaction. Members come one after another, each with a history of attempts, so that "never attempted" has rows to
skip. Target (issue 48): ``/puzzle`` answers within 300 ms p50 (the next puzzle and its board)."""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

import renderers
from bench._timing import Row, percentile
from bot.service.puzzles import PuzzleService
from games import GAMES
from games.puzzles import shipped
from storage import Database

LIMIT_MS = 300.0
MEMBERS = 40
"""Members served in turn."""
ROUNDS = 6
"""Puzzles each member is served (and answers)."""


def _row(name: str, times: list[float], target: str = "", ok: bool | None = None, note: str = "") -> Row:
    return Row(name, statistics.median(times), min(times), max(times), "ms", target, ok,
               note or f"n={len(times)}; p90 {percentile(times, 0.9):.1f} ms")


async def _measure(path: Path) -> list[Row]:
    db = await Database.open(path)
    try:
        puzzles = shipped()
        service = PuzzleService(db, rng=random.Random(48), source=lambda: puzzles)
        started = time.perf_counter()
        await service.ensure_loaded()
        load_ms = (time.perf_counter() - started) * 1000.0
        rng = random.Random(1)
        serve, board, judge, whole = [], [], [], []
        for _ in range(ROUNDS):
            for member in range(1, MEMBERS + 1):
                started = time.perf_counter()
                served = await service.next(member, f"member {member}")
                picked = time.perf_counter()
                names = ["you", "opponent"][: GAMES[served.puzzle.game].seats_for(served.puzzle.variant)]
                renderers.render(served.state, names)
                renderers.alt_text(served.state, names)
                drawn = time.perf_counter()
                move = rng.choice([notation for notation, _ in served.puzzle.proof[0].values])
                judged = await service.answer(served.attempt.id, member, move)
                answered = time.perf_counter()
                if not judged.attempt.finished:  # wrong, or the line goes on: the member looks at the answer
                    await service.show(served.attempt.id, member)
                serve.append((picked - started) * 1000.0)
                board.append((drawn - picked) * 1000.0)
                judge.append((answered - drawn) * 1000.0)
                whole.append((drawn - started) * 1000.0)
        p50 = statistics.median(whole)
        return [
            Row("puzzle serving: store the shipped set (first start)", load_ms, load_ms, load_ms, "ms",
                note=f"{len(puzzles)} puzzles"),
            _row("puzzle serving: next puzzle near the rating, proven again (wall)", serve),
            _row("puzzle serving: draw its board and alt text (wall)", board),
            _row("puzzle serving: judge an answer, rating in the same transaction (wall)", judge),
            _row("puzzle serving: /puzzle next = next puzzle + board (wall)", whole, f"<= {LIMIT_MS:g} ms p50",
                 p50 <= LIMIT_MS, f"n={len(whole)} ({MEMBERS} members x {ROUNDS}); p90 {percentile(whole, 0.9):.0f} "
                                  f"ms, p99 {percentile(whole, 0.99):.0f} ms"),
        ]
    finally:
        await db.close()


def run() -> list[Row]:
    """Return the benchmark rows (about a minute)."""
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_measure(Path(folder) / "puzzles.db"))


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
