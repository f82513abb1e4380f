"""What a user sees when something is refused: the server's message, on a styled page."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.watch import PageWatch
from tests.browser.words import shot
from tests.helpers import add_note


def test_a_bulk_action_with_no_value_is_refused_before_it_asks_to_apply(
    page: Page, page_watch: PageWatch, sign_in: Any, curator: Any
) -> None:
    """Set importance with the importance left empty: refused at Apply…, in words, not
    after "Yes, apply to 1"."""
    add_note("note_00000000err1", "Lumen stores vectors in MongoDB")
    sign_in(curator)
    page.goto("/notes/")
    page.get_by_label("Bulk action").select_option("set_importance")
    page.get_by_label("Select note_00000000err1").check()
    page_watch.expect(400, "/notes/bulk/")
    page.get_by_role("button", name="Apply").click()
    error = page.locator("#request-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Not done (400")
    expect(error).to_contain_text("Give the new importance, a number from 0 to 1.")
    expect(page.get_by_role("button", name="Yes, apply to 1")).to_have_count(0)
    shot(page, "bulk-refused-before-confirm")
    error.get_by_role("button", name="Dismiss").click()
    expect(error).to_be_hidden()


def test_a_viewer_meets_a_styled_403_that_says_why(
    page: Page, page_watch: PageWatch, sign_in: Any, viewer: Any
) -> None:
    sign_in(viewer)
    page_watch.expect(403, "/tokens/")
    page.goto("/tokens/")
    expect(page.get_by_role("heading", name="You may not do this")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("needs the admin role")
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    page.get_by_role("link", name="Overview").last.click()
    expect(page).to_have_url(re.compile(r"://[^/]+/$"))


def test_a_missing_page_is_a_styled_404_with_a_way_back(
    page: Page, page_watch: PageWatch, sign_in: Any, viewer: Any
) -> None:
    sign_in(viewer)
    page_watch.expect(404, "/no-such-page/")
    page.goto("/no-such-page/")
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("/no-such-page/")
    expect(page.get_by_role("link", name="Notes").last).to_be_visible()
