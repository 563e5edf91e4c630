"""Every board reads on a phone, names are drawn safely and whole, labels never cover each other or a point, one
word for a turn, and the final board shows the result.

Discord shows a board about 400 px wide on a phone; no text may then be smaller than 13 px
(``renderers._common.MIN_TEXT_AT_DISPLAY``). The boards checked are the largest variant of each game
(``bench.largest_boards``, the same ones the render benchmarks time) and 1,000 random positions of each game, every
variant up to its largest (``tests/renderers/positions.py``), drawn with names of up to Discord's 32 characters.
"""

from __future__ import annotations

import io
import math
import random
import re
from collections.abc import Sequence
from typing import Any

import pytest
from PIL import Image, ImageDraw

import i18n
import renderers
from bench.largest_boards import LARGEST, NAMES
from games import GAMES, Outcome, State, Termination
from renderers import _common
from renderers._common import DrawnPoint, DrawnText, clean_name, recording, recording_points, short_name
from renderers.groebner_nim import extent
from tests.renderers.positions import PER_GAME, positions

GAME_KEYS = sorted(LARGEST)


def legibility_problems(texts: Sequence[DrawnText]) -> list[str]:
    """What is wrong with the drawn texts at 400 px display width: too small, or (partly) off the board."""
    problems = []
    for drawn in texts:
        width, height = drawn.canvas
        shown = drawn.size * _common.DISPLAY_WIDTH / width
        if shown < _common.MIN_TEXT_AT_DISPLAY:
            problems.append(f"{drawn.text!r} at {drawn.size} px is {shown:.1f} px when shown 400 px wide")
        left, top, right, bottom = drawn.box
        if left < 0 or top < 0 or right > width or bottom > height:
            problems.append(f"{drawn.text!r} at {drawn.box} leaves the {width} x {height} board")
    return problems


@pytest.fixture
def direct_text(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Sizes of the images Pillow's own ``ImageDraw.text`` wrote on (``draw_text`` writes only on tight masks)."""
    calls: list[tuple[int, int]] = []
    original = ImageDraw.ImageDraw.text

    def spy(self: ImageDraw.ImageDraw, *args: Any, **kwargs: Any) -> None:
        calls.append(self.im.size)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", spy)
    _common.text_mask.cache_clear()
    return calls


@pytest.fixture(scope="module")
def largest() -> dict[str, State[Any]]:
    return {key: build() for key, build in LARGEST.items()}


def _draw(state: State[Any], names: Sequence[str],
          outcome: Outcome | None = None) -> tuple[Image.Image, list[DrawnText]]:
    with recording() as texts:
        png = renderers.render(state, names, outcome=outcome)
    return Image.open(io.BytesIO(png)), texts


@pytest.mark.parametrize("key", GAME_KEYS)
def test_largest_board_reads_at_400_px(key: str, largest: dict[str, State[Any]],
                                       direct_text: list[tuple[int, int]]) -> None:
    state = largest[key]
    with recording_points() as points:
        image, texts = _draw(state, NAMES[: state.seats])
    assert len(texts) >= 10, "the board draws its texts through draw_text"
    assert {drawn.canvas for drawn in texts} == {image.size}
    assert legibility_problems(texts) == []
    assert placement_problems(texts, points) == []
    assert cut_names(texts, NAMES[: state.seats]) == []
    assert key in ("chopsticks", "differences") or points, "the board declares its points"
    # No text bypasses draw_text: Pillow only ever drew on masks, never on the board itself.
    assert image.size not in direct_text and direct_text, "text_mask draws the masks"


@pytest.mark.parametrize("language", [locale for locale in i18n.SHIPPED if locale != i18n.SOURCE])
@pytest.mark.parametrize("key", GAME_KEYS)
def test_largest_board_reads_at_400_px_in_every_language(key: str, language: str,
                                                         largest: dict[str, State[Any]]) -> None:
    """The same checks with the board's words in each shipped language (longer than English, mostly): its title and
    its status line are the language's, and still nothing is small, cut, off the board or on another label."""
    state = largest[key]
    names = NAMES[: state.seats]
    with i18n.speaking(language), recording_points() as points:
        image, texts = _draw(state, names)
        title = GAMES[key].local_title
        status = _common.status_line(state, names)
    assert {drawn.canvas for drawn in texts} == {image.size}
    drawn = "".join("".join(text.text.split()) for text in texts)  # wrapped lines read in order
    assert title != GAMES[key].title and "".join(title.split()) in drawn, (title, drawn)
    assert status != _common.status_line(state, names)  # the language's line, not the English one
    assert legibility_problems(texts) == []
    assert placement_problems(texts, points) == []
    assert cut_names(texts, names) == []


@pytest.mark.parametrize("language", list(i18n.SHIPPED))
def test_a_finished_chopsticks_board_keeps_its_dead_hands_labels_apart_in_every_language(language: str) -> None:
    """The loser's two dead hands are labelled side by side ("izda. (muerta)", "esquerda (morta)"): the longest
    labels of any language must not run into each other."""
    game, rng = GAMES["chopsticks"], random.Random(11)
    state = game.new_state({}, rng)
    while not state.is_over:
        state = state.apply(game.computer_move(state, "easy", rng))
    assert any(hands == (0, 0) for hands in state.hands)
    with i18n.speaking(language), recording_points() as points:
        image, texts = _draw(state, NAMES[:2])
    assert {drawn.canvas for drawn in texts} == {image.size}
    assert placement_problems(texts, points) == [] and legibility_problems(texts) == []
    assert len({text.text for text in texts if "(" in text.text}) >= 2  # the dead hands' labels were drawn


def test_the_check_catches_small_and_cut_text() -> None:
    small = DrawnText("a1", 20, (10, 10, 30, 26), (640, 400))
    cut = DrawnText("15", 21, (630, 10, 652, 30), (640, 400))
    fine = DrawnText("15", 21, (10, 10, 30, 30), (640, 400))
    assert legibility_problems([small, cut, fine]) == [
        "'a1' at 20 px is 12.5 px when shown 400 px wide", "'15' at (630, 10, 652, 30) leaves the 640 x 400 board"]
    assert _common.min_text_px(640) == 21 and _common.min_text_px(720) == 24 and _common.min_text_px(600) == 20


def test_largest_variants_are_the_largest(largest: dict[str, State[Any]]) -> None:
    assert largest["differences"].n == 15
    assert largest["polygons"].size == 30 and len(largest["polygons"].points) == 20
    assert largest["polygons"].path, "segments are drawn"
    napkin = largest["napkin_chess"]
    assert (napkin.variant.width, napkin.variant.height) == (6000, 6000) and len(napkin.coins) >= 60
    groebner = largest["groebner_nim"]
    assert groebner.start_count == 6 and max(max(*s.head, *s.tail) for s in groebner.sticks[:6]) == 20


def _running(key: str) -> State[Any]:
    """A position after one move of the default variant that is not over yet."""
    game = GAMES[key]
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new_state(None, rng)
        state = state.apply(game.computer_move(state, "easy", rng))
        if not state.is_over:
            return state
    raise AssertionError(f"every seeded {key} game ended after one move")


@pytest.mark.parametrize("key", GAME_KEYS)
def test_resignation_shows_the_result_not_the_turn(key: str) -> None:
    state = _running(key)
    assert not state.is_over
    names = ["Ann", "Bob"][: state.seats]
    module = renderers.renderer_for(key)
    loser = state.current_seat or 0
    winner = None if state.seats == 1 else 1 - loser
    outcome = Outcome(winner, False, None, Termination.RESIGNED, loser=loser)

    before = module.status_line(state, names)
    assert before == f"{names[loser]} to move"
    after = module.status_line(state, names, outcome)
    assert after.startswith(f"{names[loser]} resigned") and "to move" not in after
    if winner is not None:
        assert f"{names[winner]} wins" in after

    _, running_texts = _draw(state, names)
    _, final_texts = _draw(state, names, outcome)
    assert any("to move" in drawn.text.lower() for drawn in running_texts)
    assert not any("to move" in drawn.text.lower() for drawn in final_texts)
    assert any(drawn.text.startswith(f"{names[loser]} resigned") for drawn in final_texts)


@pytest.mark.parametrize("termination", [Termination.OUT_OF_TIME, Termination.DRAW_AGREED, Termination.ABORTED])
def test_other_ends_by_a_player_are_shown(termination: Termination) -> None:
    state = _running("chopsticks")
    loser = 0 if termination is Termination.OUT_OF_TIME else None
    outcome = Outcome(1 if loser == 0 else None, termination is Termination.DRAW_AGREED, None, termination, loser)
    _, texts = _draw(state, ["Ann", "Bob"], outcome)
    expected = {Termination.OUT_OF_TIME: "Ann ran out of time: Bob wins", Termination.DRAW_AGREED: "Draw agreed",
                Termination.ABORTED: "Aborted"}[termination]
    assert expected in [drawn.text for drawn in texts]
    assert not any("to move" in drawn.text.lower() for drawn in texts)


def test_replay_holds_the_result_on_its_last_frame() -> None:
    first = GAMES["chopsticks"].new_state()
    second = first.play("LL")
    outcome = Outcome(0, False, None, Termination.RESIGNED, loser=1)
    with recording() as texts:
        renderers.render_replay([first, second], ["Ann", "Bob"], outcome=outcome)
    assert sum(drawn.text == "Bob resigned: Ann wins" for drawn in texts) == 1


UNSAFE = "Ann\nMarie\r\x1c\x85\u2029\u200e Lee\t"


@pytest.mark.parametrize("key", GAME_KEYS)
def test_names_with_control_characters_are_drawn_safely(key: str) -> None:
    state = _running(key)
    names = [UNSAFE, "Bob\n(away)"][: state.seats]
    _, texts = _draw(state, names)
    assert any("Ann Marie Lee" in drawn.text for drawn in texts)
    for drawn in texts:
        assert not any(ch in drawn.text for ch in "\n\r\t\x1c\x85\u2029\u200e"), drawn.text


def test_clean_name() -> None:
    assert clean_name(UNSAFE) == "Ann Marie Lee"
    assert clean_name("\n\u2029") == "?"
    assert clean_name("Zoë  Ødegård") == "Zoë Ødegård"


def test_short_names_drop_the_suffix_before_an_ellipsis() -> None:
    width = _common.text_width("Computer 2 (m", 18)
    assert short_name("Computer 2 (medium)", 18, width) == "Computer 2"
    assert short_name("Computer 2 (medium)", 18, 1000) == "Computer 2 (medium)"
    tight = short_name("Alexandria Featherstonehaugh (away)", 18, 120)
    assert tight.startswith("Alexandria") and tight.endswith("…") and "(" not in tight
    assert short_name("Computer 2 (medium)", 18, width, suffix=": 12").endswith(": 12")


@pytest.mark.parametrize("key", GAME_KEYS)
def test_one_word_for_a_turn(key: str, largest: dict[str, State[Any]]) -> None:
    state = largest[key]
    _, texts = _draw(state, NAMES[: state.seats])
    words = " ".join(drawn.text for drawn in texts)
    assert f"move {state.ply}" in words
    for other in (r"\bply\b", r"\bMove\b", r"\bmark \d", r"Turns:", r"Groebner"):
        assert re.search(other, words) is None, other


def test_groebner_board_zooms_to_the_sticks() -> None:
    small = GAMES["groebner_nim"].new_state({"start": "x^2+1, x*y+y^2"})
    assert extent(small) == 3
    big = GAMES["groebner_nim"].new_state({"start": "x^20+y^3, x^2*y+y^2"})
    assert extent(big) == 21
    _, texts = _draw(small, ["Ann", "Bob"])
    axis = {drawn.text for drawn in texts if drawn.text.isdigit()}
    assert {"0", "1", "2", "3"} <= axis and "9" not in axis and "10" not in axis


NAME_PAIRS = [("alice", "bob"), NAMES, ("Alexandria Featherstonehaugh Jr.", "W" * 32),
              ("abcdefghijklmnopqrstuvwxyzabcdef", "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM"),
              ("Ἀριστοτέλης Νικολάου-Παπαδόπουλ", "Zoë Ødegård-Featherstonehaugh J")]
"""Names the random positions are drawn with, in turn: short ones, the benchmarks' long ones, and names of Discord's
longest (32 characters) with spaces, without, of the widest letters and of other scripts."""
LIST_MARKS = ("… ",)
"""How the only texts that may hold an ellipsis begin: Gröbner Nim's "… 26 earlier" and "… and 2 more" (lists that
say how much they leave out), never a name."""


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _covers(box: tuple[int, int, int, int], point: DrawnPoint) -> bool:
    nearest_x = min(max(point.x, box[0]), box[2])
    nearest_y = min(max(point.y, box[1]), box[3])
    return (nearest_x - point.x) ** 2 + (nearest_y - point.y) ** 2 < point.radius ** 2


def placement_problems(texts: Sequence[DrawnText], points: Sequence[DrawnPoint]) -> list[str]:
    """Labels that overlap each other (their plates, for tags) or cover a point."""
    problems = []
    boxes = sorted((drawn.extent, drawn.text) for drawn in texts)
    for index, (box, text) in enumerate(boxes):
        for other, other_text in boxes[index + 1:]:
            if other[0] >= box[2]:
                break
            if _overlap(box, other):
                problems.append(f"{text!r} at {box} overlaps {other_text!r} at {other}")
        problems += [f"{text!r} at {box} covers the point at ({point.x:.0f}, {point.y:.0f})"
                     for point in points if _covers(box, point)]
    return problems


def cut_names(texts: Sequence[DrawnText], names: Sequence[str]) -> list[str]:
    """Names not drawn whole somewhere on the board (wrapped lines read in order), and any text cut short."""
    problems = [f"{drawn.text!r} is cut" for drawn in texts
                if "…" in drawn.text and not drawn.text.startswith(LIST_MARKS)]
    drawn_letters = "".join("".join(drawn.text.split()) for drawn in texts)
    problems += [f"{name!r} is not drawn whole" for name in names if "".join(name.split()) not in drawn_letters]
    return problems


@pytest.mark.slow  # a sweep: many random positions drawn and measured
@pytest.mark.parametrize("key", GAME_KEYS)
def test_random_positions_read_on_a_phone_with_labels_clear_and_names_whole(key: str) -> None:
    problems: list[str] = []
    smallest = math.inf
    for index, state in enumerate(positions(key)):
        names = NAME_PAIRS[index % len(NAME_PAIRS)][: state.seats]
        with recording() as texts, recording_points() as points:
            image = renderers.draw_board(state, names)
        assert texts and {drawn.canvas for drawn in texts} == {image.size}
        smallest = min(smallest, *(drawn.size * _common.DISPLAY_WIDTH / image.width for drawn in texts))
        found = legibility_problems(texts) + placement_problems(texts, points) + cut_names(texts, names)
        problems += [f"position {index} ({state.to_dict()}): {problem}" for problem in found]
    print(f"\n{key}: {PER_GAME} positions, smallest text {smallest:.1f} px at 400 px wide")
    assert smallest >= _common.MIN_TEXT_AT_DISPLAY
    assert problems == [], f"{len(problems)} problems, the first: {problems[:5]}"


def test_the_checks_catch_overlaps_points_and_cut_names() -> None:
    a = DrawnText("A", 24, (10, 10, 30, 30), (720, 500))
    b = DrawnText("B", 24, (29, 20, 50, 40), (720, 500))
    tag = DrawnText("7", 24, (100, 10, 110, 30), (720, 500), plate=(95, 5, 120, 35))
    c = DrawnText("C", 24, (118, 10, 130, 30), (720, 500))
    assert len(placement_problems([a, b, tag, c], [])) == 2  # A and B; C on the tag's plate
    assert placement_problems([a], [DrawnPoint(35, 20, 6)]) == ["'A' at (10, 10, 30, 30) covers the point at (35, 20)"]
    assert placement_problems([a], [DrawnPoint(37, 20, 6)]) == []
    cut = DrawnText("Alexandria Feath…", 24, (0, 0, 1, 1), (720, 500))
    wrapped = [DrawnText("Alexandria", 24, (0, 0, 1, 1), (720, 500)), DrawnText("Featherstonehaugh", 24, (0, 0, 1, 1),
                                                                             (720, 500))]
    assert cut_names([cut], ["Alexandria Featherstonehaugh"]) == [
        "'Alexandria Feath…' is cut", "'Alexandria Featherstonehaugh' is not drawn whole"]
    assert cut_names(wrapped, ["Alexandria Featherstonehaugh"]) == []
