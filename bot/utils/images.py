"""Images as attachments: every image the bot posts goes through :func:`image_file`, with its alt text.

Discord reads an attachment's ``description`` to a screen-reader user instead of "image" (its limit is
:data:`DESCRIPTION_LIMIT` characters). The renderers say every board in words (:func:`renderers.alt_text` and its
kin); this is the one place a ``discord.File`` of an image is made, and it holds the description to Discord's limit.
"""

from __future__ import annotations

import io
import logging

import discord

log = logging.getLogger(__name__)

DESCRIPTION_LIMIT = 1024
"""Discord's limit on an attachment's description (its alt text), characters."""


def image_file(data: bytes, filename: str, description: str) -> discord.File:
    """``data`` (a PNG or GIF) as an attachment named ``filename`` whose alt text is ``description``.

    The renderers' alt texts fit Discord's limit; a longer one (a bug) is cut to it with an ellipsis and logged,
    never sent over the limit.

    Raises:
        ValueError: ``description`` is empty (an image always says what it shows).
    """
    text = " ".join(description.split())
    if not text:
        raise ValueError(f"the image {filename} needs alt text")
    if len(text) > DESCRIPTION_LIMIT:
        log.warning("the alt text of %s was %d characters; cut to %d", filename, len(text), DESCRIPTION_LIMIT)
        text = text[: DESCRIPTION_LIMIT - 1] + "…"
    return discord.File(io.BytesIO(data), filename=filename, description=text)
