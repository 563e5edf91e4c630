"""Tests of the Polygons & Dots rules core against ``seeds/polygons.json`` and random play."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import GAMES
from games.errors import IllegalMove, InvalidMove, InvalidState, InvalidVariant
from games.polygons import GAME, computer
from games.polygons.rules import (
    Connect,
    Move,
    Place,
    PolygonsState,
    face_sides,
    faces_of_path,
    max_dots_per_seat,
    score_sides,
)
from tests.games.oracles import faces_by_shapely, polygons_margin

VECTORS = json.loads((Path(__file__).parents[2] / "seeds" / "polygons.json").read_text())
ERRORS = {"IllegalMove": IllegalMove, "InvalidMove": InvalidMove}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _play(variant: dict, moves: list[str]) -> PolygonsState:
    state = GAME.new_state(variant)
    for text in moves:
        state = state.play(text)
    return state


def _orient(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> int:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _crossings(
    points: list[tuple[int, int]], path: list[int], closed: bool
) -> tuple[int, dict[tuple[Fraction, Fraction], set[int]]]:
    """Return the number of crossing segment pairs and, per distinct crossing point, the segments through it.

    Computed independently of the module: integer orientation tests and Fractions.
    """
    segs = list(itertools.pairwise(path))
    if closed:
        segs.append((path[-1], path[0]))
    pairs = 0
    meeting: dict[tuple[Fraction, Fraction], set[int]] = {}
    for (i, (a, b)), (j, (c, d)) in itertools.combinations(enumerate(segs), 2):
        if {a, b} & {c, d}:
            continue
        pa, pb, pc, pd = points[a], points[b], points[c], points[d]
        if _orient(pa, pb, pc) * _orient(pa, pb, pd) < 0 and _orient(pc, pd, pa) * _orient(pc, pd, pb) < 0:
            pairs += 1
            t = Fraction(_orient(pc, pd, pa), _orient(pc, pd, pa) - _orient(pc, pd, pb))
            meeting.setdefault((pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1])), set()).update((i, j))
    return pairs, meeting


def _random_points(rng: random.Random, count: int, size: int) -> list[tuple[int, int]]:
    """Up to ``count`` random lattice points with no three collinear (brute-force test, not the module's)."""
    points: list[tuple[int, int]] = []
    for _ in range(4000):
        if len(points) == count:
            break
        p = (rng.randrange(size + 1), rng.randrange(size + 1))
        if p in points or any(_orient(a, b, p) == 0 for a, b in itertools.combinations(points, 2)):
            continue
        points.append(p)
    return points


# ------------------------------------------------------------------------------------------ vectors


@pytest.mark.parametrize("vector", VECTORS["faces"], ids=lambda v: v["name"])
def test_face_vectors(vector: dict) -> None:
    points = [tuple(p) for p in vector["points"]]
    faces = faces_of_path(points, vector["path"], vector["closed"])
    sides = sorted(face.sides for face in faces)
    assert sides == vector["sides"]
    assert score_sides(sides) == tuple(vector["scores"])
    assert sorted(face_sides(points, vector["path"], vector["closed"])) == vector["sides"]
    assert all(face.area > 0 for face in faces)
    shapely_faces = sorted(faces_by_shapely(points, vector["path"], vector["closed"]))
    assert [s for s, _ in shapely_faces] == vector["sides"]
    exact_areas = sorted(float(face.area) for face in faces)
    assert exact_areas == pytest.approx(sorted(a for _, a in shapely_faces), abs=1e-6)
    if "crossings" in vector:
        pairs, meeting = _crossings(points, vector["path"], vector["closed"])
        assert pairs == vector["crossings"]
        assert len(meeting) == vector.get("crossing_points", pairs)
        if len(meeting) == pairs:
            assert len(faces) == pairs + 1
    if "concurrent" in vector:
        point = tuple(Fraction(v) for v in vector["concurrent"])
        assert point[0].denominator > 1  # a rational, non-lattice point
        assert sum(point in face.corners for face in faces) >= 3


def test_pentagram_is_the_seed_example() -> None:
    vector = next(v for v in VECTORS["faces"] if v["name"] == "pentagram")
    faces = faces_of_path([tuple(p) for p in vector["points"]], vector["path"])
    pentagon = [face for face in faces if face.sides == 5]
    assert len(pentagon) == 1
    # The central pentagon's corners are the five crossing points, none of them a dot.
    assert not set(pentagon[0].corners) & {(Fraction(x), Fraction(y)) for x, y in vector["points"]}


def test_dangling_piece_is_not_a_side() -> None:
    vector = next(v for v in VECTORS["faces"] if "dangling" in v["name"])
    faces = faces_of_path([tuple(p) for p in vector["points"]], vector["path"], closed=False)
    quad = next(face for face in faces if face.sides == 4)
    assert len(quad.outline) > quad.sides  # the walk passes the dangling piece and a straight-through point
    assert (Fraction(7), Fraction(8)) in quad.outline
    assert (Fraction(7), Fraction(8)) not in quad.corners


@pytest.mark.parametrize("vector", VECTORS["games"], ids=lambda v: v["name"])
def test_game_vectors(vector: dict) -> None:
    state = _play(vector["variant"], vector["moves"])
    assert state.phase == "over"
    assert state.is_over and state.current_seat is None
    outcome = state.outcome
    assert outcome is not None
    assert list(outcome.scores) == vector["scores"]
    assert outcome.winner == vector["winner"] and outcome.draw == vector["draw"]
    assert len(state.segments) == vector["segments"] == len(state.points)
    assert "".join(dot.name for dot in (state.dots[i] for i in state.path)) == vector["path"]
    assert len(state.faces()) == sum(outcome.scores)
    if "placed" in vector:
        assert len(state.points) == vector["placed"] < state.total_dots


def test_lattice_full_ends_placement_early() -> None:
    vector = next(v for v in VECTORS["games"] if "placed" in v)
    state = _play(vector["variant"], vector["moves"][: vector["placed"]])
    assert state.legal_points() == []
    assert state.phase == "draw" and state.current_seat == 0
    assert state.legal_starts() == list("ABCDEFG")
    # One dot fewer, the same position is still in placement, and a path there is impossible.
    data = state.apply(Connect(0, 1)).to_dict()
    assert PolygonsState.from_dict(data).path == (0, 1)
    short = _play(vector["variant"], vector["moves"][: vector["placed"] - 1])
    assert short.phase == "place"
    data = short.to_dict() | {"path": ["A", "B"], "ply": short.ply + 1, "last_move": "A-B"}
    data.pop("phase")
    data.pop("scores")
    with pytest.raises(InvalidState, match="still be placed"):
        PolygonsState.from_dict(data)


@pytest.mark.parametrize("vector", VECTORS["illegal"], ids=lambda v: f"{v['move'] or 'empty'}")
def test_illegal_vectors(vector: dict) -> None:
    state = _play(vector["variant"], vector["moves"])
    before = state.to_dict()
    with pytest.raises(ERRORS[vector["error"]]) as raised:
        state.play(vector["move"])
    for words in vector["contains"]:
        assert words in str(raised.value)
    assert str(raised.value)[0].isupper() and str(raised.value).endswith(".")
    assert state.to_dict() == before


@pytest.mark.parametrize("vector", VECTORS["invalid_variants"], ids=lambda v: json.dumps(v["variant"]))
def test_invalid_variants(vector: dict) -> None:
    with pytest.raises(InvalidVariant) as raised:
        GAME.new_state(vector["variant"])
    for words in vector["contains"]:
        assert words in str(raised.value)


@pytest.mark.parametrize("vector", VECTORS["invalid_states"], ids=lambda v: v["why"])
def test_invalid_states(vector: dict) -> None:
    with pytest.raises(InvalidState) as raised:
        PolygonsState.from_dict(vector["state"])
    for words in vector["contains"]:
        assert words in str(raised.value)


# ------------------------------------------------------------------------------------- interface


def test_registry_and_defaults() -> None:
    assert GAMES["polygons"] is GAME
    assert GAME.variant_defaults() == {"size": 15, "dots": 5, "komi": 0}
    state = GAME.new_state()
    assert state.variant == GAME.variant_defaults()
    assert state.to_dict()["variant"] == {"size": 15, "dots": 5, "komi": 0}
    assert state.phase == "place" and state.current_seat == 0 and state.ply == 0
    assert state.last_move is None and state.scores == (0, 0) and state.outcome is None
    assert len(state.legal_points()) == 16 * 16
    assert GAME.new_state({"size": 30, "dots": 10}).to_dict()["variant"] == {"size": 30, "dots": 10, "komi": 0}


def test_room_limit() -> None:
    assert [max_dots_per_seat(size) for size in (5, 8, 13, 14)] == [4, 6, 9, 10]
    GAME.new_state({"size": 14, "dots": 10})
    with pytest.raises(InvalidVariant, match="at most 9"):
        GAME.new_state({"size": 13, "dots": 10})


@pytest.mark.parametrize(
    ("text", "move"),
    [("3,9", Place(3, 9)), ("(3, 9)", Place(3, 9)), (" 3 9 ", Place(3, 9)), ("( 0 ,15 )", Place(0, 15)),
     ("A-C", Connect(0, 2)), ("a - c", Connect(0, 2)), ("B–D", Connect(1, 3))],
)
def test_parse_tolerates(text: str, move: object) -> None:
    assert GAME.new_state().parse_move(text) == move


def test_single_name_continues_from_the_path_end() -> None:
    vector = VECTORS["games"][0]
    state = _play(vector["variant"], [*vector["moves"][:6], "A-D"])
    assert state.path_end == "D"
    move = state.parse_move("e")
    assert move == Connect(3, 4)
    assert state.format_move(move) == "D-E"


def test_phases_and_accessors_through_a_game() -> None:
    vector = next(v for v in VECTORS["games"] if v["name"] == "three diameters")
    state = GAME.new_state(vector["variant"])
    for k, text in enumerate(vector["moves"]):
        if k < 6:
            assert state.phase == "place" and state.current_seat == k % 2
            assert state.legal_targets() == [] and state.path_end is None
        else:
            assert state.phase == "draw" and state.current_seat == (k - 6) % 2
            assert set(state.legal_targets()) == {d.name for d in state.dots} - {state.dots[i].name for i in state.path}
            assert state.legal_starts() == ([state.path_end] if state.path else [d.name for d in state.dots])
        move = state.parse_move(text)
        state = state.apply(move)
        assert state.ply == k + 1
        assert state.last_move == move
    assert [(d.name, d.x, d.y, d.seat) for d in state.dots[:2]] == [("A", 2, 5, 0), ("B", 4, 11, 1)]
    assert state.segments[-1] == (5, 0)  # the closing segment F-A comes last
    assert state.legal_moves() == [] and state.legal_targets() == [] and state.path_end is None


def test_provisional_scores_while_drawing() -> None:
    vector = next(v for v in VECTORS["games"] if v["name"] == "three diameters")
    state = _play(vector["variant"], vector["moves"][:-1])  # A-D, E, B, C: the path is still open
    assert state.phase == "draw"
    assert state.scores == (1, 0)  # the triangle at (15/2, 15/2), D, E
    assert [face.sides for face in state.faces()] == [3]


def test_legal_points_are_exactly_the_non_collinear_free_points() -> None:
    rng = random.Random(7)
    state = GAME.new_state({"size": 9, "dots": 6})
    for _ in range(7):
        state = state.apply(Place(*rng.choice(state.legal_points())))
    legal = set(state.legal_points())
    for x, y in itertools.product(range(10), repeat=2):
        ok = (x, y) not in state.points and all(
            _orient(a, b, (x, y)) != 0 for a, b in itertools.combinations(state.points, 2)
        )
        assert ((x, y) in legal) == ok


def test_parse_format_round_trip_all_legal_moves() -> None:
    vector = VECTORS["games"][-1]
    state = GAME.new_state(vector["variant"])
    for text in vector["moves"]:
        for move in state.legal_moves():
            assert state.parse_move(state.format_move(move)) == move
        state = state.play(text)


def test_directly_built_bad_moves_are_illegal() -> None:
    state = GAME.new_state({"size": 5, "dots": 3})
    with pytest.raises(IllegalMove, match="off the lattice"):
        state.apply(Place(6, 0))
    with pytest.raises(IllegalMove, match="not a Polygons"):
        state.apply("3,3")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------- random play


@st.composite
def _variants(draw: st.DrawFn) -> dict[str, int]:
    size = draw(st.integers(5, 30))
    dots = draw(st.integers(3, min(10, max_dots_per_seat(size))))
    return {"size": size, "dots": dots}


@SETTINGS
@given(variant=_variants(), seed=st.integers(0, 2**32 - 1))
def test_random_games_close_the_path(variant: dict[str, int], seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(variant)
    states = [state]
    while not state.is_over:
        moves = state.legal_moves()
        assert moves
        state = state.apply(rng.choice(moves))
        states.append(state)
    n = len(state.points)
    assert n == state.total_dots or not states[n].legal_points()
    assert len(state.segments) == n  # closing segment included
    assert sorted(state.path) == list(range(n))
    assert state.ply == 2 * n - 1
    faces = state.faces()
    outcome = state.outcome
    assert outcome is not None and sum(outcome.scores) == len(faces)
    assert outcome.scores == score_sides(face.sides for face in faces)
    odd, even = outcome.scores
    assert outcome.draw == (odd == even)
    assert outcome.winner == (None if odd == even else (0 if odd > even else 1))
    for snapshot in [*states[:: max(1, len(states) // 6)], state]:
        data = json.loads(json.dumps(snapshot.to_dict()))
        assert data["game"] == "polygons" and data["variant"] == GAME.variant(variant)
        again = PolygonsState.from_dict(data)
        assert again == snapshot and again.to_dict() == data


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(3, 16), size=st.sampled_from([6, 10, 15, 30]),
       cut=st.floats(0, 1))
def test_exact_faces_agree_with_shapely(seed: int, count: int, size: int, cut: float) -> None:
    rng = random.Random(seed)
    points = _random_points(rng, count, size)
    path = rng.sample(range(len(points)), len(points))
    k = max(2, round(cut * len(path)))
    closed = k == len(path)
    exact = sorted((face.sides, float(face.area)) for face in faces_of_path(points, path[:k], closed))
    approx = sorted(faces_by_shapely(points, path[:k], closed))
    assert [s for s, _ in exact] == [s for s, _ in approx]
    assert [a for _, a in exact] == pytest.approx([a for _, a in approx], rel=1e-6, abs=1e-6)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(3, 14), size=st.sampled_from([4, 6, 15]))
def test_face_count_follows_euler(seed: int, count: int, size: int) -> None:
    """Closed drawings are connected: faces = 1 + sum over crossing points of (segments through it - 1).

    With only simple crossings that is crossings + 1. Small lattices make concurrent crossings common.
    """
    rng = random.Random(seed)
    points = _random_points(rng, count, size)
    path = rng.sample(range(len(points)), len(points))
    pairs, meeting = _crossings(points, path, True)
    faces = faces_of_path(points, path)
    assert len(faces) == 1 + sum(len(through) - 1 for through in meeting.values())
    if all(len(through) == 2 for through in meeting.values()):
        assert len(faces) == pairs + 1
    crossing_corners = {c for face in faces for c in face.corners if c[0].denominator > 1 or c[1].denominator > 1}
    assert crossing_corners <= set(meeting)


# ------------------------------------------------------------------------------------- computer


@pytest.mark.slow  # strength: every level's games played out twice
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_computer_plays_legal_reproducible_games(level: str, search_without_cpu_cap: None) -> None:
    variant = {"size": 8, "dots": 3}
    moves = []
    for _ in range(2):
        rng = random.Random(11)
        state = GAME.new_state(variant)
        played = []
        while not state.is_over:
            move = GAME.computer_move(state, level, rng)
            assert move in state.legal_moves()
            played.append(state.format_move(move))
            state = state.apply(move)
        moves.append(played)
    assert moves[0] == moves[1]
    with pytest.raises(IllegalMove):
        GAME.computer_move(state, level, random.Random(0))


def _two_left() -> PolygonsState:
    vector = next(v for v in VECTORS["games"] if v["name"] == "default variant")
    return _play(vector["variant"], vector["moves"][:-2])


def test_hard_finds_the_best_ending() -> None:
    state = _two_left()
    seat = state.current_seat
    finals = {}
    for move in state.legal_moves():
        last = state.apply(move)
        end = last.apply(last.legal_moves()[0])
        odd, even = end.outcome.scores
        finals[move] = (odd - even) if seat == 0 else (even - odd)
    best = max(finals.values())
    for seed in range(3):
        assert finals[GAME.computer_move(state, "hard", random.Random(seed))] == best


def test_medium_takes_the_best_provisional_margin() -> None:
    vector = next(v for v in VECTORS["games"] if v["name"] == "default variant")
    state = _play(vector["variant"], vector["moves"][:12])
    assert len(state.points) - len(state.path) > computer.MEDIUM_EXACT_LEFT  # before medium's exact search
    seat = state.current_seat
    margins = {}
    for move in state.legal_moves():
        odd, even = state.apply(move).scores
        margins[move] = (odd - even) if seat == 0 else (even - odd)
    assert len(set(margins.values())) > 1
    assert margins[GAME.computer_move(state, "medium", random.Random(1))] == max(margins.values())


@pytest.mark.slow  # strength: hard against easy, played out
def test_hard_beats_easy(search_without_cpu_cap: None) -> None:
    # The first seat (odd faces) wins under good play, so hard must win every game there; as the second seat it
    # must not lose these (its draws are the seat's, 18 of 250 in the arena against easy).
    results: dict[int, list[int | None]] = {0: [], 1: []}
    for game in range(4):
        rng = random.Random(game)
        hard_seat = game % 2
        state = GAME.new_state({"size": 15, "dots": 5})
        while not state.is_over:
            level = "hard" if state.current_seat == hard_seat else "easy"
            state = state.apply(GAME.computer_move(state, level, rng))
        results[hard_seat].append(state.outcome.winner)
    assert results[0] == [0, 0]
    assert 0 not in results[1]


def test_unknown_level() -> None:
    with pytest.raises(ValueError, match="level"):
        GAME.computer_move(GAME.new_state(), "expert", random.Random(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("path", [["BC", "D"], ["", "B"]])
def test_a_stored_path_must_name_single_dots(path: list[str]) -> None:
    rng = random.Random(3)
    state = GAME.new_state({}, rng)
    while state.phase != "draw":
        state = state.apply(GAME.computer_move(state, "easy", rng))
    state = state.apply(GAME.computer_move(state, "easy", rng))
    data = state.to_dict()
    data["path"] = path
    with pytest.raises(InvalidState, match="not a dot name"):
        GAME.load(data)


# ------------------------------------------------------------------------------------- the exact search


def _drawing_from(seed: int, dots: int, left: int) -> PolygonsState:
    """A position of the drawing with ``left`` dots to connect: random placements and segments."""
    rng = random.Random(seed)
    state = GAME.new_state({"dots": dots})
    while state.phase == "place" or len(state.points) - len(state.path) > left:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def test_hard_keeps_the_exact_value_six_dots_before_the_end() -> None:
    # A hard loss of the former player: the exact search started at 5 dots left, and the play-outs chose D-A here.
    state = _play({}, ["2,9", "12,1", "10,7", "2,8", "15,11", "4,5", "11,9", "10,15", "6,6", "12,7", "H-F", "F-C",
                       "C-D"])
    seat = state.current_seat
    assert len(state.points) - len(state.path) == 6
    values = {state.format_move(move): GAME.exact_value(state.apply(move), seat).amount for move in state.legal_moves()}
    assert values["D-A"] == -2 and values["D-J"] == 0 == max(values.values())
    assert GAME.exact_value(state, seat).amount == 0
    assert polygons_margin(state.points, list(state.path), seat) == 0
    for seed in range(4):
        assert state.format_move(GAME.computer_move(state, "hard", random.Random(seed))) == "D-J"


def test_hard_searches_eight_dots_left_exactly_whatever_the_number_of_dots() -> None:
    # With 10 dots each, 8 dots left to connect of 20: the exact value is known there, and hard keeps it.
    state = _drawing_from(4, 10, 8)
    assert len(state.points) == 20 and len(state.points) - len(state.path) == 8
    seat = state.current_seat
    value = GAME.exact_value(state, seat)
    assert value is not None and value.distance == 8
    assert GAME.exact_value(_drawing_from(4, 10, 9), seat) is None
    move = GAME.computer_move(state, "hard", random.Random(2))
    assert GAME.exact_value(state.apply(move), seat).amount == value.amount


@pytest.mark.slow  # cross-check: the fast scorer against the rules
@pytest.mark.parametrize("search", [False, True], ids=["pairs", "masks"])
@pytest.mark.parametrize("seed", range(8))
def test_fast_scorer_agrees_with_the_rules(seed: int, search: bool) -> None:
    # A drawing for a search finds a path's crossings by each segment's mask of crossing segments, any other drawing
    # by asking the pairs of the path's segments: both score as the rules do.
    rng = random.Random(seed)
    crossed = 0
    for count in (4, 7, 10, 14):
        points = _random_points(rng, count, 12)
        drawing = computer._Drawing(points, search=search)
        for _ in range(6):
            path = rng.sample(range(len(points)), len(points))
            odd, even = score_sides(face_sides(points, path, True))
            assert drawing.margin(path) == odd - even
        assert (drawing.masks is not None) == search
        crossed += any(mask > 0 for mask in drawing.masks or ())
    assert crossed >= 3 if search else crossed == 0  # masks used where segments cross (at 4 dots none may)


def test_walking_faces_along_the_path_agrees_with_tracing_them_by_angle() -> None:
    # The scorer walks the faces along the path where every crossing point lies on two segments, and orders the
    # edges around each vertex by angle where three or more meet; on the same paths both give the same margin.
    rng = random.Random(5)
    walked = shared = 0
    for _ in range(60):
        size, wanted = rng.choice([(6, 6), (8, 8), (15, 10), (20, 14)])
        points = _random_points(rng, wanted, size)
        count = len(points)
        drawing = computer._Drawing(points)
        for _ in range(20):
            path = rng.sample(range(count), count)
            ends = (*path[1:], path[0])
            cuts, vertices = drawing.cuts(path, ends)
            if not vertices:
                continue
            by_angle = drawing._traced(path, ends, [[(t, vertices[c]) for t, c, _ in on] for on in cuts])
            if len(set(vertices)) < len(vertices):
                shared += 1
            else:
                walked += 1
                assert drawing._walked(path, ends, cuts, len(vertices)) == by_angle
            assert drawing.margin(path) == by_angle
    assert walked > 1000 and shared > 0


@pytest.mark.parametrize("vector", [v for v in VECTORS["faces"] if v["closed"]], ids=lambda v: v["name"])
def test_fast_scorer_agrees_with_the_face_vectors(vector: dict) -> None:
    odd, even = vector["scores"]
    assert computer._Drawing([tuple(p) for p in vector["points"]]).margin(vector["path"]) == odd - even


@pytest.mark.slow  # cross-check: the exact search against plain minimax
@pytest.mark.parametrize("seed", range(12))
def test_exact_search_agrees_with_plain_minimax(seed: int) -> None:
    state = _drawing_from(seed, 3 + seed % 3, 2 + seed % 4)
    seat = state.current_seat
    assert computer.exact_margin(state) == polygons_margin(state.points, list(state.path), seat)
    assert GAME.exact_value(state, 1 - seat).amount == -polygons_margin(state.points, list(state.path), seat)


@pytest.mark.slow  # equivalence: two search orders compared
def test_long_segments_first_for_the_odd_side_saves_work_and_changes_no_value() -> None:
    # The exact search tries the odd side's longest segments first and the even side's shortest. Zeroed lengths
    # make every key equal, so the stable sort leaves the dots in index order: the search as it was before.
    rng = random.Random(5)
    ordered_leaves = plain_leaves = 0
    for _ in range(3):
        state = GAME.new_state({})
        while state.phase == "place":
            state = state.apply(rng.choice(state.legal_moves()))
        ordered = computer._Endgame(state.points)
        plain = computer._Endgame(state.points)
        plain.lengths = [[0] * 10 for _ in range(10)]
        for a, b in [(0, 1), (3, 7), (9, 2), (5, 4)]:
            rest = tuple(x for x in range(10) if x not in (a, b))
            assert ordered.value((a, b), rest, -10**6, 10**6) == plain.value((a, b), rest, -10**6, 10**6)
        ordered_leaves += ordered.leaves
        plain_leaves += plain.leaves
    assert ordered_leaves < 0.9 * plain_leaves  # 25,316 against 30,506


@pytest.mark.slow  # equivalence: moves with and without the shared table
def test_the_shared_table_never_changes_a_move(search_without_cpu_cap: None) -> None:
    states = [_drawing_from(seed, 5, 8) for seed in range(3)]
    warm = []
    for state in states:  # each search fills the table, which the next ones of the same dots meet warm
        rng = random.Random(7)
        line = []
        while not state.is_over:
            move = GAME.computer_move(state, "hard", rng)
            line.append(move)
            state = state.apply(move)
        warm.append(line)
    for state, line in zip(states, warm, strict=True):
        rng = random.Random(7)
        for move in line:
            computer._ENDGAMES.clear()  # every move from an empty table
            assert GAME.computer_move(state, "hard", rng) == move
            state = state.apply(move)


@pytest.mark.parametrize("seed", range(30))
def test_hard_never_gives_away_exact_value(seed: int) -> None:
    # Placements at random, then hard draws against a random mover: every segment of hard's from the second on is
    # one of best value by the plain minimax of the rules' faces.
    rng = random.Random(seed)
    state = GAME.new_state({"dots": 4, "size": 10})
    while state.phase == "place":
        state = state.apply(rng.choice(state.legal_moves()))
    hard_seat = seed % 2
    checked = 0
    while not state.is_over:
        seat = state.current_seat
        if seat != hard_seat:
            state = state.apply(rng.choice(state.legal_moves()))
            continue
        move = GAME.computer_move(state, "hard", rng)
        if state.path and len(state.legal_moves()) > 1:
            best = polygons_margin(state.points, list(state.path), seat)
            after = state.apply(move)
            assert polygons_margin(after.points, list(after.path), 1 - seat) == -best, state.to_dict()
            checked += 1
        state = state.apply(move)
    assert checked >= 2


# ------------------------------------------------------------------------------------- komi


def test_komi_is_added_to_the_second_players_faces() -> None:
    vector = next(v for v in VECTORS["games"] if v["name"] == "default variant")
    plain = _play(vector["variant"], vector["moves"])
    given = _play({**vector["variant"], "komi": 3}, vector["moves"])
    odd, even = plain.scores
    assert given.variant["komi"] == 3 and given.scores == (odd, even + 3)
    assert GAME.new_state({"komi": 2}).scores == (0, 2)
    assert given.outcome.scores == (odd, even + 3)
    assert given.outcome.winner == (None if odd == even + 3 else 0 if odd > even + 3 else 1)
    assert PolygonsState.from_dict(given.to_dict()) == given
    # a match stored before the option existed loads with no komi
    old = plain.to_dict()
    old["variant"] = {"size": plain.size, "dots": plain.per_seat}
    assert PolygonsState.from_dict(old).komi == 0
    with pytest.raises(InvalidVariant, match="komi"):
        GAME.new_state({"komi": 10})


def test_komi_shifts_every_exact_value() -> None:
    for seed in range(4):
        state = _drawing_from(seed, 4, 5)
        shifted = PolygonsState(state.size, state.per_seat, state.points, state.path, 2)
        for seat in (0, 1):
            plain, given = GAME.exact_value(state, seat).amount, GAME.exact_value(shifted, seat).amount
            assert given == plain + (2 if seat == 1 else -2)


@pytest.mark.slow  # strength: hard's placement against every other
@pytest.mark.parametrize("seat", [0, 1])
def test_hard_places_the_dot_that_serves_its_side(seat: int, search_without_cpu_cap: None) -> None:
    # Eight or nine dots placed at random; hard places the ninth (seat 0; the tenth then goes at random) or the
    # tenth (seat 1). Judged on 600 futures (the tenth dot at random, then a random closed path), hard's dot lies
    # in the best quarter of 48 legal points drawn at random, for its side (odd faces for seat 0, even for seat 1).
    rng = random.Random(5)
    state = GAME.new_state({})
    while len(state.points) < 8 + seat:
        state = state.apply(Place(*rng.choice(state.legal_points())))
    assert state.current_seat == seat
    paths = [rng.sample(range(10), 10) for _ in range(600)]

    def worth(point: tuple[int, int]) -> float:
        after = state.apply(Place(*point))
        total = 0
        for k, path in enumerate(paths):
            points = list(after.points)
            if len(points) < 10:
                points.append(random.Random(k).choice(after.legal_points()))
            total += computer._Drawing(points).margin(path)  # as the rules: test_fast_scorer_agrees_with_the_rules
        return (total if seat == 0 else -total) / len(paths)

    move = GAME.computer_move(state, "hard", random.Random(1))
    assert isinstance(move, Place)
    chosen = worth((move.x, move.y))
    others = sorted((worth(point) for point in rng.sample(state.legal_points(), 48)), reverse=True)
    assert chosen >= others[len(others) // 4]
    assert chosen > sum(others) / len(others) + 0.1


def test_medium_searches_the_last_four_dots_exactly() -> None:
    vector = next(v for v in VECTORS["games"] if v["name"] == "default variant")
    state = _play(vector["variant"], vector["moves"][:15])
    assert len(state.points) - len(state.path) == computer.MEDIUM_EXACT_LEFT == 4
    best = computer.exact_margin(state)
    assert any(-computer.exact_margin(state.apply(move)) < best for move in state.legal_moves())
    for seed in range(6):
        move = GAME.computer_move(state, "medium", random.Random(seed))
        assert -computer.exact_margin(state.apply(move)) == best


def _worth_against_random(state: PolygonsState, seat: int) -> float:
    """Expectimax by the rules: ``seat`` draws a segment of best exact value (the one worth most), the opponent
    draws uniformly at random; a finished game is worth 1 / ½ / 0 for a win / draw / loss, nudged by a tenth by the
    margin (as the computer's play-outs)."""
    if state.is_over:
        odd, even = state.scores
        margin = odd - even if seat == 0 else even - odd
        base = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
        return 0.9 * base + 0.1 * (0.5 + max(-10, min(10, margin)) / 20)
    moves = state.legal_moves()
    if state.current_seat != seat:
        return sum(_worth_against_random(state.apply(move), seat) for move in moves) / len(moves)
    return max(_worth_against_random(state.apply(move), seat) for move in _best_segments(state))


def _best_segments(state: PolygonsState) -> list[Move]:
    """The segments of best exact value for the mover (by the scores of the finished drawing at the last one)."""
    def value(move: Move) -> int:
        after = state.apply(move)
        if after.is_over:
            odd, even = after.scores
            return odd - even if state.current_seat == 0 else even - odd
        return -computer.exact_margin(after)

    values = {move: value(move) for move in state.legal_moves()}
    return [move for move, v in values.items() if v == max(values.values())]


@pytest.mark.slow  # strength: hard against a random drawer
@pytest.mark.parametrize("left", [6, 8])
def test_hard_swindles_a_random_drawer_among_its_best_segments(left: int) -> None:
    # With six or eight dots left to connect, hard keeps a segment of best exact value and, among those, the one
    # worth most against an opponent drawing at random who may err, when hard keeps drawing best segments (checked
    # by an expectimax over the rules' own scoring).
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = GAME.new_state({})
        while state.phase == "place" or len(state.points) - len(state.path) > left:
            state = state.apply(rng.choice(state.legal_moves()))
        seat = state.current_seat
        optimal = _best_segments(state)
        worth = {m: _worth_against_random(state.apply(m), seat) for m in optimal}
        if len(set(worth.values())) < 2:
            continue
        move = GAME.computer_move(state, "hard", random.Random(seed))
        assert move in optimal
        assert worth[move] == pytest.approx(max(worth.values()))
        checked += 1
        if checked == 2:
            break
    assert checked == 2


@pytest.mark.slow  # equivalence: exact search with and without the table
def test_the_first_segment_is_searched_exactly_and_never_depends_on_the_table(
        monkeypatch: pytest.MonkeyPatch, search_without_cpu_cap: None) -> None:
    # With 10 dots the whole drawing after the first segment is within the exact search, so hard searches the first
    # segment exactly too, in an order of random paths, within a budget of closed paths. Given the budget of the
    # whole search, its segment has the best exact value; with its own budget it plays the same segment whether the
    # shared table is empty or warm (its search is a fresh one).
    rng = random.Random(11)
    state = GAME.new_state({})
    while state.phase == "place":
        state = state.apply(rng.choice(state.legal_moves()))
    computer._ENDGAMES.clear()
    search = computer.endgame(state.points)
    values = {(a, b): -search.value((a, b), tuple(x for x in range(10) if x not in (a, b)), -10**6, 10**6)
              for a in range(10) for b in range(10) if a != b}
    monkeypatch.setattr(computer, "FIRST_SEGMENT_LEAVES", 8_000)  # a budget the whole search exceeds
    warm = GAME.computer_move(state, "hard", random.Random(3))
    computer._ENDGAMES.clear()
    cold = GAME.computer_move(state, "hard", random.Random(3))
    assert warm == cold
    assert computer.endgame(state.points).leaves == 8_000 + 1  # the budget was spent
    monkeypatch.setattr(computer, "FIRST_SEGMENT_LEAVES", 10**6)
    monkeypatch.setattr(computer, "HARD_CPU_SECONDS", 60.0)
    move = GAME.computer_move(state, "hard", random.Random(3))
    assert isinstance(move, Connect)
    assert values[(move.start, move.end)] == max(values.values())
    assert len(set(values.values())) > 1
