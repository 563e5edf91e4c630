"""The sheet of boards in docs/boards/: every game's boards shown 400 px wide, as a phone shows them, on Discord's
light and dark chat backgrounds.

    .venv/bin/python scripts/board_sheet.py --label after             # this checkout's renderers
    PYTHONPATH=/path/to/other/checkout .venv/bin/python scripts/board_sheet.py --label before

For each game it writes ``docs/boards/<game>-<label>.png``: two positions (a default match under way, and the
game's busiest board from :mod:`bench.largest_boards`), each on the light theme (left) and the dark theme (right),
scaled to 400 px wide with Pillow's Lanczos filter as a browser would. ``extras-<label>.png`` holds the other images
the bot posts (the free-region map of ``/napkin free``, a standings page). The script uses only what every version of
the renderers has (``renderers.render``, ``render_free``, ``render_standings``), so that an older checkout draws its
own boards for the "before" half.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the checkout's packages, unless PYTHONPATH names another one first
    sys.path.append(str(ROOT))

import renderers  # noqa: E402
from bench.largest_boards import LARGEST, NAMES  # noqa: E402
from games import GAMES, State  # noqa: E402

SHOWN = 400
"""The width a phone shows a board at, pixels."""
LIGHT, DARK = (255, 255, 255), (49, 51, 56)
"""Discord's chat backgrounds: the light theme's white and the dark theme's #313338."""
GAP = 24
PLIES = {"chopsticks": 5, "differences": 5, "napkin_chess": 14, "polygons": 15, "groebner_nim": 3}
"""How far the "under way" match of each game's default variant is played (seeded easy computer moves)."""


def under_way(key: str) -> State[Any]:
    """A default-variant match of ``key`` after :data:`PLIES` moves of the easy computer (seed 11)."""
    game = GAMES[key]
    rng = random.Random(11)
    state = game.new_state(None, rng)
    for _ in range(PLIES[key]):
        if state.is_over:
            break
        state = state.apply(game.computer_move(state, "easy", rng))
    return state


def shown(png: bytes) -> Image.Image:
    """``png`` scaled to :data:`SHOWN` pixels wide."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    height = round(image.height * SHOWN / image.width)
    return image.resize((SHOWN, height), Image.Resampling.LANCZOS)


def _label_font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", 15)
    except OSError:
        return ImageFont.load_default(size=15)


def sheet(rows: list[tuple[str, bytes]]) -> Image.Image:
    """One row per ``(caption, png)``: the image at 400 px on the light theme, then on the dark theme."""
    images = [(caption, shown(png)) for caption, png in rows]
    width = 2 * SHOWN + 4 * GAP
    height = sum(image.height + 2 * GAP + 20 for _, image in images)
    out = Image.new("RGB", (width, height), LIGHT)
    draw = ImageDraw.Draw(out)
    draw.rectangle((width // 2, 0, width, height), fill=DARK)
    font = _label_font()
    y = 0
    for caption, image in images:
        draw.text((GAP, y + 8), caption, fill=(60, 60, 60), font=font)
        draw.text((width // 2 + GAP, y + 8), caption + " (dark theme)", fill=(220, 221, 222), font=font)
        out.paste(image, (GAP, y + 20 + GAP))
        out.paste(image, (width // 2 + GAP, y + 20 + GAP))
        y += image.height + 2 * GAP + 20
    return out


def boards(key: str) -> list[tuple[str, bytes]]:
    """The two boards of ``key`` the sheet shows."""
    running = under_way(key)
    busiest = LARGEST[key]()
    return [(f"{GAMES[key].title}: default rules, move {running.ply}",
             renderers.render(running, list(NAMES[: running.seats]))),
            (f"{GAMES[key].title}: largest variant, move {busiest.ply}",
             renderers.render(busiest, list(NAMES[: busiest.seats])))]


def extras() -> list[tuple[str, bytes]]:
    """The free-region map and a standings page."""
    from renderers.napkin_chess import render_free
    from renderers.standings import SWISS_COLUMNS, render_standings

    napkin = under_way("napkin_chess")
    rows = [["1", NAMES[0], "3", "4", "6.5", "3", "1512"], ["2", "Bob", "2", "5", "4", "3", "1490"],
            ["3", NAMES[1], "2", "3.5", "3", "3", "1500"], ["4", "Zoë Ødegård", "1", "4", "1", "3", "1475"],
            ["5", "Cat", "1", "3", "0.5", "3", "1460"], ["6", "Dan", "0", "3", "0", "3", "1440"]]
    return [("/napkin free size:3", render_free(napkin, list(NAMES), 3)),
            ("standings", render_standings("Spring cup · standings after round 3 of 5", SWISS_COLUMNS, rows,
                                           podium=True))]


MAKERS: dict[str, Callable[[], list[tuple[str, bytes]]]] = {
    **{key: (lambda key=key: boards(key)) for key in LARGEST},  # type: ignore[misc]
    "extras": extras,
}


def main() -> None:
    """Write the sheets (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="before or after: the end of each file's name")
    parser.add_argument("--out", default=str(ROOT / "docs" / "boards"), help="the folder to write to")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"renderers from {Path(renderers.__file__).parent}")
    for name, make in MAKERS.items():
        path = out / f"{name}-{args.label}.png"
        sheet(make()).save(path, optimize=True)
        print(path)


if __name__ == "__main__":
    main()
