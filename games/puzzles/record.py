"""The puzzle record: a position, the line that solves it, the proof behind every solver move, themes, where it came
from and its starting rating. A frozen value with ``to_dict``/``from_dict`` (JSON-safe; one shipped puzzle is one
JSON line of :meth:`Puzzle.to_json`).

The shapes (``seeds/puzzles.md`` says why each is so):

* ``position`` is the game's own state dict (``State.to_dict()``), loaded with ``Game.load``;
* ``line`` is the solution in the game's notation: the solver's move, the opponent's defence, the solver's move...,
  always ending with a solver's move (odd length);
* ``proof`` holds one :class:`Step` per solver move: the exact value, for the solver, of every legal move of the
  position (in the order of ``legal_moves``) and the moves that keep the best value (``accepted``: the move of the
  line and the moves equivalent to it, each a right answer);
* ``source`` says where the position was met (:class:`Source`);
* ``rating`` is the starting puzzle rating (Glicko-2 points), from the rule of :func:`games.puzzles.judge.rating`.

Pure Python: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.errors import InvalidState
from games.values import GameValue

SourceKind = Literal["self-play", "match"]
_KINDS: tuple[str, ...] = ("outcome", "margin", "turns")


class InvalidPuzzle(InvalidState):
    """A puzzle dict is malformed; raised by :meth:`Puzzle.from_dict` (an :class:`~games.errors.InvalidState`)."""


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidPuzzle(message)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a puzzle's position was met.

    Attributes:
        kind: ``"self-play"`` (the computer against itself, ``napkin puzzles generate``) or ``"match"`` (a finished
            match of a server).
        ply: moves played before the position (the puzzle is the move numbered ``ply + 1``: "from move N").
        seed: self-play: the generator's seed (text).
        match: self-play: the number of the self-play match under that seed and game (from 0); a match: its id.
        levels: self-play: the computer level of each seat (``("easy", "hard")``); empty for a match.
    """

    kind: SourceKind
    ply: int
    seed: str | None = None
    match: int | None = None
    levels: tuple[str, ...] = ()

    @property
    def move_number(self) -> int:
        """The number of the move the puzzle asks for, from 1 (what "from move N" names)."""
        return self.ply + 1

    def describe(self) -> str:
        """In words: ``"self-play (seed 1, match 12), move 7"`` or ``"match #14, move 14"``."""
        if self.kind == "match":
            return f"match #{self.match}, move {self.move_number}"
        return f"self-play (seed {self.seed}, match {self.match}), move {self.move_number}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (fields that do not apply are left out)."""
        data: dict[str, Any] = {"kind": self.kind, "ply": self.ply}
        if self.seed is not None:
            data["seed"] = self.seed
        if self.match is not None:
            data["match"] = self.match
        if self.levels:
            data["levels"] = list(self.levels)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Source:
        """Rebuild a source from :meth:`to_dict` output.

        Raises:
            InvalidPuzzle: a field is missing or of the wrong kind.
        """
        _need(isinstance(data, Mapping), "A puzzle's source is a dict.")
        kind, ply = data.get("kind"), data.get("ply")
        _need(kind in ("self-play", "match"), f"A puzzle's source is self-play or a match, not {kind!r}.")
        _need(type(ply) is int and ply >= 0, f"A puzzle's source ply is a whole number from 0, not {ply!r}.")
        seed, match, levels = data.get("seed"), data.get("match"), data.get("levels", [])
        _need(seed is None or isinstance(seed, str), "A puzzle's source seed is text.")
        _need(match is None or type(match) is int, "A puzzle's source match is a whole number.")
        _need(isinstance(levels, list) and all(isinstance(level, str) for level in levels),
              "A puzzle's source levels are a list of level names.")
        return cls(kind, ply, seed, match, tuple(levels))


@dataclass(frozen=True, slots=True)
class Step:
    """The proof of one solver move: the exact value of every legal move of the position, for the solver.

    Attributes:
        values: ``(notation, value)`` for every legal move, in the order of the state's ``legal_moves``.
        accepted: the notations of the moves that keep the position's best value (one class of equivalent moves:
            the move of the line and its equivalents), in the same order.
    """

    values: tuple[tuple[str, GameValue], ...]
    accepted: tuple[str, ...]

    @property
    def best(self) -> GameValue:
        """The position's value for the solver (the value of the accepted moves)."""
        return dict(self.values)[self.accepted[0]]

    def value_of(self, notation: str) -> GameValue:
        """The value of the move written ``notation`` (as stored).

        Raises:
            KeyError: no such move in the proof.
        """
        return dict(self.values)[notation]

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "margin", "values": [["e5", 2, 4], ...], "accepted": ["e5"]}`` (amount and distance per move,
        the distance ``null`` where the solver does not know it)."""
        kinds = {value.kind for _, value in self.values}
        kind = kinds.pop() if len(kinds) == 1 else None
        assert kind is not None, "every move of a step is valued on one scale"
        return {
            "kind": kind,
            "values": [[notation, value.amount, value.distance] for notation, value in self.values],
            "accepted": list(self.accepted),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Step:
        """Rebuild a step from :meth:`to_dict` output.

        Raises:
            InvalidPuzzle: a field is missing or of the wrong kind, or ``accepted`` names a move not valued.
        """
        _need(isinstance(data, Mapping), "A proof step is a dict.")
        kind, raw, accepted = data.get("kind"), data.get("values"), data.get("accepted")
        _need(kind in _KINDS, f"A proof step's kind is one of {', '.join(_KINDS)}, not {kind!r}.")
        _need(isinstance(raw, list) and bool(raw), "A proof step values a list of moves.")
        values = []
        for item in raw:
            _need(isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and type(item[1]) is int
                  and (item[2] is None or type(item[2]) is int),
                  f"A proof step's value is [move, amount, distance], not {item!r}.")
            values.append((item[0], GameValue(kind, item[1], item[2])))
        notations = [notation for notation, _ in values]
        _need(len(set(notations)) == len(notations), "A proof step values each move once.")
        _need(isinstance(accepted, list) and bool(accepted) and all(move in notations for move in accepted),
              "A proof step's accepted moves are moves it values.")
        return cls(tuple(values), tuple(accepted))


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A puzzle: a position where one move (or one class of equivalent moves) keeps the best value, proven.

    Attributes:
        id: ``"<game>-<10 hex digits>"``, a digest of the game, variant and position (the same position is the same
            puzzle, whoever met it).
        game: the game's registry key.
        variant: the full variant of the position (as in the position's dict).
        position: the game's state dict of the position (``State.to_dict()``).
        line: the solution in the game's notation: solver, defence, solver, ... (odd length).
        proof: one :class:`Step` per solver move of ``line``.
        themes: what the search sees, in players' words (``"win in 3"``, ``"only win"``, ``"split"``).
        source: where the position was met.
        rating: the starting puzzle rating.

    ``variant`` and ``position`` are dicts: the record compares by value but is not hashable.
    """

    id: str
    game: str
    variant: dict[str, Any]
    position: dict[str, Any]
    line: tuple[str, ...]
    proof: tuple[Step, ...]
    themes: tuple[str, ...]
    source: Source
    rating: int

    @property
    def answer(self) -> tuple[str, ...]:
        """The right first moves (the first step's accepted moves)."""
        return self.proof[0].accepted

    @property
    def value(self) -> GameValue:
        """The position's exact value for the solver."""
        return self.proof[0].best

    @property
    def solver_moves(self) -> tuple[str, ...]:
        """The solver's moves of the line (every other move from the first)."""
        return self.line[::2]

    @property
    def defences(self) -> tuple[str, ...]:
        """The opponent's moves of the line, which the bot plays."""
        return self.line[1::2]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (what :meth:`from_dict` reads back)."""
        return {
            "id": self.id,
            "game": self.game,
            "variant": self.variant,
            "position": self.position,
            "line": list(self.line),
            "proof": [step.to_dict() for step in self.proof],
            "themes": list(self.themes),
            "source": self.source.to_dict(),
            "rating": self.rating,
        }

    def to_json(self) -> str:
        """One line of JSON, keys sorted, no spaces: the same puzzle is always the same bytes."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Any) -> Puzzle:
        """Rebuild a puzzle from :meth:`to_dict` output. The position is not loaded here (``Game.load`` does that,
        and :func:`games.puzzles.verify` checks the proof).

        Raises:
            InvalidPuzzle: a field is missing or of the wrong kind, the line's length does not match its proof, or
                a solver move of the line is not among its step's accepted moves.
        """
        _need(isinstance(data, Mapping), "A puzzle is a dict.")
        missing = [name for name in ("id", "game", "variant", "position", "line", "proof", "themes", "source",
                                     "rating") if name not in data]
        _need(not missing, f"A puzzle lacks {', '.join(missing)}.")
        ident, game, variant, position = data["id"], data["game"], data["variant"], data["position"]
        _need(isinstance(ident, str) and isinstance(game, str) and ident.startswith(f"{game}-"),
              f"A puzzle's id is '<game>-<digest>', not {ident!r}.")
        _need(isinstance(variant, Mapping) and isinstance(position, Mapping),
              "A puzzle's variant and position are dicts.")
        _need(position.get("game") == game, f"The puzzle's position is not a {game} position.")
        line, raw_proof, themes, rating = data["line"], data["proof"], data["themes"], data["rating"]
        _need(isinstance(line, list) and len(line) % 2 == 1 and all(isinstance(move, str) for move in line),
              "A puzzle's line is an odd number of moves (solver, defence, ..., solver).")
        _need(isinstance(raw_proof, list), "A puzzle's proof is a list of steps.")
        proof = tuple(Step.from_dict(step) for step in raw_proof)
        _need(len(proof) == (len(line) + 1) // 2, "A puzzle's proof has one step per solver move of its line.")
        _need(all(move in step.accepted for move, step in zip(line[::2], proof, strict=True)),
              "Each solver move of a puzzle's line is among its step's accepted moves.")
        _need(isinstance(themes, list) and all(isinstance(theme, str) for theme in themes),
              "A puzzle's themes are a list of words.")
        _need(type(rating) is int, "A puzzle's rating is a whole number.")
        return cls(ident, game, dict(variant), dict(position), tuple(line), proof, tuple(themes),
                   Source.from_dict(data["source"]), rating)

    @classmethod
    def from_json(cls, text: str) -> Puzzle:
        """Read one line written by :meth:`to_json`.

        Raises:
            InvalidPuzzle: not JSON, or not a puzzle.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidPuzzle(f"A puzzle line is not JSON ({error}).") from None
        return cls.from_dict(data)


def read_lines(lines: Sequence[str]) -> list[Puzzle]:
    """Puzzles from JSON lines (blank lines skipped).

    Raises:
        InvalidPuzzle: a line is not a puzzle (the message gives its number).
    """
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            found.append(Puzzle.from_json(line))
        except InvalidPuzzle as error:
            raise InvalidPuzzle(f"line {number}: {error}") from None
    return found
