"""Rules-core states of stored matches: decoding them once per process (the state cache), replaying a move log, and
telling a damaged row from a sound one.

No ``discord`` import. A stored state is validated by replaying its moves (:meth:`games.Game.load`); the states this
process decoded or produced are kept, keyed by the exact stored data (states are immutable), so a running match is
replayed once per process, not on every action.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from bot.service.errors import Damaged
from games import GAMES, RulesError, State
from storage import MatchRecord, MoveRecord, compact_json

STATE_CACHE_SIZE = 1024
"""How many decoded states the process keeps (the most recently used), so that an action on a running match does
not re-derive its position from the move log again."""
_states: collections.OrderedDict[tuple[str, str], State[Any]] = collections.OrderedDict()
_states_lock = threading.Lock()  # moves are applied in the database thread, lookups happen on the event loop


def remember_state(game: str, state: State[Any], stored: str | None = None) -> None:
    """Keep ``state`` (just validated, e.g. the position after a move) for the next :func:`load_state` of the same
    stored data; ``stored`` is its JSON text as written (:func:`storage.compact_json` of ``state.to_dict()``), when
    the caller has it already."""
    key = game, stored if stored is not None else compact_json(state.to_dict())
    with _states_lock:
        _states[key] = state
        _states.move_to_end(key)
        while len(_states) > STATE_CACHE_SIZE:
            _states.popitem(last=False)


def load_state(match: MatchRecord) -> State[Any]:
    """The rules-core state of a stored match (raises ``InvalidState`` for corrupt data), from the cache when this
    process decoded or produced the same stored data before (keyed by the state's JSON text as stored, which a record
    read from the database carries: no encoding on the way)."""
    stored = getattr(match, "stored_state", None)  # (a record built by hand may not have it)
    key = match.game, stored if stored is not None else compact_json(match.state)
    with _states_lock:
        state = _states.get(key)
        if state is not None:
            _states.move_to_end(key)
            return state
    loaded: State[Any] = GAMES[match.game].load(match.state)
    remember_state(match.game, loaded)
    return loaded


def replay(match: MatchRecord, moves: Sequence[MoveRecord]) -> list[State[Any]]:
    """Return the states of a match from its initial state through every logged move (``len(moves) + 1``)."""
    return list(replay_states(match, moves))


def replay_states(match: MatchRecord, moves: Sequence[MoveRecord]) -> Iterator[State[Any]]:
    """The states of :func:`replay` one at a time (each made when it is asked for, so a caller that keeps a few of
    them holds only those)."""
    state = GAMES[match.game].load(match.initial_state)
    yield state
    for move in moves:
        state = state.play(move.notation)
        yield state


def damage_of(match: MatchRecord) -> str | None:
    """Why a loaded match cannot be played without touching its state: a damage already recorded or found when it
    was decoded, an unknown game, missing or misnumbered seats, or a seat to move out of range; ``None`` if
    none of these."""
    if match.damage:
        return match.damage
    if match.game not in GAMES:
        return f"unknown game {match.game[:40]!r}"
    if not match.seats or [s.seat for s in match.seats] != list(range(len(match.seats))):
        return "its seats are missing or misnumbered"
    if match.current_seat is not None and not 0 <= match.current_seat < len(match.seats):
        return f"the seat to move ({match.current_seat}) is out of range"
    if match.draw_offer_seat is not None and not 0 <= match.draw_offer_seat < len(match.seats):
        return f"the seat offering a draw ({match.draw_offer_seat}) is out of range"
    return None


def sound_state(match: MatchRecord) -> State[Any]:
    """The rules-core state of ``match``, after :func:`damage_of`'s checks.

    Raises:
        Damaged: the row is damaged, or its state does not load (the rules core's reason is kept).
    """
    reason = damage_of(match)
    if reason is None:
        try:
            return load_state(match)
        except (RulesError, ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
            reason = f"its state does not load ({type(error).__name__}: {str(error)[:120]})"
    raise Damaged(match.id, reason)
