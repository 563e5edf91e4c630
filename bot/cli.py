"""The ``napkin`` command: ``run`` the bot, ``play`` it locally, the offline ``demo``, ``bench``, ``backup``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Sequence

log = logging.getLogger(__name__)


def _run(args: argparse.Namespace) -> int:
    from bot.config import Settings

    settings = Settings()
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print("napkin run: DISCORD_TOKEN is not set (put it in the environment or in .env); see the README.",
              file=sys.stderr)
        return 2
    import discord

    from bot.client import NapkinBot
    from storage import Database

    discord.utils.setup_logging(level=getattr(logging, settings.log_level.upper(), logging.INFO))

    async def main() -> None:
        db = await Database.open(settings.database)
        try:
            async with NapkinBot(db, dev_guild=settings.dev_guild) as bot:
                await bot.start(settings.discord_token.get_secret_value())  # type: ignore[union-attr]
        finally:
            await db.close()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
    return 0


def _play(args: argparse.Namespace) -> int:
    try:
        from bot.local_play import parse_players, play
    except ModuleNotFoundError as error:
        print(f"napkin play needs the 'play' extra ({error.name} is missing): pip install -e '.[play]', "
              "or run make play, which installs it.", file=sys.stderr)
        return 2
    try:
        names = parse_players(args.players)
    except ValueError as error:
        print(f"napkin play: --players: {error}", file=sys.stderr)
        return 2
    from simcord import SetupError

    logging.basicConfig(level=logging.WARNING)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(play(args.database, names, port=args.port, announce=lambda line: print(line, flush=True)))
    except SetupError as error:  # the port is taken, or the page's files are missing
        print(f"napkin play: {error}", file=sys.stderr)
        return 2
    print("napkin play: stopped.", flush=True)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from bot.demo import run_demo

    logging.basicConfig(level=logging.WARNING)
    return asyncio.run(run_demo(args.out, games=args.game or None, seed=args.seed))


def _bench(args: argparse.Namespace) -> int:
    from bench.runner import main as bench_main

    return bench_main(args.only or None, args.json)


def _backup(args: argparse.Namespace) -> int:
    from bot.config import Settings
    from storage import Database

    source = args.database or Settings().database

    async def main() -> None:
        db = await Database.open(source)
        try:
            await db.backup(args.path)
        finally:
            await db.close()

    asyncio.run(main())
    print(f"backed up {source} to {args.path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``napkin`` console script; returns the exit code."""
    parser = argparse.ArgumentParser(prog="napkin", description="Napkin Games: pencil-and-paper games on Discord.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="start the bot (needs DISCORD_TOKEN)").set_defaults(func=_run)
    play = sub.add_parser("play", help="play the real bot in a local page on 127.0.0.1 (no Discord, no token)")
    play.add_argument("--players", default="alice,bob", help="comma-separated player names (default: alice,bob)")
    play.add_argument("--database", default="play.db", help="SQLite file; matches go on across runs (default: play.db)")
    play.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    play.set_defaults(func=_play)
    demo = sub.add_parser("demo", help="play computer-vs-computer matches offline and write the boards")
    demo.add_argument("--out", default="demo-out", help="output folder (default: ./demo-out)")
    demo.add_argument("--game", action="append", help="only this game (repeatable)")
    demo.add_argument("--seed", type=int, default=1, help="seed of the matches (default 1)")
    demo.set_defaults(func=_demo)
    bench = sub.add_parser("bench", help="run the benchmarks and print the table")
    bench.add_argument("--only", action="append", help="only this benchmark module (repeatable)")
    bench.add_argument("--json", default="bench/results.json", help="where to write the JSON results")
    bench.set_defaults(func=_bench)
    backup = sub.add_parser("backup", help="online backup of the database")
    backup.add_argument("path", help="file to write the copy to")
    backup.add_argument("--database", help="database to copy (default: NAPKIN_DATABASE or napkin.db)")
    backup.set_defaults(func=_backup)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
