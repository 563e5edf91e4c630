"""Keeping the catalogs in step with the code: Babel's extractor, then each shipped catalog updated (``make catalogs``).

``python -m i18n.catalogs`` extracts every marked text (babel.cfg; the markers of :data:`i18n.KEYWORDS`) into
``i18n/napkin.pot``, then merges it into each shipped locale's ``napkin.po`` (``pybabel update``, created by
``pybabel init`` when the locale is new): new ids arrive untranslated, gone ids become obsolete (``#~``). Translate
the new ones, then ``make catalogs`` again is a no-op; it also writes the players' guide in every shipped language
(``docs/playing.<locale>.md``) from the English file and the catalogs (:func:`i18n.documents.write_guides`).
``tests/i18n/test_catalogs.py`` fails while a shipped catalog lacks a translation. Run from the repository's root
(babel.cfg's paths are relative to it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import CommandLineInterface, parse_mapping_cfg

from i18n import DOMAIN, KEYWORDS, LOCALES, SHIPPED, SOURCE, catalog_path, documents

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = LOCALES.parent / f"{DOMAIN}.pot"
"""The extracted ids (no translation)."""
KEYWORD_FLAGS = ["--no-default-keywords", "-k", "_", "-k", "N_", "-k", "n_:1,2", "-k", "p_:1c,2", "-k", "gettext", "-k",
                 "ngettext:1,2", "-k", "pgettext:1c,2", "-k", "plural_forms:1,2"]
""":data:`i18n.KEYWORDS` as pybabel's command line takes them."""


def extract() -> Catalog:
    """Every marked text of the code, as Babel's extractor finds it with babel.cfg (in memory: no file written)."""
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)  # type: ignore[no-untyped-call]
    found = Catalog(domain=DOMAIN)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True):
        found.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return found


def refresh() -> None:
    """Write the template and update (or create) every shipped catalog from it."""
    pybabel = CommandLineInterface()
    pybabel.run(["pybabel", "extract", "-F", str(ROOT / "babel.cfg"), *KEYWORD_FLAGS, "--add-comments=TRANSLATORS:",
                 "--no-location", "--sort-output", "--no-wrap", "--project=Napkin Games", "-o", str(TEMPLATE),
                 str(ROOT)])  # type: ignore[no-untyped-call]
    for locale in SHIPPED:
        if locale == SOURCE:
            continue
        command = "update" if catalog_path(locale).exists() else "init"
        extra = ["--no-fuzzy-matching", "--ignore-obsolete", "--no-wrap"] if command == "update" else ["--no-wrap"]
        pybabel.run(["pybabel", command, "-i", str(TEMPLATE), "-d", str(LOCALES), "-D", DOMAIN, "-l", locale,  # type: ignore[no-untyped-call]
                     *extra])


def main(argv: list[str]) -> None:
    """``python -m i18n.catalogs``: refresh the catalogs; ``--ids``: print the extracted ids instead (JSON lines of
    ``[context, id]``), writing nothing."""
    if argv == ["--ids"]:
        for message in extract():
            if message.id:
                text = message.id if isinstance(message.id, str) else message.id[0]
                print(json.dumps([message.context, text], ensure_ascii=False))
        return
    refresh()
    for path in documents.write_guides(ROOT):
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
