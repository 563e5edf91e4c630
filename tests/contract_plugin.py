"""Discord's contract, checked on every request of every test (a pytest plugin, loaded by tests/conftest.py).

Every HTTP request the bot makes through SimCord is held against Discord's OpenAPI document and its worded limits
(:mod:`bot.contract`) before SimCord sees it. A request Discord would refuse is answered with Discord's 400, and the
test that made it fails at its end with the route, the field and the limit. The run's summary says how many requests
were validated and how many were refused (summed over the xdist workers).

A test that proves the check can fail takes the ``discord_contract`` fixture and wraps the refused requests in
``with discord_contract.expected() as refused:`` (then asserts on ``refused``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from bot.contract import Breach
from bot.contract.simcord import Tally, guarded

COUNTS = {"validated": 0, "refused": 0, "expected": 0}
"""This process's totals (a worker's are sent to the controller when it ends)."""


class ContractCheck:
    """The check of one test: its tally, and the breaches it expects."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self._expected_from: int | None = None
        self.expected_breaches: list[Breach] = []
        self.expected_requests = 0
        """Requests refused inside :meth:`expected` blocks."""

    @contextlib.contextmanager
    def expected(self) -> Iterator[list[Breach]]:
        """Breaches found inside the block are expected (the list yielded fills with them); they do not fail the
        test."""
        start, refused = len(self.tally.breaches), self.tally.refused
        found: list[Breach] = []
        try:
            yield found
        finally:
            found.extend(self.tally.breaches[start:])
            self.expected_breaches.extend(found)
            self.expected_requests += self.tally.refused - refused

    def unexpected(self) -> list[Breach]:
        """The breaches outside :meth:`expected` blocks."""
        expected = list(self.expected_breaches)
        left = []
        for breach in self.tally.breaches:
            if breach in expected:
                expected.remove(breach)
            else:
                left.append(breach)
        return left


@pytest.fixture(autouse=True)
def discord_contract() -> Iterator[ContractCheck]:
    """Every request the test's bot makes through SimCord checked against Discord's contract; the test fails if one
    would be refused (outside :meth:`ContractCheck.expected`)."""
    with guarded() as tally:
        check = ContractCheck(tally)
        yield check
    unexpected = check.unexpected()
    COUNTS["validated"] += tally.validated
    COUNTS["refused"] += tally.refused - check.expected_requests
    COUNTS["expected"] += check.expected_requests
    if unexpected:
        lines = "\n".join(f"  {breach}" for breach in unexpected[:20])
        pytest.fail(f"Discord would refuse {len(unexpected)} request field(s) this test made:\n{lines}",
                    pytrace=False)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its totals to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["discord_contract"] = dict(COUNTS)


def pytest_testnodedown(node: object, error: object) -> None:
    """The controller adds up a worker's totals."""
    counts = getattr(node, "workeroutput", {}).get("discord_contract")
    if counts:
        for key in COUNTS:
            COUNTS[key] += counts[key]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """One line in the run's summary: requests validated against Discord's contract, and refused."""
    if getattr(config, "workeroutput", None) is not None:
        return
    terminalreporter.write_line(f"Discord contract: {COUNTS['validated']:,} requests validated, "
                                f"{COUNTS['refused']:,} refused (and {COUNTS['expected']:,} refused on purpose by "
                                "the tests that prove the check)")
