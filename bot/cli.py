"""The ``napkin`` command: ``run`` the bot, ``play`` it locally without Discord, force a command ``sync``, print
the bot's ``invite-url``, play the offline ``demo``, generate ``puzzles``, ``backup`` or ``inspect`` the
database, and copy it to the other backend (``migrate-db``). The benchmarks are ``python -m bench`` (``make
bench``), not part of the bot.

Every subcommand answers a failure with one line on standard error and a non-zero exit code, never a traceback;
none deletes or overwrites a file it did not create.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def _fail(command: str, message: str, code: int = 1) -> int:
    print(f"napkin {command}: {message}", file=sys.stderr)
    return code


def _with_bot(command: str, body: Callable[[Any, str], Coroutine[Any, Any, None]], *, serve: bool = False) -> int:
    """Open the database and a bot with the configured token, run ``body(bot, token)``, and turn the ways Discord
    can refuse (a bad token, no network) into one line and exit code 1. With ``serve``, the bot runs as a service
    (:func:`bot.ops.lifetime.operated`: health and metrics, the graceful stop) and logs "stopped" at the end.

    Nothing is written before everything that could stop the start was checked, in this order: the settings, the
    metrics address (bound), Discord (reached, the token accepted); only then is the database opened (created or
    migrated)."""
    from pydantic import ValidationError

    from bot.config import Settings, settings_problem

    try:
        settings = Settings()
    except ValidationError as error:
        return _fail(command, settings_problem(error))
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        return _fail(command, "DISCORD_TOKEN is not set (put it in the environment or in .env); see "
                              "docs/operating.md.", 2)
    from bot.client import NapkinBot
    from bot.ops.lifetime import operated, reach_discord, reserve_endpoint, stop_bot
    from bot.ops.logs import configure_logging
    from storage import Database

    configure_logging(settings.log_level, settings.log_format, levels=settings.log_levels)
    token = settings.discord_token.get_secret_value().strip()

    async def main() -> None:
        endpoint = reserve_endpoint(settings.metrics_address) if serve else None
        try:
            await reach_discord(token)
            db = await Database.open(settings.database, password=_password(settings))
        except BaseException:
            if endpoint is not None:
                endpoint.close()
            raise
        try:
            async with NapkinBot(db, dev_guild=settings.dev_guild, shard_count=settings.shard_count,
                                 shard_ids=settings.shard_ids, computer_workers=settings.computer_workers,
                                 review_slots=settings.reviews_at_once) as bot:
                if not serve:
                    await body(bot, token)
                    return
                async with operated(bot, metrics_address=settings.metrics_address,
                                    stop_seconds=settings.stop_seconds, endpoint=endpoint,
                                    finish=lambda seconds_left: stop_bot(bot, seconds_left)):
                    await body(bot, token)
        finally:
            if endpoint is not None:
                endpoint.close()  # served, it is closed already; if the start failed before, it is closed here
            await db.close()

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(main())
    except Exception as error:
        problem = _start_problem(error, settings.database)
        if problem is None:
            raise
        return _fail(command, problem)
    if serve:
        log.info("stopped")
    return 0


def _start_problem(error: Exception, database: str) -> str | None:
    """The one line that says why ``napkin run`` or ``sync`` could not start or go on, for the ways Discord, the
    metrics address and the database can refuse; ``None`` for any other error (a bug: its traceback is shown)."""
    import aiohttp
    import discord

    from bot.client import CommandTreeRefused
    from bot.ops.lifetime import EndpointUnavailable
    from storage import StorageError
    from storage.transfer import printable

    if isinstance(error, EndpointUnavailable | CommandTreeRefused):
        return f"{error}."
    if isinstance(error, discord.LoginFailure):
        return "Discord rejected the token in DISCORD_TOKEN; copy it again from the Developer Portal."
    if isinstance(error, discord.PrivilegedIntentsRequired):
        return "Discord refused an intent the bot asked for; see the Discord application steps in docs/operating.md."
    if isinstance(error, TimeoutError | aiohttp.ClientError | OSError):
        return f"could not reach Discord ({type(error).__name__}: {error}); check the network."
    if isinstance(error, discord.HTTPException):
        return f"Discord answered {error.status}: {error.text or error}."
    if isinstance(error, StorageError):
        return f"the database {printable(database)} cannot be used: {error}"
    return None


def _password(settings: Any) -> str | None:
    """``NAPKIN_DATABASE_PASSWORD``'s value, or ``None``."""
    secret = settings.database_password
    return None if secret is None else str(secret.get_secret_value())


def _play(args: argparse.Namespace) -> int:
    try:
        from bot.local_play import discord_locale, parse_players, play
    except ModuleNotFoundError as error:
        print(f"napkin play needs the 'play' extra ({error.name} is missing): pip install -e '.[play]', "
              "or run make play, which installs it.", file=sys.stderr)
        return 2
    try:
        names = parse_players(args.players)
    except ValueError as error:
        print(f"napkin play: --players: {error}", file=sys.stderr)
        return 2
    try:
        locale = discord_locale(args.locale)
    except ValueError as error:
        print(f"napkin play: --locale: {error}", file=sys.stderr)
        return 2
    from pydantic import ValidationError
    from simcord import SetupError

    from bot.config import Settings, settings_problem
    from bot.ops.lifetime import EndpointUnavailable
    from bot.ops.logs import configure_logging

    try:
        settings = Settings()
    except ValidationError as error:
        return _fail("play", settings_problem(error), 2)
    # The page is for playing: warnings only, unless NAPKIN_LOG_LEVEL asks for more.
    configure_logging(settings.log_level if "log_level" in settings.model_fields_set else "WARNING",
                      settings.log_format, levels=settings.log_levels)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(play(args.database, names, port=args.port, announce=lambda line: print(line, flush=True),
                             settings=settings, locale=locale))
    except SetupError as error:  # the port is taken, or the page's files are missing
        print(f"napkin play: {error}", file=sys.stderr)
        return 2
    except EndpointUnavailable as error:
        return _fail("play", f"{error}.")
    print("napkin play: stopped.", flush=True)
    return 0


def _run(args: argparse.Namespace) -> int:
    async def body(bot: Any, token: str) -> None:
        await bot.start(token)

    return _with_bot("run", body, serve=True)


def _invite_url(args: argparse.Namespace) -> int:
    """Print the invite address; without ``--client-id``, for the application of ``DISCORD_TOKEN`` if set."""
    from pydantic import ValidationError

    from bot.config import Settings, settings_problem
    from bot.ops.invite import PLACEHOLDER, application_id, invite_url

    client_id = args.client_id
    if client_id is None:
        try:
            token = Settings().discord_token
        except ValidationError as error:
            return _fail("invite-url", settings_problem(error))
        client_id = application_id(token.get_secret_value()) if token is not None else None
        if client_id is None:
            print(invite_url(PLACEHOLDER))
            why = ("DISCORD_TOKEN does not look like a bot token (it should start with the application's id in "
                   "base64; copy it again from the Developer Portal, Bot, Reset Token)" if token is not None
                   else "no --client-id and DISCORD_TOKEN is not set")
            print(f"napkin invite-url: {why}: replace {PLACEHOLDER} with your application's id (Developer Portal, "
                  "General Information).", file=sys.stderr)
            return 0
    print(invite_url(client_id))
    return 0


def _sync(args: argparse.Namespace) -> int:
    if args.check:
        return _sync_check()

    async def body(bot: Any, token: str) -> None:
        bot.force_sync = True
        await bot.login(token)  # runs setup_hook, which syncs the command tree
        print("command tree synced")

    return _with_bot("sync", body)


def _localized_in(item: Any) -> set[str]:
    """Every locale a command's payload (or a part of it) carries a localization for."""
    found: set[str] = set()
    if isinstance(item, dict):
        for key, value in item.items():
            if key.endswith("_localizations") and isinstance(value, dict):
                found |= set(value)
            else:
                found |= _localized_in(value)
    elif isinstance(item, list):
        for value in item:
            found |= _localized_in(value)
    return found


def _in_language(item: Any, locale: str) -> Any:
    """A command's payload as a member of ``locale`` reads it: each localization of ``locale`` in place of the
    English, the others dropped (``en-US``: the English)."""
    if isinstance(item, list):
        return [_in_language(value, locale) for value in item]
    if not isinstance(item, dict):
        return item
    shown = {key: _in_language(value, locale) for key, value in item.items() if not key.endswith("_localizations")}
    for key, value in item.items():
        if key.endswith("_localizations") and isinstance(value, dict) and locale in value:
            shown[key.removesuffix("_localizations")] = value[locale]
    return shown


def _sync_check() -> int:
    """Build the command tree offline and hold it against Discord's limits: each command's size (its longest
    localizations counted, as Discord counts), the largest command as each language reads it, then every breach;
    exit code 1 if Discord would refuse it."""
    from bot.client import built_command_tree
    from bot.contract import COMMAND_CHARACTERS, command_size, contract

    logging.basicConfig(level=logging.WARNING)
    commands = asyncio.run(built_command_tree())
    width = max(len(str(command["name"])) for command in commands) + 1
    for command in sorted(commands, key=lambda command: -command_size(command)):
        print(f"/{command['name']:<{width}} {command_size(command):>6,} of {COMMAND_CHARACTERS:,} characters")
    languages = sorted({locale for command in commands for locale in _localized_in(command)})
    if languages:
        sizes = {locale: max(command_size(_in_language(command, locale)) for command in commands)
                 for locale in ["en-US", *languages]}
        print("largest command per language: " + " · ".join(f"{locale} {size:,}" for locale, size in sizes.items()))
    breaches = contract().check_commands(commands)
    if breaches:
        for breach in breaches:
            print(f"refused: {breach.field}: {breach.limit}")
        many = len(breaches) != 1
        return _fail("sync --check", f"Discord would refuse this command tree ({len(breaches)} breach"
                                     f"{'es' * many} above); fix {'them' if many else 'it'} before deploying.")
    print(f"{len(commands)} commands, each within Discord's limits (longest localizations counted).")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from bot.demo import DemoFolderError, run_demo
    from games import GAMES

    unknown = [key for key in args.game or () if key not in GAMES]
    if unknown:
        return _fail("demo", f"unknown game {unknown[0]!r}; the games are {', '.join(GAMES)}.", 2)
    logging.basicConfig(level=logging.WARNING)
    try:
        return asyncio.run(run_demo(args.out, games=args.game or None, seed=args.seed))
    except DemoFolderError as error:
        return _fail("demo", str(error), 2)


def _puzzles_generate(args: argparse.Namespace) -> int:
    from games.puzzles.generate import main as generate_main

    return generate_main(args.seed, args.out, args.game, args.count, args.seconds)


def _database(command: str, given: str | None) -> tuple[str, str | None] | int:
    """The database a command reads: ``given`` (``--database``) or ``NAPKIN_DATABASE``, with
    ``NAPKIN_DATABASE_PASSWORD`` when it is that setting's database; or the exit code after one line saying what is
    wrong with the settings."""
    from pydantic import ValidationError

    from bot.config import Settings, settings_problem

    try:
        settings = Settings()
    except ValidationError as error:
        return _fail(command, settings_problem(error), 2)
    if given is not None and given != settings.database:
        return given, None
    return settings.database, _password(settings)


def _backup(args: argparse.Namespace) -> int:
    from storage import Database, StorageError

    found = _database("backup", args.database)
    if isinstance(found, int):
        return found
    location, password = found
    target = Path(args.path)
    if location.startswith(("postgresql://", "postgres://")):
        return _pg_dump(location, target, password)
    source = Path(location.removeprefix("sqlite:///"))
    if not source.is_file():
        return _fail("backup", f"there is no database at {source}; name it with --database or NAPKIN_DATABASE.", 2)
    if target.exists():
        return _fail("backup", f"{target} already exists; choose a new file for the copy.", 2)

    async def main() -> None:
        db = await Database.open(source)
        try:
            await db.backup(target)
        finally:
            await db.close()

    try:
        asyncio.run(main())
    except (StorageError, OSError) as error:
        return _fail("backup", f"could not copy {source}: {error}")
    print(f"backed up {source} to {target}")
    return 0


PG_DUMP_TIMEOUT = 3600.0
"""Seconds ``napkin backup`` lets ``pg_dump`` run."""


def _pg_dump(url: str, target: Path, password: str | None = None) -> int:
    """Back a PostgreSQL database up with ``pg_dump --format=custom`` into the new file ``target`` (restore it with
    ``pg_restore``); without ``pg_dump`` on the PATH, say what to run instead. A failed dump leaves no file."""
    from storage.transfer import printable

    if target.exists():
        return _fail("backup", f"{target} already exists; choose a new file for the copy.", 2)
    executable = shutil.which("pg_dump")
    if executable is None:
        return _fail("backup", "the database is PostgreSQL and pg_dump is not installed here: run pg_dump "
                               f"--format=custom --file={target} '{printable(url)}' where it is (Debian: apt-get "
                               "install postgresql-client).", 2)
    command = [executable, "--format=custom", "--no-password", f"--file={target}", f"--dbname={url}"]
    try:
        # The password goes to pg_dump's libpq in its environment, never on its command line (which ps shows).
        environment = None if password is None else {**os.environ, "PGPASSWORD": password}
        done = subprocess.run(command, capture_output=True, text=True, timeout=PG_DUMP_TIMEOUT, check=False,
                              env=environment)
    except (OSError, subprocess.TimeoutExpired) as error:
        target.unlink(missing_ok=True)
        return _fail("backup", f"pg_dump did not finish ({error}).")
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        reason = " ".join(line.strip() for line in done.stderr.splitlines() if line.strip())[:400]
        return _fail("backup", f"pg_dump failed: {reason or f'exit code {done.returncode}'}")
    print(f"backed up {printable(url)} to {target} (pg_dump's custom format: restore it with pg_restore)")
    return 0


def _inspect(args: argparse.Namespace) -> int:
    """Print a stored match row as found (also a quarantined, damaged one) with its seats and move log, as JSON."""
    import json

    from storage import Database, ReadTx, StorageError
    from storage.transfer import printable

    found_setting = _database("inspect", args.database)
    if isinstance(found_setting, int):
        return found_setting
    location, password = found_setting
    source: Path | str = location
    if not location.startswith(("postgresql://", "postgres://")) and not Path(
            location.removeprefix("sqlite:///")).is_file():
        return _fail("inspect", f"there is no database at {source}; name it with --database or NAPKIN_DATABASE.", 2)

    async def main() -> dict[str, object] | None:
        db = await Database.open(source, password=password)
        try:
            return await db.read(ReadTx.raw_match, args.match)
        finally:
            await db.close()

    try:
        found = asyncio.run(main())
    except (StorageError, OSError) as error:
        return _fail("inspect", f"could not read {printable(str(source))}: {error}")
    if found is None:
        return _fail("inspect", f"there is no match #{args.match} in {printable(str(source))}.", 2)
    print(json.dumps(found, indent=1, ensure_ascii=False, default=str))
    return 0


def _replay_problem(match: Any, moves: list[Any]) -> str | None:
    """Why the stored ``match`` (a :class:`storage.MatchRecord`) does not replay from its initial state through
    ``moves`` to its stored state, or ``None`` when it does (the service's own load and replay)."""
    from bot.service import Damaged, replay
    from bot.service.states import sound_state
    from games import RulesError

    try:
        sound_state(match)
    except Damaged as damaged:
        return f"damaged: {damaged.reason}"
    if match.ply != len(moves):
        return f"its log holds {len(moves)} moves but the match is at ply {match.ply}"
    try:
        replayed = replay(match, moves)[-1]
    except (RulesError, ValueError, KeyError, TypeError, IndexError) as error:
        return f"its log does not replay ({type(error).__name__}: {str(error)[:120]})"
    if replayed.to_dict() != match.state:
        return "its log replays to another state than the stored one"
    return None


def _migrate_db(args: argparse.Namespace) -> int:
    """Copy the database FROM into the empty database TO, verify it and print a summary (see storage.transfer)."""
    from storage import StorageError
    from storage.transfer import TransferRefused, printable, transfer

    logging.basicConfig(level=logging.WARNING)
    source, target = printable(args.source), printable(args.target)
    try:
        report = asyncio.run(transfer(args.source, args.target, check=_replay_problem))
    except TransferRefused as error:
        return _fail("migrate-db", f"{error}; nothing was changed.", 2)
    except ModuleNotFoundError as error:
        return _fail("migrate-db", f"PostgreSQL needs the 'postgres' extra ({error.name} is missing): "
                                   "pip install -e '.[postgres]'; nothing was changed.", 2)
    except (StorageError, OSError) as error:
        reason = "; ".join(line.strip() for line in str(error).splitlines() if line.strip())
        return _fail("migrate-db", f"the copy failed and was rolled back, {target} is as before: {reason}")
    if report.upgraded_from is not None:
        print(f"{source} is at schema {report.upgraded_from}: copied from an upgraded temporary copy "
              "(the file itself is unchanged)")
    tables = len(report.tables)
    print(f"copied {source} to {target}: {report.rows} rows in {tables} table{'s' * (tables != 1)} "
          f"in {report.seconds:.1f} s, every table's row count checked")
    print("  " + ", ".join(f"{name} {count}" for name, count in report.tables.items()))
    checked = f"{report.matches} match{'es' * (report.matches != 1)}"
    if not report.problems:
        print(f"replayed {checked}: every move log gives its stored state")
        return 0
    bad = len(report.problems)
    print(f"replayed {checked}: {bad} do{'es' * (bad == 1)} not give {'its' if bad == 1 else 'their'} stored state "
          "(copied as found; look at them with napkin inspect):")
    for match_id, problem in sorted(report.problems.items()):
        print(f"  match #{match_id}: {problem}")
    return 0


def _game_keys() -> str:
    from games import GAMES

    return ", ".join(GAMES)


class _Version(argparse.Action):
    """``napkin --version``: the build (:func:`bot.ops.build.build_info`), read only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from bot.ops.build import build_info

        print(build_info().line())
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``napkin`` console script; returns the exit code."""
    parser = argparse.ArgumentParser(prog="napkin", description="Napkin Games: pencil-and-paper games on Discord.")
    parser.add_argument("--version", action=_Version, help="print the version, the commit and the Python, and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="start the bot (needs DISCORD_TOKEN)").set_defaults(func=_run)
    sync = sub.add_parser("sync", help="register the slash commands with Discord now (needs DISCORD_TOKEN)")
    sync.add_argument("--check", action="store_true",
                      help="only build the command tree offline and check it against Discord's limits (no token)")
    sync.set_defaults(func=_sync)
    invite = sub.add_parser("invite-url", help="print the address that adds the bot to a server, with the "
                                               "permissions it needs")
    invite.add_argument("--client-id", type=int, metavar="ID",
                        help="the application's id (default: read from DISCORD_TOKEN)")
    invite.set_defaults(func=_invite_url)
    play = sub.add_parser("play", help="play the real bot in a local page on 127.0.0.1 (no Discord, no token)")
    play.add_argument("--players", default="alice,bob", help="comma-separated player names (default: alice,bob)")
    play.add_argument("--database", default="play.db", help="SQLite file; matches go on across runs (default: play.db)")
    play.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    play.add_argument("--locale", default="en-US",
                      help="the Discord locale the players and the server read, such as fr or pt-BR (default: en-US)")
    play.set_defaults(func=_play)
    demo = sub.add_parser("demo", help="play computer-vs-computer matches offline and write the boards")
    demo.add_argument("--out", default="demo-out",
                      help="output folder, new or from an earlier demo (default: ./demo-out)")
    demo.add_argument("--game", action="append", metavar="KEY",
                      help=f"only this game (repeatable); one of: {_game_keys()}")
    demo.add_argument("--seed", type=int, default=1, help="seed of the matches (default 1)")
    demo.set_defaults(func=_demo)
    puzzles = sub.add_parser("puzzles", help="puzzles proven by the exact searches")
    generate = puzzles.add_subparsers(dest="action", required=True).add_parser(
        "generate", help="puzzles from the computer's self-play, the same file for the same seed (seeds/puzzles.md)")
    generate.add_argument("--seed", required=True, help="the seed (any text)")
    generate.add_argument("--out", required=True, help="the file to write (JSON lines; replaces only a puzzles file)")
    generate.add_argument("--game", action="append", metavar="KEY", help="only this game (repeatable)")
    generate.add_argument("--count", type=int, metavar="N", help="puzzles per game (default: each game's quota)")
    generate.add_argument("--seconds", type=float, default=120.0, help="bound on one position's examination (s)")
    generate.set_defaults(func=_puzzles_generate)
    backup = sub.add_parser("backup", help="online backup of the database to a new file (PostgreSQL: pg_dump)")
    backup.add_argument("path", help="new file to write the copy to")
    backup.add_argument("--database", help="database to copy (default: NAPKIN_DATABASE or napkin.db)")
    backup.set_defaults(func=_backup)
    inspect = sub.add_parser("inspect", help="print a stored match (also a damaged one) with its seats and moves")
    inspect.add_argument("match", type=int, help="the match number")
    inspect.add_argument("--database", help="database to read (default: NAPKIN_DATABASE or napkin.db)")
    inspect.set_defaults(func=_inspect)
    migrate = sub.add_parser("migrate-db", help="copy a database into an empty one (SQLite to PostgreSQL and back), "
                                                "verified")
    migrate.add_argument("source", metavar="FROM", help="the database to copy: a SQLite file or a postgresql:// URL "
                                                        "(only read)")
    migrate.add_argument("target", metavar="TO", help="the empty database to fill: a new SQLite file or an empty "
                                                      "PostgreSQL database")
    migrate.set_defaults(func=_migrate_db)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
