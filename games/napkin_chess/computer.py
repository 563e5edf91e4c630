"""The computer of Napkin Chess: the symmetry strategy, a greedy player, a two-ply search with play-outs.

Rules follow ``seeds/napkin_chess.md``; this module only reads positions built with :mod:`games.napkin_chess.rules`
(which never imports it), through the state's samplers of legal placements (contact and random placements, the
free region). :func:`choose_move` plays per level; :func:`estimate` is the ``hard`` player's evaluation for reviews.
"""

from __future__ import annotations

import math
import random

import shapely

from games.base import Estimate, Level
from games.napkin_chess.rules import SCALE, SIZES, Move, NapkinState


def _mirror(state: NapkinState) -> Move | None:
    """The symmetry strategy's move for seat 0, or ``None`` when it does not apply or the mirror is illegal.

    On a napkin without a hole whose centre is a lattice point: open in the centre (size 2 with first_coin_two,
    else the largest size in supply), then answer every coin with the same size mirrored through the centre.
    The mirror is legal whenever its size is in supply: the position is point-symmetric before the opponent's
    coin, and that coin cannot cover the centre coin, so it cannot overlap its own mirror image.
    """
    variant = state.variant
    centre = variant.centre
    if variant.hole or centre is None or state.ply % 2 != 0:
        return None
    if not state.coins:
        allowed = state.allowed_sizes()
        return Move(allowed[-1] if allowed else 2, *centre)
    first = state.coins[0]
    if (first.x, first.y) != centre:
        return None
    w, h = variant.width, variant.height
    coins = state.coins
    for i in range(1, len(coins) - 1, 2):
        a, b = coins[i], coins[i + 1]
        if (a.size, w - a.x, h - a.y) != (b.size, b.x, b.y):
            return None
    last = coins[-1]
    move = Move(last.size, w - last.x, h - last.y)
    return move if state.is_legal(move) else None


def _room(state: NapkinState, seat: int) -> float:
    """Area (square napkin units) where ``seat`` could place its smallest allowed coin (0 when over)."""
    sizes = [s for s in SIZES if state.supply[s - 2] > 0]
    if not sizes or state.is_over:
        return 0.0
    return float(state.free_region(sizes[0]).area) / (SCALE * SCALE)


def _candidates(state: NapkinState, rng: random.Random, per_size: int) -> list[Move]:
    """Up to ``per_size`` contact placements plus two random placements for every size the seat may take."""
    moves: list[Move] = []
    for size in state.allowed_sizes():
        contacts = state.contact_placements(size, per_size, rng)
        if not contacts:
            continue
        moves.extend(contacts)
        moves.extend(m for m in state.sample_placements(size, 2, rng) if m not in moves)
    return moves


def _terminal_value(state: NapkinState, me: int) -> float:
    outcome = state.outcome
    assert outcome is not None
    scores = state.scores
    margin = scores[me] - scores[1 - me]
    if outcome.draw:
        return margin
    return (1000.0 if outcome.winner == me else -1000.0) + margin


def _leaf_value(state: NapkinState, me: int) -> float:
    if state.is_over:
        return _terminal_value(state, me)
    if state.variant.scoring == "last_mover":
        return 0.0
    scores = state.scores
    return float(scores[me] - scores[1 - me])


def _greedy(state: NapkinState, rng: random.Random) -> Move:
    """Largest coin that fits; among its contact placements the one leaving the opponent least room."""
    sizes = [s for s in state.allowed_sizes() if state.fits(s)]
    size = sizes[-1]
    moves = state.contact_placements(size, 40, rng) + state.sample_placements(size, 4, rng)
    after = list(state.supply)
    after[size - 2] -= 1
    opp_sizes = [s for s in SIZES if after[s - 2] > 0]
    if not opp_sizes:
        return moves[0]
    opp = opp_sizes[0]
    region = state.free_region(opp)
    reach = (size + opp) * SCALE

    def removed(move: Move) -> float:
        return float(region.intersection(shapely.Point(move.x, move.y).buffer(reach, quad_segs=4)).area)

    return max(moves, key=removed)


def _play_on(state: NapkinState, rng: random.Random) -> NapkinState:
    """Play on for up to _ROLLOUT_PLIES (fewer on napkins larger than 30 × 30) with both seats taking the largest
    coin that fits at a random contact placement; return the position reached."""
    area = state.variant.width * state.variant.height / (SCALE * SCALE)
    for _ in range(int(min(_ROLLOUT_PLIES, max(12, _ROLLOUT_PLIES * 900 / area)))):
        if state.is_over:
            break
        size = [s for s in state.allowed_sizes() if state.fits(s)][-1]
        state = state.apply(state.contact_placements(size, 1, rng)[0])
    return state


def _rollout(state: NapkinState, me: int, rng: random.Random) -> float:
    """The value of a play-out (:func:`_play_on`): the final value, or the points margin if still going."""
    return _leaf_value(_play_on(state, rng), me)


_SEARCH_WIDTH = 5  # candidates kept after the two-ply stage
_ROLLOUTS = 4  # play-outs per kept candidate
_ROLLOUT_PLIES = 40  # plies per play-out on napkins up to 30 × 30 (bounds the time on large napkins)
REVIEW_PLAYOUTS = 8
"""Play-outs behind each estimate of a review (:func:`estimate`)."""


def _search(state: NapkinState, rng: random.Random) -> Move:
    """Two-ply search, then play-outs of the best candidates.

    Candidates are contact and random placements of every allowed size. Each is scored by the worst reply among
    the opponent's candidates (exact end detection, then points), with the least room left to the opponent as a
    tie-break. The best few are then played out several times with the greedy policy (to the end, or for
    at most 40 plies), and the one with the best average result (win/loss first, then the points margin) is chosen.
    """
    me = state.current_seat
    assert me is not None
    scored: list[tuple[tuple[float, float], int, Move]] = []
    for index, move in enumerate(_candidates(state, rng, per_size=4)):
        child = state.apply(move)
        if child.is_over:
            value = _terminal_value(child, me)
        else:
            value = math.inf
            for reply in _candidates(child, rng, per_size=2):
                value = min(value, _leaf_value(child.apply(reply), me))
                if value <= -1000:
                    break
        scored.append(((value, -_room(child, 1 - me)), -index, move))
    scored.sort(reverse=True)
    best = scored[0]
    if best[0][0] >= 1000 or len(scored) == 1:
        return best[2]
    finalists = scored[:_SEARCH_WIDTH]
    results = []
    for key, index, move in finalists:
        child = state.apply(move)
        total = sum(_rollout(child, me, rng) for _ in range(_ROLLOUTS)) / _ROLLOUTS
        results.append((total, key, index, move))
    return max(results)[3]


def choose_move(state: NapkinState, level: Level, rng: random.Random) -> Move:
    """The computer's coin for the seat to move of a running ``state`` at ``level`` (deterministic for ``rng``):
    ``easy`` a random placement of a random size that fits, ``medium`` greedy (:func:`_greedy`), ``hard`` the
    symmetry strategy where it applies (:func:`_mirror`), else a two-ply search with play-outs (:func:`_search`)."""
    if level == "easy":
        sizes = [s for s in state.allowed_sizes() if state.fits(s)]
        return state.sample_placements(rng.choice(sizes), 1, rng)[0]
    if level == "medium":
        return _greedy(state, rng)
    return _mirror(state) or _search(state, rng)

def estimate(state: NapkinState, seat: int, rng: random.Random) -> Estimate:
    """The ``hard`` player's evaluation of ``state`` for ``seat``: the mean of :data:`REVIEW_PLAYOUTS` of its
    play-outs (largest coin that fits, at a random contact placement). With ``points`` scoring the expected
    points margin at the end of the play-outs (kind ``"margin"``); with ``last_mover`` the expected result, 1 for
    a win and -1 for a loss, 0 for a play-out that did not reach the end (kind ``"outcome"``)."""
    margin = result = 0.0
    for _ in range(REVIEW_PLAYOUTS):
        reached = _play_on(state, rng)
        scores = reached.scores
        margin += scores[seat] - scores[1 - seat]
        outcome = reached.outcome
        if outcome is not None and outcome.winner is not None:
            result += 1 if outcome.winner == seat else -1
    if state.variant.scoring == "last_mover":
        return Estimate("outcome", result / REVIEW_PLAYOUTS)
    return Estimate("margin", margin / REVIEW_PLAYOUTS)
