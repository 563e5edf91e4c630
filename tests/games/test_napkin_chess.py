"""Tests of the Napkin Chess rules core against seeds/napkin_chess.json and an independent brute-force scan."""

from __future__ import annotations

import functools
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import GAMES, IllegalMove, InvalidMove, InvalidState, InvalidVariant, Termination
from games.napkin_chess import GAME, computer
from games.napkin_chess.rules import PRESETS, SIZES, Move, NapkinState, format_move, parse_move

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "seeds" / "napkin_chess.json").read_text())


# ------------------------------------------------------------------------------------------ brute force
# Written independently of the production code: a plain numpy scan of the 0.01 lattice, no shapely, no isqrt.


def _obstacles(state: NapkinState) -> list[tuple[int, int, int]]:
    """(x, y, radius) in hundredths of every coin and of the hole (1.5 right, 0.5 up from the centre, floored)."""
    variant = state.to_dict()["variant"]
    width, height = round(variant["width"] * 100), round(variant["height"] * 100)
    found = [(round(c["x"] * 100), round(c["y"] * 100), c["size"] * 100) for c in state.to_dict()["coins"]]
    if variant["hole"]:
        found.append((width // 2 + 150, height // 2 + 50, 100))
    return found


def brute_free(state: NapkinState, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (xs, ys, mask): mask[j, i] is True when a coin of ``size`` fits with its centre at (xs[i], ys[j])."""
    variant = state.to_dict()["variant"]
    width, height = round(variant["width"] * 100), round(variant["height"] * 100)
    r = size * 100
    xs = np.arange(r, width - r + 1, dtype=np.int64)
    ys = np.arange(r, height - r + 1, dtype=np.int64)
    mask = np.ones((len(ys), len(xs)), dtype=bool)
    for cx, cy, radius in _obstacles(state):
        reach = r + radius
        i0, i1 = np.searchsorted(xs, cx - reach), np.searchsorted(xs, cx + reach, side="right")
        j0, j1 = np.searchsorted(ys, cy - reach), np.searchsorted(ys, cy + reach, side="right")
        if i0 >= i1 or j0 >= j1:
            continue
        dx2 = (xs[i0:i1] - cx) ** 2
        dy2 = (ys[j0:j1] - cy) ** 2
        mask[j0:j1, i0:i1] &= (dy2[:, None] + dx2[None, :]) >= reach * reach
    return xs, ys, mask


def brute_points(state: NapkinState, size: int) -> set[tuple[int, int]]:
    xs, ys, mask = brute_free(state, size)
    rows, cols = np.nonzero(mask)
    return {(int(xs[i]), int(ys[j])) for j, i in zip(rows.tolist(), cols.tolist(), strict=True)}


def brute_any(state: NapkinState, size: int) -> bool:
    return bool(brute_free(state, size)[2].any())


def brute_legal(state: NapkinState, move: Move) -> bool:
    """The definition, point by point: inside the napkin, and no closer to a coin or the hole than touching."""
    variant = state.to_dict()["variant"]
    width, height = round(variant["width"] * 100), round(variant["height"] * 100)
    r = move.size * 100
    if not (r <= move.x <= width - r and r <= move.y <= height - r):
        return False
    return all((move.x - cx) ** 2 + (move.y - cy) ** 2 >= (r + radius) ** 2 for cx, cy, radius in _obstacles(state))


def play(variant: dict, moves: list[str]) -> NapkinState:
    state = GAME.new_state(variant)
    for text in moves:
        state = state.play(text)
    return state


def random_board(rng: random.Random, variant: dict, coins: int) -> NapkinState:
    """Place up to ``coins`` coins at random free lattice points chosen by the brute force."""
    state = GAME.new_state(variant)
    for _ in range(coins):
        sizes = list(state.allowed_sizes())
        rng.shuffle(sizes)
        for size in sizes:
            xs, ys, mask = brute_free(state, size)
            rows, cols = np.nonzero(mask)
            if len(rows):
                k = rng.randrange(len(rows))
                state = state.apply(Move(size, int(xs[cols[k]]), int(ys[rows[k]])))
                break
        else:
            break
    return state


class BruteMasks:
    """Per-size brute-force masks of a growing board, updated coin by coin (same scan as ``brute_free``)."""

    def __init__(self, state: NapkinState) -> None:
        self.masks = {size: brute_free(state, size) for size in (2, 3, 4)}

    def add(self, move: Move) -> None:
        for size, (xs, ys, mask) in self.masks.items():
            reach = (size + move.size) * 100
            dx2 = (xs - move.x) ** 2
            dy2 = (ys - move.y) ** 2
            mask &= (dy2[:, None] + dx2[None, :]) >= reach * reach


def pocket_board(rng: random.Random, squeeze: int = 0) -> tuple[NapkinState, Move]:
    """A 16 × 16 board whose only room for a size-2 coin is a pocket barely larger than the coin, around p.

    Four coins touch the size-2 disk at p from four sides (about 90° apart, rounded outwards to the lattice,
    plus 0-3 hundredths of random slack); ``squeeze`` pulls the first of them that many hundredths closer,
    which may close the pocket. The rest of the napkin is then filled with random coins that keep p free, so
    every remaining size-2 centre lies within 4 of p, inside the pocket.
    """
    variant = {"width": 16, "height": 16, "supply": [60, 60, 60], "first_coin_two": False}
    while True:
        state = GAME.new_state(variant)
        px, py = rng.randint(750, 850), rng.randint(750, 850)
        base = rng.uniform(0, 2 * math.pi)
        try:
            for k in range(4):
                angle = base + k * math.pi / 2 + rng.uniform(-0.05, 0.05)
                size = rng.choice((2, 3))
                ux, uy = math.cos(angle), math.sin(angle)
                reach = 200 + size * 100
                slack = rng.choice((0, 0, 1, 2, 3)) - (squeeze if k == 0 else 0)
                ix, iy = px + (reach + slack) * ux, py + (reach + slack) * uy
                qx = math.ceil(ix) if ux > 0 else math.floor(ix)
                qy = math.ceil(iy) if uy > 0 else math.floor(iy)
                state = state.apply(Move(size, qx, qy))
        except IllegalMove:
            continue
        break
    masks = BruteMasks(state)
    while True:
        options = []
        for size, (xs, ys, mask) in masks.masks.items():
            if size not in state.allowed_sizes():
                continue
            keeps = ((xs[None, :] - px) ** 2 + (ys[:, None] - py) ** 2) >= (200 + size * 100) ** 2
            rows, cols = np.nonzero(mask & keeps)
            if len(rows):
                options.append((size, xs, ys, rows, cols))
        if not options:
            return state, Move(2, px, py)
        size, xs, ys, rows, cols = rng.choice(options)
        k = rng.randrange(len(rows))
        move = Move(size, int(xs[cols[k]]), int(ys[rows[k]]))
        state = state.apply(move)
        masks.add(move)


def assert_agrees(state: NapkinState) -> None:
    """The production end-of-game decision and samplers agree with the brute force for every size."""
    for size in (2, 3, 4):
        xs, ys, mask = brute_free(state, size)
        fresh = NapkinState.from_dict(state.to_dict())  # no inherited witnesses
        assert fresh.fits(size) == bool(mask.any()), (size, state.to_dict())
        assert state.fits(size) == bool(mask.any())
        rng = random.Random(size)
        found = [(m.x, m.y) for m in state.sample_placements(size, 5, rng) + state.contact_placements(size)[:20]]
        for x, y in found + fresh.pocket_points(size, limit=4):
            assert bool(mask[np.searchsorted(ys, y), np.searchsorted(xs, x)])
            assert xs[np.searchsorted(xs, x)] == x and ys[np.searchsorted(ys, y)] == y
    sizes = state.allowed_sizes()
    assert state.is_over == (not sizes or not brute_any(state, sizes[0]))


# -------------------------------------------------------------------------------------------- notation


@pytest.mark.parametrize("case", VECTORS["notation"]["valid"], ids=lambda c: c["text"])
def test_notation_valid(case: dict) -> None:
    move = parse_move(case["text"])
    assert (move.size, move.x, move.y) == (case["size"], case["x"], case["y"])
    assert format_move(move) == case["canonical"]
    assert parse_move(format_move(move)) == move
    assert GAME.new_state().parse_move(case["text"]) == move


@pytest.mark.parametrize("text", VECTORS["notation"]["malformed"])
def test_notation_malformed(text: str) -> None:
    with pytest.raises(InvalidMove) as error:
        parse_move(text)
    assert str(error.value).endswith(".")


def test_malformed_messages_say_what_is_wrong() -> None:
    cases = {"2@1.234,3": "2 decimal", "2@-1,3": "negative", "5@3,3": "2, 3 or 4", "2@nan,3": "not a decimal",
             "2@1e309,3": "not a decimal", "2@3": "two coordinates"}
    for text, phrase in cases.items():
        with pytest.raises(InvalidMove, match=phrase):
            parse_move(text)


@pytest.mark.parametrize("args", [(5, 100, 100), (2, -1, 100), (2, 100, 1.5), (True, 100, 100), (2, 100, True)])
def test_move_constructor_rejects(args: tuple) -> None:
    with pytest.raises(InvalidMove):
        Move(*args)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from((2, 3, 4)), st.integers(0, 10**7), st.integers(0, 10**7))
def test_notation_round_trip(size: int, x: int, y: int) -> None:
    move = Move(size, x, y)
    assert parse_move(format_move(move)) == move
    spaced = format_move(move).replace("@", " @ ").replace(",", " , ")
    assert parse_move(spaced) == move


# ---------------------------------------------------------------------------------------- placements


@pytest.mark.parametrize("case", VECTORS["placements"], ids=lambda c: c["name"])
def test_placement_vectors(case: dict) -> None:
    state = play(case["variant"], case["moves"])
    for check in case["checks"]:
        move = parse_move(check["move"])
        assert state.is_legal(move) == check["legal"], check
        if check["legal"]:
            after = state.apply(move)
            assert after.last_move == move and after.ply == state.ply + 1
        else:
            with pytest.raises(IllegalMove) as error:
                state.apply(move)
            for phrase in check.get("says", []):
                assert phrase in str(error.value), (phrase, str(error.value))
        if move.size in state.allowed_sizes():
            assert brute_legal(state, move) == check["legal"]


@pytest.mark.parametrize("case", VECTORS["boards"], ids=lambda c: c["name"])
def test_board_vectors(case: dict) -> None:
    state = play(case["variant"], case["moves"])
    for size, expected in case.get("fits", {}).items():
        assert state.fits(int(size)) is expected
        assert brute_any(state, int(size)) is expected
    for size, texts in case.get("free_points", {}).items():
        expected = {(m.x, m.y) for m in map(parse_move, texts)}
        assert brute_points(state, int(size)) == expected
        sampled = state.sample_placements(int(size), 10, random.Random(0)) if state.can_place(int(size)) else []
        assert {(m.x, m.y) for m in sampled} == expected
    if "then" in case:
        state = play(case["variant"], case["moves"] + case["then"]["moves"])
        case = {**case, **case["then"]}
    if "over" in case:
        assert state.is_over is case["over"]
        outcome = state.outcome
        assert outcome is not None and state.current_seat is None and state.legal_moves() == []
        assert outcome.winner == case["winner"]
        assert outcome.draw is case.get("draw", False)
        assert list(outcome.scores) == case["scores"]
        assert outcome.termination is Termination.NATURAL
        assert GAME.describe_end(outcome) == "no coin fits"
        assert state.supply_exhausted is (case["reason"] == "supply exhausted")
        with pytest.raises(IllegalMove, match="over"):
            state.apply(Move(2, 1500, 1500))
        with pytest.raises(IllegalMove):
            GAME.computer_move(state, "easy", random.Random(0))


def test_touching_legal_overlap_by_hundredth_not_in_every_direction() -> None:
    state = play({}, ["2@15,15"])
    # Pythagorean offsets give exact touching points: distance 5 = 2 + 3.
    for dx, dy in ((500, 0), (0, 500), (-300, 400), (400, -300), (-400, -300), (0, -500)):
        touching = Move(3, 1500 + dx, 1500 + dy)
        assert state.is_legal(touching)
        closer = Move(3, 1500 + dx - (dx > 0) + (dx < 0), 1500 + dy)
        if dx:
            assert not state.is_legal(closer)


def test_supply_runs_out_and_first_coin_rule() -> None:
    state = GAME.new_state({"supply": [2, 1, 0]})
    with pytest.raises(IllegalMove, match="first coin"):
        state.play("3@10,10")
    state = state.play("2@5,5").play("3@20,20")
    assert state.supply == (1, 0, 0)
    assert state.allowed_sizes() == (2,)
    assert not state.can_place(3) and not state.can_place(4) and state.can_place(2)
    with pytest.raises(IllegalMove, match="No size-3 coins"):
        state.play("3@10,25")
    state = state.play("2@25,5")
    assert state.supply == (0, 0, 0)
    assert state.is_over and state.supply_exhausted and state.outcome.termination is Termination.NATURAL
    assert state.outcome.scores == (4, 3) and state.outcome.winner == 0


def test_apply_does_not_change_state_and_rejects_non_moves() -> None:
    state = play({}, ["2@15,15"])
    before = state.to_dict()
    with pytest.raises(IllegalMove):
        state.play("2@16,16")
    with pytest.raises(IllegalMove):
        state.apply("2@3,3")  # type: ignore[arg-type]
    assert state.to_dict() == before


# ------------------------------------------------------------------------------------------- variants


@pytest.mark.parametrize("case", VECTORS["variants"]["valid"], ids=lambda c: json.dumps(c["options"]))
def test_variant_valid(case: dict) -> None:
    variant = GAME.new_state(case["options"]).to_dict()["variant"]
    assert set(variant) == set(GAME.variant_defaults())
    for key, value in case["expect"].items():
        assert variant[key] == value


@pytest.mark.parametrize("case", VECTORS["variants"]["invalid"], ids=lambda c: json.dumps(c["options"]))
def test_variant_invalid(case: dict) -> None:
    with pytest.raises(InvalidVariant) as error:
        GAME.new_state(case["options"])
    assert case["names"] in str(error.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -30, 1e309])
def test_variant_rejects_non_finite_sides(value: float) -> None:
    with pytest.raises(InvalidVariant, match="width"):
        GAME.new_state({"width": value})


def test_defaults_and_presets() -> None:
    facts = VECTORS["source_facts"]
    assert GAME.variant_defaults() == facts["default_variant"]
    assert set(PRESETS) >= {"classic", "holed"}
    for name, options in PRESETS.items():
        assert GAME.new_state({"preset": name}).to_dict()["variant"] == {"preset": name, **options}
    hole = parse_move(f"2@{facts['hole_centre']}")
    state = GAME.new_state({"hole": True})
    assert state.variant.hole_centre == (hole.x, hole.y)
    assert GAMES["napkin_chess"] is GAME


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_plays_its_own_napkin_and_supply(name: str) -> None:
    """The variant of a preset (as the start command asks for it) is the preset's napkin and supply, not the
    classic defaults; options given alongside override the preset one by one."""
    preset = PRESETS[name]
    variant = GAME.variant({"preset": name})
    assert (variant["width"], variant["height"], variant["supply"]) == (
        preset["width"], preset["height"], preset["supply"])
    state = GAME.new_state(variant)
    assert (state.variant.width, state.variant.height) == (preset["width"] * 100, preset["height"] * 100)
    assert state.supply == tuple(preset["supply"])
    # Options left empty (None) come from the preset; coins_3 overrides one count only.
    partial = GAME.variant({"preset": name, "width": None, "coins_3": 1, "scoring": None})
    assert partial["width"] == preset["width"] and partial["scoring"] == preset["scoring"]
    assert partial["supply"] == [preset["supply"][0], 1, preset["supply"][2]]
    assert GAME.variant(partial) == partial


def test_quick_preset_differs_from_classic() -> None:
    assert GAME.variant({"preset": "quick"})["width"] == 20.0 != GAME.variant({})["width"]
    assert GAME.new_state({"preset": "quick"}).supply == (10, 6, 3)


# ---------------------------------------------------------------------------------------- serialisation


def test_round_trip_and_json() -> None:
    state = random_board(random.Random(7), {"preset": "holed"}, 12)
    data = json.loads(json.dumps(state.to_dict()))
    assert data["game"] == "napkin_chess" and data["ply"] == 12 and data["last_move"] == format_move(state.last_move)
    again = NapkinState.from_dict(data)
    assert again == state and again.to_dict() == state.to_dict()
    assert GAME.load(data) == state


def _corrupt(data: dict, path: tuple, value: object) -> dict:
    copy = json.loads(json.dumps(data))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("game",), "chopsticks"),
        (("variant", "width"), 3),
        (("variant", "supply"), [1, 0, 0]),
        (("coins", 1, "seat"), 0),
        (("coins", 1, "x"), 15.001),
        (("coins", 1, "x"), "far"),
        (("coins", 1, "size"), 5),
        (("coins", 1, "x"), 19.99),
        (("coins", 0, "size"), 3),
        (("ply",), 7),
        (("scores",), [0, 0]),
        (("supply",), [20, 15, 7]),
        (("last_move",), "2@1,1"),
        (("current_seat",), 0),
        (("coins",), "none"),
    ],
)
def test_from_dict_rejects(path: tuple, value: object) -> None:
    data = play({}, ["2@15,15", "3@20,15", "4@24,24"]).to_dict()
    with pytest.raises(InvalidState):
        NapkinState.from_dict(_corrupt(data, path, value))


def test_from_dict_rejects_coin_after_the_end() -> None:
    case = next(c for c in VECTORS["boards"] if c["name"].startswith("the same pocket narrowed"))
    data = play(case["variant"], case["moves"]).to_dict()
    data["coins"].append({"seat": 1, "size": 2, "x": 2, "y": 2})
    with pytest.raises(InvalidState, match="Coin 2"):
        NapkinState.from_dict(data)
    with pytest.raises(InvalidState):
        NapkinState.from_dict(["not", "a", "mapping"])  # type: ignore[arg-type]


# --------------------------------------------------------------------- end-of-game decision vs brute force


@pytest.mark.parametrize("seed", range(30))
def test_random_boards_agree_with_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    width, height = rng.choice([(8, 8), (10, 9), (12, 12), (9.5, 13.25), (14, 10)])
    variant = {"width": width, "height": height, "hole": rng.random() < 0.5, "supply": [30, 30, 30]}
    state = random_board(rng, variant, rng.randint(0, 20))
    assert_agrees(state)


@pytest.mark.parametrize("seed", range(8))
def test_tight_pockets_agree_with_brute_force(seed: int) -> None:
    rng = random.Random(100 + seed)
    state, centre = pocket_board(rng)
    assert brute_legal(state, centre)
    points = brute_points(state, 2)
    assert all((x - centre.x) ** 2 + (y - centre.y) ** 2 < 400**2 for x, y in points)  # one pocket around p
    assert_agrees(state)
    assert set(state.pocket_points(2, limit=4)) <= points
    # Filling the pocket at p leaves the rest of the pocket (if any) to the exact scan.
    assert_agrees(state.apply(centre))


@pytest.mark.parametrize("seed", range(6))
def test_squeezed_pockets_agree_with_brute_force(seed: int) -> None:
    state, _ = pocket_board(random.Random(200 + seed), squeeze=seed % 3 + 1)
    assert_agrees(state)


def test_boards_with_no_room_agree_with_brute_force() -> None:
    rng = random.Random(5)
    for _ in range(4):
        state = random_board(rng, {"width": 10, "height": 10, "supply": [30, 30, 30], "first_coin_two": False}, 40)
        assert state.is_over
        assert not any(brute_any(state, s) for s in (2, 3, 4))
        assert_agrees(state)


def test_full_size_game_ends_exactly() -> None:
    rng = random.Random(11)
    state = GAME.new_state({"preset": "holed"})
    seen_mid = False
    while not state.is_over:
        state = state.apply(GAME.computer_move(state, "medium", rng))
        if state.ply == 10:
            assert_agrees(state)
            seen_mid = True
    assert seen_mid
    smallest = next(s for s in (2, 3, 4) if state.supply[s - 2])
    assert not brute_any(state, smallest)
    assert NapkinState.from_dict(state.to_dict()).is_over


# --------------------------------------------------------------------------------------------- computer


@pytest.mark.slow  # strength: every level's searches played out twice
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_computer_moves_are_legal_and_deterministic(level: str, search_without_cpu_cap: None) -> None:
    state = random_board(random.Random(3), {"preset": "holed"}, 9)
    first = GAME.computer_move(state, level, random.Random(42))
    assert first == GAME.computer_move(state, level, random.Random(42))
    assert state.is_legal(first) and brute_legal(state, first)
    with pytest.raises(ValueError, match="Unknown level 'grandmaster'"):
        GAME.computer_move(state, "grandmaster", random.Random(0))  # type: ignore[arg-type]


def test_medium_takes_the_largest_coin_that_fits() -> None:
    state = play({}, ["2@15,15"])
    assert GAME.computer_move(state, "medium", random.Random(0)).size == 4
    case = next(c for c in VECTORS["boards"] if c["name"].startswith("a pocket of exactly one"))
    pocket = play(case["variant"], case["moves"])
    assert format_move(GAME.computer_move(pocket, "medium", random.Random(0))) == "2@2,2"


def test_hard_finds_the_winning_last_coin() -> None:
    # last_mover: seat 1 must take the only point left; any other answer would lose.
    case = next(c for c in VECTORS["boards"] if c["name"].startswith("a pocket of exactly one"))
    state = play({**case["variant"], "scoring": "last_mover"}, case["moves"])
    assert format_move(GAME.computer_move(state, "hard", random.Random(1))) == "2@2,2"


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    side=st.sampled_from([(30, 30), (20, 14), (16.5, 22.5), (12, 12)]),
    setup=st.sampled_from([(True, (21, 16, 8)), (True, (5, 4, 2)), (True, (9, 0, 2)), (False, (20, 15, 8)),
                           (False, (4, 4, 5))]),
)
def test_symmetry_strategy_wins_where_the_supply_is_even_after_the_opening(seed, side, setup) -> None:
    """Where every count is even after the opening coin, hard opens in the centre, mirrors every coin and wins."""
    first_coin_two, supply = setup
    rng = random.Random(seed)
    state = GAME.new_state({"width": side[0], "height": side[1], "first_coin_two": first_coin_two,
                            "supply": list(supply)})
    width, height = state.variant.width, state.variant.height
    opening = next(size for size, count in zip((2, 3, 4), supply, strict=True) if count % 2)
    assert computer.mirror_opening(state.variant) == opening
    move = GAME.computer_move(state, "hard", rng)
    assert (move.x * 2, move.y * 2, move.size) == (width, height, opening)
    state = state.apply(move)
    while not state.is_over:
        state = state.apply(GAME.computer_move(state, "easy", rng))
        if state.is_over:
            break
        last = state.last_move
        mirror = Move(last.size, width - last.x, height - last.y)
        assert state.supply[last.size - 2] > 0
        assert state.is_legal(mirror) and brute_legal(state, mirror)
        assert GAME.computer_move(state, "hard", rng) == mirror
        state = state.apply(mirror)
    assert state.ply % 2 == 1 and state.outcome.winner == 0  # seat 0 placed the last coin and leads by the opening


@pytest.mark.slow  # strength: the symmetry strategy played out
def test_symmetry_strategy_needs_a_lattice_centre_and_no_hole() -> None:
    for variant in ({"width": 16.5, "height": 22.25, "supply": [21, 16, 8]}, {"hole": True, "supply": [21, 16, 8]}):
        state = GAME.new_state(variant)
        assert computer.mirror_opening(state.variant) is None
        move = GAME.computer_move(state, "hard", random.Random(0))
        assert state.is_legal(move) and (move.x * 2, move.y * 2) != (state.variant.width, state.variant.height)
        state = state.apply(move)
        state = state.apply(GAME.computer_move(state, "easy", random.Random(1)))
        assert state.is_legal(GAME.computer_move(state, "hard", random.Random(2)))


def test_symmetry_strategy_while_it_holds_in_the_classic_supply() -> None:
    """Classic leaves 19 / 15 / 7 after the opening 2: not proven, yet hard opens in the centre and mirrors while the
    mirror's size is in supply; once the opponent has taken the last coin of a size, it plays on by its search."""
    state = GAME.new_state({})
    assert computer.mirror_opening(state.variant) is None
    assert format_move(GAME.computer_move(state, "hard", random.Random(0))) == "2@15,15"
    state = play({}, ["2@15,15", "4@4,4"])
    assert format_move(GAME.computer_move(state, "hard", random.Random(0))) == "4@26,26"
    state = play({"supply": [20, 15, 3]}, ["2@15,15", "4@4,4", "4@26,26", "4@4,26"])  # the last 4 is gone
    move = GAME.computer_move(state, "hard", random.Random(0))
    assert state.is_legal(move) and move.size in (2, 3) and state.variant.centre is not None


def _small_graph(seed: int, scoring: str) -> tuple[NapkinState, list[Move]]:
    """A position of a 20 × 16 napkin after a few coins, and up to 22 of its legal placements drawn at random,
    about a third of each size."""
    rng = random.Random(seed)
    state = GAME.new_state({"width": 20, "height": 16, "supply": [9, 3, 3], "scoring": scoring})
    for _ in range(2 + seed % 3):
        state = state.apply(GAME.computer_move(state, "easy", rng))
    moves = sorted({m for size in state.allowed_sizes() for m in state.sample_placements(size, 7, rng)})
    return state, moves


def _brute_values(state: NapkinState, moves: list[Move]) -> list[int]:
    """Plain minimax over the placements ``moves`` (no decomposition, no pruning): the value of each for the mover
    (points margin still to come, or +1 / -1 for placing the last coin), 3s and 4s counted, 2s unlimited."""
    points = state.variant.scoring == "points"
    n = len(moves)
    overlaps = [sum(1 << j for j, b in enumerate(moves)
                    if (a.x - b.x) ** 2 + (a.y - b.y) ** 2 < (a.radius + b.radius) ** 2) for a in moves]

    @functools.cache
    def value(mask: int, threes: int, fours: int) -> int:
        found = [gain(i, mask, threes, fours) for i in range(n) if mask >> i & 1 and
                 not (moves[i].size == 3 and not threes) and not (moves[i].size == 4 and not fours)]
        return max(found) if found else (0 if points else -1)

    def gain(i: int, mask: int, threes: int, fours: int) -> int:
        size = moves[i].size
        return (size if points else 0) - value(mask & ~overlaps[i], threes - (size == 3), fours - (size == 4))

    supply = state.supply
    return [gain(i, (1 << n) - 1, supply[1], supply[2]) for i in range(n)]


@pytest.mark.slow  # cross-check: the exact search against plain minimax
@pytest.mark.parametrize("scoring", ["points", "last_mover"])
@pytest.mark.parametrize("seed", range(10))
def test_exact_search_agrees_with_plain_minimax_on_the_graph(seed: int, scoring: str) -> None:
    """The exact search (Grundy values of the size-2-only parts, alpha-beta with a bounds table on the rest) gives
    the value and the best placements that plain minimax over the same placements gives."""
    state, moves = _small_graph(seed, scoring)
    assert {2, 3} <= {m.size for m in moves} and all(state.is_legal(m) for m in moves)
    supply = state.supply
    graph = computer._Graph(moves, scoring == "points", supply[1], supply[2], 10**9)
    value, keeping = graph.best()
    brute = _brute_values(state, moves)
    assert value == max(brute)
    assert sorted(moves[i] for i in keeping) == sorted(m for m, v in zip(moves, brute, strict=True) if v == value)


def test_the_exact_search_makes_each_move_only_when_it_is_searched() -> None:
    """Moves come largest coin first and cost a step each only as the search asks for them, so a cut-off after the
    first move spares the others' work. Four coins far apart: the lone 2 is a size-2-only part (Grundy value 1,
    one move that takes no step), the 3s and the 4 are the big parts."""
    moves = [Move(2, 300, 300), Move(3, 1200, 300), Move(4, 2400, 2400), Move(3, 300, 1200)]
    graph = computer._Graph(moves, True, 2, 1, computer._INFINITY)
    big, grundy = graph.split(graph.full)
    assert (big, grundy) == (0b1110, 1)
    graph.work = 0  # the lone 2's Grundy value took a step
    children = graph.children((big, grundy, 2, 1))
    assert next(children)[0] == 4 and graph.work == 1
    assert [gain for gain, _ in children] == [3, 3, 2] and graph.work == 3
    # Every coin fits whatever the order: the mover's 4 and 3 against the opponent's 3 and 2, a margin of 2. Asked
    # only whether it reaches 2, the search stops after the 4, its first move, without making the other three.
    full = computer._Graph(moves, True, 2, 1, computer._INFINITY)
    assert full.value((big, grundy, 2, 1)) == 2
    test = computer._Graph(moves, True, 2, 1, computer._INFINITY)
    assert test.value((big, grundy, 2, 1), 1, 2) == 2
    assert (test.work, full.work) == (7, 17)


@pytest.mark.slow  # equivalence: a position's whole graph against the rules
def test_graph_of_a_position_holds_only_legal_placements_and_stops_at_its_budget() -> None:
    state = random_board(random.Random(5), {"preset": "holed"}, 12)
    graph = computer._Graph.of(state, 75, 5)
    assert graph.moves and all(brute_legal(state, m) for m in graph.moves)
    assert {m.size for m in graph.moves} == {s for s in state.allowed_sizes() if state.fits(s)}
    with pytest.raises(computer._OutOfWork):
        graph.best()


class _LoadedClock:
    """The CPU clock as a search on a loaded machine reads it (a stand-in for :mod:`time` in the computer's module):
    every look finds its whole CPU budget spent."""

    def __init__(self) -> None:
        self.now = 0.0
        self.looks = 0

    def process_time(self) -> float:
        self.looks += 1
        self.now += 10.0
        return self.now


@pytest.mark.slow  # strength: hard's searches played out twice
@pytest.mark.parametrize("preset", ["classic", "holed"])
def test_hard_plays_legal_moves_and_is_deterministic(preset: str, monkeypatch: pytest.MonkeyPatch,
                                                     search_without_cpu_cap: None) -> None:
    """A whole seeded match of hard against medium: every hard move legal (exactly, by the brute-force test), and the
    same seed gives the same move again, however loaded the machine. The determinism is the search's, with its work
    budgets: the CPU cap on top of them (:data:`computer.HARD_CPU_SECONDS`, kept in production) lets a busy machine
    cut the play-outs short, where the move may differ, so the search runs here without it (under load the cap made
    this test fail now and then)."""
    rng = random.Random(7)
    state = GAME.new_state({"preset": preset})
    while not state.is_over:
        if state.ply % 2 == 0:
            seed = rng.getrandbits(32)
            move = GAME.computer_move(state, "hard", random.Random(seed))
            assert brute_legal(state, move)
            if state.ply in (0, 8, 12):
                with monkeypatch.context() as loaded:
                    loaded.setattr(computer, "time", _LoadedClock())  # the same search, on a busy machine
                    assert GAME.computer_move(state, "hard", random.Random(seed)) == move
        else:
            move = GAME.computer_move(state, "medium", rng)
        state = state.apply(move)
    assert state.outcome is not None


def test_hards_cpu_cap_stops_its_play_outs_on_a_loaded_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The production cap holds: a search whose every look at the clock finds its budget spent stops its play-outs
    at its first look (each candidate tried once) and still plays a legal move."""
    assert computer.HARD_CPU_SECONDS == 0.8
    state = GAME.new_state({"preset": "holed"})  # (the bandit's position: no exact search, no mirror)
    clock = _LoadedClock()
    monkeypatch.setattr(computer, "time", clock)
    move = GAME.computer_move(state, "hard", random.Random(3))
    assert brute_legal(state, move)
    assert clock.looks == 2  # the move's deadline, then the bandit's first look: stopped there


# ------------------------------------------------------------------------------------------ random games


@pytest.mark.slow  # a sweep: random games played to their end
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    side=st.sampled_from([(8, 8), (10, 12), (13.37, 9.01), (18, 18)]),
    hole=st.booleans(),
    scoring=st.sampled_from(["points", "last_mover"]),
    supply=st.lists(st.integers(0, 6), min_size=3, max_size=3).filter(lambda s: s[0] > 0),
    levels=st.tuples(st.sampled_from(["easy", "medium", "hard"]), st.sampled_from(["easy", "medium", "hard"])),
)
def test_random_games_end(seed, side, hole, scoring, supply, levels) -> None:
    rng = random.Random(seed)
    state = GAME.new_state({"width": side[0], "height": side[1], "hole": hole, "scoring": scoring,
                            "supply": supply})
    while not state.is_over:
        assert state.current_seat == state.ply % 2
        samples = state.legal_moves()
        assert samples and all(state.is_legal(m) for m in samples)
        state = state.apply(GAME.computer_move(state, levels[state.ply % 2], rng))
        assert state.ply <= sum(supply)
    outcome = state.outcome
    assert outcome is not None and state.current_seat is None
    assert outcome.scores == state.scores
    if scoring == "last_mover":
        assert outcome.winner == (state.ply - 1) % 2
    elif state.scores[0] == state.scores[1]:
        assert outcome.draw
    else:
        assert state.scores[outcome.winner] > state.scores[1 - outcome.winner]
    sizes = state.allowed_sizes()
    assert not sizes or not brute_any(state, sizes[0])
    assert NapkinState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_playouts_draw_uniformly_among_the_placements_left_largest_size_first() -> None:
    """On three size-2 placements in a row (the middle one overlaps both ends), a uniform draw takes the middle
    one first a third of the time: one coin, 2 points to the mover; otherwise both ends, margin 0. A size-3
    placement apart from them is always taken first. The lists a caller passes are left as they were."""
    row = [Move(2, 200, 200), Move(2, 500, 200), Move(2, 800, 200)]
    graph = computer._Graph(row, True, 0, 0, computer._INFINITY)
    lists = graph.playout_lists(graph.full)
    assert lists == ([], [], [0, 1, 2])
    rng = random.Random(4)
    values = [graph.playout(graph.full, 0, 0, rng, lists) for _ in range(3000)]
    assert lists == ([], [], [0, 1, 2])
    assert set(values) == {0, 2} and 0.3 < values.count(2) / 3000 < 0.367
    with_three = computer._Graph([*row, Move(3, 2000, 2000)], True, 1, 0, computer._INFINITY)
    # The 3 first (+3), then the row from the opponent's side: -2 a third of the time, else 0.
    values = [with_three.playout(with_three.full, 1, 0, rng) for _ in range(3000)]
    assert set(values) == {3, 1} and 0.3 < values.count(1) / 3000 < 0.367
    assert {with_three.playout(with_three.full, 0, 0, rng) for _ in range(50)} == {0, 2}  # no 3 left in supply


def test_hard_runs_its_full_playouts_where_the_exact_search_is_not_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    state = random_board(random.Random(3), {"preset": "holed"}, 9)
    assert computer._exact_graph(state, computer.EXACT_STEPS) is None  # too large: the bandit moves
    runs: list[int] = []
    real = computer._Graph.playout
    monkeypatch.setattr(computer._Graph, "playout", lambda graph, *a: runs.append(1) or real(graph, *a))
    move = computer.choose_move(state, "hard", random.Random(0))
    assert state.is_legal(move)
    assert computer.PLAYOUTS == 4_000 and len(runs) == 4_000


def test_the_bandit_stops_at_its_cpu_cap_after_trying_every_placement(monkeypatch: pytest.MonkeyPatch) -> None:
    state = random_board(random.Random(3), {"preset": "holed"}, 9)
    runs: list[int] = []
    real = computer._Graph.playout
    monkeypatch.setattr(computer._Graph, "playout", lambda graph, *a: runs.append(1) or real(graph, *a))
    free = computer._bandit_move(state, random.Random(0), 600)
    assert free is not None and state.is_legal(free) and len(runs) == 600  # no cap: every play-out
    runs.clear()
    capped = computer._bandit_move(state, random.Random(0), 600, deadline=0.0)
    assert capped is not None and state.is_legal(capped)
    assert 0 < len(runs) < 600  # the clock stopped it, once each placement had its first play-out
    # One play-out each for up to 24 placements of each size, one per distinct result on the graph.
    graph = computer._graph(state, computer._BANDIT_SPACINGS, computer._BANDIT_NODES, computer._INFINITY)
    assert graph is not None
    results = {(move.size, graph.full & ~graph.conflicts[i]) for i, move in enumerate(graph.moves)
               if graph.playable(move.size)}
    per_size = [sum(1 for size, _ in results if size == wanted) for wanted in SIZES]
    assert computer._BANDIT_PER_SIZE == 24 and max(per_size) > 24
    arms = sum(min(24, count) for count in per_size)
    assert arms <= len(runs) < arms + computer._CLOCK_EVERY  # the clock is read every _CLOCK_EVERY play-outs
