"""``python -m bench [--only NAME ...] [--json PATH]`` (``make bench``, ``make bench ARGS="--only boards"``): run the
benchmarks (:mod:`bench.runner`), print the table and write it as JSON."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bench.runner import main as run


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line) and run the benchmarks it names; the exit code (0)."""
    parser = argparse.ArgumentParser(prog="python -m bench", description="Run the benchmarks and print the table.")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="only this benchmark module, by name without bench_ (repeatable)")
    parser.add_argument("--json", default="bench/results.json", metavar="PATH", help="where to write the JSON results")
    args = parser.parse_args(argv)
    return run(args.only or None, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
