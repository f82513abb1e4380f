"""The API docs load from our own static files (no CDN), so they work offline."""

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
    expect(page.get_by_text("/api/notes").first).to_be_visible()
    assert outside == []
