"""The links of a page, read from its HTML: what a count links to, for the tests that
follow a number to the items it counts."""

from __future__ import annotations

import re
from html.parser import HTMLParser

VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _Links(HTMLParser):
    """Every ``<a>`` (its text and href) inside the element whose id is ``within``
    (the whole page when None)."""

    def __init__(self, within: str | None) -> None:
        super().__init__()
        self.within, self.depth = within, 0 if within else 1
        self.found: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.depth == 0 and self.within and values.get("id") == self.within:
            self.depth = 1
            return
        if self.depth and tag not in VOID:
            self.depth += 1
        if self.depth and tag == "a" and values.get("href") is not None:
            self._href, self._text = values["href"], []

    def handle_endtag(self, tag: str) -> None:
        if not self.depth or tag in VOID:
            return
        if tag == "a" and self._href is not None:
            self.found.append((" ".join("".join(self._text).split()), self._href))
            self._href = None
        if self.within:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)


def links(html: str, within: str | None = None) -> list[tuple[str, str]]:
    """(text, href) of every link inside the element with id ``within``, in page order."""
    parser = _Links(within)
    parser.feed(html)
    return parser.found


def href_of(html: str, text: str, within: str | None = None) -> str:
    """The href of the one link reading ``text`` (inside ``within``); fails when there is
    none or more than one with different hrefs."""
    hrefs = {href for said, href in links(html, within) if said == text}
    assert len(hrefs) == 1, f"links reading {text!r} in #{within}: {sorted(hrefs)}"
    return hrefs.pop()  # the parser has unescaped it


def count_link(html: str, name: str, count: int, within: str | None = None) -> str:
    """The href of the row ``name`` whose count ``count`` is a link to the same place."""
    href = href_of(html, name, within)
    assert (str(count), href) in links(html, within), (
        f"the count {count} of {name!r} is not a link to {href}"
    )
    return href


def list_total(html: str) -> int:
    """The total a list says it holds (``_list_position.html``: "1-3 of 3")."""
    found = re.search(r'class="list-position"[^>]*data-total="(\d+)"', html)
    assert found, "the page says no total"
    return int(found.group(1))
