"""Tournament standings from the pairings of the completed rounds: points, tie-breaks, games played, and what the
pairing engine is fed (:class:`bot.service.pairing.Entrant`).

No ``discord`` import and no storage access: plain computations over the stored rows (:mod:`storage.records`), so
they are tested alone against hand-computed crosstables.

Scoring: a win 1, a draw ½, a loss 0; a pairing-allocated bye (the odd player out of a Swiss round) 1; the ½-point
bye of each round a late entrant missed ½; a game forfeited (never played by one side) 1 to the other side; a round
a Swiss player is not paired in (withdrawn) 0; a round-robin player's bye (the odd player out of a round) 0 and left
out of the tie-breaks, since everyone has one.

Tie-breaks follow FIDE's rules for unplayed games (FIDE Handbook C.02, 13.15, in force until 2023, which lichess's
Swiss does not apply: lila #13694):

- every unplayed game of an *opponent* (their byes, forfeits, rounds not paired) counts as a draw in that opponent's
  score (13.15.1);
- each of a player's *own* unplayed rounds ``R`` (a bye, a forfeit, a round not paired) counts as a game against a
  virtual opponent who had the player's points before that round, scored the opposite of the player's result in it,
  and drew every later round: ``Svon = SPR + (1 − SfPR) + ½ (n − R)``, with ``n`` the completed rounds (13.15.2).

Buchholz cut-1 is the sum of the opponents' scores so counted, less the lowest; Sonneborn-Berger the sum of each
opponent's score so counted times the player's points against them. Swiss standings rank by points, then Buchholz
cut-1, then Sonneborn-Berger; round-robin standings by points, then Sonneborn-Berger, then wins (games won, forfeits
included, byes not). Players equal on all of these share a rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.service.pairing import Entrant
from storage import TournamentEntryRecord, TournamentPairingRecord

TIEBREAKS: dict[str, tuple[str, str]] = {
    "swiss": ("Buchholz cut-1", "Sonneborn-Berger"),
    "round_robin": ("Sonneborn-Berger", "wins"),
}
"""The tie-breaks of each format, in order (after points)."""
SHORT_TIEBREAKS: dict[str, tuple[str, str]] = {"swiss": ("BH-1", "SB"), "round_robin": ("SB", "W")}
"""Their column headings."""

HALF = Fraction(1, 2)


@dataclass(frozen=True)
class Round:
    """One player's round, as the stored pairings say.

    Attributes:
        number: the round. opponent: who they met (``None``: a bye, not paired). seat: 0 first, 1 second (``None``
        without a game). points: what they scored. played: a game was played over the board (both sides moved).
        kind: ``game``, ``forfeit``, ``bye``, ``half_bye`` or ``absent`` (not paired). left_out: the round does not
        count in the tie-breaks (a round robin's bye).
    """

    number: int
    opponent: int | None
    seat: int | None
    points: Fraction
    played: bool
    kind: str
    left_out: bool = False


@dataclass(frozen=True)
class Line:
    """A row of the standings."""

    rank: int
    key: int
    name: str
    points: Fraction
    tiebreaks: tuple[Fraction, Fraction]
    games: int
    """Games played over the board."""
    wins: int
    rating: int
    withdrawn: bool
    level: str | None = None
    """The computer's level when this row is the computer (its rating is then the level's, set, not earned)."""


def rounds_of(entries: Sequence[TournamentEntryRecord], games: Iterable[TournamentPairingRecord],
              completed: int, fmt: str = "swiss") -> dict[int, list[Round]]:
    """Each entrant's rounds ``1 .. completed`` (a round with no stored pairing is ``absent``), keyed by member id,
    in a tournament of format ``fmt``.

    Only pairings with a result count; a round with a game still running is not complete and must not be passed.
    """
    found: dict[int, dict[int, Round]] = {entry.user_id: {} for entry in entries}
    for game in games:
        if game.round > completed or game.first_points is None:
            continue
        first_points = Fraction(game.first_points).limit_denominator(2)
        if game.second_id is None:
            found.setdefault(game.first_id, {})[game.round] = Round(
                game.round, None, None, first_points, False, game.kind,
                left_out=fmt == "round_robin" and game.kind == "bye")
            continue
        second_points = Fraction(game.second_points or 0).limit_denominator(2)
        played = bool(game.played)
        found.setdefault(game.first_id, {})[game.round] = Round(game.round, game.second_id, 0, first_points, played,
                                                                game.kind)
        found.setdefault(game.second_id, {})[game.round] = Round(game.round, game.first_id, 1, second_points, played,
                                                                 game.kind)
    return {key: [rounds.get(number) or Round(number, None, None, Fraction(0), False, "absent")
                  for number in range(1, completed + 1)]
            for key, rounds in found.items()}


def _points(rounds: Sequence[Round]) -> Fraction:
    return sum((r.points for r in rounds), Fraction(0))


def _adjusted(rounds: Sequence[Round]) -> Fraction:
    """A player's score as their opponents' tie-breaks count it: each unplayed round a draw (13.15.1)."""
    return sum((r.points if r.played else HALF for r in rounds if not r.left_out), Fraction(0))


def _opponent_values(rounds: Sequence[Round], adjusted: dict[int, Fraction],
                     completed: int) -> list[tuple[Fraction, Fraction]]:
    """``(opponent's counted score, the player's points)`` per round that counts: a played game, or the virtual
    opponent of an unplayed round (13.15.2); a round robin's byes are left out."""
    values = []
    before = Fraction(0)
    for r in rounds:
        if not r.left_out:
            if r.played and r.opponent is not None:
                values.append((adjusted[r.opponent], r.points))
            else:
                values.append((before + (1 - r.points) + HALF * (completed - r.number), r.points))
        before += r.points
    return values


def standings(fmt: str, entries: Sequence[TournamentEntryRecord], games: Iterable[TournamentPairingRecord],
              completed: int) -> list[Line]:
    """The standings of a tournament of format ``fmt`` (``swiss`` or ``round_robin``) after ``completed`` rounds,
    best first (see the module's docstring for the order and the tie-breaks)."""
    by_key = {entry.user_id: entry for entry in entries}
    rounds = rounds_of(entries, games, completed, fmt)
    adjusted = {key: _adjusted(player_rounds) for key, player_rounds in rounds.items()}
    rows = []
    for key, player_rounds in rounds.items():
        entry = by_key.get(key)
        if entry is None:
            continue
        values = _opponent_values(player_rounds, adjusted, completed)
        buchholz = [value for value, _ in values]
        cut = sum(buchholz, Fraction(0)) - (min(buchholz) if buchholz else 0)
        berger = sum((value * points for value, points in values), Fraction(0))
        wins = sum(1 for r in player_rounds if r.kind in ("game", "forfeit") and r.points == 1)
        points = _points(player_rounds)
        tiebreaks = (cut, berger) if fmt == "swiss" else (berger, Fraction(wins))
        rows.append((entry, points, tiebreaks, sum(1 for r in player_rounds if r.played), wins))
    rows.sort(key=lambda row: (-row[1], -row[2][0], -row[2][1], -row[4], row[0].number))
    lines: list[Line] = []
    for index, (entry, points, tiebreaks, played, wins) in enumerate(rows):
        rank = index + 1
        if lines and (lines[-1].points, lines[-1].tiebreaks, lines[-1].wins) == (points, tiebreaks, wins):
            rank = lines[-1].rank
        lines.append(Line(rank, entry.user_id, entry.display_name, points, tiebreaks, played, wins, entry.rating,
                          entry.withdrawn_round is not None, entry.level))
    return lines


def entrants(entries: Sequence[TournamentEntryRecord], games: Iterable[TournamentPairingRecord],
             completed: int, round_number: int) -> list[Entrant]:
    """What the Swiss engine needs of every entrant to pair in round ``round_number`` (those who joined by then and
    are not withdrawn from it), from the games of the ``completed`` rounds (see :class:`~bot.service.pairing.Entrant`
    for the float history)."""
    rounds = rounds_of(entries, games, completed)
    before: dict[int, list[Fraction]] = {}
    for key, player_rounds in rounds.items():
        running, totals = Fraction(0), []
        for r in player_rounds:
            totals.append(running)
            running += r.points
        before[key] = totals
    found = []
    for entry in entries:
        if entry.joined_round > round_number or (entry.withdrawn_round is not None
                                                 and entry.withdrawn_round <= round_number):
            continue
        player_rounds = rounds.get(entry.user_id, [])
        floats = []
        for index, r in enumerate(player_rounds):
            if r.kind == "bye":
                floats.append("down")
            elif r.played and r.opponent is not None:
                mine, theirs = before[entry.user_id][index], before.get(r.opponent, [Fraction(0)] * completed)[index]
                floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
            else:
                floats.append("none")
        found.append(Entrant(
            key=entry.user_id, number=entry.number, rating=entry.rating, points=float(_points(player_rounds)),
            seats=tuple(r.seat if r.played else None for r in player_rounds), floats=tuple(floats),
            byes=sum(1 for r in player_rounds if r.kind == "bye"),
            forfeit_wins=sum(1 for r in player_rounds if r.kind in ("game", "forfeit") and not r.played
                             and r.points == 1),
            opponents=frozenset(r.opponent for r in player_rounds if r.opponent is not None),
        ))
    return found


def points_text(points: Fraction) -> str:
    """``2½``, ``3``, ``½``: points as players write them."""
    whole, rest = divmod(points, 1)
    if rest == 0:
        return str(int(whole))
    return ("" if whole == 0 else str(int(whole))) + "½"


def tiebreak_text(value: Fraction) -> str:
    """A tie-break value: whole, or with one ½ or ¼ fraction (``7½``, ``10¼``); otherwise two decimals."""
    whole, rest = divmod(value, 1)
    marks = {Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾"}
    if rest == 0:
        return str(int(whole))
    if rest in marks:
        return ("" if whole == 0 else str(int(whole))) + marks[rest]
    return f"{float(value):.2f}"
