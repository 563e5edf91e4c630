"""Deciding whether a position is a puzzle, building its line, themes and rating, and proving a stored puzzle again.

The decisions (``seeds/puzzles.md`` gives the reasons):

* **A puzzle position** (:func:`find_puzzle`): a running position where the game's exact search values every legal
  move (:meth:`~games.puzzles.per_game.PuzzleRules.values`); its moves fall into at least two classes of
  equivalent moves (:meth:`~games.puzzles.per_game.PuzzleRules.equivalence`); exactly one class keeps the
  position's best value and every other move loses value; that value is worth playing for (a win or a draw, or in
  solitaire the fewest turns: a lost position is no puzzle); and the answer is not obvious: the moves of best
  *glance* (:meth:`~games.puzzles.per_game.PuzzleRules.glance`, what a player sees without looking past the move)
  are not all in the answer's class. The ``easy`` computer plays at random in every game, so what it "would find"
  is read as what a glance finds for certain.
* **The line**: the solver's move (the first move of the answer's class in the game's move order), the opponent's
  best defence (:func:`defence`), the solver's next move, and so on while each solver position is itself one of a
  single best class among at least two (later moves may be obvious: the finishing blow belongs to the line), the
  answer's class before it was a single move (an equivalent move would need another defence), the seats alternate
  (no solitaire or bonus-turn continuation), and at most :data:`MAX_SOLVER_MOVES` solver moves; it ends at the game's
  end, or before a solver position that is not such a position.
* **Themes** (:func:`themes`) from the values: ``win in N`` (Chopsticks), ``only win``, ``most points``, ``save the
  draw``, ``fewest turns``; then the game's own (:meth:`~games.puzzles.per_game.PuzzleRules.themes`).
* **The starting rating** (:func:`rating`): ``1000 + 150 × bits + 150 × quiet``, rounded to tens and kept within
  :data:`RATING_FLOOR`–:data:`RATING_CEILING`, where ``bits`` is the sum over the solver's moves of ``log2`` of the
  number of move classes (what guessing the whole line blindly would take) and ``quiet`` is 1 when the answer is not
  among the moves of best glance (it looks worse at once than another move).

:func:`verify` proves a stored puzzle again along its line and says in a sentence why it no longer holds.

Pure Python: no I/O.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.errors import RulesError
from games.puzzles.per_game import RULES, PuzzleRules
from games.puzzles.record import Puzzle, Source, Step
from games.state import State
from games.values import GameValue

MAX_SOLVER_MOVES = 3
"""Solver moves a line holds at most (five plies with the two defences)."""
RATING_BASE, RATING_PER_BIT, RATING_QUIET = 1000, 150, 150
"""The starting rating's rule: base, points per bit of choice, points when the answer looks worse at once."""
RATING_FLOOR, RATING_CEILING = 600, 2500
"""Bounds of a starting rating."""
_FORCED_LIMIT = 64


@dataclass(frozen=True, slots=True)
class Analysis:
    """One position's moves as a puzzle sees them.

    Attributes:
        state: the position (running).
        moves: its legal moves, in the game's order.
        values: the exact value of each move for the mover.
        classes: the classes of equivalent moves (each in move order; ordered by their first move).
        best: the classes that keep the position's best value.
        glances: each move's glance.
    """

    state: State[Any]
    moves: tuple[Any, ...]
    values: dict[Any, GameValue]
    classes: tuple[tuple[Any, ...], ...]
    best: tuple[tuple[Any, ...], ...]
    glances: dict[Any, int]

    @property
    def unique(self) -> bool:
        """One class keeps the best value, and at least one other class loses value."""
        return len(self.best) == 1 and len(self.classes) >= 2

    @property
    def answer(self) -> tuple[Any, ...]:
        """The one best class (empty unless :attr:`unique`)."""
        return self.best[0] if self.unique else ()

    @property
    def value(self) -> GameValue:
        """The position's value for the mover."""
        return max(self.values.values(), key=lambda value: value.rank)

    @property
    def at_a_glance(self) -> frozenset[Any]:
        """The moves of best glance."""
        top = max(self.glances.values())
        return frozenset(move for move, glance in self.glances.items() if glance == top)

    @property
    def obvious(self) -> bool:
        """Every move of best glance is in the answer's class: a glance finds the answer for certain."""
        return self.unique and self.at_a_glance <= set(self.answer)

    @property
    def worth_playing(self) -> bool:
        """The best value is a win or a draw (or, in solitaire, the fewest turns): a lost position is no puzzle."""
        value = self.value
        return value.kind == "turns" or value.amount >= 0

    def problem(self) -> str | None:
        """Why this position is not a puzzle's first position, or ``None`` when it is one."""
        if len(self.classes) < 2:
            return "every legal move leads to the same position"
        if not self.worth_playing:
            return f"the best is {self.value.describe()}"
        if len(self.best) != 1:
            return f"{len(self.best)} different moves keep the best value"
        if self.obvious:
            return "the answer is the obvious move"
        return None

    def step(self) -> Step:
        """The proof of this position: every move's value, and the best class."""
        fmt = self.state.format_move
        return Step(tuple((fmt(move), self.values[move]) for move in self.moves),
                    tuple(fmt(move) for move in self.answer))


def forced(state: State[Any], limit: int = _FORCED_LIMIT) -> State[Any]:
    """``state`` after every move that is the only legal move (at most ``limit`` of them): where a line ends, what
    follows by force (the last mark of a grid, the closing of a path) belongs to it."""
    for _ in range(limit):
        if state.is_over:
            break
        moves = state.legal_moves()
        if len(moves) != 1:
            break
        state = state.apply(moves[0])
    return state


def analyse(rules: PuzzleRules, state: State[Any]) -> Analysis | None:
    """The moves of the running ``state`` valued, grouped and glanced at; ``None`` when the exact search does not
    settle every move.

    Moves are in one class when the positions they lead to, once only-moves are played, have the same
    :meth:`~games.puzzles.per_game.PuzzleRules.equivalence` key and the same value (equivalent positions always
    have the same value; the value is part of the key only so that a class can never mix values).
    """
    if state.is_over:
        return None
    values = rules.values(state)
    if values is None:
        return None
    moves = tuple(state.legal_moves())
    if set(moves) != set(values):
        return None
    groups: dict[Any, list[Any]] = {}
    for move in moves:
        key = (rules.equivalence(forced(state.apply(move))), values[move])
        groups.setdefault(key, []).append(move)
    classes = tuple(tuple(group) for group in groups.values())
    top = max(value.rank for value in values.values())
    best = tuple(group for group in classes if values[group[0]].rank == top)
    glances = {move: rules.glance(state, move) for move in moves}
    return Analysis(state, moves, values, classes, best, glances)


def _defence_key(value: GameValue) -> tuple[int, int]:
    """Sort key of a defence, smaller first: the best value for the defender, then (outcome values) the slowest
    loss or the fastest win."""
    distance = value.distance or 0
    if value.kind != "outcome" or value.amount == 0:
        return (-value.rank, 0)
    return (-value.rank, -distance if value.amount < 0 else distance)


def defence(rules: PuzzleRules, state: State[Any]) -> Any | None:
    """The opponent's defence in the running ``state``: the move of best exact value for them; among equals the
    slowest loss (or fastest win) where the value is a win or a loss with a known distance, then the first in the
    game's move order. ``None`` when the exact search does not settle every move."""
    values = rules.values(state)
    if values is None:
        return None
    order = {move: index for index, move in enumerate(state.legal_moves())}
    if set(order) != set(values):
        return None
    return min(values, key=lambda move: (*_defence_key(values[move]), order[move]))


def themes(rules: PuzzleRules, root: Analysis) -> tuple[str, ...]:
    """The themes of a puzzle position: the value's (``win in N``, ``only win``, ``most points``, ``save the draw``,
    ``fewest turns``), then the game's own."""
    answer = root.answer
    value = root.values[answer[0]]
    found: list[str] = []
    if value.kind == "turns":
        found.append("fewest turns")
    elif value.amount == 0:
        found.append("save the draw")
    elif value.kind == "outcome":
        found.append("win" if value.distance is None else f"win in {(value.distance + 2) // 2}")
    else:
        others = [root.values[group[0]] for group in root.classes if group != answer]
        found.append("only win" if all(other.amount <= 0 for other in others) else "most points")
    found.extend(rules.themes(root.state, answer[0], bool(root.at_a_glance & set(answer))))
    return tuple(dict.fromkeys(found))


def rating(steps: Sequence[Analysis]) -> int:
    """The starting rating of a puzzle whose solver positions are ``steps`` (the rule of the module docstring)."""
    bits = sum(math.log2(len(step.classes)) for step in steps)
    root = steps[0]
    quiet = not (root.at_a_glance & set(root.answer))
    raw = RATING_BASE + RATING_PER_BIT * bits + RATING_QUIET * quiet
    return max(RATING_FLOOR, min(RATING_CEILING, round(raw / 10) * 10))


def puzzle_id(rules: PuzzleRules, state: State[Any]) -> str:
    """``"<game>-<10 hex digits>"``: a digest of the position's :meth:`~games.puzzles.per_game.PuzzleRules.identity`
    (the same puzzle, up to symmetry, has the same id)."""
    text = json.dumps([rules.game.key, rules.identity(state)], sort_keys=True, separators=(",", ":"))
    return f"{rules.game.key}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def _line(rules: PuzzleRules, root: Analysis, depth: int) -> tuple[list[Analysis], list[str]]:
    """The solver positions and the line (notation) from the puzzle position ``root``."""
    steps, line = [root], [root.state.format_move(root.answer[0])]
    state = root.state
    while len(steps) < depth and len(steps[-1].answer) == 1:
        solver = state.current_seat
        after = state.apply(steps[-1].answer[0])
        if after.is_over or after.current_seat == solver:
            break
        reply = defence(rules, after)
        if reply is None:
            break
        nxt = after.apply(reply)
        if nxt.is_over or nxt.current_seat != solver:
            break
        analysis = analyse(rules, nxt)
        if analysis is None or not analysis.unique:
            break
        steps.append(analysis)
        line += [after.format_move(reply), nxt.format_move(analysis.answer[0])]
        state = nxt
    return steps, line


def find_puzzle(game: str, state: State[Any], source: Source, *, depth: int = MAX_SOLVER_MOVES) -> Puzzle | None:
    """The puzzle of the running position ``state`` of ``game`` (a key), met where ``source`` says, or ``None`` when
    it is not a puzzle position (see the module docstring) or the game has no puzzles.

    The position is first made the puzzle's (:meth:`~games.puzzles.per_game.PuzzleRules.position`).
    """
    rules = RULES.get(game)
    if rules is None or state.is_over:
        return None
    position = rules.position(state)
    root = analyse(rules, position)
    if root is None or root.problem() is not None:
        return None
    steps, line = _line(rules, root, depth)
    data = position.to_dict()
    return Puzzle(puzzle_id(rules, position), game, dict(data["variant"]), data, tuple(line),
                  tuple(step.step() for step in steps), themes(rules, root), source, rating(steps))


def _differs(now: Step, stored: Step) -> str | None:
    """How the proof ``now`` differs from the ``stored`` one, in a sentence, or ``None``."""
    if [notation for notation, _ in now.values] != [notation for notation, _ in stored.values]:
        return (f"the legal moves are now {', '.join(n for n, _ in now.values)}; the proof has "
                f"{', '.join(n for n, _ in stored.values)}")
    for (notation, value), (_, was) in zip(now.values, stored.values, strict=True):
        if value != was:
            return f"`{notation}` is now worth {value.describe()} (distance {value.distance}), the proof says " \
                   f"{was.describe()} (distance {was.distance})"
    if now.accepted != stored.accepted:
        return f"the moves that keep the value are now {', '.join(now.accepted) or 'several classes'}; the proof " \
               f"says {', '.join(stored.accepted)}"
    return None


def verify(puzzle: Puzzle) -> str | None:
    """Prove ``puzzle`` again with today's rules and searches: ``None`` when it holds, else why not, in a sentence
    (a puzzle that does not hold is to be retired, never served).

    Along its line: every solver position is valued again and must have the stored value for every move and the
    stored best class, the first is still a puzzle position (not obvious, worth playing), each defence is still the
    one :func:`defence` chooses; then its id, themes and rating must be those the rules give today.
    """
    rules = RULES.get(puzzle.game)
    if rules is None:
        return f"{puzzle.game!r} has no puzzles"
    try:
        state: State[Any] = rules.game.load(puzzle.position)
    except RulesError as error:
        return f"the position no longer loads: {error}"
    if state.to_dict() != rules.position(state).to_dict():
        return "the position is not a puzzle position of its game"
    steps: list[Analysis] = []
    try:
        for index, stored in enumerate(puzzle.proof):
            where = f"solver move {index + 1}"
            analysis = analyse(rules, state)
            if analysis is None:
                return f"{where}: the exact search no longer settles every move"
            if index == 0 and (problem := analysis.problem()) is not None:
                return f"not a puzzle any more: {problem}"
            if not analysis.unique:
                return f"{where}: {len(analysis.best)} classes of moves keep the value"
            if (difference := _differs(analysis.step(), stored)) is not None:
                return f"{where}: {difference}"
            steps.append(analysis)
            state = state.apply(state.parse_move(puzzle.line[2 * index]))
            if index + 1 < len(puzzle.proof):
                reply = defence(rules, state)
                expected = puzzle.line[2 * index + 1]
                if reply is None or state.format_move(reply) != expected:
                    found = "none settled" if reply is None else f"`{state.format_move(reply)}`"
                    return f"defence {index + 1}: the best defence is now {found}, the line plays `{expected}`"
                state = state.apply(reply)
    except RulesError as error:
        return f"the line no longer plays: {error}"
    first = steps[0]
    if puzzle_id(rules, first.state) != puzzle.id:
        return f"the position's id is now {puzzle_id(rules, first.state)}"
    if themes(rules, first) != puzzle.themes:
        return f"the themes are now {', '.join(themes(rules, first))}"
    if rating(steps) != puzzle.rating:
        return f"the starting rating is now {rating(steps)}"
    return None
