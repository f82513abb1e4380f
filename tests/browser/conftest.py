"""Browser tests: a real headless Chromium (Debian's ``chromium``) on a live server.

- ``browser``: one Chromium for the whole session (``QQ_TEST_CHROMIUM`` names another
  binary). Missing Chromium fails the run with the command that installs it.
- ``page``: a fresh browser context (no cookies, 1280 x 900) on pytest-django's
  ``live_server``, which serves the app from this process, on every store of the test
  (``stores``: the page layout asks each one). Its ``PageWatch`` (``page_watch``) fails
  the test at teardown on any console error, uncaught exception, failed request or
  4xx/5xx response, unless the test announced it with ``page_watch.expect(status, path)``.
- ``sign_in(user)`` gives the page a signed-in session of ``user`` (a persona from
  tests/conftest.py: ``viewer``, ``curator``, ``admin_user``) without the form;
  ``test_login.py`` goes through the form.

Playwright's synchronous API keeps an event loop in the test's thread, so Django's guard
against ORM calls from async code is lifted for these tests only
(``DJANGO_ALLOW_ASYNC_UNSAFE``): the ORM calls here are the test's own, made between
browser steps, never concurrently with them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.browser.watch import PageWatch
from tests.services import ServiceStartError

CHROMIUM = os.environ.get("QQ_TEST_CHROMIUM", "/usr/bin/chromium")
VIEWPORT = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if shutil.which(CHROMIUM) is None:
        raise ServiceStartError(
            f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does), or set "
            "QQ_TEST_CHROMIUM"
        )
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # Generous waits: the 2-core machine is shared, and a wait ends as soon as it is met.
    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def page_watch() -> PageWatch:
    return PageWatch()


@pytest.fixture
def page(
    browser: Browser, live_server: Any, stores: dict[str, Any], page_watch: PageWatch
) -> Iterator[Page]:
    """A new page on the live server; fails the test on any problem the page had."""
    context = browser.new_context(base_url=live_server.url, viewport=VIEWPORT)  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    tab = context.new_page()
    page_watch.listen(tab)
    yield tab
    context.close()
    page_watch.assert_clean()


@pytest.fixture
def sign_in(page: Page, live_server: Any) -> Callable[[Any], None]:
    """``sign_in(user)``: the page's browser context gets a session of ``user``."""

    def sign_in_as(user: Any) -> None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        session = {"name": cookie.key, "value": cookie.value, "url": live_server.url}
        page.context.add_cookies([session])  # type: ignore[list-item]

    return sign_in_as
