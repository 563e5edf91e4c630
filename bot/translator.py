"""The command tree in each member's language: discord.py's :class:`~discord.app_commands.Translator` over our catalogs.

Discord shows a command's description, its options' descriptions and its choices in the member's client language
when the command carries ``*_localizations``; discord.py asks the tree's translator for each string at sync time.
Every such string is a message id of context ``command`` in the catalogs (Babel's extractor finds them by building
the tree, :func:`bot.client.extract_command_texts`). Command, group and option names stay as they are in every
language: they are what replies, ``/help``, the rules, the docs and other members quote, one name across a server
whose members read different languages (docs/operating.md, "Languages").
"""

from __future__ import annotations

from discord import Locale, app_commands

import i18n

CONTEXT = "command"
"""The catalogs' context of the command tree's texts."""
_KEPT = frozenset({app_commands.TranslationContextLocation.command_name,
                  app_commands.TranslationContextLocation.group_name,
                  app_commands.TranslationContextLocation.parameter_name})


class CatalogTranslator(app_commands.Translator):
    """Descriptions and choices from the catalogs, per Discord locale; ``None`` (no localization) for names, for a
    locale we do not ship and where the translation is the English itself."""

    kept = _KEPT
    """What stays untranslated: names (see the module's docstring)."""

    async def translate(self, string: app_commands.locale_str, locale: Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        """The translation of ``string`` for ``locale``, or ``None``."""
        if context.location in self.kept:
            return None
        code = i18n.resolve(locale.value)
        if code == i18n.SOURCE:
            return None
        text = i18n.p_(CONTEXT, string.message).render(code)
        return text if text != string.message else None
