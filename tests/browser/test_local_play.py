"""``napkin play`` in a real browser: a person plays the real bot through the local page, by buttons, by typed
commands with autocomplete, and against another person in a second tab."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bot.service import load_state
from storage import Database, MatchRecord
from tests.bot.helpers import stored
from tests.browser._driver import TIMEOUT_MS, Typed, headline

pytestmark = [pytest.mark.browser, pytest.mark.slow]
"""The browser suite: headless Chromium, slow (make test runs it; make test-fast leaves it out)."""


def _stored_match(database: Path, match_id: int) -> MatchRecord:
    """The match as ``napkin play`` stored it (read through the storage layer, in a thread of its own since
    Playwright's synchronous API owns this thread's event loop)."""
    async def read() -> MatchRecord:
        db = await Database.open(database)
        try:
            return await stored(db, match_id)
        finally:
            await db.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, read()).result()


def _free_squares(match: MatchRecord) -> list[str]:
    """The squares still legal in a stored Differences match (the rules core's answer)."""
    state = load_state(match)
    return [state.format_move(move) for move in state.legal_moves()]


def test_chopsticks_against_the_computer_by_buttons(local_play, open_tab) -> None:
    alice = open_tab().open(local_play.url)
    assert alice.viewer == "alice"
    alice.command("chopsticks start", opponent="Napkin Games", level="hard", seat="second")
    alice.expect_text("Match #1 starts: Chopsticks")
    board = alice.expect_board(1, 1)  # the computer opened at once, as the first seat: its move is on the first board
    assert "Napkin Games (hard) played" in alice.board_text(board)
    assert "@alice, your move" in alice.board_text(board) and "How to move:" in alice.board_text(board)
    turns = 0
    while "your move" in alice.board_text(board):
        label = alice.move_buttons().first.inner_text()  # a person who always takes the first button
        alice.click_move(label)
        turns += 1
        board = alice.wait_for_new_board(turns)  # one board per turn: alice's move and the computer's answer
        assert turns < 30, "the match should be over long before"
    # The first seat can force a win with the default rules, and the hard computer plays perfectly.
    assert "Napkin Games (hard) wins: both hands are dead." in alice.board_text(board)
    expect(board.locator(".component-button")).to_have_count(1)  # no move buttons at the end: only Rematch
    expect(board.locator(".component-button", has_text="Rematch")).to_be_visible()
    expect(board.locator("img.attachment-image")).to_be_visible()
    assert alice.boards().count() == turns + 1  # the first board, then one per turn
    match = _stored_match(local_play.database, 1)
    assert (match.status, match.outcome["winner"]) == ("finished", 0)


def test_differences_by_typed_commands_and_autocomplete(local_play, open_tab) -> None:
    alice = open_tab().open(local_play.url)
    alice.command("differences start", opponent="Napkin Games", n=Typed("4"), level="easy")
    board = alice.expect_board(1, 0)
    assert "Score: alice 0 – Napkin Games (easy) 0" in alice.board_text(board)
    turns = 0
    while "your move" in alice.board_text(board):
        alice.begin_command("differences mark")
        field = alice.add_option("square")
        free = _free_squares(_stored_match(local_play.database, 1))
        column = min(free)[0]
        field.press_sequentially(column)
        # The bot's autocomplete lists exactly the free squares of that column.
        offered = alice.suggestions(count=sum(square[0] == column for square in free))
        assert offered == sorted(square for square in free if square[0] == column)
        alice.pick(offered[-1])
        alice.send()
        turns += 1
        board = alice.wait_for_new_board(turns)
        assert f"alice played {offered[-1]}" in alice.board_text(board)
    assert turns == 2  # a 4 x 4 grid takes four marks, two of them alice's
    final = alice.expect_board(1, 4)
    assert re.search(r"(alice|Napkin Games \(easy\)) wins: |Draw: ", alice.board_text(final))
    match = _stored_match(local_play.database, 1)
    assert (match.status, match.ply, match.variant["n"]) == ("finished", 4, 4)
    assert len(match.outcome["scores"]) == 2
    assert re.search(rf"Score: alice {match.outcome['scores'][0]} – Napkin Games \(easy\) "
                     rf"{match.outcome['scores'][1]}", alice.board_text(final))


# A short game with the default rules, found by a breadth-first search of the rules core: the first seat wins
# at ply 5 ("both hands dead"). Each entry: who moves, the button they click.
SHORT_CHOPSTICKS = [("alice", "L → their L"), ("bob", "L → their L"), ("alice", "L → their L"),
                    ("bob", "R → their L"), ("alice", "L → their R")]
FOLLOW_MS = TIMEOUT_MS
"""How long a test waits for the other tab to show a move by itself, with no manual refresh or navigation (its page
polls every half second, so a quiet machine shows it within a second; the bound is the suite's, so that a loaded
machine does not fail it: how fast it follows is not what this test asserts)."""


def test_two_members_play_each_other_in_two_tabs(local_play, open_tab) -> None:
    tabs = {"alice": open_tab().open(local_play.url), "bob": open_tab().open(local_play.url, viewer="bob")}
    alice, bob = tabs["alice"], tabs["bob"]
    assert (alice.viewer, bob.viewer) == ("alice", "bob")
    alice.command("chopsticks start", opponent="bob")
    challenge = bob.expect_text("alice challenges @bob to Chopsticks")
    challenge.locator(".component-button", has_text="Accept").click()
    for tab in (bob, alice):
        expect(tab.messages().filter(has_text="Accepted by bob: match #1")).to_have_count(1, timeout=FOLLOW_MS)
        expect(tab.boards().filter(has_text="match #1 · new match")).to_be_visible(timeout=FOLLOW_MS)
    for ply, (name, label) in enumerate(SHORT_CHOPSTICKS, start=1):
        mover, other = tabs[name], tabs["bob" if name == "alice" else "alice"]
        assert f"@{name}, your move" in mover.board_text(mover.last_board())
        mover.click_move(label)
        for tab in (mover, other):  # the other tab follows by itself
            board = tab.boards().filter(has_text=headline(1, ply))
            expect(board).to_be_visible(timeout=FOLLOW_MS)
            assert f"{name} played" in tab.board_text(board)
    for tab in (alice, bob):
        final = tab.expect_board(1, len(SHORT_CHOPSTICKS))
        assert "alice wins: both hands are dead." in tab.board_text(final)
        expect(final.locator(".component-button")).to_have_count(1)  # only Rematch
    match = _stored_match(local_play.database, 1)
    assert (match.status, match.ply, match.outcome["winner"]) == ("finished", 5, 0)
    assert [seat.display_name for seat in match.seats] == ["alice", "bob"]


def test_a_conditional_move_is_played_for_its_owner_and_the_match_reviewed(local_play, open_tab) -> None:
    tabs = {"alice": open_tab().open(local_play.url), "bob": open_tab().open(local_play.url, viewer="bob")}
    alice, bob = tabs["alice"], tabs["bob"]
    alice.command("chopsticks start", opponent="bob")
    bob.expect_text("alice challenges @bob to Chopsticks").locator(".component-button", has_text="Accept").click()
    alice.expect_board(1, 0)
    alice.click_move("L → their L")
    alice.expect_board(1, 1)
    # alice waits for bob: she stores "if bob plays LL, I answer LL", typed in the boards' notation
    alice.command("match premove", if_they_play=Typed("LL"), reply=Typed("LL"))
    stored_line = alice.expect_text("Stored for match #1: if bob plays LL, you play LL")
    expect(stored_line).to_contain_text("only you see it")
    # alice's command republished every page; bob's tab takes it on its next poll, or at once with Refresh preview (a
    # click on the page as it was is refused by the preview as stale, as a person clicking that fast would see)
    bob.page.get_by_role("button", name="Refresh preview").click()
    bob.expect_board(1, 1)
    expect(bob.messages().filter(has_text="Stored for match #1")).to_have_count(0)  # never shown to bob
    bob.click_move("L → their L")
    for tab in (bob, alice):  # bob's move and alice's answer on one board, on both pages
        board = tab.boards().filter(has_text=headline(1, 3))
        expect(board).to_be_visible(timeout=FOLLOW_MS)
        assert "bob played LL; alice's conditional move LL was played." in tab.board_text(board)
        assert "@bob, your move" in tab.board_text(board)
    expect(bob.boards().filter(has_text=headline(1, 2))).to_have_count(0)  # no board between the two moves
    match = _stored_match(local_play.database, 1)
    assert (match.ply, match.current_seat) == (3, 1)  # both moves stored, bob to move
    bob.click_move("R → their L")
    alice.expect_board(1, 4)
    alice.click_move("L → their R")
    final = bob.expect_board(1, 5)
    assert "alice wins: both hands are dead." in bob.board_text(final)
    # bob reviews the match: only he sees it, with exact values and the board of the turning point
    bob.command("match review", match=Typed("1"))
    review = bob.expect_text("Review of match #1 · Chopsticks")
    expect(review).to_contain_text("Exact values from a complete search")
    expect(review).to_contain_text("LL (alice): win → win · kept the win")  # move 3, the conditional one
    expect(review.locator("img")).to_have_count(1)
    bob.page.wait_for_function("img => img.complete && img.naturalWidth > 0",  # the turning point's board shows
                               arg=review.locator("img").element_handle())
    expect(alice.messages().filter(has_text="Review of match #1")).to_have_count(0)
