"""The contract on SimCord's transport: every request the bot makes to the offline Discord is checked first.

Used by the test suite (``tests/contract_plugin.py``, on for every test) and by ``napkin play``. A request Discord
would refuse is answered as Discord answers it, 400 "Invalid Form Body" (code 50035), so the bot meets the refusal it
would meet on Discord, and nothing of it reaches SimCord's state; the breaches are handed to ``on_breach``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from simcord.backend.errors import BackendError
from simcord.http import router

from bot.contract import TOKEN_LIFETIME, Breach, contract

INVALID_FORM_BODY = 50035
"""Discord's JSON error code for a request body it refuses."""


class Tally:
    """What the guard saw: requests validated and the breaches found (in order)."""

    def __init__(self) -> None:
        self.validated = 0
        self.refused = 0
        self.breaches: list[Breach] = []


def _size(file: Any) -> int:
    """Bytes left to read in a :class:`discord.File` (its position kept)."""
    stream = getattr(file, "fp", None)
    if stream is None or not hasattr(stream, "seek"):
        return 0
    position = stream.tell()
    end = stream.seek(0, 2)
    stream.seek(position)
    return int(end - position)


def _token_age(backend: Any, path: str) -> float | None:
    """Seconds since the interaction whose token ``path`` carries was created, or ``None`` (no such token)."""
    parts = path.strip("/").split("/")
    record = None
    if parts[0] == "interactions" and len(parts) >= 3:
        with contextlib.suppress(ValueError):
            record = backend.interactions.get(int(parts[1]))
    elif parts[0] == "webhooks" and len(parts) >= 3:
        found = backend.interaction_tokens.get(parts[2])
        record = backend.interactions.get(found) if found is not None else None
    if record is None or record.expires_at is None:
        return None
    expires = datetime.fromisoformat(record.expires_at)
    now = datetime.fromisoformat(backend.now_iso())
    return TOKEN_LIFETIME - (expires - now).total_seconds()


@contextlib.contextmanager
def guarded(on_breach: Callable[[Sequence[Breach]], None] | None = None) -> Iterator[Tally]:
    """Check every request SimCord's transport takes while the block runs (in this process).

    Args:
        on_breach: called with the breaches of each refused request, before the refusal is raised.

    Inside another guard's block, the outer guard does the checking (this one's tally stays empty).

    Yields:
        The :class:`Tally` of what was checked.
    """
    tally = Tally()
    original = router.dispatch
    if getattr(original, "guarded", False):  # a guard is on already (a test of napkin play): it checks
        yield tally
        return
    checker = contract()

    def dispatch(backend: Any, method: str, path: str, *, json: Any | None = None,
                 files: list[Any] | None = None, **rest: Any) -> Any:
        breaches = checker.check(method, path, json, file_sizes=[_size(file) for file in files or ()],
                                 token_age=_token_age(backend, path))
        tally.validated += 1
        if breaches:
            tally.refused += 1
            tally.breaches.extend(breaches)
            if on_breach is not None:
                on_breach(breaches)
            raise BackendError(400, INVALID_FORM_BODY, f"Invalid Form Body: {breaches[0]}")
        return original(backend, method, path, json=json, files=files, **rest)

    dispatch.guarded = True  # type: ignore[attr-defined]
    router.dispatch = dispatch
    try:
        yield tally
    finally:
        router.dispatch = original
