"""Play the real bot on this machine, without Discord: ``napkin play`` (= ``make play``).

The real :class:`~bot.client.NapkinBot`, with all its extensions and a SQLite file, runs inside SimCord, the
offline Discord that the tests use, and SimCord's Preview serves a page on 127.0.0.1 that shows a ``#games``
channel and a message composer running the bot's slash commands (with autocomplete), buttons and attachments.
Each page can switch between the players ("Viewing as"), so two people, or one person in two tabs, can play
each other.

What is set up so that the page behaves like a server the bot lives in:

- the server has threads turned off (its ``use_threads`` setting), since the page shows one channel;
- the computer is called by the bot's name; commands are always registered (a forced sync);
- the simulated clock reads real time, so messages and deadlines carry the local time of day;
- every open page is republished when the bot posts or edits something, so the other player's tab follows;
- actions may take as long as the computer needs (no settle time-out short of :data:`SETTLE_SECONDS`);
- every request the bot makes is checked against Discord's contract (:mod:`bot.contract`), answered 400 and logged
  as an error when Discord would refuse it, as the tests do.

Players keep the same Discord ids from one run to the next (the roster of names is kept in the database), so
matches in ``play.db`` go on where they stopped; ``/match list`` and ``/match board`` bring them back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import tzlocal
from simcord import MemberActor, SetupError
from simcord.env import Env

from bot.client import NapkinBot
from bot.config import Settings
from bot.contract import Breach, contract
from bot.contract.simcord import guarded
from bot.errors import is_refusal
from bot.ops.lifetime import operated, reserve_endpoint
from storage import Database, ReadTx, Tx

log = logging.getLogger(__name__)

GUILD_ID = 1_100_000_000_000_000_001
"""The local server's fixed id: its settings and matches in the database belong to it from run to run."""
GUILD_NAME = "Napkin Games (local)"
CHANNEL_NAME = "games"
BOT_NAME = "Napkin Games"
DEFAULT_PLAYERS = ("alice", "bob")
ROSTER_KEY = "local_play_roster"
SETTLE_SECONDS = 600.0
"""How long one page action may take before the page calls its outcome uncertain (seconds)."""
FOLLOW_SECONDS = 0.05
"""How often the page follower looks for new bot activity (seconds)."""
TIMER_SECONDS = 30.0
"""How often the bot's timers that fell due are run when no page acts (seconds)."""

_NAME = re.compile(r"[\w.\- ]{1,32}")


def parse_players(text: str) -> tuple[str, ...]:
    """Split ``"ann,ben"`` into player names.

    Returns: the names, stripped, in the order given (at least one).

    Raises:
        ValueError: an empty or repeated name, or one that is not 1–32 letters, digits, spaces, ``.``, ``_``
            or ``-``; the message quotes it.
    """
    names = tuple(part.strip() for part in text.split(","))
    seen: set[str] = set()
    for name in names:
        if not _NAME.fullmatch(name):
            raise ValueError(f"'{name}' is not a player name (1 to 32 letters, digits, spaces, '.', '_' or '-')")
        if name.casefold() in seen:
            raise ValueError(f"'{name}' is named twice")
        seen.add(name.casefold())
    return names


@dataclass
class Languages:
    """The languages the simulated Discord reports with each interaction. SimCord sends every interaction with
    ``locale`` and ``guild_locale`` ``en-US``; Discord sends the member's client language and the server's
    (its Community "primary language"). :func:`report_languages` makes the interactions say these instead.

    Attributes:
        members: a member's locale by user id (Discord's identifiers: ``fr``, ``pt-BR``).
        member: the locale of every member not in ``members``.
        server: the server's locale (``guild_locale``).
    """

    members: dict[int, str] = field(default_factory=dict)
    member: str = "en-US"
    server: str = "en-US"


def discord_locale(text: str) -> str:
    """``text`` if it is one of Discord's locales (``fr``, ``de``, ``es-ES``, ``pt-BR``, ``en-US``, ``ja``...).

    Raises:
        ValueError: it is not; the message quotes it and names ours.
    """
    try:
        return discord.Locale(text).value
    except ValueError:
        raise ValueError(f"'{text}' is not one of Discord's locales (such as en-US, fr, de, es-ES, pt-BR)") from None


def report_languages(bot: NapkinBot, languages: Languages) -> None:
    """From now on, the interactions ``bot`` receives report ``languages`` (each member's ``locale``, the server's
    ``guild_locale``) instead of SimCord's ``en-US``: the gateway event is rewritten before the bot reads it, as if
    Discord had sent it so."""
    state = bot._connection  # discord.py's connection state: its parsers are the gateway events' handlers
    inner = state.parsers["INTERACTION_CREATE"]

    def receive(data: Any) -> None:
        user = (data.get("member") or {}).get("user") or data.get("user") or {}
        data["locale"] = languages.members.get(int(user.get("id") or 0), languages.member)
        if data.get("guild_id") is not None:
            data["guild_locale"] = languages.server
        inner(data)

    state.parsers["INTERACTION_CREATE"] = receive


@dataclass
class LocalServer:
    """The running local game: the SimCord environment, the bot, the ``#games`` channel and the players."""

    env: Env
    bot: NapkinBot
    guild: Any
    channel: Any
    players: dict[str, Any]


async def _roster(db: Database, names: Sequence[str]) -> list[str]:
    """Every player name ever used with this database, oldest first, ``names`` appended if new (and stored)."""
    stored = await db.read(ReadTx.get_meta, ROSTER_KEY)
    roster: list[str] = json.loads(stored) if stored else []
    known = {name.casefold() for name in roster}
    added = [name for name in names if name.casefold() not in known]
    if added:
        roster += added
        await db.write(Tx.put_meta, ROSTER_KEY, json.dumps(roster))
    return roster


@contextlib.asynccontextmanager
async def local_server(db: Database, names: Sequence[str] = DEFAULT_PLAYERS, *, computer_workers: int | None = None,
                       review_slots: int | None = None, locale: str = "en-US") -> AsyncIterator[LocalServer]:
    """Run the bot on ``db`` in a simulated server with a ``#games`` channel and the players ``names``, with
    ``computer_workers`` and ``review_slots`` as :class:`~bot.client.NapkinBot` takes them; the players and the
    server read ``locale`` (a Discord locale: their interactions report it, :func:`report_languages`).

    The server's ids are the same in every run on the same database (see the module's docstring). The
    simulated clock is set to real time before the bot starts.

    Yields: the running :class:`LocalServer`; on exit the bot is shut down and its computer workers stopped (the
    database stays open).
    """
    bot = NapkinBot(db, computer_workers=computer_workers, review_slots=review_slots)
    env = Env(bot, settle_timeout=SETTLE_SECONDS)
    env.backend.bot_user.name = BOT_NAME  # before the server, whose bot role takes the bot's name
    # Ids are snowflakes of the simulated clock, which starts at the same instant in every run: what is made
    # before the clock moves gets the same id every time. The roster's first name (the server's owner, so
    # that someone may use /settings), the server with its channel, then the other names ever used, in order.
    roster = await _roster(db, names)
    owner = env.create_user(roster[0])
    guild = env.create_guild(GUILD_NAME, id=GUILD_ID, owner=owner)  # the owner is a member from the start
    channel = guild.create_text_channel(CHANNEL_NAME, topic="Play here: type / and pick a command.")
    users = {roster[0].casefold(): owner} | {name.casefold(): env.create_user(name) for name in roster[1:]}
    players = {name: MemberActor(env, guild, owner) if users[name.casefold()] is owner
               else guild.add_member(users[name.casefold()]) for name in names}
    contract()  # (loaded now, about a second, before the clock catches up with real time)
    catch_up_clock(env)
    with guarded(on_breach=_log_breaches):
        ours = bot.tree.on_error
        await env.start()
        _refusals_unrecorded(bot, ours)
        report_languages(bot, Languages(member=locale, server=locale))
        try:
            await bot.sync_commands(force=True)
            await bot.services.settings.update(GUILD_ID, use_threads=False)
            catch_up_clock(env)  # (the start took a moment of real time)
            yield LocalServer(env, bot, guild, channel, players)
        finally:
            try:
                await env.shutdown()
            finally:
                await bot.computer.close()


def _refusals_unrecorded(bot: NapkinBot, ours: Callable[..., Any]) -> None:
    """Keep the refusals the bot answers on purpose out of SimCord's error log.

    SimCord wraps the command tree's error handler when the environment starts, recording every error it sees in
    ``Env.errors`` before the bot's own handler answers it; Preview then reports the action as failed ("The bot action
    failed; inspect the local Env error log", "Action outcome uncertain") and keeps the typed command in the box, for
    an illegal move or a cooldown as for a crash. Discord shows neither: the member reads the bot's ephemeral answer
    and the composer clears. So a refusal (:func:`bot.errors.is_refusal`) goes straight to ``ours``, the handler the
    tree had before SimCord's; any other error still passes SimCord's, which records it and calls ours.
    """
    recorded = bot.tree.on_error

    async def on_tree_error(interaction: Any, error: Any) -> None:
        await (ours if is_refusal(error) else recorded)(interaction, error)

    bot.tree.on_error = on_tree_error  # type: ignore[method-assign]


def _log_breaches(breaches: Sequence[Breach]) -> None:
    """A request Discord would refuse (the local page answers it as Discord would, 400): logged as an error."""
    for breach in breaches:
        log.error("Discord would refuse this request: %s", breach)


def catch_up_clock(env: Env, clock: Callable[[], float] = time.time) -> float:
    """Move the simulated clock forward to ``clock()`` (epoch seconds); return how far it moved (seconds).

    Only the clock moves: timers of the bot that fall due run at the next settle of the environment (every page
    action and every :class:`PageFollower` pass that finds work runs one)."""
    behind = clock() - env.now().timestamp()
    if behind <= 0:
        return 0.0
    env.backend.advance_clock(behind)
    return behind


class PageFollower:
    """Keeps every open page of a preview current, and the simulated clock on real time.

    SimCord's Preview republishes every page after a slash command, but only the acting page after a button
    click or a select, so the other player's tab would show an old board. The follower wraps the preview's
    action entry point (``Preview._action``, the one the page server calls; SimCord offers no public hook):
    after an action that made the bot post or edit something, every page is republished before the action's
    answer goes back, so the acting page never reads an older revision than the one it acts on.

    Between actions a background pass (every :data:`FOLLOW_SECONDS`) moves the clock to real time, settles the
    environment every :data:`TIMER_SECONDS` (running the bot's timers that fell due: deadlines, reminders) and
    republishes every page when the bot made requests outside any action. These passes and the actions take
    turns (one lock), so a pass never overlaps a page's action.
    """

    REPUBLISHED = frozenset({"run_command", "autocomplete_command"})
    """Action kinds after which the pages need nothing more: Preview republishes all of them after a command,
    and an autocomplete query changes nothing on them."""

    def __init__(self, env: Env, preview: Any, *, clock: Callable[[], float] = time.time) -> None:
        self.env = env
        self.preview = preview
        self.clock = clock
        self.refreshes = 0
        """How many times every page was republished by the follower."""
        self._lock = asyncio.Lock()
        self._seen = len(env.http_requests)
        self._action = preview._action
        preview._action = self._followed_action

    async def _followed_action(self, context_id: str | None, body: Any) -> dict[str, Any]:
        async with self._lock:
            catch_up_clock(self.env, self.clock)
            result: dict[str, Any] = await self._action(context_id, body)
            kind = body.get("kind") if isinstance(body, Mapping) else None
            if isinstance(result, Mapping) and result.get("rejected"):
                log.info("the page refused a %s before the bot saw it: %s", kind,
                         [item.get("code") for item in result.get("diagnostics") or () if isinstance(item, Mapping)])
            if len(self.env.http_requests) != self._seen and kind not in self.REPUBLISHED:
                await self._refresh()
            self._seen = len(self.env.http_requests)
            return result

    async def _refresh(self) -> None:
        await self.preview.refresh()
        self._seen = len(self.env.http_requests)
        self.refreshes += 1

    async def run(self) -> None:
        """Follow until cancelled."""
        settled = time.monotonic()
        while True:
            await asyncio.sleep(FOLLOW_SECONDS)
            catch_up_clock(self.env, self.clock)
            if self._lock.locked():
                continue  # a page's action is running
            async with self._lock:
                try:
                    if time.monotonic() - settled >= TIMER_SECONDS:
                        await self.env.settle()
                        settled = time.monotonic()
                    if len(self.env.http_requests) != self._seen:
                        await self._refresh()
                except SetupError as error:  # another SimCord operation is running (not a page's): next pass
                    log.debug("page follower waits: %s", error)


def local_timezone() -> str:
    """The IANA name of this machine's time zone (``UTC`` if it has none the preview knows)."""
    try:
        return tzlocal.get_localzone_name() or "UTC"
    except Exception:  # noqa: BLE001 - a misconfigured machine still plays, in UTC
        return "UTC"


@dataclass
class LocalPage:
    """The served page of a :class:`LocalServer` and the follower keeping its tabs current."""

    preview: Any
    follower: PageFollower

    @property
    def url(self) -> str:
        """The page's address on 127.0.0.1; the part after ``#`` is its access key."""
        return str(self.preview.url)


@contextlib.asynccontextmanager
async def preview_page(server: LocalServer, *, port: int = 0) -> AsyncIterator[LocalPage]:
    """Serve the ``#games`` channel of ``server`` on 127.0.0.1 (``port`` 0: any free port), viewers its players,
    in this machine's time zone, with a :class:`PageFollower` running alongside.

    Raises:
        simcord.SetupError: the port is taken (or the preview's files are missing).
    """
    preview = server.env.preview(server.channel, viewers=list(server.players.values()), layout="channel",
                                 timezone=local_timezone(), port=port)
    async with preview:
        follower = PageFollower(server.env, preview)
        task = asyncio.create_task(follower.run(), name="napkin-page-follower")
        try:
            yield LocalPage(preview, follower)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def play(database: Path | str, names: Sequence[str] = DEFAULT_PLAYERS, *, port: int = 0,
               announce: Callable[[str], None] = print, settings: Settings | None = None,
               locale: str = "en-US") -> None:
    """Open ``database``, start the local server and serve the page until it is closed, the task cancelled, or a
    SIGTERM or SIGINT stops it gracefully (:mod:`bot.ops.stopping`). From ``settings`` (default: none set) come the
    computer's workers and review slots, the health and metrics address and the graceful stop's bound; ``locale``
    is the language the players and the server read (a Discord locale: ``fr``, ``pt-BR``)."""
    settings = settings or Settings()
    endpoint = reserve_endpoint(settings.metrics_address)  # a taken port is found before the database is written
    try:
        db = await Database.open(database)
    except BaseException:
        if endpoint is not None:
            endpoint.close()
        raise
    try:
        async with local_server(db, names, computer_workers=settings.computer_workers,
                                review_slots=settings.reviews_at_once, locale=locale) as server, \
                preview_page(server, port=port) as page:
            count = len({match.id for member in server.players.values()
                         for match in await db.read(ReadTx.active_matches_of, GUILD_ID, member.id)})
            stopped = asyncio.Event()

            async def finish(seconds_left: float) -> None:
                await server.bot.computer.close(grace=seconds_left)
                stopped.set()

            async with operated(server.bot, metrics_address=settings.metrics_address,
                                stop_seconds=settings.stop_seconds, finish=finish, endpoint=endpoint):
                announce(f"Napkin Games is running on this machine (no Discord): open {page.url}")
                announce(f"Players: {', '.join(server.players)} (switch with 'Viewing as' at the top of the page; "
                         f"open a second tab to play each other). Matches are kept in {database}. Ctrl-C stops it.")
                if count:
                    announce(f"{count} match{'es' if count != 1 else ''} in progress: /match list shows "
                             f"{'them' if count != 1 else 'it'}, /match board posts a board again.")
                if settings.metrics_address is not None:
                    host, metrics_port = settings.metrics_address
                    announce(f"Health and metrics: http://{host}:{metrics_port}/healthz and /metrics")
                waits = [asyncio.ensure_future(page.preview.wait_closed()), asyncio.ensure_future(stopped.wait())]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for wait in waits:
                        wait.cancel()
    finally:
        if endpoint is not None:
            endpoint.close()  # served, it is closed already; if the start failed before, it is closed here
        await db.close()
