"""The client's one door for interactions: every interaction Discord sends passes :class:`InteractionGate` first.

The gate wraps discord.py's handler of the ``INTERACTION_CREATE`` gateway event, the one place every slash command,
autocomplete, button and modal arrives, before discord.py hands it to the command tree or the views. For each one it

- sets the context its log lines carry (:mod:`bot.ops.context`: shard, server, match, command), which every task
  discord.py starts for it inherits;
- keeps the tasks discord.py started for it (the command's or the button's callback, the ``on_interaction``
  listeners) until they end: :attr:`InteractionGate.in_flight` and :meth:`InteractionGate.drain`, which a graceful
  stop waits on;
- counts it when it ends, by command and outcome (``napkin_interactions_total``), with its duration;
- while the bot stops (:meth:`InteractionGate.close`), answers it at once, only to the member, that the bot is
  restarting, and runs nothing of it.

The outcome is ``ok`` unless the error handler (:func:`bot.errors.reply_error`) reported the interaction's error
through :func:`note_error`: ``rejected`` when the member was told what was wrong (bad input, not allowed), ``failed``
for an unexpected error. A task that raised past its handler is ``failed`` too; one cut short while stopping is
``cancelled``; one refused while stopping is ``restarting``; one that nothing of the bot took (a forged or unknown
button id, which discord.py drops) is ``ignored``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands

from bot.ops import context
from bot.ops.metrics import Metrics, error_kind

log = logging.getLogger(__name__)

RESTARTING = "Napkin Games is restarting; try again in a moment."
"""What a member reads when an interaction arrives while the bot stops."""

OUTCOMES = ("ok", "rejected", "failed", "cancelled", "restarting", "ignored")
"""The values of the ``outcome`` label."""
OTHER = "other"
"""The ``command`` label of everything that is neither a command of the bot's tree nor one of its persistent button
kinds: a forged or unknown command, subcommand, button or modal."""

_APPLICATION_COMMAND, _COMPONENT, _AUTOCOMPLETE = 2, 3, 4
_SUBCOMMAND_TYPES = (1, 2)  # a subcommand and a subcommand group: part of the command's name
_KIND = re.compile(r"napkin:([a-z]{1,16}):")
"""The kind of a persistent button, the literal start of its template (``napkin:mv:`` for a move)."""
_MATCH_BUTTON = re.compile(r"napkin:(?:mv|rm):(\d{1,20})\b")
"""Buttons whose ``custom_id`` carries a match id first (a move, a rematch; see bot.exts.match._views)."""
_MATCH_OPTION = re.compile(r"#?\s*(\d{1,20})")


@dataclass(eq=False)
class Handling:
    """One interaction under way."""

    command: str
    """Its ``command`` label: ``/match review``, ``button:mv``, or :data:`OTHER`."""
    counted: bool
    """``False`` for autocomplete: answered as the member types, not counted among interactions."""
    metrics: Metrics
    started: float = field(default_factory=time.perf_counter)
    outcome: str = "ok"
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    context: contextvars.Context | None = None
    """The context its tasks started in (its log fields), to log its end in."""


_current: contextvars.ContextVar[Handling | None] = contextvars.ContextVar("napkin_interaction", default=None)


def note_error(error: BaseException, *, expected: bool) -> None:
    """Record the outcome of the interaction being handled (none outside one): ``expected`` errors (the member is
    told what was wrong) make it ``rejected``, others ``failed`` and counted in ``napkin_errors_total`` by their
    type."""
    handling = _current.get()
    if handling is None:
        return
    if expected:
        handling.outcome = "rejected"
        return
    handling.outcome = "failed"
    handling.metrics.errors.labels(kind=error_kind(error)).inc()


def _options_path(options: list[Mapping[str, Any]]) -> tuple[list[str], list[Mapping[str, Any]]]:
    """The subcommand names in ``options`` (a command's raw options) and the leaf command's own options."""
    names: list[str] = []
    while options and options[0].get("type") in _SUBCOMMAND_TYPES:
        names.append(str(options[0].get("name")))
        options = list(options[0].get("options") or [])
    return names, options


class InteractionGate:
    """The door of ``bot`` for interactions (see the module's docstring); installed by the bot when it is made.

    Args:
        bot: the client (a :class:`discord.ext.commands.AutoShardedBot`); its ``INTERACTION_CREATE`` handler is
            wrapped at once.
        metrics: where interactions and errors are counted.
    """

    def __init__(self, bot: Any, metrics: Metrics) -> None:
        self.bot = bot
        self.metrics = metrics
        self.open = True
        """``False`` once :meth:`close` was called: interactions are refused."""
        self._under_way: set[Handling] = set()
        self._refusals: set[asyncio.Task[None]] = set()
        self._idle: asyncio.Event | None = None
        state = bot._connection  # discord.py's connection state; its parsers are the gateway events' handlers
        self._state = state
        self._parse: Callable[[Any], None] = state.parsers["INTERACTION_CREATE"]
        state.parsers["INTERACTION_CREATE"] = self._receive

    @property
    def in_flight(self) -> int:
        """Interactions whose tasks are still running."""
        return len(self._under_way)

    def close(self) -> None:
        """Refuse every interaction from now on (answered :data:`RESTARTING`); those under way go on."""
        self.open = False

    async def drain(self, seconds: float) -> bool:
        """Wait until no interaction is under way, at most ``seconds``; ``True`` if none is left. Refusals being
        answered are waited for too (briefly: they only send one message)."""
        if self._under_way:
            if self._idle is None or self._idle.is_set():
                self._idle = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), seconds)
        if self._refusals:
            await asyncio.wait(set(self._refusals), timeout=min(seconds, 2.0))
        return not self._under_way

    def cancel(self) -> int:
        """Cancel the tasks of every interaction still under way (their outcome: ``cancelled``); return how many
        interactions that was."""
        for handling in list(self._under_way):
            handling.outcome = "cancelled"
            for task in handling.tasks:
                task.cancel()
        return len(self._under_way)

    # ------------------------------------------------------------------ the door

    def _receive(self, data: Any) -> None:
        kind = data.get("type")
        command = self._command_label(data)
        if not self.open:
            self._refuse(data, kind, command)
            return
        handling = Handling(command, counted=kind != _AUTOCOMPLETE, metrics=self.metrics)
        before = asyncio.all_tasks()
        token = _current.set(handling)
        try:
            with context.bound(**self._context(data, command)):
                handling.context = contextvars.copy_context()
                self._parse(data)
                if kind != _AUTOCOMPLETE and asyncio.all_tasks() - before:  # taken by a command or a button
                    self._note_locales(data)
        finally:
            _current.reset(token)
        handling.tasks = asyncio.all_tasks() - before
        if not handling.tasks:  # nothing took it (a forged or unknown button): it ended here
            handling.outcome = "ignored"
            self._finish(handling)
            return
        self._under_way.add(handling)
        self.metrics.in_flight.inc()
        for task in handling.tasks:
            task.add_done_callback(functools.partial(self._task_done, handling))

    def _note_locales(self, data: Mapping[str, Any]) -> None:
        """Remember the languages the interaction reports (the member's, the server's) for the posts and direct
        messages sent later outside any interaction (:class:`bot.service.languages.LanguageService`), in a task of
        the interaction's own (a graceful stop waits for it)."""
        user = (data.get("member") or {}).get("user") or data.get("user") or {}
        services = getattr(self.bot, "services", None)
        if services is None or not user.get("id"):
            return
        guild_id = data.get("guild_id")
        asyncio.get_running_loop().create_task(
            self._seen(services, guild_id=int(guild_id) if guild_id else None, guild_locale=data.get("guild_locale"),
                       user_id=int(user["id"]), locale=data.get("locale")),
            name="languages seen")

    @staticmethod
    async def _seen(services: Any, **reported: Any) -> None:
        try:
            await services.languages.seen(**reported)
        except Exception:  # never the interaction's failure: the language is remembered at the next one
            log.warning("could not remember the languages of an interaction", exc_info=True)

    def _task_done(self, handling: Handling, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            handling.outcome = "cancelled"
        elif (error := task.exception()) is not None and handling.outcome == "ok":
            handling.outcome = "failed"
            self.metrics.errors.labels(kind=error_kind(error)).inc()
        handling.tasks.discard(task)
        if handling.tasks or handling not in self._under_way:
            return
        self._under_way.discard(handling)
        self.metrics.in_flight.dec()
        self._finish(handling)
        if not self._under_way and self._idle is not None:
            self._idle.set()

    def _finish(self, handling: Handling) -> None:
        seconds = time.perf_counter() - handling.started
        if handling.counted:
            self.metrics.interactions.labels(command=handling.command, outcome=handling.outcome).inc()
            self.metrics.interaction_seconds.labels(command=handling.command).observe(seconds)
        (handling.context or contextvars.copy_context()).run(
            log.debug, "interaction %s: %s in %.3f s", handling.command, handling.outcome, seconds)

    def _refuse(self, data: Any, kind: Any, command: str) -> None:
        if kind != _AUTOCOMPLETE:
            self.metrics.interactions.labels(command=command, outcome="restarting").inc()
        interaction = discord.Interaction(data=data, state=self._state)
        task = asyncio.get_running_loop().create_task(self._say_restarting(interaction, kind),
                                                      name="napkin-restarting")
        self._refusals.add(task)
        task.add_done_callback(self._refusals.discard)

    @staticmethod
    async def _say_restarting(interaction: discord.Interaction, kind: Any) -> None:
        try:
            if kind == _AUTOCOMPLETE:
                await interaction.response.autocomplete([])
            else:
                await interaction.response.send_message(RESTARTING, ephemeral=True)
        except discord.HTTPException as error:
            log.info("could not tell interaction %s that the bot is restarting: %s", interaction.id, error)

    # ------------------------------------------------------------------ what it is about

    def _command_label(self, data: Mapping[str, Any]) -> str:
        """The ``command`` label of an interaction's payload, from a closed set: a command of the bot's tree with its
        subcommands (``/match review``), found in the tree itself; ``button:<kind>`` for a ``custom_id`` that one of
        the bot's persistent buttons (its registered :class:`discord.ui.DynamicItem` templates) matches whole;
        :data:`OTHER` for anything else. Nothing a member types or forges becomes a label."""
        kind = data.get("type")
        inner = data.get("data") or {}
        if kind in (_APPLICATION_COMMAND, _AUTOCOMPLETE):
            return self._command_path(inner)
        if kind == _COMPONENT:
            return self._button_kind(str(inner.get("custom_id", "")))
        return OTHER

    def _command_path(self, inner: Mapping[str, Any]) -> str:
        try:
            command_type = discord.AppCommandType(int(inner.get("type", 1)))
        except (TypeError, ValueError):
            return OTHER
        command: Any = self.bot.tree.get_command(str(inner.get("name", "")), type=command_type)
        if command is None:
            return OTHER
        path = [command.name]
        names, _ = _options_path(list(inner.get("options") or []))
        for name in names:
            if not isinstance(command, app_commands.Group):
                return OTHER
            command = command.get_command(name)
            if command is None:
                return OTHER
            path.append(command.name)
        if isinstance(command, app_commands.Group):
            return OTHER  # a group is never invoked itself
        return "/" + " ".join(path)

    def _button_kind(self, custom_id: str) -> str:
        for item in getattr(self.bot, "persistent_buttons", ()):
            if item.__discord_ui_compiled_template__.fullmatch(custom_id):
                found = _KIND.match(custom_id)
                return f"button:{found[1]}" if found else f"button:{item.__name__}"
        return OTHER

    def _context(self, data: Mapping[str, Any], command: str) -> dict[str, int | str | None]:
        """The log context of an interaction's payload: its server and the shard serving it, its command, and the
        match when the interaction names one (a ``match`` option, a move or rematch button)."""
        guild = int(data["guild_id"]) if str(data.get("guild_id", "")).isdigit() else None
        shards = self.bot.shard_count or 1
        inner = data.get("data") or {}
        match: int | None = None
        found = _MATCH_BUTTON.match(str(inner.get("custom_id", "")))
        if found:
            match = int(found[1])
        else:
            _, options = _options_path(list(inner.get("options") or []))
            typed = next((str(option.get("value")) for option in options if option.get("name") == "match"), "")
            named = _MATCH_OPTION.fullmatch(typed.strip())
            match = int(named[1]) if named else None
        return {"shard": None if guild is None else (guild >> 22) % shards, "guild": guild, "match": match,
                "command": command}
