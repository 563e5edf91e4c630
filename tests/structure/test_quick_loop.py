"""The quick loop leaves out what it says it leaves out, and ``make test`` leaves out nothing: ``make test-fast`` runs
``pytest -m "not slow"``, ``make test`` (what ``.ci/run`` calls) runs every test, and the browser suite and the fault
suites are marked ``slow`` whole (read from the sources, as :mod:`tests.structure.test_rooms` reads them)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAULT_SUITES = ("tests/reliability/test_faults.py", "tests/reliability/test_crash_safety.py",
                "tests/reliability/test_multi_process.py", "tests/service/test_worker_deaths.py")
"""The fault suites, marked slow whole (a real PostgreSQL server killed, second processes, SIGKILLs); every module of
the browser suite (``tests/browser/test_*.py``) is too."""


def recipe(makefile: str, target: str) -> list[str]:
    """The command lines of ``target``'s recipe in ``makefile``'s text (``[]`` when it has none)."""
    lines = makefile.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"{re.escape(target)}:", line))
    commands = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        commands.append(line.strip())
    return commands


def marked_slow_whole(source: str) -> bool:
    """Whether the module's ``pytestmark`` (one mark or a list of them) includes ``pytest.mark.slow``."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            marks = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            return any(ast.unparse(mark) == "pytest.mark.slow" for mark in marks)
    return False


def test_the_checks_catch_what_they_are_for() -> None:
    makefile = "x: y\n\tone\n\ttwo -m 'a'\n\nz:\n\tthree\n"
    assert recipe(makefile, "x") == ["one", "two -m 'a'"] and recipe(makefile, "z") == ["three"]
    assert marked_slow_whole("import pytest\npytestmark = [pytest.mark.browser, pytest.mark.slow]\n")
    assert marked_slow_whole("pytestmark = pytest.mark.slow  # why\n")
    assert not marked_slow_whole("pytestmark = pytest.mark.both_backends\n")
    assert not marked_slow_whole("@pytest.mark.slow\ndef test_one(): ...\n")


def test_make_test_fast_leaves_out_the_slow_tests_and_make_test_runs_everything() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    fast = [line for line in recipe(makefile, "test-fast") if "pytest" in line]
    assert len(fast) == 1 and '-m "not slow"' in fast[0].partition(" pytest ")[2]
    everything = [line for line in recipe(makefile, "test") if "pytest" in line]
    assert len(everything) == 1 and " -m " not in everything[0].partition(" pytest ")[2]  # (python -m pytest)
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.MULTILINE)


def test_the_browser_and_fault_suites_are_slow_whole() -> None:
    browser = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "tests" / "browser").glob("test_*.py"))
    assert len(browser) >= 2
    suites = [*browser, *FAULT_SUITES]
    assert [path for path in suites if not marked_slow_whole((ROOT / path).read_text(encoding="utf-8"))] == []
