"""Signing in through the form, as a new user does."""

from typing import Any

from playwright.sync_api import Page, expect


def test_signing_in_opens_the_overview(page: Page, curator: Any) -> None:
    page.goto("/notes/")
    expect(page.get_by_role("heading", name="Sign in to qqweb")).to_be_visible()
    page.get_by_label("Username").fill("cora-curator")
    page.get_by_label("Password").fill("pw-cora-curator")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Notes")).to_be_visible()
    expect(page.get_by_text("cora-curator · curator")).to_be_visible()


def test_a_wrong_password_says_so(page: Page, curator: Any) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("cora-curator")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("That username and password did not match")).to_be_visible()
