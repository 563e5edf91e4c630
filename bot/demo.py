"""The offline demo: computer-versus-computer matches through the real service, storage and renderers.

No Discord token is needed. Every game's demo matches (its declaration's :attr:`games.Game.demo`) are played into
a SQLite file in the output folder, each board is written as a PNG to ``<out>/<game>/`` and the move list and
outcome are printed. The stored move log is replayed at the end to show that it reproduces the stored state.

The demo writes only what it creates: it refuses a folder that holds anything it did not write, and a folder it
made before (it keeps a list of its files in :data:`MANIFEST`) is cleared of exactly those files first.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import renderers
from bot.service import Services, load_state, replay
from games import GAMES, DemoMatch, Outcome
from storage import Database

MANIFEST = ".napkin-demo.json"
"""The list of files a demo run wrote, kept in its output folder."""


class DemoFolderError(RuntimeError):
    """The output folder holds files the demo did not write."""


def prepare_folder(out: Path) -> None:
    """Make ``out`` ready for a demo run: create it, or remove the files an earlier demo run listed in it.

    Raises:
        DemoFolderError: ``out`` is a file, or holds anything an earlier demo run did not write.
    """
    if out.exists() and not out.is_dir():
        raise DemoFolderError(f"{out} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    manifest = out / MANIFEST
    ours = set(json.loads(manifest.read_text())) if manifest.is_file() else set()
    present = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()} - {MANIFEST}
    foreign = sorted(present - ours)
    if foreign:
        raise DemoFolderError(f"{out} holds files the demo did not write (e.g. {foreign[0]}); choose an empty or "
                              "new folder with --out")
    for name in sorted(ours & present):
        (out / name).unlink()
    for folder in sorted((p for p in out.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()
    manifest.unlink(missing_ok=True)


class _Writer:
    """Writes files under the output folder and records each in the manifest."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.written: list[str] = []

    def path(self, relative: str) -> Path:
        target = self.out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        self.written.append(relative)
        (self.out / MANIFEST).write_text(json.dumps(self.written, indent=1))
        return target

    def write(self, relative: str, data: bytes) -> None:
        self.path(relative).write_bytes(data)


async def run_demo(out: str | Path = "demo-out", games: Sequence[str] | None = None, seed: int = 1) -> int:
    """Play the demo matches of ``games`` (default: all) and write their boards under ``out``; return 0.

    Raises:
        KeyError: an unknown game key. DemoFolderError: ``out`` holds files the demo did not write.
    """
    keys = list(games or GAMES)
    for key in keys:
        GAMES[key]
    out_path = Path(out)
    prepare_folder(out_path)
    writer = _Writer(out_path)
    db = await Database.open(writer.path("demo.db"))
    services = Services(db, computer_id=0, computer_name="Computer")
    try:
        for key in keys:
            for index, demo in enumerate(GAMES[key].demo, start=1):
                await _play_one(services, writer, key, demo, seed + index, index)
    finally:
        await db.close()
    for suffix in ("-wal", "-shm"):
        if (out_path / f"demo.db{suffix}").exists():
            writer.path(f"demo.db{suffix}")
    print(f"\nBoards written to {out_path.resolve()}")
    return 0


async def _play_one(services: Services, writer: _Writer, key: str, demo: DemoMatch, seed: int,
                    index: int) -> None:
    game = GAMES[key]
    match = await services.challenges.start_computer_duel(guild_id=0, channel_id=0, game=key,
                                                          variant=dict(demo.variant), levels=demo.levels, seed=seed)
    names = [seat.display_name for seat in match.seats]
    prefix = f"{key}/match{index}"
    first = load_state(match)
    writer.write(f"{prefix}-ply000.png", await asyncio.to_thread(renderers.render, first, names))
    for result in await services.moves.computer_replies(match.id):
        png = await asyncio.to_thread(renderers.render, result.after, names)
        writer.write(f"{prefix}-ply{result.after.ply:03d}.png", png)
    final = await services.reading.get_match(match.id)
    final_state = load_state(final)
    outcome = Outcome.from_dict(final.outcome) if final.outcome else None
    writer.write(f"{prefix}-final.png",
                 await asyncio.to_thread(functools.partial(renderers.render, final_state, names, outcome=outcome)))
    moves = await services.reading.moves(match.id)
    replayed = replay(final, moves)[-1]
    consistent = replayed.to_dict() == final_state.to_dict()
    print(f"\n== {game.title}: {demo.label} — {' vs '.join(names)}")
    print("   moves: " + " ".join(f"{m.ply}.{m.notation}" for m in moves))
    print(f"   outcome: {_verdict(final.outcome, names, key)}")
    print(f"   {len(moves)} moves stored; log replays to the stored state: {'yes' if consistent else 'NO'}")


def _verdict(outcome: dict[str, Any] | None, names: list[str], key: str) -> str:
    if outcome is None:
        return "none"
    parsed = Outcome.from_dict(outcome)
    scores = f", scores {'–'.join(map(str, parsed.scores))}" if parsed.scores is not None else ""
    return parsed.result(names, GAMES[key].describe_end(parsed)) + scores
