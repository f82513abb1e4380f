"""One way to show a moment on every page: "28 Nov 2026, 14:05 UTC", the exact stored
value kept in the element's ``title`` (the ``when`` template filter).

A moment is a ``datetime`` or the ISO text the agent wrote ("2026-03-07T04:40:02.700239
+00:00"). A naive ``datetime`` is UTC (MongoDB's dates, the contract's "naive UTC"). A
naive ISO *text* has no zone at all (the agent writes ``archive.jsonl`` and the file
analyzer's ``analyzed_at`` with ``datetime.now()``, its own clock): it is shown without
"UTC", and its title says it has no time zone. Anything else is not a moment and is shown
as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


@dataclass(frozen=True)
class Moment:
    text: str  # what a curator reads: "28 Nov 2026, 14:05 UTC"
    exact: str  # the stored value, to the microsecond: the title
    machine: str  # the <time datetime> value


def moment(value: object) -> Moment | None:
    """``value`` as a moment to show, or ``None`` when it is not one."""
    if isinstance(value, datetime):
        at = value if value.tzinfo is None else value.astimezone(UTC).replace(tzinfo=None)
        return Moment(_words(at) + " UTC", _exact(value), at.isoformat() + "Z")
    if not isinstance(value, str) or not _ISO.match(value.strip()):
        return None
    text = value.strip()
    if text.endswith(" UTC"):  # a page's own "2026-03-01 12:00 UTC" (graph values.shown)
        text = text.removesuffix(" UTC") + "+00:00"
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return Moment(_words(parsed), f"{text} (no time zone)", parsed.isoformat())
    at = parsed.astimezone(UTC).replace(tzinfo=None)
    return Moment(_words(at) + " UTC", value.strip(), at.isoformat() + "Z")


def when_words(value: object) -> str:
    """The text of ``moment(value)``, else ``value`` as it is ("" for ``None``)."""
    found = moment(value)
    if found is not None:
        return found.text
    return "" if value is None else str(value)


def _words(at: datetime) -> str:
    return f"{at.day} {at:%b %Y, %H:%M}"


def _exact(value: datetime) -> str:
    if value.tzinfo is None:
        return value.isoformat() + " UTC"
    return value.astimezone(UTC).isoformat()
