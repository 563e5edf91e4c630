"""Puzzles in ``napkin play`` in a real browser: a member asks for a puzzle, picks the answer from the list under
its board and solves it, only they see it; a server's daily puzzle is set, posted in the channel, and another member
answers it privately."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.puzzles import Puzzle
from storage import Database
from tests.browser._driver import PlayPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]
"""The browser suite: headless Chromium, slow (make test runs it; make test-fast leaves it out)."""


def _latest_puzzle(database: Path) -> Puzzle:
    """The puzzle of the newest attempt ``napkin play`` stored (read in a thread of its own: Playwright's synchronous
    API owns this thread's event loop)."""
    async def read() -> Puzzle:
        db = await Database.open(database)
        try:
            rows = await db.fetchall("SELECT p.record FROM puzzle_attempts a JOIN puzzles p ON p.id = a.puzzle_id "
                                     "ORDER BY a.id DESC LIMIT 1")
            return Puzzle.from_json(rows[0][0])
        finally:
            await db.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, read()).result()


def _pick(tab: PlayPage, move: str) -> None:
    """Pick ``move`` in the newest list under a puzzle."""
    message = tab.messages().filter(has=tab.page.locator(".select-trigger")).last
    message.locator(".select-trigger").click()
    message.locator(f'[role="option"][data-value="{move}"]').click()


def test_a_puzzle_solved_and_the_daily_puzzle_answered_in_the_local_page(local_play, open_tab) -> None:
    alice = open_tab().open(local_play.url)
    alice.command("puzzle next", game="Chopsticks")
    shown = alice.expect_text("Puzzle · Chopsticks")
    expect(shown).to_contain_text("Only you can see this")
    image = shown.locator("img.attachment-image")
    expect(image).to_have_attribute("alt", re.compile(r"^Chopsticks board, move 0\..*alice"))
    puzzle = _latest_puzzle(local_play.database)
    for step, move in enumerate(puzzle.solver_moves):  # a longer line: the bot's defence comes in between
        if step:
            defence = f"The opponent answers {puzzle.line[2 * step - 1]}"
            expect(alice.messages().filter(has_text=defence)).to_have_count(1)
        _pick(alice, move)
    solved = alice.expect_text("Solved!")
    expect(solved).to_contain_text("Puzzle rating: 1500 →")
    expect(solved.locator(".component-button", has_text="Any game")).to_be_visible()

    alice.command("settings", puzzle_channel="games")
    post = alice.expect_text("Daily puzzle of")
    expect(post.locator(".component-button", has_text="Solve it")).to_be_enabled()
    bob = open_tab().open(local_play.url, "bob")
    expect(bob.messages().filter(has_text="Solved!")).to_have_count(0)  # alice's puzzle was hers alone
    bob.messages().filter(has_text="Daily puzzle of").last.locator(".component-button", has_text="Solve it").click()
    daily = bob.expect_text("You are bob")
    expect(daily).to_contain_text("Only you can see this")
    expect(alice.messages().filter(has_text="You are bob")).to_have_count(0)
