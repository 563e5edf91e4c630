"""The ``napkin`` command: ``run`` the bot, play the offline ``demo``, ``bench``, ``backup`` the database."""

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
