"""The discord.py client: resources are created once and handed in; extensions load in ``setup_hook``.

Slash commands only (default intents, no privileged ones). The command tree is synced only when its
JSON differs from the hash kept in the database. Persistent buttons are :class:`discord.ui.DynamicItem` s
registered by the match feature when it loads, so they keep working after a restart.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pkgutil
from collections.abc import Callable

import discord
from discord.ext import commands

from bot import exts
from bot.errors import reply_error
from bot.service import MatchService
from bot.service.computer import ComputerPool
from storage import Database, ReadTx, Tx

log = logging.getLogger(__name__)

TREE_HASH_KEY = "command_tree_hash"


def discover_extensions() -> list[str]:
    """Names of every extension module in :mod:`bot.exts` (private modules, ``_x``, excluded)."""
    return sorted(
        f"{exts.__name__}.{module.name}"
        for module in pkgutil.iter_modules(exts.__path__)
        if not module.name.startswith("_")
    )


class NapkinBot(commands.Bot):
    """The Napkin Games bot.

    Args:
        db: the open database (the bot does not close it).
        dev_guild: if set, commands are copied to and synced on this server only (instant updates).
        clock: epoch-seconds clock for the service; defaults to discord.py's UTC clock.
        computer_workers: worker processes for the computer's searches (default one per CPU; 0 searches in a
            thread). They start with the bot (:meth:`setup_hook`) and stop when it closes.
    """

    def __init__(self, db: Database, *, dev_guild: int | None = None,
                 clock: Callable[[], float] | None = None, computer_workers: int | None = None) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.db = db
        self.dev_guild = dev_guild
        self._clock = clock or (lambda: discord.utils.utcnow().timestamp())
        self.computer = ComputerPool(computer_workers)
        self.service = MatchService(db, clock=self.now, computer=self.computer)
        self.force_sync = False
        """Sync the command tree at the next ``setup_hook`` even when it did not change (``napkin sync``)."""
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]

    def now(self) -> float:
        """Current time in epoch seconds."""
        return self._clock()

    async def setup_hook(self) -> None:
        """Start the computer's workers, load extensions (they register their commands and persistent buttons), sync
        commands if they changed."""
        self.computer.start()
        for name in discover_extensions():
            await self.load_extension(name)
        await self.sync_commands(force=self.force_sync)

    async def close(self) -> None:
        """Log out and stop the computer's workers."""
        try:
            await super().close()
        finally:
            await self.computer.close()

    async def on_ready(self) -> None:
        """Learn the bot's own id (the computer's seat) once connected."""
        if self.user is not None:
            self.service.computer_id = self.user.id
            self.service.computer_name = self.user.display_name
        log.info("ready as %s in %d servers", self.user, len(self.guilds))

    def command_tree_hash(self) -> str:
        """SHA-256 of the command tree's JSON with the application and the target server (what would be synced):
        a database reused with another Discord application syncs again."""
        guild = discord.Object(self.dev_guild) if self.dev_guild else None
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        blob = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(f"{self.application_id}:{self.dev_guild}:{blob}".encode()).hexdigest()

    async def sync_commands(self, force: bool = False) -> bool:
        """Sync the command tree when it changed since the last sync; return ``True`` if it synced."""
        guild = discord.Object(self.dev_guild) if self.dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        digest = self.command_tree_hash()
        stored = await self.db.read(ReadTx.get_meta, TREE_HASH_KEY)
        if stored == digest and not force:
            log.info("command tree unchanged; not syncing")
            return False
        await self.tree.sync(guild=guild)
        await self.db.write(Tx.put_meta, TREE_HASH_KEY, digest)
        log.info("command tree synced")
        return True

    async def _on_tree_error(self, interaction: discord.Interaction,
                             error: discord.app_commands.AppCommandError) -> None:
        await reply_error(interaction, error)
