"""What the rules-core tests share: the computer's searches without their CPU caps, for the tests that assert what a
search plays (its moves, its determinism for a seed, its strength)."""

from __future__ import annotations

import math

import pytest

from games.groebner_nim import computer as groebner_nim
from games.napkin_chess import computer as napkin_chess
from games.polygons import computer as polygons


@pytest.fixture
def search_without_cpu_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game's ``HARD_CPU_SECONDS`` lifted (kept in production): a ``hard`` search bounded by its budgets of work
    alone. The cap stops a search that needs nearly all of it on an idle machine sooner on a loaded one, where its
    move may differ: what the test asserts is then the search's, not how much CPU the machine left it."""
    for computer in (groebner_nim, napkin_chess, polygons):
        monkeypatch.setattr(computer, "HARD_CPU_SECONDS", math.inf)
