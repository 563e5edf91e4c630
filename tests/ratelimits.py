"""Discord's rate limits, emulated in front of SimCord, for discord.py's own rate-limit handling to meet.

SimCord's transport replaces discord.py's ``HTTPClient.request`` whole, so discord.py's buckets, pre-emptive waits
and 429 retries never run under it. Here the real ``HTTPClient.request`` runs again, over a fake aiohttp session
that answers the way Discord does (its "Rate Limits" documentation):

- every route has a bucket per major parameter (the channel, the server, the webhook and its token), of
  :data:`BUCKET_LIMIT` requests per :data:`BUCKET_WINDOW` seconds, told in the ``X-RateLimit-Limit``,
  ``-Remaining``, ``-Reset``, ``-Reset-After`` and ``-Bucket`` headers of every answer; the routes that create, edit
  and delete a channel's messages share one bucket (one ``-Bucket`` hash), as Discord's do;
- over them, a global limit of :data:`GLOBAL_LIMIT` requests a second (interaction responses excepted);
- a request over either is answered 429 with ``retry_after`` (and ``global``) in its JSON body, ``Retry-After``,
  ``X-RateLimit-Scope`` and the ``Via`` header discord.py looks for, and never reaches SimCord.

Time is SimCord's virtual clock (its backend's, which ``time.monotonic`` and so discord.py's waits read in the bot's
scope). Install with :func:`rate_limited` before the
environment starts. :meth:`Limits.spend` uses a bucket up, as a bot process that has just restarted finds it: Discord
remembers the window, discord.py does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from discord.http import HTTPClient, Route
from multidict import CIMultiDict
from simcord._clock import Clock
from simcord.backend.errors import BackendError
from simcord.http import FakeHTTPClient, router
from simcord.http.client import _path_of

BUCKET_LIMIT = 5
BUCKET_WINDOW = 5.0
"""Requests a route's bucket takes per window, and the window in seconds (Discord's message bucket: 5 per 5 s)."""
GLOBAL_LIMIT = 50
"""Requests a second over every bucket (Discord's global limit for a bot)."""
UNLIMITED = ("/interactions/",)
"""Routes outside the global limit (Discord: interaction endpoints are not bound to it)."""

_PENDING: contextvars.ContextVar[tuple[Route, Any, Any, dict[str, Any]]] = contextvars.ContextVar("pending")


MESSAGES_BUCKET = "channel-messages"
"""The bucket hash of the routes on a channel's messages (create, edit, delete)."""


def bucket_of(route: Route) -> str:
    """The bucket hash Discord gives ``route``: one for a channel's message routes, else one per route."""
    if route.path.startswith("/channels/{channel_id}/messages") and route.path.count("/") <= 4:
        return MESSAGES_BUCKET
    return f"{route.method}:{route.path}"


@dataclass
class Window:
    """A fixed window of requests: when it began and how many it took."""

    limit: int
    length: float
    start: float = -math.inf
    used: int = 0

    def take(self, now: float) -> float | None:
        """Take one request at ``now``; ``None`` if taken, else the seconds until the window resets."""
        if now >= self.start + self.length:
            self.start, self.used = now, 0
        if self.used >= self.limit:
            return self.start + self.length - now
        self.used += 1
        return None


@dataclass
class Limits:
    """The emulated limits and what they saw: every request (``(method, path, status)``), and the 429s."""

    buckets: dict[str, Window] = field(default_factory=dict)
    global_window: Window = field(default_factory=lambda: Window(GLOBAL_LIMIT, 1.0))
    log: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def limited(self) -> int:
        """How many requests were answered 429."""
        return sum(1 for _, _, status in self.log if status == 429)

    def window(self, bucket_hash: str, major: str) -> Window:
        """The window of bucket ``bucket_hash`` for the major parameters ``major`` (created on first use)."""
        return self.buckets.setdefault(f"{bucket_hash}:{major}", Window(BUCKET_LIMIT, BUCKET_WINDOW))

    def spend(self, bucket_hash: str, major: str, now: float) -> None:
        """Use the bucket's window up from ``now`` (SimCord's virtual seconds)."""
        window = self.window(bucket_hash, major)
        window.start, window.used = now, window.limit

    def admit(self, route: Route, path: str, clock: Clock) -> tuple[dict[str, str], dict[str, Any] | None]:
        """The rate-limit headers of a request at the time of ``clock`` (SimCord's), and the 429 body if it is
        refused."""
        now = clock.elapsed
        bucket_hash = bucket_of(route)
        window = self.window(bucket_hash, route.major_parameters)
        scope, wait = "user", None
        if not path.startswith(UNLIMITED):
            wait = self.global_window.take(now)
            scope = "global" if wait is not None else scope
        if wait is None:
            wait = window.take(now)
        reset_after = max(window.start + window.length - now, 0.0)
        headers = {"X-RateLimit-Limit": str(window.limit), "X-RateLimit-Remaining": str(window.limit - window.used),
                   "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                   "X-RateLimit-Reset": f"{clock.now().timestamp() + reset_after:.3f}",
                   "X-RateLimit-Bucket": bucket_hash, "Via": "1.1 google"}
        if wait is None:
            return headers, None
        headers |= {"Retry-After": str(math.ceil(wait)), "X-RateLimit-Scope": scope}
        if scope == "global":
            headers["X-RateLimit-Global"] = "true"
        return headers, {"message": "You are being rate limited.", "retry_after": round(wait, 3),
                         "global": scope == "global", "code": 0}


class _Response:
    """What discord.py reads of an aiohttp response."""

    def __init__(self, status: int, body: Any, headers: dict[str, str]) -> None:
        self.status = status
        self.reason = "Too Many Requests" if status == 429 else "OK"
        self.headers = CIMultiDict(headers)
        self.headers["Content-Type"] = "application/json"
        self._text = json.dumps(body)

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def __aenter__(self) -> _Response:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Session:
    """A fake aiohttp session: each request goes through :class:`Limits`, then to SimCord's route table."""

    def __init__(self, http: FakeHTTPClient, limits: Limits) -> None:
        self.http = http
        self.limits = limits
        self.closed = False

    def request(self, method: str, url: str, **_: Any) -> _Response:
        route, files, form, kwargs = _PENDING.get()
        path = _path_of(url)
        headers, refusal = self.limits.admit(route, path, self.http.backend.clock)
        if refusal is not None:
            self.limits.log.append((method, path, 429))
            return _Response(429, refusal, headers)
        body = kwargs.get("json")
        file_list = list(files or [])
        if form is not None:
            payload, file_list = router.parse_form(list(form), file_list)
            if payload is not None:
                body = payload
        try:
            data = router.dispatch(self.http.backend, method, path, json=body, params=kwargs.get("params"),
                                   files=file_list, reason=kwargs.get("reason"),
                                   message_content_access=self.http.message_content_access)
        except (router.RouteNotImplemented, router.UnsupportedField):
            raise
        except BackendError as error:
            self.limits.log.append((method, path, error.status))
            return _Response(error.status, error.to_json(), headers)
        self.limits.log.append((method, path, 200))
        return _Response(200, data, headers)


def rate_limited_client(limits: Limits) -> type[FakeHTTPClient]:
    """A SimCord transport class whose requests run discord.py's own ``HTTPClient.request`` against ``limits``."""

    class RateLimitedHTTP(FakeHTTPClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._HTTPClient__session = _Session(self, limits)

        async def static_login(self, token: str) -> Any:
            self._global_over = asyncio.Event()  # (what discord.py's own login sets up)
            self._global_over.set()
            return await super().static_login(token)

        async def request(self, route: Route, *, files: Any | None = None, form: Any | None = None,
                          **kwargs: Any) -> Any:
            token = _PENDING.set((route, files, form, dict(kwargs)))
            try:
                return await HTTPClient.request(self, route, files=files, form=form, **kwargs)
            finally:
                _PENDING.reset(token)

    return RateLimitedHTTP


@contextlib.contextmanager
def rate_limited(monkeypatch: pytest.MonkeyPatch) -> Iterator[Limits]:
    """While the block runs, environments started use Discord's rate limits (emulated); yields what they saw."""
    limits = Limits()
    monkeypatch.setattr("simcord._runtime.FakeHTTPClient", rate_limited_client(limits))
    yield limits
