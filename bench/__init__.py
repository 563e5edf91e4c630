"""Benchmarks (``make bench`` / ``napkin bench``): each ``bench/bench_<name>.py`` has ``run() -> list[Row]``."""
