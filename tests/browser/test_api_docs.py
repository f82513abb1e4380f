"""The API docs load from our own static files (no CDN), so they work offline; they open
with the operations folded under their tags (quick to render), and a tag opens its own."""

import os
from typing import Any

from playwright.sync_api import Page, Route, expect


def test_the_api_docs_render_with_every_request_kept_on_the_server(
    page: Page, sign_in: Any, viewer: Any, live_server: Any
) -> None:
    outside: list[str] = []

    def refuse_other_hosts(route: Route) -> None:
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", refuse_other_hosts)
    sign_in(viewer)
    page.goto("/api/docs", timeout=30_000)
    expect(page.locator(".swagger-ui .information-container")).to_be_visible()
    tags = page.locator(".swagger-ui .opblock-tag")
    expect(tags.first).to_be_visible()
    expect(page.locator(".swagger-ui .opblock")).to_have_count(0)  # folded
    expect(page.locator(".swagger-ui .models")).to_have_count(0)  # no schema list
    tags.filter(has_text="notes").first.click()
    expect(page.get_by_text("/api/notes").first).to_be_visible()
    shots = os.environ.get("QQ_TEST_SCREENSHOTS")
    if shots:
        page.screenshot(path=f"{shots}/api-docs.png")
    assert outside == []
