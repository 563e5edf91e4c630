"""How a finished match ended: a typed :class:`Termination` and the small :class:`Outcome` value, after python-chess's
``Termination`` and ``Outcome`` (``Outcome.result()`` phrases the result once, on the value).

No other room of the rules core is imported here but its errors: states, declarations and renderers read outcomes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.errors import InvalidState
from i18n import N_, gettext


class Termination(enum.StrEnum):
    """Why a match ended. Stored by value in every outcome; texts, renderers and ratings read it, never prose.

    ``NATURAL`` is the end the game's own rules give (each game names it in its declaration's
    :attr:`games.declaration.Game.natural_end`: "both hands are dead", "the grid is full", "no coin fits", ...), so a
    new game needs no new member here.
    """

    NATURAL = "natural"
    """The game's own end (its :attr:`games.declaration.Game.natural_end`)."""
    REPETITION = "repetition"
    """A position occurred the third time (a draw)."""
    MOVE_LIMIT = "move_limit"
    """The game reached its move limit (a draw)."""
    RESIGNED = "resigned"
    """The seat that is not the winner resigned (solitaire: the player gave up)."""
    OUT_OF_TIME = "out_of_time"
    """The seat to move passed its deadline."""
    DRAW_AGREED = "draw_agreed"
    """Both players agreed to a draw."""
    ABORTED = "aborted"
    """Called off before both sides moved; counts for nobody."""

    def phrase(self, natural_end: str) -> str:
        """How this termination reads in a sentence (``"third repetition"``, ``"out of time"``): ``natural_end`` (the
        game's :attr:`games.declaration.Game.natural_end`) for ``NATURAL``, else :data:`TERMINATION_PHRASES`, in the
        language being spoken (:func:`i18n.speaking`)."""
        return gettext(natural_end if self is Termination.NATURAL else TERMINATION_PHRASES[self])

    @property
    def by_player(self) -> bool:
        """``True`` when a player's action ended the match (resigned, out of time, agreed, aborted)."""
        return self in (Termination.RESIGNED, Termination.OUT_OF_TIME, Termination.DRAW_AGREED, Termination.ABORTED)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: the winning seat (0-based), or ``None`` for a draw, an aborted match or a solitaire game.
        draw: ``True`` when the game ended drawn (never for solitaire).
        scores: final score per seat (solitaire: ``(turns,)``), or ``None`` for games without scores.
        termination: why it ended.
        loser: the seat that resigned or ran out of time (``None`` otherwise); in solitaire the winner is
            ``None``, so this is the only record of who gave up.
    """

    winner: int | None
    draw: bool
    scores: tuple[int, ...] | None
    termination: Termination
    loser: int | None = None

    def result(self, names: Sequence[str], end: str, *, winner_style: Callable[[str], str] | None = None) -> str:
        """The result sentence, the one way a finished match's result is phrased (as python-chess's
        ``Outcome.result()``): who won or that it was drawn, and why it ended.

        Args:
            names: display name per seat (``["Ann", "Bob"]``; one name in solitaire).
            end: how the game's own end reads, :meth:`games.declaration.Game.describe_end` of this outcome
                (``"both hands are dead"``, ``"third repetition"``, ``"the sticks form a Gröbner basis in 5 turns"``).
            winner_style: how the winner's name is set (a message's ``**bold**``); unchanged by default.

        Returns:
            One line without a final stop, in the language being spoken (:func:`i18n.speaking`; here English):
            ``"Ann wins: both hands are dead"``, ``"Draw: third repetition"``,
            ``"Finished: the sticks form a Gröbner basis in 5 turns"`` (solitaire), ``"Bob resigned: Ann wins"``,
            ``"Ann ran out of time: Bob wins"``, ``"Ann resigned"`` (solitaire), ``"Draw agreed"``, ``"Aborted"``.
            A winner or loser seat outside ``names`` is left unnamed.
        """
        termination = self.termination
        if termination is Termination.ABORTED:
            return gettext("Aborted")
        if termination is Termination.DRAW_AGREED:
            return gettext("Draw agreed")
        winner = names[self.winner] if self.winner is not None and 0 <= self.winner < len(names) else None
        if winner is not None and winner_style is not None:
            winner = winner_style(winner)
        if termination in (Termination.RESIGNED, Termination.OUT_OF_TIME) and self.loser is not None \
                and 0 <= self.loser < len(names):
            loser = names[self.loser]
            if termination is Termination.RESIGNED:
                if winner is None:
                    return gettext("{loser} resigned").format(loser=loser)
                return gettext("{loser} resigned: {winner} wins").format(loser=loser, winner=winner)
            if winner is None:
                return gettext("{loser} ran out of time").format(loser=loser)
            return gettext("{loser} ran out of time: {winner} wins").format(loser=loser, winner=winner)
        if self.draw:
            return gettext("Draw: {end}").format(end=end)
        if winner is None:
            return gettext("Finished: {end}").format(end=end)
        return gettext("{winner} wins: {end}").format(winner=winner, end=end)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (``termination`` by its value)."""
        return {
            "winner": self.winner,
            "draw": self.draw,
            "scores": list(self.scores) if self.scores is not None else None,
            "termination": self.termination.value,
            "loser": self.loser,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Rebuild an outcome from :meth:`to_dict` output.

        Raises:
            InvalidState: a field is missing or of the wrong kind, or the termination is unknown.
        """
        try:
            termination = Termination(data["termination"])
            winner, draw, scores, loser = data["winner"], data["draw"], data["scores"], data.get("loser")
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidState(f"An outcome needs winner, draw, scores and a known termination ({error}).") from None
        if (winner is not None and type(winner) is not int) or (loser is not None and type(loser) is not int):
            raise InvalidState("An outcome's winner and loser are seat numbers or empty.")
        if type(draw) is not bool:
            raise InvalidState("An outcome's draw is true or false.")
        if scores is not None and (not isinstance(scores, list | tuple) or any(type(s) is not int for s in scores)):
            raise InvalidState("An outcome's scores are a list of whole numbers or empty.")
        return cls(winner, draw, tuple(scores) if scores is not None else None, termination, loser)


def stored_outcome_agrees(stored: Any, outcome: Outcome | None) -> bool:
    """Whether a stored outcome dict (``Outcome.to_dict`` output, or ``None``) is ``outcome`` (re-derived by replay),
    for the ``from_dict`` checks of states that store their outcome."""
    if outcome is None or stored is None:
        return stored is None and outcome is None
    return bool(stored == outcome.to_dict())


TERMINATION_PHRASES: dict[Termination, str] = {
    Termination.NATURAL: N_("the game is over"),
    Termination.REPETITION: N_("third repetition"),
    Termination.MOVE_LIMIT: N_("move limit"),
    Termination.RESIGNED: N_("resignation"),
    Termination.OUT_OF_TIME: N_("out of time"),
    Termination.DRAW_AGREED: N_("draw agreed"),
    Termination.ABORTED: N_("aborted"),
}
"""How each termination reads in a sentence (``NATURAL``: the game's own
:attr:`games.declaration.Game.natural_end`)."""
