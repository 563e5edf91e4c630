"""Long texts written as Markdown files (a game's players' rules, ``games/<game>/game.rules.md``), translated piece by
piece through the one catalog: the introduction, then each ``## `` section's heading and its body, each one message
id in the context :data:`CONTEXT`. The English file stays the source; ``make catalogs`` extracts its pieces with
:func:`extract` (babel.cfg's ``markdown`` method), and :func:`translated` gives them in any shipped locale."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from i18n import SHIPPED, SOURCE, p_, resolve

CONTEXT = "rules"
"""The translators' context of every piece (a heading may be the same words as a button elsewhere)."""


@dataclass(frozen=True)
class Document:
    """A Markdown text in pieces: its introduction and its sections, each a heading and a body (stripped)."""

    intro: str
    sections: tuple[tuple[str, str], ...]

    def pieces(self) -> Iterator[str]:
        """Every piece a translator translates, in reading order (empty ones left out)."""
        if self.intro:
            yield self.intro
        for heading, body in self.sections:
            yield heading
            if body:
                yield body


def parse(text: str) -> Document:
    """``text`` cut at its ``## `` headings (a line starting ``## ``); what comes before the first is the
    introduction."""
    intro, *sections = ("\n" + text.strip()).split("\n## ")
    cut = []
    for section in sections:
        heading, _, body = section.partition("\n")
        cut.append((heading.strip(), body.strip()))
    return Document(intro.strip(), tuple(cut))


def translated(document: Document, locale: str | None) -> Document:
    """``document`` in ``locale`` (a shipped locale, else English): each piece from the catalog, in :data:`CONTEXT`;
    a piece the catalog lacks stays English."""
    if resolve(locale) == "en":
        return document

    def say(piece: str) -> str:
        return p_(CONTEXT, piece).render(locale) if piece else piece

    return Document(say(document.intro), tuple((say(heading), say(body)) for heading, body in document.sections))


def extract(fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str],
            options: Mapping[str, Any]) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel's extraction method for a Markdown document: each piece of :func:`parse` as ``p_(CONTEXT, piece)``,
    with the line it starts on and a note for the translator."""
    text = fileobj.read().decode(options.get("encoding", "utf-8"))
    lines = text.splitlines()
    for piece in parse(text).pieces():
        first = piece.splitlines()[0]
        lineno = next((number for number, line in enumerate(lines, 1) if first in line), 1)
        yield lineno, "p_", (CONTEXT, piece), ["Markdown: keep the code spans, bold and list marks as they are."]


GUIDE_CONTEXT = "players' guide"
"""The translators' context of every piece of the players' guide (``docs/playing.md``)."""
GUIDE = "docs/playing.md"
"""The players' guide, in English (the source), relative to the repository's root."""

_ROW_RULE = re.compile(r"^\|[\s:|-]+\|$")
_ITEM = re.compile(r"^(\s*)- (.*)$")


@dataclass(frozen=True)
class Block:
    """One translatable piece of a Markdown guide and how it is laid out.

    ``kind`` is ``heading`` (``prefix`` the ``#`` marks), ``item`` (a list item; ``prefix`` its indentation),
    ``row`` (a table row, pipes included), ``paragraph``, or ``kept`` (a blank line or a table's rule, written as
    ``text`` is). ``text`` is the piece: a list item's lines without their marker and indentation.
    """

    kind: str
    prefix: str
    text: str


def blocks(text: str) -> list[Block]:
    """``text`` (Markdown) cut into pieces a translator can take one at a time: each heading, each paragraph, each
    list item (a nested item is its own piece) and each table row."""
    found: list[Block] = []
    current: list[str] = []
    kind, prefix = "", ""

    def flush() -> None:
        nonlocal current
        if current:
            found.append(Block(kind, prefix, "\n".join(current)))
        current = []

    for line in text.strip().splitlines():
        item = _ITEM.match(line)
        if not line.strip() or _ROW_RULE.match(line.strip()):
            flush()
            found.append(Block("kept", "", line.strip()))
        elif line.startswith("#"):
            flush()
            marks, _, heading = line.partition(" ")
            found.append(Block("heading", marks + " ", heading.strip()))
        elif line.startswith("|"):
            flush()
            found.append(Block("row", "", line.strip()))
        elif item:
            flush()
            kind, prefix, current = "item", item.group(1), [item.group(2).strip()]
        else:
            if not current:
                kind, prefix = "paragraph", ""
            current.append(line.strip())
    flush()
    return found


def write_blocks(pieces: list[Block], say: Callable[[str], str]) -> str:
    """The Markdown of ``pieces``, each translatable piece through ``say`` (its words in some language, any line
    breaks); :func:`blocks`' inverse when ``say`` returns its argument (up to each line's indentation)."""
    lines: list[str] = []
    for block in pieces:
        if block.kind == "kept":
            lines.append(block.text)
            continue
        said = say(block.text).strip().splitlines()
        if block.kind == "item":
            lines.append(f"{block.prefix}- {said[0]}")
            lines.extend(f"{block.prefix}  {line.strip()}" for line in said[1:])
        elif block.kind == "heading":
            lines.append(block.prefix + " ".join(said))
        elif block.kind == "row":
            lines.append(" ".join(line.strip() for line in said))
        else:
            lines.extend(line.strip() for line in said)
    return "\n".join(lines) + "\n"


def guide_path(locale: str) -> str:
    """Where the players' guide in ``locale`` (a shipped locale) is written: ``docs/playing.md`` in English,
    ``docs/playing.pt-BR.md`` in Brazilian Portuguese."""
    return GUIDE if locale == SOURCE else GUIDE.replace(".md", f".{locale.replace('_', '-')}.md")


def guide_in(english: str, locale: str) -> str:
    """The players' guide ``english`` in ``locale``: each piece from the catalog, in :data:`GUIDE_CONTEXT` (a piece
    the catalog lacks stays English), under a line saying it is written from the English file."""
    translated = write_blocks(blocks(english), lambda piece: p_(GUIDE_CONTEXT, piece).render(locale))
    title, _, rest = translated.partition("\n")
    return f"{title}\n\n<!-- {GENERATED} -->\n{rest}"


GENERATED = "Written by `make catalogs` from docs/playing.md and the catalogs: translate in the catalogs, not here."


def write_guides(root: Path) -> list[Path]:
    """Write the players' guide in every shipped language under ``root`` (the repository) from its English file
    and the catalogs; return the files written (only the translations: English is the source)."""
    english = (root / GUIDE).read_text(encoding="utf-8")
    written = []
    for locale in SHIPPED:
        if locale == SOURCE:
            continue
        path = root / guide_path(locale)
        path.write_text(guide_in(english, locale), encoding="utf-8")
        written.append(path)
    return written


def extract_guide(fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str],
                  options: Mapping[str, Any]) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel's extraction method for the players' guide: each piece of :func:`blocks` as
    ``p_(GUIDE_CONTEXT, piece)``, with the line it starts on and a note for the translator."""
    text = fileobj.read().decode(options.get("encoding", "utf-8"))
    lines = text.splitlines()
    for block in blocks(text):
        if block.kind == "kept":
            continue
        first = block.text.splitlines()[0]
        lineno = next((number for number, line in enumerate(lines, 1) if first in line), 1)
        note = ("A table row: keep its pipes, code spans and links." if block.kind == "row"
                else "Markdown: keep the code spans, bold, links and line breaks' meaning as they are.")
        yield lineno, "p_", (GUIDE_CONTEXT, block.text), [note]
