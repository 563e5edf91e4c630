"""Every word a member reads, in their language: translatable texts, marked in the code and rendered at the edge.

A :class:`Text` is a message id with its named placeholders, not yet in any language: the rules core, the renderers
and the services make them (``_("Match #{match} is over.", match=7)``) without knowing who will read them, and the
edge that knows — a reply in the member's locale, a post in the server's language — renders it
(:func:`render`). ``n_`` marks a sentence with plural forms (CLDR's rules per language, through the catalog's
``Plural-Forms``), ``p_`` one with a context for the translator (the same English words meaning two things).

Catalogs are gettext ``.po`` files under ``i18n/locales/<locale>/LC_MESSAGES/napkin.po``, read with Babel when
first needed (no compiled ``.mo`` to keep in step); ``make catalogs`` extracts the ids from the code with Babel's
extractor (``babel.cfg``) and merges them into every catalog (:mod:`i18n.catalogs`). A locale we do not ship
renders in English; a message id missing from a shipped catalog is a test failure (tests/i18n/test_catalogs.py),
and at run time falls back to English, never to a key.

Numbers in placeholders are written the locale's way (Babel's ``format_decimal``: ``1,138`` / ``1 138`` /
``1.138``); :func:`format_list` and :func:`format_duration` write lists and durations the same way. Imports nothing
of ours and no ``discord``: every layer may use it.
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import babel.numbers
from babel import Locale, UnknownLocaleError
from babel.dates import format_datetime, format_skeleton, format_timedelta
from babel.lists import format_list as _babel_format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

log = logging.getLogger(__name__)

DOMAIN = "napkin"
"""The gettext domain: ``napkin.po`` in each locale's folder."""
SOURCE = "en"
"""The language the message ids are written in."""
SHIPPED = ("en", "fr", "de", "es_ES", "pt_BR")
"""The locales with a complete catalog (Babel's identifiers; Discord writes them ``fr``, ``de``, ``es-ES``,
``pt-BR``)."""
LOCALES = Path(__file__).parent / "locales"
"""Where the catalogs are: ``<locale>/LC_MESSAGES/napkin.po``."""
KEYWORDS = {"_": None, "N_": None, "n_": (1, 2), "p_": ((1, "c"), 2), "gettext": None, "ngettext": (1, 2),
            "pgettext": ((1, "c"), 2), "plural_forms": (1, 2)}
"""The markers Babel's extractor looks for, as ``babel.messages.extract`` takes them: :func:`_`, :func:`n_`,
:func:`p_` make a :class:`Text`; :func:`gettext`, :func:`ngettext`, :func:`pgettext` translate at once into the
language being spoken (:func:`speaking`), for code that draws or writes words itself (the renderers)."""


@dataclass(frozen=True)
class Text:
    """A sentence not yet in any language: a message id (with its plural and context) and its named placeholders.

    ``str(text)`` is the English; :meth:`render` gives any locale. Placeholder values that are :class:`Text` are
    rendered in the same locale, numbers the locale's way, anything else with ``str``.
    """

    message: str
    params: Mapping[str, Any] = field(default_factory=dict)
    plural: str | None = None
    count: int | None = None
    context: str | None = None

    def render(self, locale: str | None = None) -> str:
        """The sentence in ``locale`` (a Babel or Discord locale identifier; ``None`` or one we do not ship:
        English)."""
        translations = catalog(resolve(locale))
        if self.plural is not None:
            count = self.count or 0
            if self.context is not None:
                pattern = translations.unpgettext(self.context, self.message, self.plural, count)
            else:
                pattern = translations.ungettext(self.message, self.plural, count)
        elif self.context is not None:
            pattern = translations.upgettext(self.context, self.message)
        else:
            pattern = translations.ugettext(self.message)
        code = resolve(locale)
        values = {name: _value(value, code) for name, value in self.params.items()}
        if self.count is not None:
            values.setdefault("count", _value(self.count, code))
        return pattern.format(**values) if values else pattern

    def __str__(self) -> str:
        return self.render(SOURCE)

    def __add__(self, other: object) -> str:  # guards against assembling sentences from fragments
        raise TypeError("a Text is one sentence: give the whole sentence one message id, with placeholders")


Textual = str | Text
"""What a reply or a drawing takes: words already final (a member's own, a name, notation) or a :class:`Text`."""


def _(message: str, **params: Any) -> Text:
    """Mark ``message`` (one whole sentence, with ``{named}`` placeholders) for translation."""
    return Text(message, params)


def n_(singular: str, plural: str, count: int, **params: Any) -> Text:
    """Mark a sentence with plural forms: ``n_("{count} day", "{count} days", days)``. ``{count}`` is ``count``
    written the locale's way; the catalog chooses the form by the locale's plural rule."""
    return Text(singular, params, plural=plural, count=count)


def p_(context: str, message: str, **params: Any) -> Text:
    """Mark ``message`` with a context for the translator (``p_("seat", "first")``)."""
    return Text(message, params, context=context)


@dataclass(frozen=True)
class Listed:
    """A placeholder value that is a list of words: written ``a, b and c`` the locale's way (Babel's
    ``format_list``); each item a :class:`Text`, final words or another placeholder value (a :class:`Channel`)."""

    items: tuple[Any, ...]
    style: str = "standard"
    """Babel's list style: ``standard`` (and), ``or``."""


@dataclass(frozen=True)
class Duration:
    """A placeholder value that is a length of time, in seconds: written ``3 days`` / ``3 jours`` (Babel's
    ``format_timedelta``, rounded to its largest unit)."""

    seconds: float


@dataclass(frozen=True)
class Moment:
    """A placeholder value that is a point in time (Unix seconds). Where the edge says how to write it
    (:func:`write_with`: the bot gives Discord's timestamp markup, which every member's client shows in their own time
    zone) so; elsewhere the locale's date and time in UTC (Babel's ``format_datetime``), or with ``relative`` how far
    from now it is (``in 3 hours`` / ``dans 3 heures``)."""

    at: float
    relative: bool = False


@dataclass(frozen=True)
class Member:
    """A placeholder value that is a member (their Discord user id): where the edge says how to write it
    (:func:`write_with`: the bot gives a mention) so; elsewhere ``member <id>``."""

    user_id: int


@dataclass(frozen=True)
class Channel:
    """A placeholder value that is a channel (its Discord id): where the edge says how to write it
    (:func:`write_with`: the bot gives a channel mention) so; elsewhere ``channel <id>``."""

    channel_id: int


@dataclass(frozen=True)
class Period:
    """A placeholder value that is a calendar month or quarter of a year: written as the locale names it (Babel's
    date skeletons): ``March 2025`` / ``mars 2025`` / ``marzo de 2025``, ``Q1 2025`` / ``T1 2025``."""

    year: int
    month: int | None = None
    """1–12 for a month, else ``None``."""
    quarter: int | None = None
    """1–4 for a quarter, else ``None``."""


_writers: dict[type, Callable[[Any], str]] = {}


def write_with(kind: type, writer: Callable[[Any], str]) -> None:
    """From now on, placeholder values of ``kind`` (:class:`Moment`, :class:`Member`, :class:`Channel`) are written
    by ``writer``: the edge that knows where the sentence is read decides (the bot writes Discord markup; the services
    that make the sentences never do)."""
    _writers[kind] = writer


@dataclass(frozen=True)
class Later:
    """A placeholder value whose words are made when the sentence is rendered, in its language: ``make`` runs while
    that language is spoken (:func:`speaking`), so code that translates with :func:`gettext` (a game's
    ``describe_end``) says it in the reader's language."""

    make: Callable[[], str]


def _value(value: Any, locale: str) -> str:
    if isinstance(value, Text):
        return value.render(locale)
    if isinstance(value, Later):
        with speaking(locale):
            return value.make()
    if isinstance(value, Listed):
        return format_list([_value(item, locale) for item in value.items], locale, style=value.style)
    if isinstance(value, Duration):
        return format_duration(value.seconds, locale)
    if isinstance(value, Period):
        first = date(value.year, value.month or 3 * ((value.quarter or 1) - 1) + 1, 1)
        return format_skeleton("yMMMM" if value.month else "yQQQ", first, locale=_babel(locale))
    if isinstance(value, Moment | Member | Channel):
        writer = _writers.get(type(value))
        if writer is not None:
            return writer(value)
        if isinstance(value, Member):
            return f"member {value.user_id}"
        if isinstance(value, Channel):
            return f"channel {value.channel_id}"
        if value.relative:
            return format_timedelta(timedelta(seconds=value.at - time.time()), locale=_babel(locale),
                                    add_direction=True, threshold=1.0)
        moment = datetime.fromtimestamp(value.at, UTC)
        return format_datetime(moment, "medium", tzinfo=UTC, locale=_babel(locale)) + " UTC"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return format_number(value, locale)
    return str(value)


_speaking: ContextVar[str] = ContextVar("napkin_speaking", default=SOURCE)


@contextmanager
def speaking(locale: str | None) -> Iterator[str]:
    """Within the block, :func:`gettext`, :func:`ngettext` and :func:`pgettext` translate into ``locale`` (resolved
    as :func:`resolve` does; the shipped locale is yielded). A context variable: it follows the block into
    ``asyncio.to_thread`` and tasks started inside it, not into other processes."""
    token = _speaking.set(resolve(locale))
    try:
        yield _speaking.get()
    finally:
        _speaking.reset(token)


def spoken() -> str:
    """The locale being spoken (:func:`speaking`; English outside any block)."""
    return _speaking.get()


def gettext(message: str) -> str:
    """``message`` in the language being spoken (:func:`speaking`)."""
    return catalog(_speaking.get()).ugettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``singular``/``plural`` for ``count`` in the language being spoken (its plural rule)."""
    return catalog(_speaking.get()).ungettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` of ``context`` in the language being spoken."""
    return catalog(_speaking.get()).upgettext(context, message)


def N_(message: str) -> str:  # noqa: N802 - gettext's name for the marker
    """Mark ``message`` for extraction only (a module constant, translated where it is used with :func:`gettext`)."""
    return message


def render(value: Textual | None, locale: str | None) -> str | None:
    """``value`` in ``locale``: a :class:`Text` rendered, words already final as they are, ``None`` as ``None``."""
    if isinstance(value, Text):
        return value.render(locale)
    return value


def format_number(value: float, locale: str | None) -> str:
    """``value`` as the locale writes numbers (``1,138.5`` / ``1 138,5`` / ``1.138,5``)."""
    return babel.numbers.format_decimal(value, locale=_babel(resolve(locale)))


def format_list(items: Iterable[str], locale: str | None, *, style: str = "standard") -> str:
    """``items`` as the locale lists them (``a, b and c`` / ``a, b et c``)."""
    return _babel_format_list(list(items), style=style, locale=_babel(resolve(locale)))  # type: ignore[arg-type]


def format_duration(seconds: float, locale: str | None) -> str:
    """A length of time as the locale says it, rounded to its largest unit (``2 days`` / ``2 jours``)."""
    return format_timedelta(timedelta(seconds=seconds), locale=_babel(resolve(locale)), threshold=1.0)


@functools.cache
def resolve(locale: str | None) -> str:
    """The shipped locale for a Babel or Discord identifier (``fr`` → ``fr``, ``es-ES`` → ``es_ES``, ``pt-BR`` →
    ``pt_BR``, ``en-US`` → ``en``); a language we ship in another country's form reads that one (``es-419`` →
    ``es_ES``, ``fr-CA`` → ``fr``); anything else, and ``None``, is English."""
    if not locale:
        return SOURCE
    code = str(locale).replace("-", "_")
    if code in SHIPPED:
        return code
    language = code.split("_")[0].lower()
    for shipped in SHIPPED:
        if shipped.split("_")[0] == language:
            return shipped
    return SOURCE


def _babel(code: str) -> Locale:
    try:
        return Locale.parse(code)
    except (UnknownLocaleError, ValueError):
        return Locale.parse(SOURCE)


def catalog_path(locale: str) -> Path:
    """The ``.po`` file of a shipped locale."""
    return LOCALES / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def catalog(locale: str) -> NullTranslations:
    """The translations of a shipped locale, read from its ``.po`` once (English and a missing file: the ids
    themselves)."""
    path = catalog_path(locale)
    if locale == SOURCE or not path.exists():
        return NullTranslations()
    with path.open("rb") as source:
        messages = read_po(source, locale=locale, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, messages, use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def catalog_digest() -> str:
    """SHA-256 of every shipped catalog's bytes: what changes when a translation does."""
    digest = hashlib.sha256()
    for locale in SHIPPED:
        path = catalog_path(locale)
        if path.exists():
            digest.update(locale.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


__all__ = [
    "KEYWORDS",
    "LOCALES",
    "N_",
    "SHIPPED",
    "SOURCE",
    "Channel",
    "Duration",
    "Listed",
    "Member",
    "Moment",
    "Period",
    "Text",
    "Textual",
    "_",
    "catalog",
    "catalog_digest",
    "format_duration",
    "format_list",
    "format_number",
    "gettext",
    "n_",
    "ngettext",
    "p_",
    "pgettext",
    "render",
    "resolve",
    "speaking",
    "spoken",
    "write_with",
]
