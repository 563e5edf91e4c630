"""Refusals in the local page look like refusals: an illegal move and a cooldown, typed in ``napkin play``'s page, are
answered as Discord answers them — the bot's ephemeral reply, shown only to the member who typed, and the message box
cleared — and the page says nothing of a failed action, an uncertain outcome or an error log."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser._driver import PlayPage, Typed, headline

pytestmark = [pytest.mark.browser, pytest.mark.slow]
"""The browser suite: headless Chromium, slow (make test runs it; make test-fast leaves it out)."""

FAILURE_NOTES = ("Action outcome uncertain", "will not be retried", "The bot action failed", "Env error log",
                 "Action was not completed")
"""What SimCord's page says of an action it counts as failed."""


def _expect_no_failure_shown(page: Page) -> None:
    for note in FAILURE_NOTES:
        expect(page.locator("body")).not_to_contain_text(note)


def _expect_composer_cleared(tab: PlayPage) -> None:
    expect(tab.page.locator(".command-chip")).to_have_count(0)
    expect(tab.page.locator("#channel-composer-input")).to_have_text("")


def test_an_illegal_move_is_answered_only_to_the_player_and_the_box_clears(local_play, open_tab) -> None:
    alice = open_tab().open(local_play.url)
    alice.command("chopsticks start", opponent="Napkin Games", level="easy")
    alice.expect_board(1, 0)
    alice.command("chopsticks move", notation=Typed("zz"))
    refusal = alice.expect_text("'zz' is not a Chopsticks move")
    expect(refusal).to_contain_text("Only you can see this")  # ephemeral, as Discord shows it
    _expect_composer_cleared(alice)
    _expect_no_failure_shown(alice.page)
    bob = open_tab().open(local_play.url, viewer="bob")
    expect(bob.messages().filter(has_text=headline(1, 0))).to_be_visible()
    expect(bob.messages().filter(has_text="is not a Chopsticks move")).to_have_count(0)  # never shown to bob
    # the page goes on as before: the next command is taken and answered
    alice.command("match list")
    expect(alice.messages().filter(has_text=re.compile(r"#1\b"))).not_to_have_count(0)
    _expect_no_failure_shown(alice.page)


def test_a_cooldown_is_answered_only_to_the_player_and_the_box_clears(local_play, open_tab) -> None:
    alice = open_tab().open(local_play.url)
    alice.command("chopsticks start", opponent="Napkin Games", level="easy")
    alice.expect_board(1, 0)
    for _ in range(2):  # /match history is allowed twice a minute
        alice.command("match history", match=Typed("1"))
    expect(alice.messages().filter(has_text="(no moves yet)")).to_have_count(2)
    alice.command("match history", match=Typed("1"))
    resting = alice.expect_text(re.compile(r"takes a rest between uses.*try it again in \d+ seconds?\."))
    expect(resting).to_contain_text("Only you can see this")
    _expect_composer_cleared(alice)
    _expect_no_failure_shown(alice.page)
