"""The declaration of Gröbner Nim: what the registry finds (:data:`GAME`), over its rules and its computer.

Everything about the game as the bot and the generic suites see it: key, title, command group, variant options,
the ``/groebner pair`` command with its autocomplete, the demo matches, the start position (a typed start, or a
fair random one from the computer's search, with the solitaire par) and the computer player and exact values
(delegated to :mod:`games.groebner_nim.computer`). The rules themselves are :mod:`games.groebner_nim.rules`; the
players' rules text is ``game.rules.md`` beside this module.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from games.declaration import DemoMatch, Game, MoveCommand, MoveParam
from games.errors import InvalidMove, InvalidVariant
from games.groebner_nim import computer
from games.groebner_nim.rules import MODES, OPTIONS, GroebnerNimState, Pair, initial_state, read_variant
from games.options import Option
from games.outcome import Outcome, Termination
from games.search import Level
from games.state import State
from games.values import GameValue, MoveValues
from i18n import N_, _, ngettext


def _stick_numbers(state: GroebnerNimState) -> list[tuple[int, int]]:
    """The unpicked pairs as 1-based stick numbers."""
    return [(pair.first, pair.second) for pair in state.unpicked_pairs()]


def _first_suggestions(state: GroebnerNimState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/groebner pair first``: every stick that is in an unpicked pair."""
    return [str(n) for n in sorted({n for pair in _stick_numbers(state) for n in pair})]


def _second_suggestions(state: GroebnerNimState, filled: Mapping[str, str]) -> list[str]:
    """Autocomplete of ``/groebner pair second``: the sticks still unpicked with ``first`` (all, if it is empty)."""
    first = (filled.get("first") or "").strip()
    numbers: set[int] = set()
    for a, b in _stick_numbers(state):
        if first == str(a):
            numbers.add(b)
        elif first == str(b):
            numbers.add(a)
        elif not first:
            numbers.update((a, b))
    return [str(n) for n in sorted(numbers)]


def _assemble_pair(options: Mapping[str, str]) -> str:
    """``/groebner pair first second`` → ``"first-second"`` (each as typed, at most 10 characters).

    Raises:
        InvalidMove: a stick number is not a whole number (the message quotes what was typed).
    """
    for name in ("first", "second"):
        typed = options[name].strip()
        if not typed.isdecimal():
            raise InvalidMove(_("`{typed}` is not a stick number; `/groebner sticks` lists them (1, 2, …).",
                                typed=typed[:10]))
    return f"{options['first'].strip()[:10]}-{options['second'].strip()[:10]}"


class GroebnerNim(Game[GroebnerNimState, Pair]):
    """Gröbner Nim (J. Perry): duel for points or solitaire against par; see ``seeds/groebner_nim.md``."""

    key: ClassVar[str] = "groebner_nim"
    title: ClassVar[str] = N_("Gröbner Nim")
    command: ClassVar[str] = "groebner"
    source: ClassVar[str] = ("John Perry, *Gröbner Nim* (web game), after H. Dozier and J. Perry, *Androids Armed "
                             "with Poisoned Chocolate Squares: Ideal Nim and Its Relatives*")
    natural_end: ClassVar[str] = N_("the sticks form a Gröbner basis")
    drawable: ClassVar[bool] = True
    state_class: ClassVar[type[State[Any]]] = GroebnerNimState
    options: ClassVar[tuple[Option, ...]] = OPTIONS
    moves: ClassVar[tuple[MoveCommand, ...]] = (
        MoveCommand("pair", "Pick a pair of sticks not picked before", (
            MoveParam("first", "A stick number", suggest=_first_suggestions),
            MoveParam("second", "Another stick number", suggest=_second_suggestions),
        ), assemble=_assemble_pair),
    )
    demo: ClassVar[tuple[DemoMatch, ...]] = (
        DemoMatch("duel, grevlex", {}, ("hard", "medium")),
        DemoMatch("solitaire, lex", {"mode": "solitaire", "order": "lex"}, ("hard",)),
    )

    def command_for(self, state: GroebnerNimState, notation: str) -> tuple[str, dict[str, str]]:
        """``"1-3"`` → ``pair first:1 second:3``.

        Raises:
            ValueError: the notation is not two numbers joined by ``-``.
        """
        first, second = notation.split("-")
        return "pair", {"first": first.strip(), "second": second.strip()}

    def variant(self, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The full variant: :data:`OPTIONS` checked, a custom ``start`` read, checked and written canonically
        (``sticks`` is then its number of sticks). Defaults: ``{"mode": "duel", "sticks": 2, "order": "grevlex",
        "bonus_turn": False, "start": None}``.

        Raises:
            InvalidVariant: an unknown option, an illegal value, or a custom start that cannot be read or is
                already a Gröbner basis (the message quotes it).
        """
        return read_variant(options)[0].to_dict()

    def describe_end(self, outcome: Outcome) -> str:
        """The natural end, with the turns taken in solitaire (``"the sticks form a Gröbner basis in 5 turns"``)."""
        if outcome.termination is Termination.NATURAL and outcome.winner is None and not outcome.draw \
                and outcome.scores is not None and len(outcome.scores) == 1:
            turns = outcome.scores[0]
            return ngettext("the sticks form a Gröbner basis in {count} turn",
                            "the sticks form a Gröbner basis in {count} turns", turns).format(count=turns)
        return super().describe_end(outcome)

    def seats_for(self, variant: Mapping[str, Any] | None = None) -> int:
        """1 for ``mode="solitaire"``, else 2 (raises :class:`InvalidVariant` for an unknown mode)."""
        mode = (variant or {}).get("mode", "duel")
        if mode not in MODES:
            raise InvalidVariant(_("Option `mode` must be duel or solitaire, not {mode}.", mode=repr(mode)))
        return 1 if mode == "solitaire" else 2

    def new_state(self, variant: Mapping[str, Any] | None = None, rng: random.Random | None = None) -> GroebnerNimState:
        """Return the start: the custom ``start`` sticks, else ``sticks`` random sticks (coordinates 0–9) drawn
        by the fair-start rule of ``seeds/groebner_nim.md`` ("Random starts"): never a game of one or two turns,
        and in a duel without ``bonus_turn`` a draw under perfect play wherever the exact search settles it.

        Raises:
            InvalidVariant: an unknown option or a value out of range; a custom start that is not 2–6 binomials
                with exponents 0–20 and two different terms each, repeats a stick, or is already a Gröbner basis.
        """
        checked, start = read_variant(variant)
        if start is None:
            rng = rng or random.Random()
            start = computer.fair_start(checked.sticks, checked.order, checked.mode == "duel", checked.bonus_turn,
                                        rng)
        par = computer.start_par(start, checked.order) if checked.mode == "solitaire" else (None, False)
        return initial_state(checked, start, par)

    def start_note(self, state: GroebnerNimState) -> str | None:
        """For a duel from a typed start: whether perfect play wins it for one side (the exact search of
        :func:`games.groebner_nim.computer.start_value`, within its budget); random starts are drawn fair, so ``None``.
        """
        if state.variant.mode != "duel" or not state.variant.start or state.ply:
            return None
        value = computer.start_value(state.sticks, state.variant.order, state.variant.bonus_turn)
        if not value:
            return None
        side = "first" if value > 0 else "second"
        return (f"This start is a forced win for the {side} player: with perfect play they score {abs(value)} "
                f"point{'s' if abs(value) != 1 else ''} more.")

    level_descriptions: ClassVar[Mapping[Level, str]] = {
        "easy": "picks a random pair",
        "medium": "picks a random pair that adds a stick",
        "hard": "in a duel, plays perfectly wherever its search settles the game (choosing among its best pairs "
                "the one that gives you the most ways to go wrong) and otherwise looks ahead as far as its budget "
                "allows; in solitaire, follows a plan of the fewest turns",
    }

    def choose_move(self, state: GroebnerNimState, level: Level, rng: random.Random) -> Pair:
        """Choose a pair for the seat to move (:func:`games.groebner_nim.computer.choose_move`).

        ``easy``: a random unpicked pair. ``medium``: a random pair that adds a stick. With ``bonus_turn``, both
        hand the turn back after adding a stick: on a bonus turn they pick a random pair that adds nothing when one
        is left. ``hard``: in a duel, the exact game value when the search settles it within its budget, else a
        depth-limited alpha-beta search on the point margin; in solitaire, a plan of par turns.
        (:meth:`Game.computer_move` checks the state, the level and that the game is running.)
        """
        return computer.choose_move(state, level, rng)

    def exact_value(self, state: GroebnerNimState, seat: int) -> GameValue | None:
        """The value of ``state`` for ``seat`` where the exact search settles it within its budget: in a duel the
        final point margin under perfect play (kind ``"margin"``), in solitaire the turns the game takes with the
        fewest turns from here (kind ``"turns"``); ``None`` when the search runs out of budget
        (:func:`games.groebner_nim.computer.exact_value`, :data:`~games.groebner_nim.computer.REVIEW_NODES`)."""
        return computer.exact_value(state, seat)

    def exact_move_values(self, state: GroebnerNimState) -> dict[Pair, GameValue] | None:
        """The exact value of every unpicked pair for the mover (see :meth:`exact_value`), or ``None`` when one is
        not settled within the budget (:func:`games.groebner_nim.computer.move_values`)."""
        return computer.move_values(state)

    def exact_move(self, state: GroebnerNimState, move: Pair) -> MoveValues[Pair] | None:
        """The position's exact value with one best pair, and the value after ``move``, for the mover: two exact
        searches instead of one per pair (:func:`games.groebner_nim.computer.move_review`)."""
        return computer.move_review(state, move)


GAME = GroebnerNim()
"""The registry entry for ``groebner_nim``."""
