"""The limits Discord's documentation states in words, which its OpenAPI document cannot hold (or states more
loosely than a bot may use): per request body, each a function yielding :class:`Breach` es.

Sources (Discord's developer documentation, API v10): "Application Commands" (names, descriptions, options, choices,
the 4,000 characters of a command counting its longest localizations, 100 global chat-input commands, autocomplete
results); "Messages" (2,000 characters of content for a bot); "Embed Limits" (title 256, description 4,096, 25
fields, field name 256 and value 1,024, footer 2,048, author 256, and 6,000 characters over every embed of a
message); "Message Components" (5 action rows, 5 buttons a row, labels 80, ``custom_id`` 1–100 and unique in the
message, 25 select options); "Threads" (names 1–100); "Uploading Files" (descriptions 1,024; every file of a request
within the upload limit: 10 MiB in a server without boosts); "Receiving and Responding" (an interaction's token
lasts 15 minutes).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MESSAGE_CONTENT = 2000
"""Characters of a bot message's content."""
EMBEDS = 10
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256
EMBEDS_TOTAL = 6000
"""Characters of every embed of one message together (titles, descriptions, field names and values, footers,
authors)."""
ACTION_ROWS = 5
ROW_BUTTONS = 5
BUTTON_LABEL = 80
CUSTOM_ID = 100
SELECT_OPTIONS = 25
SELECT_TEXT = 100
THREAD_NAME = 100
ATTACHMENT_DESCRIPTION = 1024
UPLOAD_LIMIT = 10 * 1024 * 1024
"""Bytes of the files of one request in a server without boosts (the interaction's ``attachment_size_limit`` says
more where the server has them)."""
TOKEN_LIFETIME = 15 * 60
"""Seconds an interaction's token may be used (follow-ups, edits of the original response)."""
FIRST_RESPONSE = 3
"""Seconds within which an interaction must be answered (or deferred)."""

COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
"""Discord's ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` (checked with :func:`_name_problem`, which also
holds every character to a letter, a mark of those scripts or a number)."""
COMMAND_DESCRIPTION = 100
COMMAND_OPTIONS = 25
COMMAND_CHOICES = 25
CHOICE_NAME = 100
CHOICE_VALUE = 100
COMMAND_CHARACTERS = 4000
"""Characters of a command with every subcommand, group, option and choice: names, descriptions and choice values,
each counted in its longest localization."""
GLOBAL_CHAT_COMMANDS = 100
AUTOCOMPLETE_CHOICES = 25

SUBCOMMAND, GROUP = 1, 2
CHAT_INPUT = 1


@dataclass(frozen=True, slots=True)
class Breach:
    """One thing Discord would refuse in a request.

    Attributes:
        route: the method and route template (``"POST /channels/{channel_id}/messages"``).
        field: where in the body, as a JSON path (``"$.embeds[0].description"``), or a command's name.
        limit: the limit broken and by how much (``"at most 4,096 characters: 4,210 sent"``).
    """

    route: str
    field: str
    limit: str

    def __str__(self) -> str:
        return f"{self.route}: {self.field}: {self.limit}"


def _over(count: int, limit: int, unit: str) -> str:
    return f"at most {limit:,} {unit}: {count:,} sent"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


# ---------------------------------------------------------------- messages


def message_breaches(route: str, body: Mapping[str, Any], *, where: str = "$") -> Iterator[Breach]:
    """What Discord refuses in a message body (create, edit, follow-up, interaction response): content, embeds,
    components and attachment descriptions."""
    content = _text(body.get("content"))
    if len(content) > MESSAGE_CONTENT:
        yield Breach(route, f"{where}.content", _over(len(content), MESSAGE_CONTENT, "characters"))
    yield from _embed_breaches(route, body.get("embeds") or (), where)
    yield from _component_breaches(route, body.get("components") or (), where)
    for index, attachment in enumerate(body.get("attachments") or ()):
        description = _text(attachment.get("description")) if isinstance(attachment, Mapping) else ""
        if len(description) > ATTACHMENT_DESCRIPTION:
            yield Breach(route, f"{where}.attachments[{index}].description",
                         _over(len(description), ATTACHMENT_DESCRIPTION, "characters"))


def _embed_breaches(route: str, embeds: Sequence[Any], where: str) -> Iterator[Breach]:
    if len(embeds) > EMBEDS:
        yield Breach(route, f"{where}.embeds", _over(len(embeds), EMBEDS, "embeds"))
    total = 0
    for index, embed in enumerate(embeds):
        if not isinstance(embed, Mapping):
            continue
        at = f"{where}.embeds[{index}]"
        sized = [("title", _text(embed.get("title")), EMBED_TITLE),
                 ("description", _text(embed.get("description")), EMBED_DESCRIPTION),
                 ("footer.text", _text((embed.get("footer") or {}).get("text")), EMBED_FOOTER),
                 ("author.name", _text((embed.get("author") or {}).get("name")), EMBED_AUTHOR)]
        fields = embed.get("fields") or ()
        if len(fields) > EMBED_FIELDS:
            yield Breach(route, f"{at}.fields", _over(len(fields), EMBED_FIELDS, "fields"))
        for number, field in enumerate(fields):
            sized.append((f"fields[{number}].name", _text(field.get("name")), EMBED_FIELD_NAME))
            sized.append((f"fields[{number}].value", _text(field.get("value")), EMBED_FIELD_VALUE))
            for part in ("name", "value"):
                if not _text(field.get(part)).strip():
                    yield Breach(route, f"{at}.fields[{number}].{part}", "must not be empty")
        for name, text, limit in sized:
            total += len(text)
            if len(text) > limit:
                yield Breach(route, f"{at}.{name}", _over(len(text), limit, "characters"))
    if total > EMBEDS_TOTAL:
        yield Breach(route, f"{where}.embeds", _over(total, EMBEDS_TOTAL, "characters over every embed"))


def _component_breaches(route: str, rows: Sequence[Any], where: str) -> Iterator[Breach]:
    if len(rows) > ACTION_ROWS:
        yield Breach(route, f"{where}.components", _over(len(rows), ACTION_ROWS, "action rows"))
    seen: set[str] = set()
    for index, row in enumerate(rows):
        children = row.get("components") or () if isinstance(row, Mapping) else ()
        at = f"{where}.components[{index}]"
        buttons = [child for child in children if isinstance(child, Mapping) and child.get("type") == 2]
        if len(buttons) > ROW_BUTTONS:
            yield Breach(route, f"{at}.components", _over(len(buttons), ROW_BUTTONS, "buttons"))
        if len(buttons) != len(children) and len(children) > 1:
            yield Breach(route, f"{at}.components", "a select menu fills its action row alone")
        for number, child in enumerate(children):
            if not isinstance(child, Mapping):
                continue
            place = f"{at}.components[{number}]"
            label = _text(child.get("label"))
            if len(label) > BUTTON_LABEL:
                yield Breach(route, f"{place}.label", _over(len(label), BUTTON_LABEL, "characters"))
            custom_id = child.get("custom_id")
            if custom_id is not None:
                if not 1 <= len(str(custom_id)) <= CUSTOM_ID:
                    yield Breach(route, f"{place}.custom_id", f"1 to {CUSTOM_ID} characters: {len(str(custom_id))} "
                                                              "sent")
                if custom_id in seen:
                    yield Breach(route, f"{place}.custom_id", f"unique in the message: {custom_id!r} is used twice")
                seen.add(str(custom_id))
            options = child.get("options") or ()
            if len(options) > SELECT_OPTIONS:
                yield Breach(route, f"{place}.options", _over(len(options), SELECT_OPTIONS, "options"))
            for option_index, option in enumerate(options):
                for key in ("label", "value", "description"):
                    text = _text(option.get(key))
                    if len(text) > SELECT_TEXT:
                        yield Breach(route, f"{place}.options[{option_index}].{key}",
                                     _over(len(text), SELECT_TEXT, "characters"))


def autocomplete_breaches(route: str, data: Mapping[str, Any], *, where: str = "$.data") -> Iterator[Breach]:
    """What Discord refuses in an autocomplete result: more than 25 choices, a name outside 1–100 characters, a text
    value over 100."""
    choices = data.get("choices") or ()
    if len(choices) > AUTOCOMPLETE_CHOICES:
        yield Breach(route, f"{where}.choices", _over(len(choices), AUTOCOMPLETE_CHOICES, "choices"))
    for index, choice in enumerate(choices):
        yield from _choice_breaches(route, choice, f"{where}.choices[{index}]")


def _choice_breaches(route: str, choice: Mapping[str, Any], at: str) -> Iterator[Breach]:
    for name in _localized(choice, "name"):
        if not 1 <= len(name) <= CHOICE_NAME:
            yield Breach(route, f"{at}.name", f"1 to {CHOICE_NAME} characters: {len(name)} sent ({name[:40]!r})")
    value = choice.get("value")
    if isinstance(value, str) and len(value) > CHOICE_VALUE:
        yield Breach(route, f"{at}.value", _over(len(value), CHOICE_VALUE, "characters"))


def thread_breaches(route: str, body: Mapping[str, Any]) -> Iterator[Breach]:
    """A thread's name must have 1 to 100 characters."""
    name = body.get("name")
    if name is not None and not 1 <= len(_text(name)) <= THREAD_NAME:
        yield Breach(route, "$.name", f"1 to {THREAD_NAME} characters: {len(_text(name))} sent")


def upload_breaches(route: str, sizes: Iterable[int], limit: int = UPLOAD_LIMIT) -> Iterator[Breach]:
    """The files of one request must fit the upload limit together (``limit`` bytes)."""
    total = sum(sizes)
    if total > limit:
        yield Breach(route, "files", _over(total, limit, "bytes"))


# ---------------------------------------------------------------- commands


def _localized(item: Mapping[str, Any], key: str) -> list[str]:
    """The text of ``key`` and each of its localizations (``key_localizations``)."""
    texts = [_text(item.get(key))]
    texts.extend(_text(text) for text in (item.get(f"{key}_localizations") or {}).values())
    return texts


def _longest(item: Mapping[str, Any], key: str) -> int:
    return max(len(text) for text in _localized(item, key))


def command_size(command: Mapping[str, Any]) -> int:
    """The characters Discord counts against a command's 4,000: the name and description of the command and of each
    of its subcommands, groups and options, and each choice's name and value, each in its longest localization."""
    size = _longest(command, "name") + _longest(command, "description")
    for choice in command.get("choices") or ():
        size += _longest(choice, "name") + len(str(choice.get("value", "")))
    for option in command.get("options") or ():
        size += command_size(option)
    return size


def _name_problem(name: str) -> str | None:
    if not COMMAND_NAME.match(name):
        return f"1 to 32 letters, numbers, '-', '_' or \"'\": {name!r}"
    if name != name.lower():
        return f"lower case: {name!r}"
    for character in name:
        if character not in "-_'" and unicodedata.category(character)[0] not in "LNM":
            return f"letters, numbers, '-', '_' or \"'\": {name!r} has {character!r}"
    return None


def command_breaches(route: str, commands: Sequence[Mapping[str, Any]], *, global_scope: bool) -> Iterator[Breach]:
    """What Discord refuses in a bulk overwrite of an application's commands: each command's names, descriptions,
    options and choices, its 4,000 characters, and at most 100 chat-input commands globally."""
    chat = [command for command in commands if command.get("type", CHAT_INPUT) == CHAT_INPUT]
    if global_scope and len(chat) > GLOBAL_CHAT_COMMANDS:
        yield Breach(route, "$", _over(len(chat), GLOBAL_CHAT_COMMANDS, "global chat-input commands"))
    names = [command.get("name") for command in chat]
    for name in sorted({name for name in names if names.count(name) > 1}, key=str):
        yield Breach(route, f"/{name}", "command names are unique")
    for command in chat:
        name = str(command.get("name"))
        size = command_size(command)
        if size > COMMAND_CHARACTERS:
            yield Breach(route, f"/{name}", _over(size, COMMAND_CHARACTERS, "characters (longest localizations)"))
        yield from _item_breaches(route, command, f"/{name}", top=True)


def _item_breaches(route: str, item: Mapping[str, Any], at: str, *, top: bool) -> Iterator[Breach]:
    for name in _localized(item, "name"):
        problem = _name_problem(name)
        if problem:
            yield Breach(route, f"{at} name", problem)
    for description in _localized(item, "description"):
        if not 1 <= len(description) <= COMMAND_DESCRIPTION:
            yield Breach(route, f"{at} description", f"1 to {COMMAND_DESCRIPTION} characters: {len(description)} "
                                                     f"sent ({description[:40]!r})")
    options = list(item.get("options") or ())
    if len(options) > COMMAND_OPTIONS:
        yield Breach(route, f"{at} options", _over(len(options), COMMAND_OPTIONS, "options"))
    nested = [option for option in options if option.get("type") in (SUBCOMMAND, GROUP)]
    if nested and len(nested) != len(options):
        yield Breach(route, f"{at} options", "subcommands and groups cannot sit beside other options")
    if not top and item.get("type") == GROUP and any(option.get("type") != SUBCOMMAND for option in options):
        yield Breach(route, f"{at} options", "a group holds subcommands only")
    option_names = [str(option.get("name")) for option in options]
    for name in sorted({name for name in option_names if option_names.count(name) > 1}):
        yield Breach(route, f"{at} {name}", "option names are unique in their command")
    required = [bool(option.get("required")) for option in options if option.get("type") not in (SUBCOMMAND, GROUP)]
    if any(later and not earlier for earlier, later in itertools.pairwise(required)):
        yield Breach(route, f"{at} options", "required options come before optional ones")
    choices = list(item.get("choices") or ())
    if len(choices) > COMMAND_CHOICES:
        yield Breach(route, f"{at} choices", _over(len(choices), COMMAND_CHOICES, "choices"))
    for index, choice in enumerate(choices):
        yield from _choice_breaches(route, choice, f"{at} choices[{index}]")
    for option in options:
        yield from _item_breaches(route, option, f"{at} {option.get('name')}", top=False)
