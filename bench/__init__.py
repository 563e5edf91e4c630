"""Benchmarks (``make bench`` / ``python -m bench``): each ``bench/bench_<name>.py`` has ``run() -> list[Row]``."""
