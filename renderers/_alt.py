"""Alt text: the words a screen reader says for a board image (Discord's attachment ``description``).

Every board's alt text is a pure function of the position (each renderer's ``alt_text``), at most
:data:`ALT_TEXT_LIMIT` characters, and is built the same way: the sentences that always fit first (what the image
is, whose turn or the result, the score, the last move), then the position in the game's notation as listings
(:class:`Listing`), each keeping its first items and saying how many it left out when the limit comes.

Every sentence is one whole template with named placeholders, marked with :func:`_` (singular and plural forms with
:func:`i18n.ngettext`) and read from the catalogs in the language being spoken (:func:`i18n.speaking`): no sentence
is assembled from fragments a translator could not reorder. The values put in are names, numbers and the game's
notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from i18n import gettext, ngettext
from renderers._common import ELLIPSIS, clean_name

ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description, characters."""


def _(message: str) -> str:
    """``message`` (a whole sentence template, extracted into the catalogs) in the language being spoken
    (:func:`i18n.speaking`)."""
    return gettext(message)


def sentence(template: str, **values: object) -> str:
    """``template`` (a :func:`_` message) with its named placeholders filled in."""
    return template.format(**values)


def plural_forms(singular: str, plural: str) -> tuple[str, str]:
    """Mark a sentence's singular and plural templates (with ``{count}``) for the catalogs as one plural entry, to be
    chosen with :func:`i18n.ngettext` where the count is known (a :class:`Listing`'s ``rest``)."""
    return singular, plural


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


def compose(sentences: Sequence[str | Listing], listings: Sequence[Listing] = (),
            limit: int = ALT_TEXT_LIMIT) -> str:
    """The alt text: ``sentences`` then ``listings``, in that order. Every plain sentence is kept whole; each listing
    (among the sentences or after them) keeps as many of its first items as fit in ``limit`` characters, the earlier
    listings first (each keeps room for the "left out" sentences of the later ones); a text still too long (it never
    is with names of up to 32 characters) is cut and ends with an ellipsis.

    Returns:
        At most ``limit`` characters.
    """
    parts = [*sentences, *listings]
    fixed = sum(len(part) + 1 for part in parts if isinstance(part, str) and part)
    chosen: dict[int, str] = {}
    used = fixed
    later = [(index, part) for index, part in enumerate(parts) if isinstance(part, Listing)]
    for position, (index, listing) in enumerate(later):
        reserve = sum(len(other.text(0)) + 1 for _, other in later[position + 1:] if other.items)
        room = limit - used - reserve - 1
        low, high = 0, len(listing.items)  # the most items that fit: the text grows with every item kept
        while low < high:
            middle = (low + high + 1) // 2
            if len(listing.text(middle)) <= room:
                low = middle
            else:
                high = middle - 1
        chosen[index] = listing.text(low)
        used += len(chosen[index]) + 1
    text = " ".join(part for part in (chosen.get(index, part) for index, part in enumerate(parts))
                    if isinstance(part, str) and part)
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + ELLIPSIS
    return text
