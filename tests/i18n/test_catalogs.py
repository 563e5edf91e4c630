"""The catalogs in step with the code: every marked text extracted, translated in every shipped language, with the
same placeholders and every plural form the language needs; the command tree's localizations within Discord's
limits."""

from __future__ import annotations

import json
import re
import string
import subprocess
import sys
import time

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

import i18n
from i18n.catalogs import ROOT, TEMPLATE

TRANSLATED = [locale for locale in i18n.SHIPPED if locale != i18n.SOURCE]


def _ids(catalog: Catalog) -> set[tuple[str | None, str]]:
    return {(message.context, message.id if isinstance(message.id, str) else message.id[0])
            for message in catalog if message.id}


def _read(path: object, locale: str | None = None) -> Catalog:
    with open(path, "rb") as source:  # type: ignore[call-overload]
        return read_po(source, locale=locale)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.fixture(scope="module")
def extracted() -> Catalog:
    """What the extractor finds in the code as shipped (in a process of its own: the tests register extra games)."""
    run = subprocess.run([sys.executable, "-m", "i18n.catalogs", "--ids"], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=300)
    found = Catalog()
    for line in run.stdout.splitlines():
        context, text = json.loads(line)
        found.add(text, context=context)
    return found


def test_the_template_holds_what_the_extractor_finds_now(extracted: Catalog) -> None:
    """``make catalogs`` was run after the last marked text changed: no id the code has is missing from the template,
    and none it no longer has is left in it."""
    found = _ids(extracted)
    assert found, "the extractor found no marked text at all"
    assert len({text for context, text in found if context == "command"}) > 100  # the command tree's texts
    assert _ids(_read(TEMPLATE)) == found


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_id_is_translated_with_its_placeholders_and_plural_forms(locale: str, extracted: Catalog) -> None:
    catalog = _read(i18n.catalog_path(locale), locale)
    assert catalog.locale is not None and str(catalog.locale) == locale
    assert _ids(catalog) == _ids(extracted), "run make catalogs: this catalog is not in step with the code"
    problems = []
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {message.id!r}")
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = catalog.num_plurals if message.pluralizable else 1
        if len(strings) != wanted or not all(strings):
            problems.append(f"untranslated ({len([s for s in strings if s])} of {wanted} forms): {ids[0]!r}")
            continue
        expected = set().union(*(_fields(text) for text in ids))
        for text in strings:
            # A plural form may leave {count} out ("un jour"), never add or rename a placeholder.
            fields = _fields(text)
            if fields - expected or expected - fields - {"count"}:
                problems.append(f"placeholders {sorted(fields)} in {text!r}, {sorted(expected)} in {ids[0]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_command_texts_fit_discord(locale: str) -> None:
    """Descriptions and choices are at most 100 characters in every language (Discord's limit for each)."""
    catalog = _read(i18n.catalog_path(locale), locale)
    too_long = [message.string for message in catalog if message.context == "command" and len(message.string) > 100]
    assert not too_long


def test_a_locale_we_do_not_ship_reads_english_and_languages_find_their_catalog() -> None:
    assert i18n.resolve("ja") == "en"
    assert i18n.resolve(None) == "en"
    assert i18n.resolve("en-GB") == "en"
    assert i18n.resolve("fr") == "fr"
    assert i18n.resolve("es-ES") == "es_ES"
    assert i18n.resolve("es-419") == "es_ES"
    assert i18n.resolve("pt-BR") == "pt_BR"
    text = i18n.p_("command", "Resign a match (your opponent wins)")
    assert text.render("ja") == str(text) == "Resign a match (your opponent wins)"
    assert text.render("de") == "Eine Partie aufgeben (dein Gegner gewinnt)"
    unknown = i18n._("A sentence no catalog has, {name}.", name="Ann")
    assert unknown.render("fr") == "A sentence no catalog has, Ann."


def test_numbers_lists_and_durations_are_written_the_locales_way() -> None:
    assert i18n.format_number(1138.5, "en") == "1,138.5"
    assert re.fullmatch(r"1\s138,5", i18n.format_number(1138.5, "fr"))
    assert i18n.format_number(1138.5, "de") == "1.138,5"
    assert i18n.format_number(1138.5, "pt-BR") == "1.138,5"
    assert i18n.format_list(["Ann", "Bob", "Cat"], "fr") == "Ann, Bob et Cat"
    assert i18n.format_list(["Ann", "Bob", "Cat"], "de") == "Ann, Bob und Cat"
    assert i18n.format_duration(2 * 86400, "es-ES") == "2 días"
    assert i18n.format_duration(3600, "pt-BR") == "1 hora"


def test_moments_members_and_channels_are_written_by_the_edge_that_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    text = i18n._("Due {until}, in {where}; ask {member}.", until=i18n.Moment(0), member=i18n.Member(42),
                  where=i18n.Listed((i18n.Channel(7), i18n.Channel(8))))
    monkeypatch.setattr(i18n, "_writers", {})  # no edge: the locale's words, in UTC
    assert text.render("en") == "Due Jan 1, 1970, 12:00:00\u202fAM UTC, in channel 7 and channel 8; ask member 42."
    assert "1 janv. 1970" in text.render("fr") and "channel 7 et channel 8" in text.render("fr")
    soon = i18n._("Again {again}.", again=i18n.Moment(time.time() + 3 * 3600 + 60, relative=True))
    assert soon.render("en") == "Again in 3 hours." and soon.render("de") == "Again in 3 Stunden."
    monkeypatch.undo()
    import bot.answers  # noqa: F401 - the bot's edge: Discord's own markup, which each client writes its way

    assert text.render("fr") == "Due <t:0:f>, in <#7> et <#8>; ask <@42>."
    again = i18n._("Again {again}.", again=i18n.Moment(1e9 + 0.5, relative=True))
    assert again.render("en") == "Again <t:1000000000:R>."
