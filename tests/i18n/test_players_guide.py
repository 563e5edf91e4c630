"""The players' guide (``docs/playing.md``) in every shipped language: cut into pieces that put back together give the
English file, each piece translated in every catalog keeping its code spans, links and table cells, and the
translated files in step with the catalogs (``make catalogs`` writes them)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

import i18n
from i18n import documents, p_
from i18n.catalogs import ROOT

TRANSLATED = [locale for locale in i18n.SHIPPED if locale != i18n.SOURCE]
ENGLISH = (ROOT / documents.GUIDE).read_text(encoding="utf-8")
PIECES = [block for block in documents.blocks(ENGLISH) if block.kind != "kept"]
CODE = re.compile(r"`[^`]+`")
LINK = re.compile(r"\]\(([^)]+)\)")


def test_the_pieces_put_back_together_are_the_english_file() -> None:
    assert documents.write_blocks(documents.blocks(ENGLISH), lambda piece: piece) == ENGLISH.strip() + "\n"


def test_the_cut_keeps_each_list_item_and_row_whole() -> None:
    sample = ("# T\n\nA para\nwrapped.\n\n- **One** item\n  wrapped\n  - nested\n    deeper\n\n"
              "| a | b |\n|---|---|\n| `x` | y |\n")
    cut = documents.blocks(sample)
    assert [(block.kind, block.prefix, block.text) for block in cut if block.kind != "kept"] == [
        ("heading", "# ", "T"), ("paragraph", "", "A para\nwrapped."), ("item", "", "**One** item\nwrapped"),
        ("item", "  ", "nested\ndeeper"), ("row", "", "| a | b |"), ("row", "", "| `x` | y |")]
    assert documents.write_blocks(cut, str.upper).splitlines()[5:8] == ["- **ONE** ITEM", "  WRAPPED", "  - NESTED"]


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_piece_is_translated_keeping_code_links_and_cells(locale: str) -> None:
    for block in PIECES:
        said = p_(documents.GUIDE_CONTEXT, block.text).render(locale)
        wordless = not re.search(r"[a-z]{2}", CODE.sub("", block.text))
        assert said != block.text or wordless, f"{locale}: not translated: {block.text[:80]!r}"
        assert Counter(CODE.findall(said)) == Counter(CODE.findall(block.text)), f"{locale}: {block.text[:80]!r}"
        assert LINK.findall(said) == LINK.findall(block.text), f"{locale}: {block.text[:80]!r}"
        if block.kind == "row":
            assert said.count("|") == block.text.count("|") and "\n" not in said.strip(), block.text[:80]


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_translated_guide_is_in_step_with_the_catalog(locale: str) -> None:
    path = ROOT / documents.guide_path(locale)
    assert path.read_text(encoding="utf-8") == documents.guide_in(ENGLISH, locale), (
        f"{path.name} is out of step: run make catalogs")


def test_the_english_guide_links_every_translation() -> None:
    for locale in TRANSLATED:
        assert f"({documents.guide_path(locale).removeprefix('docs/')})" in ENGLISH
