"""A tournament's results, as lichess's ``SwissScoring`` beside the recording of each game's end: what a finished
game scores on its pairing, who is withdrawn by how their game ended, and the standings (:mod:`.standings`). It never
pairs (:mod:`.tournament_director` does).

No ``discord`` import. Transaction-body steps over a :class:`storage.Tx`.

A game scores 1–0, 0–1 or ½–½; it counts as played when both sides moved. A game that ended before both sides moved
(a tournament's game is never aborted: :mod:`bot.service.finisher`) scores its result as the pairing rules score a
forfeit, but is not a game played (the tie-breaks count it as unplayed), and the member who lost it without ever
moving is withdrawn from later rounds as a no-show, as lichess and Online-Go.com do. A member who lost a game on time
is withdrawn from later rounds too (Online-Go.com's practice: their other games go on).
"""

from __future__ import annotations

from games import Outcome, Termination
from storage import MatchRecord, Tx

NO_SHOW = "no-show"
"""Why a member who lost a game without ever moving is withdrawn."""
LOST_ON_TIME = "lost on time"
"""Why a member who lost a game on time is withdrawn."""


def pairing_points(match: MatchRecord) -> tuple[float, float]:
    """``(first seat's points, second seat's points)`` of a finished game: 1–0, 0–1, ½–½; 0–0 for a match that ended
    with no winner and no draw (aborted: only a match that was not a tournament's game when it ended)."""
    outcome = Outcome.from_dict(match.outcome) if match.outcome else None
    if outcome is None or match.status == "aborted":
        return 0.0, 0.0
    if outcome.draw:
        return 0.5, 0.5
    if outcome.winner == 0:
        return 1.0, 0.0
    if outcome.winner == 1:
        return 0.0, 1.0
    return 0.0, 0.0


def record_results(tx: Tx, tournament_id: int) -> list[int]:
    """Inside ``tx``: write the result of every game of ``tournament_id`` whose match is over and not yet recorded,
    and withdraw from later rounds the member who lost one without moving (a no-show) or on time. Returns the members
    so withdrawn."""
    withdrawn = []
    for match_id in tx.ended_unrecorded(tournament_id):
        match = tx.get_match(match_id)
        pairing = tx.tournament_pairing_of_match(match_id)
        if match is None or pairing is None:
            continue
        first, second = pairing_points(match)
        moved = {move.seat for move in tx.get_moves(match_id)}
        tx.set_board_result(tournament_id, pairing.round, pairing.board, first, second, moved >= {0, 1})
        outcome = Outcome.from_dict(match.outcome) if match.outcome else None
        if outcome is None or outcome.winner not in (0, 1) or outcome.draw:
            continue
        loser_seat = 1 - outcome.winner
        reason = NO_SHOW if loser_seat not in moved else \
            LOST_ON_TIME if outcome.termination is Termination.OUT_OF_TIME else None
        loser = pairing.first_id if loser_seat == 0 else pairing.second_id
        entry = tx.tournament_entry(tournament_id, loser or 0)
        if reason is not None and entry is not None and entry.withdrawn_round is None and not entry.is_computer:
            tx.update_entry(tournament_id, entry.user_id, withdrawn_round=pairing.round + 1, withdrawn_reason=reason)
            withdrawn.append(entry.user_id)
    return withdrawn


def any_game_played(tx: Tx, tournament_id: int) -> bool:
    """Whether a game of the tournament was played over the board (both sides moved): one in which none was has no
    podium and counts in nobody's record."""
    return any(pairing.played for pairing in tx.tournament_pairings(tournament_id) if pairing.kind == "game")
