"""Long texts written as Markdown files (a game's players' rules, ``games/<game>/game.rules.md``), translated piece by
piece through the one catalog: the introduction, then each ``## `` section's heading and its body, each one message
id in the context :data:`CONTEXT`. The English file stays the source; ``make catalogs`` extracts its pieces with
:func:`extract` (babel.cfg's ``markdown`` method), and :func:`translated` gives them in any shipped locale."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from i18n import p_, resolve

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
