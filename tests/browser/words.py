"""What a curator reads is words: ``assert_reads_as_words(page)`` fails on a snake_case
key ("of_notes", "Set_importance"), a Python repr ("('a', 'b')", "{'k': ...}", "None",
"<X object at ...>") or a Python-style quoted id in the page's visible text, and on any
of ``ids`` read as words (a pin's item named by its id where its text belongs). Ids
shown as ids (in ``<code>``: a small secondary detail), the values of form fields and the
page's scripts are not read."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from playwright.sync_api import Locator, Page

# a key of two or more lower-case words joined by "_" ("note_lumen000001" is an id:
# its digits end the word, so it is not a key); a capitalised one ("Move_section") too
SNAKE = re.compile(r"(?<![\w/.#-])[A-Za-z][a-z]+(?:_[a-z]+)+(?![\w/.-])")
REPR = re.compile(r"\('|\{'|\[\(|\b(?:None|True|False)\b|<\w+ object at|\"\w+\"\)")

_READABLE = """element => {
  const copy = element.cloneNode(true);
  copy.querySelectorAll('code, pre, script, style, input, textarea, select, [hidden]')
    .forEach(n => n.remove());
  return copy.innerText;
}"""


def visible_words(where: Page | Locator) -> str:
    body = where.locator("body") if isinstance(where, Page) else where
    return str(body.evaluate(_READABLE))


def assert_reads_as_words(where: Page | Locator, ids: Iterable[str] = ()) -> None:
    text = visible_words(where)
    keys = sorted(set(SNAKE.findall(text)))
    reprs = sorted({m.group(0) for m in REPR.finditer(text)})
    raw = sorted(i for i in ids if i in text)
    assert not keys, f"snake_case keys where a curator reads: {keys}"
    assert not reprs, f"Python reprs where a curator reads: {reprs}"
    assert not raw, f"raw ids where a curator reads (name them by their text): {raw}"


def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """A full-page screenshot (else of the viewport) in ``QQ_TEST_SCREENSHOTS``, when it
    is set."""
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=full_page)
