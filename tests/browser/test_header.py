"""The header at a laptop's width (1280 px) for an admin, who has the most sections (Facts
configured, and Backup, Tokens and Users): one row, the admin's sections under "Admin",
opened by hover or by focus with no script; no page wider than the window."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from memory_app.facts.lib import FactsStore
from tests.browser.words import shot
from tests.memory_app.facts.conftest import facts_store

__all__ = ["facts_store"]  # the facts tests' fixture: Facts in the header

# the pages that need no item of the demo (tests/browser/test_phone_width.py walks them all)
PAGES = (
    "/",
    "/notes/",
    "/search/",
    "/retrieval/",
    "/memory-tests/",
    "/review/",
    "/archive/",
    "/core/",
    "/graph/",
    "/facts/",
    "/facts/next-start/",
    "/maintenance/",
    "/audit/",
    "/health/",
    "/backup/",
    "/tokens/",
)

_ROW = """() => {
  const header = document.querySelector('header.topbar');
  const style = getComputedStyle(header);
  const inner = header.getBoundingClientRect().height
    - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const link = document.querySelector('#main-nav > a').getBoundingClientRect().height;
  const tops = [...header.querySelectorAll(':scope > *, #main-nav > a, .nav-group-label')]
    .filter(e => e.getBoundingClientRect().height > 0)
    .map(e => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2));
  return {inner, link, spread: Math.max(...tops) - Math.min(...tops)};
}"""


def test_the_admin_header_is_one_row_at_1280_px(
    page: Page, sign_in: Any, admin_user: Any, facts_store: FactsStore
) -> None:
    sign_in(admin_user)
    page.goto("/")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Facts")).to_be_visible()
    shot(page, "header-admin-1280", full_page=False)
    row = page.evaluate(_ROW)
    # one row: the header's content is no taller than a nav link's row (its buttons and
    # dots are shorter than two), and every part of it is centred on the same line
    assert row["inner"] < 2 * row["link"], row
    assert row["spread"] <= 4, row

    backup = nav.get_by_role("link", name="Backup")
    expect(backup).to_be_hidden()
    page.locator(".nav-group-label").focus()  # a tap or Tab opens it; hover too
    expect(backup).to_be_visible()
    shot(page, "header-admin-1280-open", full_page=False)
    backup.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Backup")

    too_wide = []
    for path in PAGES:
        page.goto(path)
        expect(page.locator("main h1").first).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 1280:
            too_wide.append(f"{path} is {width} px wide")
        if page.evaluate(_ROW)["spread"] > 4:
            too_wide.append(f"{path}: the header is more than one row")
    assert not too_wide, "\n".join(too_wide)
