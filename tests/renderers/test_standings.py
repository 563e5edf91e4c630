"""The standings image: every text legible at 400 px and inside the image, long names cut, the podium marked in
gold, silver and bronze, withdrawn players in grey, and a page never longer than it may be."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from renderers import standings
from renderers._common import INK, MUTED, recording
from tests.renderers.test_legibility import legibility_problems

ROWS = [[str(rank), name, "3½", "8½", "10¼", "4", "1234"] for rank, name in
        enumerate(["alice", "bob", "carol", "Ἀριστοτέλης Νικολάου-Παπαδόπουλος of a very long name", "eve"],
                  start=1)]


def test_every_text_reads_on_a_phone_and_stays_inside() -> None:
    with recording() as texts:
        png = standings.render_standings("Spring cup · final standings after round 4 of 4", standings.SWISS_COLUMNS,
                                         [[str(n), f"player {n}", "10½", "45¾", "40¼", "12", "1999"]
                                          for n in range(100, 100 + standings.PAGE_ROWS)])
    assert not legibility_problems(texts)
    assert {"BH-1", "SB", "Games", "Rating", "player 100"} <= {drawn.text for drawn in texts}
    image = Image.open(io.BytesIO(png))
    assert image.size[0] == standings.WIDTH and len(png) < 60_000


def test_a_long_name_is_cut_and_the_podium_marked() -> None:
    with recording() as texts:
        png = standings.render_standings("Cup", standings.ROUND_ROBIN_COLUMNS, ROWS, podium=True, muted=[4])
    names = [drawn.text for drawn in texts if drawn.text.startswith(("Ἀ", "alice", "eve"))]
    assert names[0] == "alice" and names[1].endswith("…") and len(names[1]) < len(ROWS[3][1])
    image = Image.open(io.BytesIO(png)).convert("RGB")
    marks = [drawn for drawn in texts if drawn.text in ("1", "2", "3") and drawn.box[0] < 40]
    assert len(marks) == 3
    for drawn, colour in zip(marks, standings.PODIUM, strict=True):  # each place's mark beside its rank
        left, top, _, bottom = drawn.box
        around = {image.getpixel((x, y)) for x in range(standings.MARGIN, left) for y in range(top, bottom)}
        assert colour in around
    eve = next(drawn for drawn in texts if drawn.text == "eve")
    assert eve.size == standings.TEXT
    ink = {image.getpixel((x, y)) for x in range(eve.box[0], eve.box[2]) for y in range(eve.box[1], eve.box[3])}
    assert MUTED in ink and INK not in ink  # withdrawn: grey


def test_a_page_has_a_bound_and_whole_rows() -> None:
    with pytest.raises(ValueError, match="holds"):
        standings.render_standings("Cup", standings.SWISS_COLUMNS, [ROWS[0]] * (standings.PAGE_ROWS + 1))
    with pytest.raises(ValueError, match="one cell per column"):
        standings.render_standings("Cup", standings.SWISS_COLUMNS, [ROWS[0][:-1]])
    with recording() as texts:
        standings.render_standings("Cup", standings.SWISS_COLUMNS, [])
    assert "No players yet" in {drawn.text for drawn in texts}
