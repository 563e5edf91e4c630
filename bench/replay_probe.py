"""Child process of the replay benchmarks: the memory a GIF replay takes, measured in a fresh interpreter with the
kernel's own peak counter (Linux: ``VmHWM`` in ``/proc/self/status``, reset through ``/proc/self/clear_refs``), so
no sampling can miss a peak. Prints one JSON object (last line of output).

Usage:
    ``python -m bench.replay_probe gif streamed|held`` — one 201-frame GIF of a 200-ply Chopsticks match (720 x
    560 px boards) built by :func:`renderers.render_replay` (streamed) or by :func:`bench.replays.held_replay` (the
    former way, every frame held): idle and peak RSS in MB, seconds, bytes.

    ``python -m bench.replay_probe bot`` — the real bot under SimCord with six finished 200-ply Chopsticks matches;
    six members ask ``/match history`` of one each, all at once: idle and peak RSS in MB, seconds until all six
    replays are posted, how many were posted, refused and built at once at most, and their frame counts.
"""

from __future__ import annotations

import asyncio
import gc
import io
import json
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")
MEMBERS = 6


def _status_mb(field: str) -> float:
    found = re.search(rf"^{field}:\s+(\d+) kB", STATUS.read_text(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no {field} in {STATUS}")
    return int(found.group(1)) / 1024


def idle_mb() -> float:
    """Collect garbage, reset the peak counter to the current resident set and return it (MB)."""
    gc.collect()
    CLEAR_REFS.write_text("5")  # "5": reset the peak resident set size (Linux 4.0+)
    return _status_mb("VmRSS")


def peak_mb() -> float:
    """The peak resident set since :func:`idle_mb` (MB)."""
    return _status_mb("VmHWM")


def gif(way: str) -> dict[str, Any]:
    """Build one 201-frame replay ``way`` ("streamed" or "held") after a warm-up; return the figures."""
    import renderers
    from bench.replays import held_replay, long_chopsticks

    build = renderers.render_replay if way == "streamed" else held_replay
    states = long_chopsticks()
    names = ["Alexandria Featherstonehaugh", "Computer 2 (medium)"]
    build(states[:3], names)  # fonts, palettes and Pillow's plugins loaded
    idle = idle_mb()
    began = time.perf_counter()
    data = build(states, names)
    seconds = time.perf_counter() - began
    return {"idle_mb": idle, "peak_mb": peak_mb(), "seconds": seconds, "bytes": len(data), "states": len(states)}


async def _bot() -> dict[str, Any]:
    import simcord
    from PIL import Image

    import renderers
    from bench._harness import World, burst
    from bench.bench_scale import long_line
    from bot.client import NapkinBot
    from bot.utils import queues
    from storage import Database, ReadTx

    lines = [long_line(seed) for seed in range(2)]
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "replays.db")
        try:
            bot = NapkinBot(db)
            async with simcord.run(bot) as env:
                with env.time_context():
                    members = [f"m{i}" for i in range(MEMBERS)]
                    world = World(env, "alice", "bob", *members)
                    ids = []
                    for number in range(MEMBERS + 1):
                        start = await world["alice"].slash(world.channel, "chopsticks start", opponent=world["bob"])
                        await world["bob"].click(start.response, label="Accept")
                        match_id = max(await db.read(ReadTx.all_match_ids))
                        seats = (world["alice"].id, world["bob"].id)
                        line = lines[number % 2] if number < MEMBERS else lines[0][:2]
                        for ply, notation in enumerate(line):
                            await bot.services.moves.play(match_id, world.guild.id, seats[ply % 2], notation)
                        ids.append(match_id)
                    await world["alice"].slash(world.channel, "match history", match=str(ids[-1]))  # warm-up
                    building = peak_building = 0
                    guard = threading.Lock()
                    real = renderers.render_replay

                    def counted(*args: Any, **kwargs: Any) -> bytes:
                        nonlocal building, peak_building
                        with guard:
                            building += 1
                            peak_building = max(peak_building, building)
                        try:
                            return real(*args, **kwargs)
                        finally:
                            with guard:
                                building -= 1

                    renderers.render_replay = counted
                    idle = idle_mb()
                    began = time.perf_counter()
                    results = []
                    async with burst(env):
                        for name, match_id in zip(members, ids, strict=False):
                            results.append(await world[name].slash(world.channel, "match history",
                                                                   match=str(match_id)))
                    seconds = time.perf_counter() - began
                    peak = peak_mb()
                    renderers.render_replay = real
                    frames = []
                    for result, match_id in zip(results, ids, strict=False):
                        if result.ephemeral:
                            continue
                        files = {a.filename: await a.read() for a in result.response.attachments}
                        frames.append(getattr(Image.open(io.BytesIO(files[f"match-{match_id}.gif"])), "n_frames", 1))
                    return {"idle_mb": idle, "peak_mb": peak, "seconds": seconds, "posted": len(frames),
                            "refused": sum(r.ephemeral for r in results), "most_building": peak_building,
                            "frames": frames, "plies": [len(lines[n % 2]) for n in range(MEMBERS)],
                            "line": queues.REPLAY_LINE}
        finally:
            await db.close()


def main() -> None:
    """Run the probe named on the command line and print its figures as JSON."""
    mode = sys.argv[1]
    figures = gif(sys.argv[2]) if mode == "gif" else asyncio.run(_bot())
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
