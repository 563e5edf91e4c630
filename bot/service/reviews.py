"""Reviews of finished matches, made piece by piece in the computer's long lane.

A review is one search per move (:mod:`games.review`): each move's marks are one piece of the review's job of long
work (:class:`bot.service.computer_scheduler.LongWork`), run in a worker, so that between two pieces the workers
serve the computer's moves and other servers' reviews. The review is the one :func:`games.review.review` makes in one
call: the moves are marked in order while the work spent on them (CPU seconds in the workers: the same on a busy
machine as on an idle one) is at most :data:`games.review.REVIEW_SECONDS`, and the moves left are marked not reviewed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from bot.service.computer_scheduler import LongWork
from games.review import REVIEW_SECONDS, MoveReview, Review, assemble, review_piece, review_rest


async def review_match(job: LongWork, game: str, initial_state: Mapping[str, Any], notations: Sequence[str], *,
                       seed: str, seconds: float = REVIEW_SECONDS) -> Review:
    """The review of a stored match (its game, initial state in ``to_dict()`` form and moves in notation), one piece
    per move in ``job`` (which waits for its turn first), within ``seconds`` of work; deterministic for ``seed``
    while within them.

    Raises:
        bot.service.computer_workers.WorkerLost: the workers running one of its pieces died too often.
        bot.service.computer_workers.ComputerStopped: the computer's workers were stopped meanwhile.
        games.InvalidState, games.InvalidMove, games.IllegalMove: the match does not replay.
    """
    notations = list(notations)
    marks: list[MoveReview] = []
    for ply in range(1, len(notations) + 1):
        if job.seconds > seconds:
            marks.extend(await job.run(review_rest, game, initial_state, notations, ply))
            break
        marks.append(await job.run(functools.partial(review_piece, seed=seed), game, initial_state, notations, ply))
    return assemble(game, marks)
