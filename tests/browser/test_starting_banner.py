"""While `make dev` starts Neo4j, the banner on every page says so, and the command it
names reads as a command (code), not as text between literal backticks."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from playwright.sync_api import Page, expect

from qqweb.health import cached_stores_health
from tests.browser.words import assert_reads_as_words, shot
from tests.services import free_port


def test_the_starting_banner_shows_its_command_as_code_not_backticks(
    page: Page, sign_in: Any, viewer: Any, settings: Any, tmp_path: Any
) -> None:
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    settings.DEV_STARTING_FILE = tmp_path / "dev-starting.json"
    since = int(time.time()) - 12
    state = {"pid": os.getpid(), "graph": "the database is starting", "since": since}
    settings.DEV_STARTING_FILE.write_text(json.dumps(state))
    cached_stores_health(wait=True)
    sign_in(viewer)
    page.goto("/notes/")
    banner = page.locator("#store-banner")
    expect(banner).to_contain_text("Neo4j is starting")
    expect(banner.locator("code", has_text="make dev")).to_be_visible()
    assert "`" not in banner.inner_text()
    assert_reads_as_words(banner)
    shot(page, "starting-banner")
