"""Pairing a tournament's rounds, behind our own small interface: the FIDE Dutch Swiss system and the FIDE Berger
round-robin tables of ``caissify-pairings``, with networkx's maximum-weight matching as the Swiss fallback.

No ``discord`` import and nothing of storage: plain values in, plain values out, so that a round is paired in a
worker process (:meth:`bot.service.computer.ComputerPool.pair` runs :func:`pair_round`) and never on the event loop,
and so that the engine can be replaced without touching the tournament service.

What the Dutch engine is fed (FIDE Handbook C.04.3, and caissify-pairings' "caller responsibilities"): every
entrant's points, starting number and rating, the colours of the games they played (our seats: the first seat is
White, the second Black), their float history (one entry per round: ``down`` when they met an opponent with fewer
points before the round, or received the pairing-allocated bye; ``up`` when the opponent had more; else ``none``),
the pairing-allocated byes and forfeit wins they received (either makes a player ineligible for the bye, C.04.1 §c),
and every pair that already met (never paired again). A pairing the engine returns is checked here
(:func:`check_swiss`); one that breaks a rule, or an engine error, falls back to :func:`matching_pairing`.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

log = logging.getLogger(__name__)

Engine = Literal["dutch", "matching"]
"""``dutch``: caissify-pairings' FIDE Dutch system (the default); ``matching``: networkx's maximum-weight matching."""
ENGINES: tuple[Engine, ...] = ("dutch", "matching")
DUTCH_PLAYERS = 128
"""The most players whose Swiss rounds the FIDE Dutch engine pairs: a round of 128 takes about 7 s on 2 cores
(``make bench``), under the 10 s a pairing may take. A larger tournament's rounds are paired by the maximum-weight
matching, which keeps the absolute rules (no repeat, one bye each, seats) but not all of the Dutch order."""
PAIRING_BUDGET = 60.0
"""CPU seconds a worker may spend pairing one round before the round is left for the next attempt (its wait for a
worker, and a busy machine, do not count: :meth:`bot.service.computer.ComputerPool.pair`; a pairing of the largest
tournament allowed takes about a tenth of this on 2 cores: ``make bench``)."""


class PairingError(Exception):
    """A pairing breaks a rule (a repeat, a player twice or missing, two byes...); the message says which."""


@dataclass(frozen=True)
class Entrant:
    """One player to pair, as the rounds played so far leave them.

    Attributes:
        key: who (a member's id; the computer's id for the computer).
        number: the starting number, 1 for the top seed (by rating at the start, then by entry).
        rating: the rating the starting numbers were drawn from.
        points: points so far (1 a win, ½ a draw, byes as scored).
        seats: per round played so far, the seat held: 0 first (White), 1 second (Black), ``None`` when no game
            was played that round (a bye, a forfeit, not paired).
        floats: per round so far, ``"up"``, ``"down"`` or ``"none"`` (see the module's docstring).
        byes: pairing-allocated (full-point) byes received.
        forfeit_wins: games won because the opponent never played them.
        opponents: keys of everyone already met.
    """

    key: int
    number: int
    rating: int = 0
    points: float = 0.0
    seats: tuple[int | None, ...] = ()
    floats: tuple[str, ...] = ()
    byes: int = 0
    forfeit_wins: int = 0
    opponents: frozenset[int] = field(default_factory=frozenset)

    @property
    def played_seats(self) -> list[int]:
        """The seats of the games actually played, oldest first."""
        return [seat for seat in self.seats if seat is not None]

    @property
    def bye_eligible(self) -> bool:
        """Neither a pairing-allocated bye nor a forfeit win yet (FIDE C.04.1 §c)."""
        return self.byes == 0 and self.forfeit_wins == 0


@dataclass(frozen=True)
class Board:
    """One pairing: ``first`` moves first (White); ``second`` is ``None`` for the bye."""

    first: int
    second: int | None = None

    @property
    def is_bye(self) -> bool:
        """``True`` for the bye."""
        return self.second is None


@dataclass(frozen=True)
class Pairing:
    """A round's boards (games first, by table, then the bye) and the engine that made them."""

    boards: tuple[Board, ...]
    engine: str
    """``"dutch"``, ``"berger"``, or ``"matching"`` (with the reason when it stood in for the Dutch engine)."""


@dataclass(frozen=True)
class SwissRequest:
    """A Swiss round to pair (what crosses to a worker process): the entrants, the round and the tournament's
    length, and the engine asked for."""

    entrants: tuple[Entrant, ...]
    round_number: int
    total_rounds: int
    engine: Engine = "dutch"


@dataclass(frozen=True)
class RoundRobinRequest:
    """A round-robin round to pair: every entrant's key in starting order (all of them, withdrawn ones too: the
    table is fixed at the start) and the round."""

    keys: tuple[int, ...]
    round_number: int


def round_robin_rounds(players: int) -> int:
    """Rounds of a single round robin of ``players``: ``players - 1``, or ``players`` when odd (each sits out once)."""
    return players if players % 2 else players - 1


def pair_round(request: SwissRequest | RoundRobinRequest) -> Pairing:
    """Pair the round ``request`` describes (a module-level function: what a worker process runs).

    Raises:
        PairingError: a round-robin round outside the table, or a Swiss round no engine can pair within the rules
            (fewer than two entrants, or every remaining pair has met).
    """
    if isinstance(request, RoundRobinRequest):
        return pair_round_robin(request.keys, request.round_number)
    return pair_swiss(request.entrants, request.round_number, request.total_rounds, engine=request.engine)


# ---------------------------------------------------------------- round robin


def pair_round_robin(keys: Sequence[int], round_number: int) -> Pairing:
    """Round ``round_number`` of the FIDE Berger table (FIDE Handbook C.05, Annex 1) of ``keys`` in starting order;
    with an odd number of players the one who would meet the phantom player sits the round out (a :class:`Board`
    with no ``second``).

    Raises:
        PairingError: fewer than two players, or a round outside ``1 ..`` :func:`round_robin_rounds`.
    """
    from caissify_pairings import generate_pairings

    if len(keys) < 2:
        raise PairingError("a round robin needs at least two players")
    rounds = round_robin_rounds(len(keys))
    if not 1 <= round_number <= rounds:
        raise PairingError(f"a round robin of {len(keys)} players has rounds 1 to {rounds}, not {round_number}")
    players = [{"id": key, "name": str(key), "score": 0.0, "rating": 0, "starting_number": number}
               for number, key in enumerate(keys, start=1)]
    rows = generate_pairings(system="round_robin", players=players, previous_pairings=set(),
                             round_number=round_number, total_rounds=rounds)
    return Pairing(tuple(Board(int(row["white_id"]), None if row.get("black_id") is None else int(row["black_id"]))
                         for row in rows), "berger")


# ---------------------------------------------------------------- Swiss


def pair_swiss(entrants: Sequence[Entrant], round_number: int, total_rounds: int, *,
               engine: Engine = "dutch") -> Pairing:
    """Pair Swiss round ``round_number`` of ``total_rounds`` for ``entrants`` (those to pair this round).

    ``engine="dutch"`` asks caissify-pairings' FIDE Dutch engine and checks its answer (:func:`check_swiss`); an
    engine error or a broken rule falls back to :func:`matching_pairing` (logged, and named in the result's
    ``engine``). ``engine="matching"`` pairs with the matching alone.

    Raises:
        PairingError: fewer than two entrants, or no pairing within the rules exists.
    """
    if len(entrants) < 2:
        raise PairingError("a round needs at least two players")
    if len({entrant.key for entrant in entrants}) != len(entrants):
        raise PairingError("a player is listed twice")
    if engine == "dutch":
        try:
            boards = dutch_pairing(entrants, round_number, total_rounds)
            check_swiss(boards, entrants)
        except Exception as error:  # noqa: BLE001 - any failure of the engine: the fallback pairs the round
            log.warning("the Dutch engine could not pair round %s (%s); pairing by maximum-weight matching",
                        round_number, error)
            boards = matching_pairing(entrants, round_number, total_rounds)
            check_swiss(boards, entrants)
            return Pairing(boards, f"matching (the Dutch engine: {str(error)[:80]})")
        return Pairing(boards, "dutch")
    boards = matching_pairing(entrants, round_number, total_rounds)
    check_swiss(boards, entrants)
    return Pairing(boards, "matching")


_COLOURS = ("white", "black")


def dutch_pairing(entrants: Sequence[Entrant], round_number: int, total_rounds: int) -> tuple[Board, ...]:
    """The FIDE Dutch engine's pairing of ``entrants`` (unchecked), games by table then the bye.

    Raises:
        Exception: whatever the engine raises.
    """
    from caissify_pairings import MissingFloatHistoryWarning, generate_pairings

    keys = {entrant.key for entrant in entrants}
    players = [{
        "id": entrant.key, "name": str(entrant.number), "score": float(entrant.points), "rating": entrant.rating,
        "starting_number": entrant.number, "pairing_number": entrant.number,
        "color_hist": [_COLOURS[seat] for seat in entrant.played_seats],
        "float_history": list(entrant.floats), "bye_count": entrant.byes, "forfeit_win_count": entrant.forfeit_wins,
    } for entrant in entrants]
    met = {(min(a.key, b), max(a.key, b)) for a in entrants for b in a.opponents if b in keys}
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingFloatHistoryWarning)  # we always feed floats: never pair without
        rows = generate_pairings(system="dutch", players=players, previous_pairings=met, round_number=round_number,
                                 total_rounds=total_rounds, bye_value=1.0, max_byes_per_player=1)
    return tuple(Board(int(row["white_id"]), None if row.get("black_id") is None else int(row["black_id"]))
                 for row in sorted(rows, key=lambda row: (bool(row.get("bye")), int(row.get("table", 0)))))


def check_swiss(boards: Sequence[Board], entrants: Sequence[Entrant]) -> None:
    """Check a Swiss pairing against the absolute rules: everyone paired exactly once, nobody meets an opponent
    again, at most one bye (exactly one for an odd number of entrants), and the bye to a player eligible for it
    whenever one can take it (C.04.1 §c: no pairing-allocated bye or forfeit win yet).

    Raises:
        PairingError: the first rule broken.
    """
    by_key = {entrant.key: entrant for entrant in entrants}
    seen: list[int] = []
    for board in boards:
        seen.append(board.first)
        if board.second is not None:
            seen.append(board.second)
            if board.second in by_key.get(board.first, Entrant(0, 0)).opponents:
                raise PairingError(f"players {board.first} and {board.second} have met already")
    if sorted(seen) != sorted(by_key):
        raise PairingError("not every player is paired exactly once")
    byes = [board for board in boards if board.is_bye]
    if len(byes) != len(entrants) % 2:
        raise PairingError(f"{len(byes)} byes for {len(entrants)} players")
    if byes and not by_key[byes[0].first].bye_eligible and any(e.bye_eligible for e in entrants):
        raise PairingError(f"the bye went to player {byes[0].first}, who had one (or a forfeit win) already")


def matching_pairing(entrants: Sequence[Entrant], round_number: int, total_rounds: int) -> tuple[Board, ...]:
    """A Swiss pairing by networkx's maximum-weight matching (the fallback): the most games between players who have
    not met, preferring opponents with the nearest points, seats each can take without a third same seat in a row
    or a seat difference beyond two, and the bye to the lowest-placed player eligible for it. Seats then follow
    the Dutch colour rules (C.04.3 E.1–E.5, simplified: each side's preference, then alternation, then the higher
    seed's preference, then the higher seed first on odd starting numbers).

    Raises:
        PairingError: no pairing gives every player a game (or the one bye).
    """
    import networkx as nx

    graph = nx.Graph()
    ordered = sorted(entrants, key=lambda e: (-e.points, e.number))
    rank = {entrant.key: index for index, entrant in enumerate(ordered)}
    spread = max(1.0, max(e.points for e in entrants) - min(e.points for e in entrants))
    base = 1_000_000
    for index, a in enumerate(ordered):
        for b in ordered[index + 1:]:
            if b.key in a.opponents:
                continue
            gap = abs(a.points - b.points) / spread
            weight = base - int(100_000 * gap * gap) - 50_000 * _seat_clash(a, b) - abs(rank[a.key] - rank[b.key])
            graph.add_edge(a.key, b.key, weight=weight)
    bye = None
    if len(entrants) % 2:
        bye = -1
        eligible = any(e.bye_eligible for e in entrants)
        for entrant in ordered:
            if eligible and not entrant.bye_eligible:
                continue
            graph.add_edge(entrant.key, bye, weight=base - 1_000 * (len(ordered) - rank[entrant.key]))
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matched) != len(entrants) + (1 if bye is not None else 0):
        raise PairingError(f"no pairing of round {round_number} gives every player a game")
    by_key = {entrant.key: entrant for entrant in entrants}
    games: list[Board] = []
    byes: list[Board] = []
    for a, b in matched:
        if bye in (a, b):
            byes.append(Board(b if a == bye else a))
            continue
        first, second = seats_for(by_key[a], by_key[b])
        games.append(Board(first.key, second.key))
    games.sort(key=lambda board: (-(by_key[board.first].points + by_key[board.second or 0].points),
                                  min(by_key[board.first].number, by_key[board.second or 0].number)))
    return (*games, *byes)


def _seat_clash(a: Entrant, b: Entrant) -> int:
    """1 when both players must have the same seat (their absolute preferences agree), else 0."""
    need_a, need_b = _absolute_seat(a), _absolute_seat(b)
    return int(need_a is not None and need_a == need_b)


def _absolute_seat(entrant: Entrant) -> int | None:
    """The seat ``entrant`` must have (a third same seat in a row, or a difference beyond two, would follow
    otherwise), or ``None``."""
    played = entrant.played_seats
    firsts = played.count(0) - played.count(1)
    if len(played) >= 2 and played[-1] == played[-2]:
        return 1 - played[-1]
    if abs(firsts) >= 2:
        return 1 if firsts > 0 else 0
    return None


def _preference(entrant: Entrant) -> tuple[int, int | None]:
    """``(strength, seat)``: the seat ``entrant`` prefers and how strongly (3 absolute, 2 strong, 1 mild, 0 none)."""
    played = entrant.played_seats
    if not played:
        return 0, None
    absolute = _absolute_seat(entrant)
    if absolute is not None:
        return 3, absolute
    firsts = played.count(0) - played.count(1)
    if firsts:
        return 2, 1 if firsts > 0 else 0
    return 1, 1 - played[-1]


def seats_for(a: Entrant, b: Entrant) -> tuple[Entrant, Entrant]:
    """``(first, second)`` for a game of ``a`` and ``b`` by the Dutch colour rules (C.04.3 E.1–E.5, simplified)."""
    (strength_a, want_a), (strength_b, want_b) = _preference(a), _preference(b)
    if want_a is not None and want_b is not None and want_a != want_b:
        return (a, b) if want_a == 0 else (b, a)
    if strength_a != strength_b:
        strong, other = (a, b) if strength_a > strength_b else (b, a)
        want = want_a if strong is a else want_b
        return (strong, other) if want == 0 else (other, strong)
    for seat_a, seat_b in zip(reversed(a.played_seats), reversed(b.played_seats), strict=False):
        if seat_a != seat_b:
            return (b, a) if seat_a == 0 else (a, b)
    higher, lower = (a, b) if a.number < b.number else (b, a)
    want = want_a if higher is a else want_b
    if want is not None:
        return (higher, lower) if want == 0 else (lower, higher)
    return (higher, lower) if higher.number % 2 else (lower, higher)
