"""The arena: computer players against each other, seats alternating, with the figures a strong player would ask for.

What it measures, for a pairing ``stronger-weaker`` at one game and variant:

* **W/D/L** of the stronger side over ``N`` games, seats alternating (game ``i`` gives the stronger side seat
  ``i % 2``; games ``2k`` and ``2k + 1`` start from the same position, which matters for Gröbner Nim's random starts),
  and its **score** ``(W + D/2) / N`` with a **95 % Wilson interval**.
* **CPU per move** of each side (``time.process_time``, milliseconds: median and maximum), so figures taken on a busy
  machine still compare what each side spent.
* An **audit**: every move of the ``hard`` (or ``perfect``) side (by default in the games it lost; with ``--audit
  all`` in every game) replayed through the game's exact search where one exists
  (:meth:`games.Game.exact_move`); each move that gave away exact value is printed, with the moves that kept it.
* An **SPRT gate** (``--sprt REV``): a level of the current tree against the same level of the rules core at git
  revision ``REV`` (run in a process of its own from that revision's ``games``), game after game until the
  sequential test accepts one hypothesis. A change to a computer player is accepted when the test says
  ``H1`` (at least ``elo1`` better) and rejected when it says ``H0``.

The players are plain callables ``(state, rng) -> move``: a level of a game (:func:`level_player`), the random
mover and the plain UCT yardstick of :mod:`bench.uct`, or another version (:class:`VersionPlayer`). The one function
to reuse is :func:`play_games`.

Run it with ``python -m bench.arena`` (``make arena``): with no option it plays the issue's table (every game and
default variant, the pairings of :data:`PAIRINGS`) at ``--games`` games per pairing. The big runs are CPU-heavy: run
them niced, one at a time.

**Statistics** are :mod:`bench.arena_stats`: a score's Wilson interval and the SPRT from Elo bounds.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.arena_stats import sprt_bounds, sprt_llr, wilson_interval
from bench.uct import UctPlayer, random_player
from games import GAMES, LEVELS, Game, Outcome, State

Player = Callable[[State[Any], random.Random], Any]
"""A computer player: the move it plays in a running state, using ``rng`` for every random choice."""

SUITE: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("chopsticks", "default", {}),
    ("differences", "8×8", {}),
    ("differences", "12×12", {"n": 12}),
    ("polygons", "default", {}),
    ("groebner_nim", "duel, 4 sticks", {"sticks": 4}),
    ("napkin_chess", "classic", {}),
    ("napkin_chess", "holed", {"preset": "holed"}),
)
"""The games and variants of the arena's table: ``(game key, label, variant)``."""

PAIRINGS: tuple[str, ...] = ("hard-medium", "medium-easy", "hard-easy", "hard-random", "hard-uct")
"""The pairings played by default, stronger side first."""

# ------------------------------------------------------------------------------------------------ players


def level_player(game_key: str, level: str) -> Player:
    """The computer of ``game_key`` at ``level`` (:meth:`games.Game.computer_move`)."""
    game = GAMES[game_key]

    def choose(state: State[Any], rng: random.Random) -> Any:
        return game.computer_move(state, level, rng)  # type: ignore[arg-type]

    return choose


class VersionPlayer:
    """The computer at ``level`` of the rules core at git revision ``rev``, in a process of its own.

    The revision's ``games`` package is extracted (``git archive``) into a temporary folder this object creates and
    removes (:meth:`close`); :mod:`bench._version_worker` runs there and answers each move, with the CPU time it
    took (``last_cpu_ms``, which the arena reads instead of its own clock).

    Raises:
        subprocess.CalledProcessError: ``rev`` is not a revision of the repository at ``repo``.
    """

    def __init__(self, rev: str, level: str, repo: str | Path = ".") -> None:
        self.rev = rev
        self.level = level
        self.last_cpu_ms = 0.0
        archive = subprocess.run(["git", "archive", rev, "games"], cwd=repo, capture_output=True, check=True).stdout
        self.folder = tempfile.mkdtemp(prefix="arena-version-")
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(self.folder, filter="data")
        code = Path(__file__).with_name("_version_worker.py").read_text()
        self.process = subprocess.Popen([sys.executable, "-c", code], cwd=self.folder, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env={**os.environ, "PYTHONPATH": self.folder})

    def __call__(self, state: State[Any], rng: random.Random) -> Any:
        seed = rng.getrandbits(64)
        data = state.to_dict()
        answer = self._ask(state.game, data, seed)
        if answer.get("error", "").startswith("InvalidState") and isinstance(data.get("variant"), dict):
            # an option added since that revision: its default is what the revision plays, so leave it out
            defaults = {option.name: option.default for option in GAMES[state.game].options}
            variant = {k: v for k, v in data["variant"].items() if k not in defaults or defaults[k] != v}
            answer = self._ask(state.game, {**data, "variant": variant}, seed)
        if "error" in answer:
            raise RuntimeError(f"{self.level} at {self.rev}: {answer['error']}")
        self.last_cpu_ms = float(answer["cpu_ms"])
        return state.parse_move(answer["move"])

    def _ask(self, game: str, data: dict[str, Any], seed: int) -> dict[str, Any]:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        request = {"game": game, "state": data, "level": self.level, "seed": seed}
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        answer: dict[str, Any] = json.loads(process.stdout.readline() or '{"error": "the player\'s process ended"}')
        return answer

    def close(self) -> None:
        """Stop the process and remove the folder (both of this object's making)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class CpuLog:
    """CPU milliseconds per move of each named side."""

    moves: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, ms: float) -> None:
        self.moves.setdefault(name, []).append(ms)

    def mean(self, name: str, default: float) -> float:
        """The mean CPU per move of ``name`` so far, or ``default`` before its first move."""
        found = self.moves.get(name)
        return statistics.fmean(found) if found else default


def make_player(game_key: str, name: str, cpu: CpuLog, against: str) -> Player:
    """The player a pairing names: a level (``easy`` ... ``perfect``), ``random``, ``uct`` (plain UCT given the mean
    CPU per move of the ``against`` side so far), ``uct:MS`` (a fixed budget), or ``REV:LEVEL``
    (:class:`VersionPlayer`).

    Raises:
        ValueError: an unknown name.
    """
    if name in LEVELS:
        return level_player(game_key, name)
    if name == "random":
        return random_player
    if name == "uct":
        return UctPlayer(lambda: cpu.mean(against, 100.0))
    if name.startswith("uct:"):
        return UctPlayer(float(name.removeprefix("uct:")))
    if ":" in name:
        rev, level = name.rsplit(":", 1)
        if level in LEVELS:
            return VersionPlayer(rev, level)
    raise ValueError(f"unknown player {name!r}: a level ({', '.join(LEVELS)}), random, uct, uct:MS or REV:LEVEL")


# ------------------------------------------------------------------------------------------------ games


@dataclass
class GameRecord:
    """One arena game: its number, the side name per seat, the start and the moves (notation), the outcome."""

    number: int
    seats: tuple[str, str]
    start: dict[str, Any]
    moves: list[str]
    outcome: Outcome


def play_game(game: Game[Any, Any], start: State[Any], players: Sequence[Player], names: Sequence[str],
              rngs: Sequence[random.Random], cpu: CpuLog) -> tuple[State[Any], list[str]]:
    """Play ``start`` to the end with ``players[seat]`` choosing for each seat; return the final state and the
    moves in notation. Each move's CPU time goes to ``cpu`` under the side's name.

    Raises:
        games.IllegalMove: a player chose an illegal move.
    """
    state = start
    moves: list[str] = []
    while not state.is_over:
        seat = state.current_seat or 0
        player = players[seat]
        began = time.process_time()
        move = player(state, rngs[seat])
        spent = (time.process_time() - began) * 1000.0
        cpu.add(names[seat], float(getattr(player, "last_cpu_ms", spent)))
        moves.append(state.format_move(move))
        state = state.apply(move)
    return state, moves


@dataclass
class ArenaResult:
    """The results of one pairing, from the stronger side's view."""

    game: str
    variant_label: str
    variant: dict[str, Any]
    stronger: str
    weaker: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    records: list[GameRecord] = field(default_factory=list)
    cpu: CpuLog = field(default_factory=CpuLog)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``(W + D/2) / N`` (0 for no games)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of :attr:`score`."""
        return wilson_interval(self.wins + self.draws / 2, self.games)

    def lost(self) -> list[GameRecord]:
        """The games the stronger side lost."""
        return [record for record in self.records if _side_result(record, self.stronger) < 0]

    def by_seat(self, seat: int) -> tuple[int, int, int]:
        """W/D/L of the stronger side in the games where it had ``seat`` (0: it moved first)."""
        found = [_side_result(r, self.stronger) for r in self.records if r.seats[seat] == self.stronger]
        return found.count(1), found.count(0), found.count(-1)

    def cpu_text(self, name: str) -> str:
        """``"median 12.3 / max 45.6 ms (n moves)"`` for a side, or ``"-"``."""
        samples = self.cpu.moves.get(name)
        if not samples:
            return "-"
        return f"{statistics.median(samples):.1f} / {max(samples):.0f} ms ({len(samples)})"

    def line(self) -> str:
        """One row of the arena's table."""
        low, high = self.interval
        first, second = ("/".join(map(str, self.by_seat(seat))) for seat in (0, 1))
        return (f"{GAMES[self.game].title} {self.variant_label} | {self.stronger} vs {self.weaker} | {self.games} | "
                f"{self.wins}/{self.draws}/{self.losses} | {100 * self.score:.1f}% | "
                f"{100 * low:.1f}–{100 * high:.1f}% | {first} | {second} | {self.cpu_text(self.stronger)} | "
                f"{self.cpu_text(self.weaker)}")


TABLE_HEADER = ("game / variant | pairing | N | W/D/L (stronger) | score | 95% Wilson | W/D/L moving first | "
                "W/D/L moving second | CPU/move stronger (median / max, moves) | CPU/move weaker")


def _side_result(record: GameRecord, name: str) -> int:
    """1 for a win of the side ``name``, 0 for a draw, -1 for a loss."""
    outcome = record.outcome
    if outcome.winner is None:
        return 0
    return 1 if record.seats[outcome.winner] == name else -1


def _start(game: Game[Any, Any], variant: Mapping[str, Any], seed: int, number: int) -> State[Any]:
    return game.new_state(variant, random.Random(f"arena:{seed}:start:{number // 2}"))


def play_games(game_key: str, variant: Mapping[str, Any], stronger: Player, weaker: Player, games: int, *,
               seed: int = 0, names: tuple[str, str] = ("stronger", "weaker"), variant_label: str = "",
               cpu: CpuLog | None = None, progress: Callable[[ArenaResult], None] | None = None) -> ArenaResult:
    """Play ``games`` games of ``game_key`` with ``variant`` between two players, seats alternating.

    Game ``i`` seats ``stronger`` at ``i % 2``; games ``2k`` and ``2k + 1`` start from the same position (drawn with a
    seeded generator where the game's start is random); each seat of each game has its own generator seeded from
    ``seed`` and ``i``, so a run is reproducible wherever the players are. ``progress`` is called after each game.

    Returns:
        The :class:`ArenaResult` from the stronger side's view (W/D/L, score, interval, CPU per move by name).
    """
    game = GAMES[game_key]
    result = ArenaResult(game_key, variant_label or json.dumps(dict(variant)), dict(variant), *names,
                         cpu=cpu or CpuLog())
    for number in range(games):
        first = number % 2 == 0
        players = (stronger, weaker) if first else (weaker, stronger)
        seat_names = names if first else (names[1], names[0])
        start = _start(game, variant, seed, number)
        rngs = [random.Random(f"arena:{seed}:game:{number}:seat:{seat}") for seat in (0, 1)]
        final, moves = play_game(game, start, players, seat_names, rngs, result.cpu)
        outcome = final.outcome
        assert outcome is not None
        record = GameRecord(number, seat_names, start.to_dict(), moves, outcome)
        result.records.append(record)
        side = _side_result(record, names[0])
        if side > 0:
            result.wins += 1
        elif side < 0:
            result.losses += 1
        else:
            result.draws += 1
        if progress is not None:
            progress(result)
    return result


# ------------------------------------------------------------------------------------------------ audit


@dataclass(frozen=True)
class Flag:
    """A move that gave away exact value: the game, the ply, the move, the values before and after, the keepers."""

    game: int
    ply: int
    move: str
    before: str
    after: str
    keeping: tuple[str, ...]

    def line(self) -> str:
        keep = ", ".join(self.keeping[:6]) + (" …" if len(self.keeping) > 6 else "")
        return (f"game {self.game}, ply {self.ply + 1}: {self.move} turned {self.before} into {self.after}; "
                f"{keep} kept {self.before}")


@dataclass
class Audit:
    """What an audit checked: moves with an exact value, the flags, and the moves without one."""

    exact: int = 0
    unknown: int = 0
    flags: list[Flag] = field(default_factory=list)


def audit_record(game_key: str, record: GameRecord, side: str, audit: Audit | None = None) -> Audit:
    """Replay ``record`` and check every move of the side ``side`` against the exact search
    (:meth:`games.Game.exact_move`): a move whose value after is worse than the position's value is a flag.
    Positions the exact search does not settle count as ``unknown``."""
    game = GAMES[game_key]
    audit = audit or Audit()
    state = game.load(record.start)
    for ply, text in enumerate(record.moves):
        move = state.parse_move(text)
        if record.seats[state.current_seat or 0] == side:
            values = game.exact_move(state, move)
            if values is None:
                audit.unknown += 1
            else:
                audit.exact += 1
                if values.after.rank < values.before.rank:
                    audit.flags.append(Flag(record.number, ply, text, str(values.before.short()),
                                            str(values.after.short()),
                                            tuple(state.format_move(m) for m in values.keeping)))
        state = state.apply(move)
    return audit


# ------------------------------------------------------------------------------------------------ SPRT


@dataclass
class SprtResult:
    """A sequential test of ``new`` against ``old``: results from ``new``'s view, the LLR and the decision
    (``"H1"``: accepted as at least ``elo1`` better; ``"H0"``: rejected; ``None``: no decision within the games)."""

    wins: int
    draws: int
    losses: int
    llr: float
    bounds: tuple[float, float]
    decision: str | None


def sprt(game_key: str, variant: Mapping[str, Any], new: Player, old: Player, *, elo0: float = 0.0,
         elo1: float = 20.0, alpha: float = 0.05, beta: float = 0.05, max_games: int = 2000, min_games: int = 20,
         seed: int = 0, progress: Callable[[SprtResult], None] | None = None) -> SprtResult:
    """Play ``new`` against ``old`` (seats alternating, as :func:`play_games`) until the GSPRT of H0 "``new`` is
    ``elo0`` better" against H1 "``new`` is ``elo1`` better" decides, or ``max_games`` are played. No decision is
    taken before ``min_games`` (the normal approximation behind the LLR needs a few games to mean anything)."""
    bounds = sprt_bounds(alpha, beta)
    state = SprtResult(0, 0, 0, 0.0, bounds, None)

    def update(result: ArenaResult) -> None:
        state.wins, state.draws, state.losses = result.wins, result.draws, result.losses
        state.llr = sprt_llr(result.wins, result.draws, result.losses, elo0, elo1)
        if result.games < min_games:
            pass
        elif state.llr >= bounds[1]:
            state.decision = "H1"
        elif state.llr <= bounds[0]:
            state.decision = "H0"
        if progress is not None:
            progress(state)
        if state.decision is not None:
            raise _Decided

    with suppress(_Decided):
        play_games(game_key, variant, new, old, max_games, seed=seed, names=("new", "old"), progress=update)
    return state


class _Decided(Exception):
    """The sequential test reached a decision (stops :func:`play_games`)."""


# ------------------------------------------------------------------------------------------------ command line


@contextmanager
def _players(game_key: str, stronger: str, weaker: str, cpu: CpuLog) -> Iterator[tuple[Player, Player]]:
    made = [make_player(game_key, stronger, cpu, weaker), make_player(game_key, weaker, cpu, stronger)]
    try:
        yield made[0], made[1]
    finally:
        for player in made:
            if isinstance(player, VersionPlayer):
                player.close()


def _variants(game: str | None, variant: str | None) -> list[tuple[str, str, dict[str, Any]]]:
    if variant is not None:
        if game is None:
            raise SystemExit("--variant needs --game")
        named = [entry for entry in SUITE if entry[0] == game and entry[1] == variant]
        return named or [(game, variant, json.loads(variant))]
    chosen = [entry for entry in SUITE if game is None or entry[0] == game]
    return chosen or [(game or "", "default", {})]


def split_pairing(pairing: str) -> tuple[str, str]:
    """``"hard-medium"`` → ``("hard", "medium")``; a side may be a revision with dashes (``"main~3:hard-uct"``), so
    the last dash splits, or ``" vs "`` where given (``"fix-a:hard vs fix-b:hard"``).

    Raises:
        ValueError: no separator.
    """
    if " vs " in pairing:
        stronger, weaker = pairing.split(" vs ", 1)
    elif "-" in pairing:
        stronger, weaker = pairing.rsplit("-", 1)
    else:
        raise ValueError(f"a pairing is STRONGER-WEAKER, not {pairing!r}")
    return stronger.strip(), weaker.strip()


def run_table(variants: Sequence[tuple[str, str, dict[str, Any]]], pairings: Sequence[str], games: int, seed: int,
              audit: str, out: Callable[[str], None] = print) -> list[ArenaResult]:
    """Play every pairing at every variant, printing each row as it is done (and the audit's flags)."""
    results = []
    out(TABLE_HEADER)
    for game_key, label, variant in variants:
        for pairing in pairings:
            stronger, weaker = split_pairing(pairing)
            cpu = CpuLog()
            with _players(game_key, stronger, weaker, cpu) as (first, second):
                result = play_games(game_key, variant, first, second, games, seed=seed, names=(stronger, weaker),
                                    variant_label=label, cpu=cpu)
            results.append(result)
            out(result.line())
            if audit != "none":
                _print_audit(result, audit, out)
    return results


def _print_audit(result: ArenaResult, mode: str, out: Callable[[str], None]) -> None:
    audited = [name for name in (result.stronger, result.weaker) if name.rsplit(":", 1)[-1] in ("hard", "perfect")]
    if not audited:
        return
    records = result.records if mode == "all" else result.lost()
    found = Audit()
    for record in records:
        for name in audited:
            audit_record(result.game, record, name, found)
    which = "every game" if mode == "all" else f"{len(records)} lost game{'s' if len(records) != 1 else ''}"
    out(f"    audit of {'/'.join(audited)} over {which}: {found.exact} moves with an exact value, "
        f"{len(found.flags)} gave value away, {found.unknown} beyond the exact search")
    for flag in found.flags:
        out(f"      {flag.line()}")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m bench.arena --help``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.arena", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", help="one game key (default: every game of the table)")
    parser.add_argument("--variant", help="a variant label of the table (e.g. '12×12') or a JSON object")
    parser.add_argument("--games", type=int, default=20, help="games per pairing (default 20)")
    parser.add_argument("--pairing", action="append",
                        help=f"STRONGER-WEAKER, repeatable (default: {', '.join(PAIRINGS)}); a side is a level, "
                             "random, uct (the same CPU per move as the other side), uct:MS, or REV:LEVEL")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--audit", choices=("losses", "all", "none"), default="losses",
                        help="replay hard's moves through the exact search: in its lost games (default), in every "
                             "game, or not at all")
    parser.add_argument("--sprt", metavar="REV", help="sequential test of --level against the same level at REV")
    parser.add_argument("--level", default="hard", help="the level --sprt tests (default hard)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=20.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--max-games", type=int, default=2000, help="--sprt stops undecided after this many games")
    parser.add_argument("--every", type=int, default=50, metavar="N",
                        help="--sprt prints where it stands on standard error every N games (default 50; 0: never)")
    args = parser.parse_args(argv)
    variants = _variants(args.game, args.variant)
    if args.sprt:
        return _run_sprt(args, variants)
    run_table(variants, args.pairing or PAIRINGS, args.games, args.seed, args.audit)
    return 0


def sprt_progress(every: int, label: str, out: Callable[[str], None] | None = None
                  ) -> Callable[[SprtResult], None] | None:
    """A ``progress`` for :func:`sprt` that reports W/D/L and the LLR after every ``every`` games (``None`` when
    ``every`` is 0) through ``out`` (default: a line on standard error, so that a long test shows where it
    stands while the result stays alone on standard output)."""
    if every <= 0:
        return None
    write = out or (lambda line: print(line, file=sys.stderr, flush=True))

    def report(state: SprtResult) -> None:
        games = state.wins + state.draws + state.losses
        if games % every == 0:
            low, high = state.bounds
            write(f"{label}: after {games} games {state.wins}/{state.draws}/{state.losses}, "
                  f"LLR {state.llr:.2f} in [{low:.2f}, {high:.2f}]")

    return report


def _run_sprt(args: argparse.Namespace, variants: Sequence[tuple[str, str, dict[str, Any]]]) -> int:
    failed = False
    for game_key, label, variant in variants:
        old = VersionPlayer(args.sprt, args.level)
        try:
            found = sprt(game_key, variant, level_player(game_key, args.level), old, elo0=args.elo0,
                         elo1=args.elo1, alpha=args.alpha, beta=args.beta, max_games=args.max_games, seed=args.seed,
                         progress=sprt_progress(args.every, f"{GAMES[game_key].title} {label}"))
        finally:
            old.close()
        n = found.wins + found.draws + found.losses
        low, high = found.bounds
        print(f"{GAMES[game_key].title} {label}: {args.level} (this tree) vs {args.level} at {args.sprt}: "
              f"{found.wins}/{found.draws}/{found.losses} in {n} games, LLR {found.llr:.2f} in [{low:.2f}, {high:.2f}] "
              f"for elo0 {args.elo0:g}, elo1 {args.elo1:g}: "
              + {"H1": "accepted", "H0": "rejected", None: "undecided"}[found.decision])
        failed = failed or found.decision != "H1"
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
