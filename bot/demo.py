"""The offline demo: computer-versus-computer matches through the real service, storage and renderers.

No Discord token is needed. Every match is played into a fresh SQLite file, each board is written as a PNG to
``<out>/<game>/`` and the move list and outcome are printed. The stored move log is replayed at the end to
show that it reproduces the stored state.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path

import renderers
from bot.service import MatchService, load_state, replay
from games import GAMES, DemoMatch, Outcome
from storage import Database


async def run_demo(out: str | Path = "demo-out", games: Sequence[str] | None = None, seed: int = 1) -> int:
    """Play the demo matches of ``games`` (default: all) and write their boards under ``out``; return 0.

    Raises:
        KeyError: an unknown game key.
    """
    out_path = Path(out)
    if out_path.exists():
        shutil.rmtree(out_path)
    out_path.mkdir(parents=True)
    db = await Database.open(out_path / "demo.db")
    service = MatchService(db, computer_id=0, computer_name="Computer")
    try:
        for key in games or tuple(GAMES):
            for index, demo in enumerate(GAMES[key].demo, start=1):
                await _play_one(service, out_path / key, key, demo, seed + index, index)
    finally:
        await db.close()
    print(f"\nBoards written to {out_path.resolve()}")
    return 0


async def _play_one(service: MatchService, folder: Path, key: str, demo: DemoMatch, seed: int, index: int) -> None:
    game = GAMES[key]
    label = demo.label
    match = await service.start_computer_duel(guild_id=0, channel_id=0, game=key, variant=dict(demo.variant),
                                              levels=demo.levels, seed=seed)
    names = [seat.display_name for seat in match.seats]
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f"match{index}"
    first = load_state(match)
    (folder / f"{prefix}-ply000.png").write_bytes(await asyncio.to_thread(renderers.render, first, names))
    results = await service.computer_replies(match.id)
    for result in results:
        png = await asyncio.to_thread(renderers.render, result.after, names)
        (folder / f"{prefix}-ply{result.after.ply:03d}.png").write_bytes(png)
    final = await service.get_match(match.id)
    final_state = load_state(final)
    (folder / f"{prefix}-final.png").write_bytes(await asyncio.to_thread(renderers.render, final_state, names))
    moves = await service.moves(match.id)
    replayed = replay(final, moves)[-1]
    consistent = replayed.to_dict() == final_state.to_dict()
    print(f"\n== {game.title}: {label} — {' vs '.join(names)}")
    print("   moves: " + " ".join(f"{m.ply}.{m.notation}" for m in moves))
    outcome = Outcome.from_dict(final.outcome) if final.outcome else None
    if outcome is None:
        verdict, why, scores = "unfinished", "", None
    else:
        why, scores = game.describe_end(outcome), outcome.scores
        verdict = "draw" if outcome.draw else (f"{names[outcome.winner]} wins" if outcome.winner is not None
                                                else "finished")
    print(f"   outcome: {verdict} ({why}), scores {list(scores) if scores is not None else None}")
    print(f"   {len(moves)} plies stored; log replays to the stored state: {'yes' if consistent else 'NO'}")
