"""Alt text: the words a screen reader says for a board image (Discord's attachment ``description``).

Every board's alt text is a pure function of the position (each renderer's ``alt_text``), at most
:data:`ALT_TEXT_LIMIT` characters, and is built the same way: the sentences that always fit first (what the image
is, whose turn or the result, the score, the last move), then the position in the game's notation as listings
(:class:`Listing`), each keeping its first items and saying how many it left out when the limit comes.

Every sentence is one whole template with named placeholders, marked with :func:`_` (singular and plural forms with
:func:`ngettext`), so that a later change can move them into gettext catalogs unchanged: no sentence is assembled
from fragments a translator could not reorder. The values put in are names, numbers and the game's notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from renderers._common import ELLIPSIS, clean_name

ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description, characters."""


def _(message: str) -> str:
    """Mark ``message`` (a whole sentence template) for the message catalogs; returns it unchanged for now."""
    return message


def ngettext(singular: str, plural: str, count: int) -> str:
    """The template for ``count``: ``singular`` for 1, else ``plural`` (English rules until the catalogs come)."""
    return singular if count == 1 else plural


def sentence(template: str, **values: object) -> str:
    """``template`` (a :func:`_` message) with its named placeholders filled in."""
    return template.format(**values)


def names_for_alt(names: Sequence[str]) -> list[str]:
    """``names`` as the alt text says them: cleaned of control characters (:func:`renderers._common.clean_name`),
    never shortened."""
    return [clean_name(name) for name in names]


@dataclass(frozen=True)
class Listing:
    """A sentence that lists items (coins, marks, sticks) and keeps as many as fit, first ones first.

    Attributes:
        template: the sentence with an ``{items}`` placeholder (and any others in ``values``).
        items: the items in the order they are kept (the last ones are left out first).
        rest: the singular and plural templates of the sentence said when items are left out, with ``{count}``.
        values: the template's other placeholders.
        separator: what joins the items.
    """

    template: str
    items: Sequence[str]
    rest: tuple[str, str]
    values: tuple[tuple[str, object], ...] = ()
    separator: str = ", "

    def text(self, kept: int) -> str:
        """The sentence with the first ``kept`` items, followed by the rest sentence when items are left out (the
        whole text is empty when no item is kept and there are none)."""
        values = dict(self.values)
        left = len(self.items) - kept
        parts = []
        if kept:
            parts.append(sentence(self.template, items=self.separator.join(self.items[:kept]), **values))
        if left:
            parts.append(sentence(ngettext(*self.rest, left), count=left, **values))
        return " ".join(parts)


def compose(sentences: Sequence[str], listings: Sequence[Listing] = (), limit: int = ALT_TEXT_LIMIT) -> str:
    """The alt text: ``sentences`` whole, then each of ``listings`` with as many of its first items as fit in
    ``limit`` characters (each later listing keeps room for its own "left out" sentence); a text still too long (it
    never is with names of up to 32 characters) is cut and ends with an ellipsis.

    Returns:
        At most ``limit`` characters.
    """
    text = " ".join(part for part in sentences if part)
    for index, listing in enumerate(listings):
        reserve = sum(len(later.text(0)) + 1 for later in listings[index + 1:] if later.items)
        room = limit - len(text) - reserve - 1
        low, high = 0, len(listing.items)  # the most items that fit: the text grows with every item kept
        while low < high:
            middle = (low + high + 1) // 2
            if len(listing.text(middle)) <= room:
                low = middle
            else:
                high = middle - 1
        kept = low
        part = listing.text(kept)
        if part:
            text = f"{text} {part}" if text else part
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + ELLIPSIS
    return text
