"""Driving the local play page (``napkin play``) the way a person does: the composer, its option pickers, the
buttons under the newest board. Built on Playwright's locators and web-first assertions."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from playwright.sync_api import Locator, Page, Request, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

TIMEOUT_MS = 30_000
"""How long to wait for something a person would wait for (a board, a reply)."""
expect.set_options(timeout=TIMEOUT_MS)


CLICK_ATTEMPTS = 3
CLICK_SENT_MS = 10_000
"""How long to wait for the page to send a click it took (it sends it within the click's own handler)."""


def _is_click(request: Request, control_key: str | None) -> bool:
    """Whether ``request`` is the page's action request for a click on ``control_key``."""
    if request.method != "POST" or not request.url.endswith("/api/action"):
        return False
    try:
        body = json.loads(request.post_data or "{}")
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("kind") == "click" and body.get("control_key") == control_key


def headline(match_id: int, move: int) -> re.Pattern[str]:
    """The headline of a board of ``match_id`` after ``move`` moves (the first board says "new match")."""
    return re.compile(rf"match #{match_id} · " + ("new match" if move == 0 else rf"move {move}(?!\d)"))


@dataclass(frozen=True)
class Typed:
    """An option value typed as text (a number, a notation), not picked from a list."""

    text: str


class PlayPage:
    """One browser tab on the local play page, viewing as one player."""

    def __init__(self, page: Page) -> None:
        self.page = page
        page.set_default_timeout(TIMEOUT_MS)

    def open(self, url: str, viewer: str | None = None) -> PlayPage:
        """Load ``url`` and, if given, switch "Viewing as" to ``viewer``."""
        self.page.goto(url)
        expect(self.page.locator("#channel-composer-input")).to_be_visible()
        if viewer is not None and self.viewer != viewer:
            self.page.locator("#viewer-picker").select_option(label=viewer)
            expect(self.page.locator("#viewer-picker")).to_have_value(self._viewer_value(viewer))
        return self

    def _viewer_value(self, name: str) -> str:
        option = self.page.locator("#viewer-picker option", has_text=re.compile(f"^{re.escape(name)}$"))
        return option.get_attribute("value") or ""

    @property
    def viewer(self) -> str:
        """The player this tab is viewing as."""
        return self.page.locator("#viewer-picker option:checked").inner_text().strip()

    # ------------------------------------------------------------------ the composer

    def _option(self, label: str) -> Locator:
        """The entry ``label`` of the composer's open suggestion list (commands, options, choices, members)."""
        return self.page.locator('[role="option"]').filter(
            has=self.page.locator(".command-suggestion-label, .command-entry-title strong",
                                  has_text=re.compile(f"^/?{re.escape(label)}$")))

    def begin_command(self, name: str) -> None:
        """Type ``/name`` in the composer and pick the command from the list."""
        box = self.page.locator("#channel-composer-input")
        box.click()
        box.press_sequentially(f"/{name}")
        option = self._option(name)
        expect(option).to_be_visible()
        if option.get_attribute("aria-selected") == "true":
            # the page's own keyboard pick (Tab, as in Discord): a list the page redraws while it polls (a busy
            # channel, a slow machine) detaches the entry under a click before the click lands
            box.press("Tab")
        else:
            option.click()
        expect(self.page.locator(".command-chip")).to_have_text(f"/{name}")

    def add_option(self, key: str) -> Locator:
        """Open the option ``key`` of the command being written; return its input field."""
        pill = self.page.locator(f'.command-pill[data-option="{key}"]')
        if pill.count() == 0:
            if not self._option(key).is_visible():
                self.page.locator(".command-ghost").click()
            self._choose(self._option(key))
        expect(pill).to_have_count(1)
        return pill.locator("input")

    def _choose(self, entry: Locator) -> None:
        """Choose ``entry`` of the list under the composer. The page redraws that list each time it polls (often, on
        a busy channel); a pointer click waits for the entry to hold still, and an entry redrawn again and again
        never does. So the click is sent to the entry as the page finds it at that moment, as the page's own
        keyboard pick does (``element.click()``)."""
        expect(entry).to_be_visible()
        entry.dispatch_event("click")

    def suggestions(self, count: int | None = None) -> list[str]:
        """The labels of the list under the composer (members, choices, the bot's autocomplete); with
        ``count``, wait until it shows that many."""
        items = self.page.locator("#command-suggestion-listbox .command-suggestion-label")
        if count is not None:
            expect(items).to_have_count(count)
        return [text.strip() for text in items.all_inner_texts()]

    def pick(self, label: str) -> None:
        """Click ``label`` in the list under the composer."""
        self._choose(self._option(label))

    def send(self) -> None:
        """Send the command."""
        self.page.locator("#send-message").click()

    def command(self, name: str, **options: str | Typed) -> None:
        """Write ``/name`` with ``options`` and send it: a ``str`` value is picked from the option's list
        (a member, a choice), a :class:`Typed` one is typed."""
        self.begin_command(name)
        for key, value in options.items():
            field = self.add_option(key)
            if isinstance(value, Typed):
                field.press_sequentially(value.text)
            else:
                self.pick(value)
        self.send()

    # ------------------------------------------------------------------ what the page shows

    def messages(self) -> Locator:
        """Every message of the channel, oldest first."""
        return self.page.locator("#channel-message-list .channel-message")

    def boards(self) -> Locator:
        """Every message carrying a board image."""
        return self.messages().filter(has=self.page.locator("img.attachment-image"))

    def last_board(self) -> Locator:
        """The newest board."""
        return self.boards().last

    def expect_board(self, match_id: int, ply: int) -> Locator:
        """Wait for the board of ``match_id`` at ``ply`` with its image loaded; return its message. The image's alt
        text (the attachment's description, which the page shows as the ``alt`` a screen reader reads) says the board
        at that move."""
        board = self.boards().filter(has_text=headline(match_id, ply)).last
        expect(board).to_be_visible()
        image = board.locator("img.attachment-image")
        expect(image).to_have_attribute("alt", re.compile(rf"^[^.]+ board, move {ply}\b"))
        self.page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        return board

    def board_text(self, board: Locator) -> str:
        """The text above a board (headline, move, scores, result)."""
        return board.locator(".message-content").inner_text()

    def wait_for_new_board(self, count: int) -> Locator:
        """Wait until there are more than ``count`` boards; return the newest."""
        expect(self.boards()).not_to_have_count(count)
        return self.last_board()

    def move_buttons(self) -> Locator:
        """The enabled buttons under the newest board."""
        return self.last_board().locator(".component-button[aria-disabled='false']")

    def click_move(self, label: str) -> None:
        """Click the button ``label`` under the newest board, and make sure the page sent the click.

        The page drops a click that lands while it is between two states (an answer or a newer revision still
        being read, as when the other tab's move has just been published) without a word: no request, no refusal.
        Playwright's check that the button is enabled and its click are two steps, so on a loaded machine the
        click can land in that moment. So each click waits until the page has sent it to the bot (it does so at
        once or never); a dropped click is clicked again while the button is still there and enabled, as a person
        would (at most :data:`CLICK_ATTEMPTS` times)."""
        button = self.last_board().locator(".component-button", has_text=re.compile(f"^{re.escape(label)}$"))
        for _ in range(CLICK_ATTEMPTS):
            expect(button).to_be_enabled()
            key = button.get_attribute("data-control-key")
            try:
                with self.page.expect_request(lambda request, key=key: _is_click(request, key), timeout=CLICK_SENT_MS):
                    button.click()
                return
            except PlaywrightTimeoutError:
                print(f"the page dropped a click on {label!r}: clicking again")
        raise AssertionError(f"the page never sent a click on {label!r} ({CLICK_ATTEMPTS} clicks)")

    def expect_text(self, text: str | re.Pattern[str]) -> Locator:
        """Wait for a message containing ``text``; return the newest such message."""
        message = self.messages().filter(has_text=text).last
        expect(message).to_be_visible()
        return message
