"""Request bodies against Discord's OpenAPI document (``openapi.json`` beside this module), with ``jsonschema``.

An operation is found by its method and path (the document's path templates, ``{channel_id}`` matching one segment);
its ``application/json`` request body schema is checked with a Draft 2020-12 validator (OpenAPI 3.1's dialect) over a
registry holding the whole document, so ``$ref`` s resolve as written. Validators are built once per operation.
"""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DOCUMENT = Path(__file__).with_name("openapi.json")
URI = "urn:discord-api-spec"
CHECKED_CAP = 4096
"""Bodies whose schema check is remembered (the oldest forgotten all at once beyond it)."""

ALLOWANCES = """Where the document is stricter than Discord itself, one relaxation each, applied when it is loaded:
a snowflake may also be a non-negative JSON integer (discord.py sends ids as numbers in ``allowed_mentions`` and
``attachments``, and Discord reads both)."""


def _relaxed(document: dict[str, Any]) -> dict[str, Any]:
    """The document with :data:`ALLOWANCES` applied (a copy)."""
    document = copy.deepcopy(document)
    schemas = document["components"]["schemas"]
    schemas["SnowflakeType"] = {"oneOf": [schemas["SnowflakeType"], {"type": "integer", "minimum": 0}]}
    return document


class OpenApi:
    """Discord's OpenAPI document, loaded once (about 1.2 MB), with a validator per operation built on first use."""

    def __init__(self, path: Path = DOCUMENT) -> None:
        with path.open(encoding="utf-8") as file:
            self.document = _relaxed(json.load(file))
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self._registry: Registry[Any] = Registry().with_resource(URI, resource)
        self._validators: dict[tuple[str, str], Draft202012Validator | None] = {}
        self._checked: dict[tuple[str, str, str], list[tuple[str, str]]] = {}

    @cached_property
    def _templates(self) -> dict[int, list[tuple[list[str], str]]]:
        by_length: dict[int, list[tuple[list[str], str]]] = defaultdict(list)
        for template in self.document["paths"]:
            segments = template.strip("/").split("/")
            by_length[len(segments)].append((segments, template))
        return by_length

    def template(self, path: str) -> str | None:
        """The document's path template for ``path`` (``/channels/1/messages`` → ``/channels/{channel_id}/messages``),
        the most literal one when several match; ``None`` when none does."""
        segments = path.split("?", 1)[0].strip("/").split("/")
        best: tuple[int, str] | None = None
        for template_segments, template in self._templates.get(len(segments), ()):
            literals = 0
            for expected, given in zip(template_segments, segments, strict=True):
                if expected.startswith("{") and expected.endswith("}"):
                    continue
                if expected != given:
                    break
                literals += 1
            else:
                if best is None or literals > best[0]:
                    best = (literals, template)
        return best[1] if best else None

    def operation(self, method: str, template: str) -> Mapping[str, Any] | None:
        """The operation object of ``method`` on ``template``, if the document has one."""
        found = self.document["paths"].get(template, {}).get(method.lower())
        return found if isinstance(found, Mapping) else None

    def _validator(self, method: str, template: str) -> Draft202012Validator | None:
        key = (method.upper(), template)
        if key not in self._validators:
            operation = self.operation(method, template)
            body = (operation or {}).get("requestBody", {}).get("content", {}).get("application/json")
            validator = None
            if body is not None:
                pointer = "/".join(part.replace("~", "~0").replace("/", "~1")
                                   for part in ("paths", template, method.lower(), "requestBody", "content",
                                                "application/json", "schema"))
                validator = Draft202012Validator({"$ref": f"{URI}#/{pointer}"}, registry=self._registry)
            self._validators[key] = validator
        return self._validators[key]

    def errors(self, method: str, template: str, body: Any) -> list[tuple[str, str]]:
        """``(json_path, message)`` for each way ``body`` breaks the operation's request schema (none when the
        operation takes no JSON body). A body checked before is answered from memory (the command tree, synced at
        every start, costs about a second to check)."""
        if body is None or self._validator(method, template) is None:
            return []
        key = (method.upper(), template, json.dumps(body, sort_keys=True, default=str))
        found = self._checked.get(key)
        if found is None:
            found = self._errors(method, template, body)
            if len(self._checked) >= CHECKED_CAP:
                self._checked.clear()
            self._checked[key] = found
        return found

    def _errors(self, method: str, template: str, body: Any) -> list[tuple[str, str]]:
        validator = self._validator(method, template)
        assert validator is not None
        return [(leaf.json_path, _message(leaf)) for error in validator.iter_errors(body) for leaf in _leaves(error)]


def _leaves(error: ValidationError) -> list[ValidationError]:
    """The errors that say what is wrong: inside a failed ``oneOf``/``anyOf``, those of the one branch of the body's
    own kind (a branch whose ``type`` field or JSON type does not match is of another kind)."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    branches: dict[Any, list[ValidationError]] = defaultdict(list)
    for sub in error.context:
        branches[sub.relative_schema_path[0]].append(sub)
    plausible = [errors for errors in branches.values() if not any(_other_kind(sub) for sub in errors)]
    if not plausible:
        return [error]
    # Of several plausible branches (an autocomplete's text, integer and number results), the one whose types agree
    # with the body's most, then the one with the fewest errors.
    closest = min(plausible, key=lambda errors: (sum(_mistyped(sub) for sub in errors), len(errors)))
    return [leaf for sub in closest for leaf in _leaves(sub)]


def _mistyped(error: ValidationError) -> int:
    """How many of ``error`` and its causes are a value of the wrong JSON type."""
    return int(error.validator == "type") + sum(_mistyped(sub) for sub in error.context or ())


def _other_kind(error: ValidationError) -> bool:
    path = list(error.relative_path)
    if not path and error.validator == "type":
        return True
    return path == ["type"] and error.validator in ("enum", "const")


def _message(error: ValidationError) -> str:
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    instance = error.instance
    if error.validator == "maxLength" and isinstance(instance, str):
        return f"at most {schema.get('maxLength'):,} characters: {len(instance):,} sent"
    if error.validator == "minLength" and isinstance(instance, str):
        return f"at least {schema.get('minLength'):,} characters: {len(instance):,} sent"
    if error.validator == "maxItems" and isinstance(instance, list):
        return f"at most {schema.get('maxItems'):,} items: {len(instance):,} sent"
    text = str(error.message)
    return text if len(text) <= 300 else text[:297] + "..."
