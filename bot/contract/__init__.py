"""Discord's contract: whether Discord would accept a request the bot makes.

A request is held against Discord's published OpenAPI document (``openapi.json`` here, vendored with its commit and
licence: see ``README.md``) and against the limits Discord's documentation states in words (:mod:`._limits`). The
test suite checks every request the bot makes under SimCord this way (``tests/contract_plugin.py``), ``napkin sync
--check`` checks the command tree before an admin deploys, and the bot refuses to sync a tree Discord would refuse.

Use :func:`contract` for the loaded contract, then :meth:`Contract.check` for a request or
:meth:`Contract.check_commands` for a command tree.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.contract._limits import (
    COMMAND_CHARACTERS,
    EMBED_FIELD_VALUE,
    EMBEDS_TOTAL,
    FIRST_RESPONSE,
    MESSAGE_CONTENT,
    TOKEN_LIFETIME,
    UPLOAD_LIMIT,
    Breach,
    autocomplete_breaches,
    command_breaches,
    command_size,
    message_breaches,
    thread_breaches,
    upload_breaches,
)
from bot.contract._openapi import OpenApi

__all__ = ["COMMAND_CHARACTERS", "EMBEDS_TOTAL", "EMBED_FIELD_VALUE", "FIRST_RESPONSE", "MESSAGE_CONTENT",
           "TOKEN_LIFETIME", "UPLOAD_LIMIT", "Breach", "Contract", "command_size", "contract"]

MESSAGE_ROUTES = frozenset({
    ("POST", "/channels/{channel_id}/messages"),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"),
    ("POST", "/webhooks/{webhook_id}/{webhook_token}"),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original"),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"),
})
THREAD_ROUTES = frozenset({
    ("POST", "/channels/{channel_id}/threads"),
    ("POST", "/channels/{channel_id}/messages/{message_id}/threads"),
    ("PATCH", "/channels/{channel_id}"),
})
COMMAND_ROUTES = {
    ("PUT", "/applications/{application_id}/commands"): True,
    ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands"): False,
}
TOKEN_ROUTES = frozenset({
    "/interactions/{interaction_id}/{interaction_token}/callback",
    "/webhooks/{webhook_id}/{webhook_token}",
    "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
    "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
})
"""Routes an interaction's token authorizes (it lasts :data:`TOKEN_LIFETIME` seconds)."""
MESSAGE_CALLBACKS = frozenset({4, 7})
AUTOCOMPLETE_CALLBACK = 8


class Contract:
    """What Discord accepts: its OpenAPI document and its worded limits.

    Args:
        openapi: the loaded document (default: the vendored one).
    """

    def __init__(self, openapi: OpenApi | None = None) -> None:
        self.openapi = openapi or OpenApi()

    def route(self, method: str, path: str) -> str:
        """``"POST /channels/{channel_id}/messages"`` for ``("POST", "/channels/1/messages")`` (the path itself when the
        document has no such route)."""
        return f"{method.upper()} {self.openapi.template(path) or path}"

    def check(self, method: str, path: str, body: Any, *, file_sizes: Iterable[int] = (),
              upload_limit: int = UPLOAD_LIMIT, token_age: float | None = None) -> list[Breach]:
        """What Discord would refuse in one request.

        Args:
            method: the HTTP method (``"POST"``).
            path: the path under ``/api/v10`` (``"/channels/1/messages"``), query string allowed.
            body: the JSON body (for a multipart request, its ``payload_json``), or ``None``.
            file_sizes: the bytes of each file the request uploads.
            upload_limit: the bytes the files may take together (the interaction's ``attachment_size_limit``, else
                10 MiB).
            token_age: for a request on an interaction's token, the seconds since the interaction was created.

        Returns:
            Each breach (empty when Discord would accept the request): the route, the field and the limit.
        """
        method = method.upper()
        template = self.openapi.template(path)
        route = f"{method} {template or path}"
        if template is None:
            return [Breach(route, "$", "no such route in Discord's API")]
        if self.openapi.operation(method, template) is None:
            return [Breach(route, "$", f"Discord's API has no {method} on this route")]
        found: list[Breach] = []
        key = (method, template)
        payload = body if isinstance(body, Mapping) else {}
        if key in MESSAGE_ROUTES:
            found.extend(message_breaches(route, payload))
        elif key in THREAD_ROUTES:
            found.extend(thread_breaches(route, payload))
        elif key in COMMAND_ROUTES and isinstance(body, Sequence):
            found.extend(command_breaches(route, body, global_scope=COMMAND_ROUTES[key]))
        elif template.endswith("/callback"):
            data: Mapping[str, Any] = payload["data"] if isinstance(payload.get("data"), Mapping) else {}
            if payload.get("type") in MESSAGE_CALLBACKS:
                found.extend(message_breaches(route, data, where="$.data"))
            elif payload.get("type") == AUTOCOMPLETE_CALLBACK:
                found.extend(autocomplete_breaches(route, data))
        found.extend(Breach(route, where, message) for where, message in self.openapi.errors(method, template, body))
        found.extend(upload_breaches(route, file_sizes, upload_limit))
        if token_age is not None and template in TOKEN_ROUTES and token_age > TOKEN_LIFETIME:
            found.append(Breach(route, "token", f"an interaction's token lasts {TOKEN_LIFETIME // 60} minutes: used "
                                                f"{token_age / 60:,.1f} minutes after the interaction"))
        return _unique(found)

    def check_commands(self, commands: Sequence[Mapping[str, Any]], *, global_scope: bool = True) -> list[Breach]:
        """What Discord would refuse in a bulk overwrite of the application's commands with ``commands`` (the
        payload discord.py's ``CommandTree.sync`` sends): the schema and the worded limits, 4,000 characters a
        command above all."""
        path = "/applications/0/commands" if global_scope else "/applications/0/guilds/0/commands"
        return self.check("PUT", path, list(commands))


def _unique(breaches: list[Breach]) -> list[Breach]:
    """One breach a field (the worded limits, which come first, and the schema may both see one), in order."""
    return list({(breach.route, breach.field): breach for breach in reversed(breaches)}.values())[::-1]


@functools.cache
def contract() -> Contract:
    """The contract with the vendored document, loaded once per process (about a second)."""
    return Contract()
