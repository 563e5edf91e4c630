"""Words every layer of the bot writes: counts with their noun, and what a member typed quoted back to them.

No ``discord`` import and nothing of ours: the services (:mod:`bot.service`) count and quote in their refusals, and
the extensions in their replies, from this one module.
"""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 day``, ``2 days``; ``many`` is the plural when it is not ``word + "s"`` (``plural(2, "match",
    "matches")``)."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def quote(value: object, limit: int = 40) -> str:
    """What the member typed, cut to ``limit`` characters (then ending with "…"), safe inside an inline code span
    (backticks become apostrophes)."""
    text = str(value).replace("`", "'")
    return text if len(text) <= limit else text[:limit] + "…"
