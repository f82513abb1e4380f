"""Where a keyset page sits in its list: "41-60 of 1,234". Keyset pages are read in order
from the first, so a page's offset travels in its link (``pos``) instead of being counted;
the total is whatever the list's store can count cheaply (None: not shown)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest


@dataclass(frozen=True)
class ListPosition:
    first: int
    last: int
    total: int | None = None
    capped: bool = False  # the total is a lower bound: "more than"


def list_position(
    *, offset: int, shown: int, total: int | None, capped: bool = False
) -> ListPosition:
    offset = max(0, offset)
    return ListPosition(offset + 1 if shown else offset, offset + shown, total, capped)


def page_offset(request: HttpRequest) -> int:
    """The offset of the page asked for: ``pos`` with a ``cursor``, 0 on the first page."""
    value = request.GET.get("pos", "")
    return int(value) if request.GET.get("cursor") and value.isdigit() else 0
