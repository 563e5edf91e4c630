"""Boards and replays: the render time and PNG size of every game's largest board (target <= 10 ms, <= 30 KB), and
the memory GIF replays take.

- Render rows: :func:`bench.largest_boards.board_rows` — median, min and max of 60 renders per board, interleaved
  across the games, each next to its anchor (the PNG encoding alone of the same board, timed in the same rounds)
  and the load average of the shared machine.
- A 201-frame replay (a 200-ply Chopsticks match, 720 x 560 px boards): the memory it adds while it is built and the
  time it takes, streamed frame by frame as the bot builds it now, next to the former way (every frame held), each
  in a fresh interpreter that reads the kernel's peak counter (:mod:`bench.replay_probe`).
- Six members asking ``/match history`` of six 200-ply matches at once, through the real bot under SimCord: the
  peak resident memory above idle (target <= 150 MB), how many replays were posted and how many built at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from bench._timing import Row, value_row
from bench.largest_boards import board_rows

REPLAY_MEMORY_LIMIT_MB = 150.0
"""Most MiB (kB of /proc/self/status over 1,024) of peak resident memory above idle while six 200-ply replays are
asked for at once."""


def _probe(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "bench.replay_probe", *args], check=True, capture_output=True,
                          text=True, timeout=900)
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _replay_rows() -> list[Row]:
    streamed, held = _probe("gif", "streamed"), _probe("gif", "held")
    rows = []
    for way, figures, limit in (("streamed (now)", streamed, REPLAY_MEMORY_LIMIT_MB),
                                ("every frame held (before, the anchor)", held, None)):
        added = figures["peak_mb"] - figures["idle_mb"]
        rows.append(value_row(f"GIF replay, 201 frames of 720 x 560 px, {way}: memory added while built", added, "MB",
                              limit, note=f"peak {figures['peak_mb']:.0f} MB over {figures['idle_mb']:.0f} MB idle "
                              f"(the kernel's peak counter, reset before the build); {figures['bytes'] / 1e6:.1f} MB "
                              "of GIF"))
        rows.append(value_row(f"GIF replay, 201 frames of 720 x 560 px, {way}: build time", figures["seconds"], "s"))
    bot = _probe("bot")
    added = bot["peak_mb"] - bot["idle_mb"]
    rows.append(value_row(
        "six /match history of 200-ply matches asked at once: peak RSS above idle", added, "MB",
        REPLAY_MEMORY_LIMIT_MB,
        note=f"peak {bot['peak_mb']:.0f} MB over {bot['idle_mb']:.0f} MB idle; {bot['posted']} replays posted of "
        f"{len(bot['plies'])} asked ({bot['refused']} refused), frames {sorted(set(bot['frames']))} (a replay shows "
        f"at most 60 positions), at most {bot['most_building']} built at once, all posted within "
        f"{bot['seconds']:.1f} s; the line holds {bot['line']}"))
    return rows


def run() -> list[Row]:
    """All rows of this module (about a minute)."""
    return [*board_rows(), *_replay_rows()]


if __name__ == "__main__":
    for row in run():
        print(row.to_dict())
