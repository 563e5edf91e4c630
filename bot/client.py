"""The discord.py client: resources are created once and handed in; extensions load in ``setup_hook``.

Slash commands only (default intents, no privileged ones). The client is a :class:`discord.ext.commands.AutoShardedBot`:
one process runs all the bot's shards, or, when several processes share one PostgreSQL database, the shards named by
its settings (``NAPKIN_SHARD_COUNT``, ``NAPKIN_SHARD_IDS``). The command tree is synced only when its
JSON differs from the hash kept in the database, and only by the process that runs shard 0 (commands are global:
one process registering them is enough). Persistent buttons are :class:`discord.ui.DynamicItem` s
registered by the match feature when it loads, so they keep working after a restart.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import pkgutil
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import exts
from bot.answers import learn_language, watch
from bot.contract import Breach, contract
from bot.errors import reply_error
from bot.ops.interactions import InteractionGate
from bot.ops.metrics import Metrics
from bot.service import Services
from bot.service.computer import ComputerPool
from bot.translator import CONTEXT, CatalogTranslator
from bot.utils.outbox import Posters
from i18n import catalog_digest
from storage import Database, ReadTx, Shards, Tx

log = logging.getLogger(__name__)

TREE_HASH_KEY = "command_tree_hash"


class CommandTreeRefused(Exception):
    """The command tree breaks Discord's published limits: a sync would be answered 400 and register nothing.

    Attributes:
        breaches: what Discord would refuse (:class:`bot.contract.Breach`), at least one.
    """

    def __init__(self, breaches: Sequence[Breach]) -> None:
        self.breaches = list(breaches)
        more = f" (and {len(self.breaches) - 1} more)" if len(self.breaches) > 1 else ""
        super().__init__(f"Discord would refuse the command tree, so it was not synced: {self.breaches[0].field}: "
                         f"{self.breaches[0].limit}{more}; napkin sync --check lists every command's size")


async def built_command_tree(dev_guild: int | None = None) -> list[dict[str, Any]]:
    """The command tree a bot with every extension would sync, built offline: no token, no connection, and no file
    written (an in-memory database serves the extensions while they load)."""
    db = await Database.open(":memory:")
    try:
        async with NapkinBot(db, dev_guild=dev_guild, computer_workers=0) as bot:
            await bot.load_extensions()
            if dev_guild:
                bot.tree.copy_global_to(guild=discord.Object(dev_guild))
            return await bot.command_payload()
    finally:
        await db.close()


class _Recorder(app_commands.Translator):
    """Notes every text of the command tree that the catalogs translate, and translates none."""

    def __init__(self) -> None:
        self.texts: dict[str, None] = {}

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        if context.location not in CatalogTranslator.kept:
            self.texts.setdefault(string.message)
        return None


async def command_texts() -> list[str]:
    """Every description and choice of the command tree (what :class:`bot.translator.CatalogTranslator`
    translates), in the tree's order, each once."""
    db = await Database.open(":memory:")
    try:
        async with NapkinBot(db, computer_workers=0) as bot:
            await bot.load_extensions()
            recorder = _Recorder()
            await bot.tree.set_translator(recorder)
            await bot.command_payload()
            return list(recorder.texts)
    finally:
        await db.close()


def extract_command_texts(fileobj: Any, keywords: Any, comment_tags: Any,
                          options: Any) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel's extraction method ``commands`` (babel.cfg): the command tree's texts as ``p_("command", text)``
    messages, whatever the file it is pointed at holds (the tree is built from the extensions, not read)."""
    for text in asyncio.run(command_texts()):
        yield 1, "p_", (CONTEXT, text), ["Discord: at most 100 characters; command and option names stay English."]


def discover_extensions() -> list[str]:
    """Names of every extension module in :mod:`bot.exts` (private modules, ``_x``, excluded)."""
    return sorted(
        f"{exts.__name__}.{module.name}"
        for module in pkgutil.iter_modules(exts.__path__)
        if not module.name.startswith("_")
    )


class NapkinTree(app_commands.CommandTree["NapkinBot"]):
    """The command tree: every slash command is watched from its start, so that it is answered within Discord's 3
    seconds whatever it waits on (:func:`bot.answers.watch`, with the visibility its ``extras`` declare)."""

    async def interaction_check(self, interaction: discord.Interaction[NapkinBot]) -> bool:
        """Watch a command's answer (autocomplete needs none), and learn the language of its public answers (the
        server's ``/settings language``); never refuses."""
        if interaction.type is discord.InteractionType.application_command:
            command = interaction.command
            extras = command.extras if command is not None else {}
            watch(interaction, extras.get("private", False))
            await learn_language(interaction)
        return True


class NapkinBot(commands.AutoShardedBot):
    """The Napkin Games bot.

    Args:
        db: the open database (the bot does not close it).
        dev_guild: if set, commands are copied to and synced on this server only (instant updates).
        clock: epoch-seconds clock for the service; defaults to discord.py's UTC clock.
        computer_workers: worker processes for the computer's searches (default one per CPU; 0 searches in a
            thread). They start with the bot (:meth:`setup_hook`) and stop when it closes.
        review_slots: reviews run at once in the workers (default every worker but one, at least one).
        shard_count: the bot's shards in total over all its processes; ``None`` asks Discord for the number it
            recommends (``napkin run`` without ``NAPKIN_SHARD_COUNT``). Default 1: one shard, what the local page
            and the tests run.
        shard_ids: the shards this process runs (each below ``shard_count``); ``None``, all of them. With some of
            them, the deadline pass, the outbox and the resuming of computer turns take only those shards' servers'
            work (:class:`storage.Shards`), and commands are synced only by the process that runs shard 0.

    Every interaction passes the bot's :class:`bot.ops.interactions.InteractionGate` (``interactions``) first, which
    counts it in the bot's :class:`bot.ops.metrics.Metrics` (``metrics``) and refuses new ones while the bot stops.

    Raises:
        ValueError: ``shard_ids`` without ``shard_count``, empty, repeated, or outside ``0 .. shard_count - 1``;
            ``review_slots`` outside 1 .. ``computer_workers - 1`` (1 with one worker).
    """

    def __init__(self, db: Database, *, dev_guild: int | None = None,
                 clock: Callable[[], float] | None = None, computer_workers: int | None = None,
                 review_slots: int | None = None, shard_count: int | None = 1,
                 shard_ids: Sequence[int] | None = None) -> None:
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice: no warning at every start
        shards = None
        if shard_ids is not None:
            if shard_count is None:
                raise ValueError("shard ids need the shard count")
            shards = Shards(shard_count, tuple(shard_ids))
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_count=shard_count,
            tree_cls=NapkinTree,
        )
        if shards is not None:
            self.shard_ids = list(shards.ids)  # what discord.py's shard_ids= sets (checked above by Shards)
        self.served_shards = shards
        """The shards this process runs when it runs some of them, else ``None`` (all)."""
        self.db = db
        self.dev_guild = dev_guild
        self._clock = clock or (lambda: discord.utils.utcnow().timestamp())
        self.computer = ComputerPool(computer_workers, review_slots=review_slots)
        self.services = Services(db, clock=self.now, computer=self.computer, shards=shards)
        """Every service, built once here; the extensions use them and build none."""
        self.posters = Posters()
        """The posters of each kind of news of the outbox, registered by the features as they load."""
        self.force_sync = False
        """Sync the command tree at the next ``setup_hook`` even when it did not change (``napkin sync``)."""
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]
        self.persistent_buttons: list[type[discord.ui.DynamicItem[Any]]] = []
        """The persistent button classes registered (:meth:`add_dynamic_items`): the button kinds the metrics name."""
        self.metrics = Metrics()
        self.metrics.watch(self)
        self.interactions = InteractionGate(self, self.metrics)

    def now(self) -> float:
        """Current time in epoch seconds."""
        return self._clock()

    @property
    def syncs_commands(self) -> bool:
        """``True`` for the process that registers the commands: the one that runs shard 0 (or all shards)."""
        return self.served_shards is None or 0 in self.served_shards.ids

    async def setup_hook(self) -> None:
        """Start the computer's workers, load extensions (they register their commands and persistent buttons), sync
        commands if they changed (in the process that runs shard 0; ``napkin sync`` syncs from any)."""
        self.computer.start()
        await self.load_extensions()
        if self.syncs_commands or self.force_sync:
            await self.sync_commands(force=self.force_sync)
        else:
            log.info("not syncing commands: the process that runs shard 0 does")

    async def load_extensions(self) -> None:
        """Load every extension of :func:`discover_extensions` (their commands and persistent buttons register), with
        the command tree's translator set (:class:`bot.translator.CatalogTranslator`)."""
        if self.tree.translator is None:
            await self.tree.set_translator(CatalogTranslator())
        for name in discover_extensions():
            await self.load_extension(name)

    async def command_payload(self) -> list[dict[str, Any]]:
        """The command tree as :meth:`sync_commands` would send it (translated as ``CommandTree.sync`` does): the
        server's commands with a development server, else the global ones."""
        guild = discord.Object(self.dev_guild) if self.dev_guild else None
        commands = self.tree.get_commands(guild=guild)
        translator = self.tree.translator
        if translator is not None:
            return [await command.get_translated_payload(self.tree, translator) for command in commands]
        return [command.to_dict(self.tree) for command in commands]

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register persistent buttons (discord.py's), and keep their classes in :attr:`persistent_buttons`."""
        super().add_dynamic_items(*items)
        self.persistent_buttons += [item for item in items if item not in self.persistent_buttons]

    def remove_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Unregister persistent buttons (discord.py's), and forget their classes."""
        super().remove_dynamic_items(*items)
        self.persistent_buttons = [item for item in self.persistent_buttons if item not in items]

    async def close(self) -> None:
        """Log out and stop the computer's workers."""
        try:
            await super().close()
        finally:
            await self.computer.close()

    async def on_ready(self) -> None:
        """Learn the bot's own id (the computer's seat) once connected."""
        if self.user is not None:
            self.services.set_computer(self.user.id, self.user.display_name)
        log.info("ready as %s in %d servers", self.user, len(self.guilds))

    def command_tree_hash(self) -> str:
        """SHA-256 of the command tree's JSON with the application, the target server and the catalogs (what would
        be synced, localizations included): a database reused with another Discord application syncs again, and so
        does a changed translation."""
        guild = discord.Object(self.dev_guild) if self.dev_guild else None
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        blob = json.dumps(payload, sort_keys=True, default=str)
        catalogs = catalog_digest()
        return hashlib.sha256(f"{self.application_id}:{self.dev_guild}:{catalogs}:{blob}".encode()).hexdigest()

    async def sync_commands(self, force: bool = False) -> bool:
        """Sync the command tree when it changed since the last sync; return ``True`` if it synced.

        Raises:
            CommandTreeRefused: the tree breaks Discord's limits (:mod:`bot.contract`); nothing is sent.
        """
        guild = discord.Object(self.dev_guild) if self.dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        digest = self.command_tree_hash()
        stored = await self.db.read(ReadTx.get_meta, TREE_HASH_KEY)
        if stored == digest and not force:
            log.info("command tree unchanged; not syncing")
            return False
        breaches = contract().check_commands(await self.command_payload(), global_scope=guild is None)
        if breaches:
            raise CommandTreeRefused(breaches)
        await self.tree.sync(guild=guild)
        await self.db.write(Tx.put_meta, TREE_HASH_KEY, digest)
        log.info("command tree synced")
        return True

    async def _on_tree_error(self, interaction: discord.Interaction,
                             error: discord.app_commands.AppCommandError) -> None:
        await reply_error(interaction, error)
