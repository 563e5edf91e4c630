"""The test suite (a regular package, so that ``tests`` is always ours: the glicko2 wheel installs a top-level
``tests`` package of its own into site-packages, which would otherwise shadow this namespace package in the
computer's worker processes)."""
