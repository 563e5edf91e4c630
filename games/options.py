"""A game's variant options, declared once (:class:`Option`): checked here (:func:`check_options`), read from text as
players type them (:func:`parse_options`), and shown by the start command's pickers and the rules' option table.

The rules of each game declare their options with it and check a variant through it; it imports only the errors,
so that a game's rules never need its declaration (:mod:`games.declaration`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.errors import InvalidVariant
from i18n import Text, _


@dataclass(frozen=True, slots=True)
class Option:
    """One variant option, declared once: validation, the start command's option, and the rules' table.

    Attributes:
        name: the key in the variant dict and the start command's option name (``snake_case``).
        description: one line for players (at most 100 characters: Discord's limit), without the legal values or
            the default: the pickers (:meth:`command_description`) and the rules' table add them.
        default: the value when the player leaves the option out (``None``: "not set", for options whose
            default comes from another option, such as a preset).
        unset: what a ``None`` default means, in words for the rules' table (``"as the preset says"``).
        kind: ``"bool"``, ``"int"`` (``minimum``..``maximum`` inclusive), ``"choice"`` (one of ``choices``) or
            ``"text"`` (at most ``max_length`` characters).
    """

    name: str
    description: str
    default: Any
    kind: Literal["bool", "int", "choice", "text"]
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    max_length: int = 400
    unset: str = "not set"

    def check(self, value: Any) -> Any:
        """Return ``value`` if it is legal for this option (``None`` only where the default is ``None``).

        Raises:
            InvalidVariant: the value is of the wrong kind or out of range; the message names the option and
                its legal values.
        """
        if value is None and self.default is None:
            return None
        if self.kind == "bool":
            if type(value) is not bool:
                raise InvalidVariant(_("Option `{name}` must be true or false, not `{value}`.", name=self.name,
                                       value=str(value)))
        elif self.kind == "int":
            low, high = self.minimum, self.maximum
            if type(value) is not int or (low is not None and value < low) or (high is not None and value > high):
                raise InvalidVariant(_("Option `{name}` must be a whole number from {low} to {high}, not `{value}`.",
                                       name=self.name, low=low, high=high, value=str(value)))
        elif self.kind == "choice":
            if value not in self.choices:
                raise InvalidVariant(_("Option `{name}` must be one of {choices}, not `{value}`.", name=self.name,
                                       choices=", ".join(self.choices), value=str(value)))
        elif not isinstance(value, str) or len(value) > self.max_length:
            raise InvalidVariant(_("Option `{name}` must be text of at most {most} characters.", name=self.name,
                                   most=self.max_length))
        return value

    def command_description(self) -> str:
        """The option's text in the pickers of the start and tournament commands: :attr:`description`, then the range
        of an ``int`` and the default of an ``int`` or a ``choice`` (``"Grid size n×n (4–15, default 8)"``), which a
        picker would not show otherwise. The rules' option table gives these in words instead
        (:meth:`describe_values`). Discord allows 100 characters; the declarations test holds every game to it."""
        hints = []
        if self.kind == "int":
            hints.append(f"{self.minimum}–{self.maximum}")
        if self.default is not None and self.kind in ("int", "choice"):
            hints.append(f"default {self.default}")
        return f"{self.description} ({', '.join(hints)})" if hints else self.description

    def describe_values(self) -> str:
        """The legal values in words, for the rules' option table (``"true or false"``, ``"4 to 15"``, ...)."""
        if self.kind == "bool":
            return "on or off"
        if self.kind == "int":
            return f"{self.minimum} to {self.maximum}"
        if self.kind == "choice":
            return ", ".join(self.choices)
        return f"text (up to {self.max_length} characters)"


_OPTION_NAME = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_]*)\s*:")
TRUE_WORDS = ("true", "yes", "on")
FALSE_WORDS = ("false", "no", "off")


def _typed(text: str, limit: int = 40) -> str:
    """``text`` as quoted back in a message: cut to ``limit`` characters, backticks made apostrophes."""
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[:limit] + "…"


def parse_option(option: Option, text: str) -> Any:
    """The value of ``option`` written as ``text`` (``"true"``/``"on"``/``"yes"``, a whole number, one of its choices
    in any case, or text), checked by :meth:`Option.check`.

    Raises:
        InvalidVariant: the text is not a value of the option; the message quotes it and names the legal values.
    """
    text = text.strip()
    if option.kind == "bool":
        if text.lower() in TRUE_WORDS:
            return True
        if text.lower() in FALSE_WORDS:
            return False
        raise InvalidVariant(_("Option `{name}` is true or false, not `{typed}`.", name=option.name,
                               typed=_typed(text)))
    if option.kind == "int":
        if not text.lstrip("-").isdecimal() or len(text) > 12:
            raise InvalidVariant(_("Option `{name}` is a whole number from {low} to {high}, not `{typed}`.",
                                   name=option.name, low=option.minimum, high=option.maximum, typed=_typed(text)))
        return option.check(int(text))
    if option.kind == "choice":
        chosen = next((choice for choice in option.choices if choice.lower() == text.lower()), None)
        if chosen is None:
            raise InvalidVariant(_("Option `{name}` is one of {choices}, not `{typed}`.", name=option.name,
                                   choices=", ".join(option.choices), typed=_typed(text)))
        return chosen
    return option.check(text)


def parse_options(options: Sequence[Option], text: str) -> dict[str, Any]:
    """Read options written as a start command shows them typed, ``"n:6 unique:true"``, into their values.

    Each option is ``name:value``; a value runs to the next ``name:`` (so a text value may hold spaces and commas:
    ``start:x^3+1, x*y^2+y^3``). Options left out are not in the result (their defaults apply later).

    Raises:
        InvalidVariant: text that is not ``name:value``, an option named twice or unknown (the message lists the
            known ones), or a value that is not legal for its option; the message quotes what was typed.
    """
    text = text.strip()
    found = list(_OPTION_NAME.finditer(text))
    if text and (not found or found[0].start(1) != 0):
        if options:
            raise InvalidVariant(_("`{typed}` is not a list of options such as `{name}:…`: write each as name:value.",
                                   typed=_typed(text), name=options[0].name))
        raise InvalidVariant(_("`{typed}` is not a list of options: write each as name:value.", typed=_typed(text)))
    by_name = {option.name: option for option in options}
    values: dict[str, Any] = {}
    for index, match in enumerate(found):
        name = match.group(1)
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        value = text[match.end():end].strip()
        if name not in by_name:
            raise InvalidVariant(_no_such_option(_typed(name), list(by_name)))
        if name in values:
            raise InvalidVariant(_("Option `{name}` is given twice.", name=name))
        if not value:
            raise InvalidVariant(_("Option `{name}` has no value: write it as `{name}:…`.", name=name))
        values[name] = parse_option(by_name[name], value)
    return values


def _no_such_option(name: str, known: Sequence[str]) -> Text:
    """The refusal of an option ``name`` that is not one of ``known`` (the game's option names)."""
    if not known:
        return _("There is no option `{name}`; this game has no options.", name=name)
    return _("There is no option `{name}`; the options are {known}.", name=name, known=", ".join(known))


def check_options(options: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``given`` against ``options``: every key known, every value legal; missing ones take defaults.

    Returns the full dict (one entry per option, in declaration order).

    Raises:
        InvalidVariant: an unknown option (the message lists the known ones) or an illegal value.
    """
    if given is not None and not isinstance(given, Mapping):
        raise InvalidVariant("A variant must be a set of named options.")  # never a member's: a caller's mistake
    given = dict(given or {})
    names = [option.name for option in options]
    unknown = sorted(str(key) for key in given if key not in names)
    if unknown:
        raise InvalidVariant(_no_such_option(unknown[0], names))
    return {option.name: option.check(given.get(option.name, option.default)) for option in options}
