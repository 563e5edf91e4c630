"""``napkin play`` as the tests run it: ``python -m tests.ops._play ARGS`` is ``napkin play ARGS`` with the
Chopsticks ``hard`` player slowed down (:mod:`tests.ops.slow_search`), in the bot and in its computer workers."""

from __future__ import annotations

import sys

from bot.cli import main
from games import add_game_package

if __name__ == "__main__":
    add_game_package("tests.ops.slow_search")
    raise SystemExit(main(["play", *sys.argv[1:]]))
