"""What a position is worth: the exact :class:`GameValue` a solver proves, the :class:`Estimate` a computer player
guesses, and a move's :class:`MoveValues` (what reviews mark moves with).

Plain values: this module imports nothing of the rules core (the review, :mod:`games.review`, and the games'
computers make them; the declaration, :class:`games.declaration.Game`, hands them on).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from i18n import Text, _, n_, p_

MoveT = TypeVar("MoveT")
"""A game's move type: a small frozen, hashable value."""

ValueKind = Literal["outcome", "margin", "turns"]


@dataclass(frozen=True, slots=True)
class GameValue:
    """The exact value of a position for one seat under perfect play by every seat (what a solver proves).

    Attributes:
        kind: ``"outcome"`` for games without scores: ``amount`` is 1 (a win), 0 (a draw) or -1 (a loss);
            ``"margin"`` for games that score: ``amount`` is the seat's final points minus its opponent's;
            ``"turns"`` for solitaire: ``amount`` is the turns the whole game takes (fewer is better).
        amount: see ``kind``.
        distance: plies left to the end under perfect play (the winner fastest, the loser slowest) where the
            solver knows it, else ``None``.
    """

    kind: ValueKind
    amount: int
    distance: int | None = None

    @property
    def rank(self) -> int:
        """A number that is higher the better the value is for the seat (``turns``: the amount negated)."""
        return -self.amount if self.kind == "turns" else self.amount

    @property
    def result(self) -> Literal["win", "draw", "loss"] | None:
        """``"win"``, ``"draw"`` or ``"loss"`` by the sign of the amount; ``None`` for ``turns``."""
        if self.kind == "turns":
            return None
        return "win" if self.amount > 0 else "loss" if self.amount < 0 else "draw"

    def short(self) -> Text | str:
        """The value in a word or two: ``win``, ``draw``, ``loss``; ``+3``, ``0``, ``−2`` (points, as they are in
        every language); ``5 turns`` (a :class:`i18n.Text` where there are words: ``str()`` is the English)."""
        if self.kind == "outcome":
            return {"win": p_("value", "win"), "draw": p_("value", "draw"), "loss": p_("value", "loss")}[
                self.result or "draw"]
        if self.kind == "margin":
            return f"+{self.amount}" if self.amount > 0 else f"−{-self.amount}" if self.amount < 0 else "0"
        return n_("{count} turn", "{count} turns", self.amount)

    def describe(self) -> Text:
        """The value in words: ``a win``, ``a draw``, ``a loss by 2 points``, ``5 turns`` (``str()`` is the
        English; rendered in any shipped language)."""
        if self.kind == "turns":
            return n_("{count} turn", "{count} turns", self.amount)
        if self.kind == "outcome" or self.amount == 0:
            return {"win": _("a win"), "draw": _("a draw"), "loss": _("a loss")}[self.result or "draw"]
        points = abs(self.amount)
        if self.result == "win":
            return n_("a win by {count} point", "a win by {count} points", points)
        return n_("a loss by {count} point", "a loss by {count} points", points)


@dataclass(frozen=True, slots=True)
class Estimate:
    """An estimated value of a position for one seat (a computer player's evaluation, not a proof).

    Attributes:
        kind: ``"margin"``: ``amount`` is the expected final points of the seat minus its opponent's;
            ``"outcome"``: ``amount`` is the expected result from -1 (a sure loss) to 1 (a sure win).
        amount: see ``kind``.
    """

    kind: Literal["outcome", "margin"]
    amount: float

    def short(self) -> Text | str:
        """``≈ +2.5`` (points) or ``≈ 70% to win`` (a :class:`i18n.Text`: ``str()`` is the English)."""
        if self.kind == "margin":
            return f"≈ {self.amount:+.1f}".replace("-", "−")
        return _("≈ {percent}% to win", percent=round(50 * (self.amount + 1)))


@dataclass(frozen=True, slots=True)
class MoveValues(Generic[MoveT]):
    """A move's exact values for the player who made it (see :meth:`games.declaration.Game.exact_move`).

    Attributes:
        before: the value of the position before the move: the best the mover could get.
        after: the value of the position the move led to.
        keeping: moves that keep ``before`` (at least one, when ``after`` is worse), in the order of
            ``legal_moves``.
    """

    before: GameValue
    after: GameValue
    keeping: tuple[MoveT, ...]
