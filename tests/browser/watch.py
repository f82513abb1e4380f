"""What went wrong on a page, as a user's browser saw it.

``PageWatch`` listens to one Playwright page for console errors, uncaught exceptions,
requests that failed and responses with a 4xx/5xx status. The ``page`` fixture attaches
one to every page and fails the test at teardown if anything went wrong; a test that
provokes an error on purpose says so first with ``expect(status, path)``, and can check
mid-flow with ``assert_clean()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from playwright.sync_api import ConsoleMessage, Page, Request, Response

# A request the browser itself abandons because the page moved on (a link followed while
# an image or a poll was still loading) is not a failure a user can see.
_ABANDONED = "net::ERR_ABORTED"
# Chromium's console line for an error response, and htmx's for one it received.
_CHROMIUM_STATUS = re.compile(
    r"^Failed to load resource: the server responded with a status of (\d+)"
)
_HTMX_STATUS = re.compile(r"^Response Status Error Code (\d{3}) from (\S+)")


@dataclass
class Expected:
    status: int
    path: str
    seen: int = 0


@dataclass
class PageWatch:
    """Problems seen on one page; ``expected`` are the error responses a test provokes."""

    problems: list[str] = field(default_factory=list)
    expected: list[Expected] = field(default_factory=list)

    def listen(self, page: Page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        page.on("requestfailed", self._request_failed)
        page.on("response", self._response)

    def expect(self, status: int, path: str) -> None:
        """The test provokes a ``status`` answer from a URL containing ``path``: that
        response, Chromium's console line about it and htmx's are not problems."""
        self.expected.append(Expected(status, path))

    def assert_clean(self) -> None:
        __tracebackhide__ = True
        unseen = [f"{e.status} from {e.path}" for e in self.expected if not e.seen]
        assert not self.problems, "the page had problems:\n" + "\n".join(self.problems)
        assert not unseen, f"expected error responses never came: {unseen}"

    def _matches(self, status: int, url: str) -> Expected | None:
        return next((e for e in self.expected if e.status == status and e.path in url), None)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text, url = message.text, message.location.get("url", "")
        chromium, htmx = _CHROMIUM_STATUS.match(text), _HTMX_STATUS.match(text)
        if chromium and self._matches(int(chromium[1]), url):
            return
        if htmx and self._matches(int(htmx[1]), htmx[2]):
            return
        self.problems.append(f"console error: {text} ({url})")

    def _request_failed(self, request: Request) -> None:
        failure = request.failure or ""
        if _ABANDONED not in failure:
            self.problems.append(f"request failed: {request.method} {request.url}: {failure}")

    def _response(self, response: Response) -> None:
        if response.status < 400:
            return
        expected = self._matches(response.status, response.url)
        if expected:
            expected.seen += 1
            return
        method = response.request.method
        self.problems.append(f"{response.status} for {method} {response.url}")
