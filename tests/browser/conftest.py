"""Browser tests of ``napkin play``: the real command in a subprocess, Debian's Chromium driven by Playwright.

Playwright never downloads a browser here: it launches the system Chromium (``/usr/bin/chromium``, or
``NAPKIN_CHROMIUM``), which ``.ci/run`` installs. When a test fails, a screenshot of each of its tabs is saved
under ``browser-shots/`` (or ``NAPKIN_BROWSER_SHOTS``).
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, Response, sync_playwright

from tests.browser._driver import PlayPage

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("NAPKIN_CHROMIUM", "/usr/bin/chromium"))
SHOTS = Path(os.environ.get("NAPKIN_BROWSER_SHOTS", ROOT / "browser-shots"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
START_SECONDS = 60
_URL = re.compile(r"open (http://127\.0\.0\.1:\d+/#\S+)")


@dataclass
class LocalPlay:
    """A running ``napkin play``: its page address, its database and what it printed so far."""

    url: str
    database: Path
    process: subprocess.Popen[str]
    output: list[str]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Keep each phase's report on the test item, so fixtures can tell whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def _read_lines(stream, lines: queue.Queue[str | None]) -> None:  # type: ignore[no-untyped-def]
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


@pytest.fixture
def local_play(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LocalPlay]:
    """``napkin play`` with players alice and bob on a fresh database, stopped with Ctrl-C (SIGINT) afterwards;
    it must stop cleanly (exit code 0). It logs at INFO (``NAPKIN_LOG_LEVEL``), and when the test fails, all it
    printed (its log, its stderr) is shown with the failure."""
    database = tmp_path / "play.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NAPKIN_LOG_LEVEL": os.environ.get("NAPKIN_LOG_LEVEL", "INFO")}
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "play", "--database", str(database), "--players", "alice,bob"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    output: list[str] = []
    url = None
    try:
        while url is None:
            line = lines.get(timeout=START_SECONDS)
            if line is None:
                raise AssertionError("napkin play exited before printing its address:\n" + "\n".join(output))
            output.append(line)
            found = _URL.search(line)
            url = found[1] if found else None
        yield LocalPlay(url, database, process, output)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        while (line := lines.get(timeout=5)) is not None:
            output.append(line)
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            print("napkin play printed:", *output, sep="\n")
    assert code == 0, "\n".join(output)
    assert output[-1] == "napkin play: stopped.", "\n".join(output)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Playwright's driver (no browser download: see ``browser``). Module-scoped: its synchronous API keeps an
    event loop running in this thread, which the asyncio tests of other modules must not find."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Headless Debian Chromium. Missing, it is an error, not a skip: ``.ci/run`` installs it."""
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)"
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield launched
    launched.close()


def _answer(response: Response) -> str:
    try:
        return response.text()[:600]
    except Exception as error:  # noqa: BLE001 - the body is gone with its page: say so
        return f"(no body: {error})"


@pytest.fixture
def open_tab(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Callable[[], PlayPage]]:
    """A factory of browser tabs (one context each, as two people on two machines); on failure each tab's
    screenshot is saved."""
    pages: list[Page] = []
    contexts = []
    actions: list[tuple[int, Response]] = []

    def new_tab() -> PlayPage:
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        pages.append(page)
        tab = len(pages)
        page.on("response", lambda response: actions.append((tab, response))
                if response.url.endswith("/api/action") else None)
        return PlayPage(page)

    yield new_tab
    report = getattr(request.node, "report_call", None)
    try:
        if report is not None and report.failed:
            SHOTS.mkdir(parents=True, exist_ok=True)
            for index, page in enumerate(pages):
                path = SHOTS / f"{request.node.name}-tab{index + 1}.png"
                page.screenshot(path=path, full_page=True)
                print(f"screenshot: {path}")
            for tab, response in actions:  # what each tab asked of the page's server, and its answer
                print(f"tab{tab} action: {response.request.post_data} -> {response.status} {_answer(response)}")
    finally:
        for context in contexts:
            context.close()
