"""Is a near-duplicate pair really an update? Two texts that say the same thing about the
same subject but differ in a date, number, version, id or name are more likely an old and
a new value of one fact ("the deadline is 2027-01-10" / "... 2027-02-01") than two copies:
merging them the simple way keeps whichever text the primary has, perhaps the stale one.

Pure functions over the two texts (no I/O). Tokens are found by kind, most specific
first (a date is not also read as three numbers); a kind counts as changed only when each
text has a value of it that the other lacks, so a text that only adds a detail is not an
update. Dates written as ``2027-02-01``, ``1 Feb 2027``, ``Feb 1, 2027`` or ``01/02/2027``
(read day first, as written) compare by value where the format says it unambiguously.
A name is a capitalised word (or run of them) that the other text does not contain in any
case; a sentence's first word counts unless it is a common English word.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

KINDS = ("date", "version", "id", "number", "name")

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b"
            r"|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
            rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s+\d{{4}}\b"
            rf"|\b{_MONTH}\s+\d{{4}}\b"
            r"|\bQ[1-4]\s+\d{4}\b",
            re.IGNORECASE,
        ),
    ),
    ("id", re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")),  # an IPv4 address before a version
    ("version", re.compile(r"\bv\d+(?:\.\d+)*\b|\b\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.]+)?\b", re.I)),
    (
        "id",
        re.compile(
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
            r"|\b[A-Z][A-Z0-9]+-\d+\b"  # a ticket: ABC-123
            r"|#\d+\b"
            r"|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"  # an e-mail address
            r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b"  # a hash, a hex id
            r"|\b(?=\w*[A-Za-z])(?=\w*\d)\w*_\w+\b",  # note_ab12, user_42
            re.IGNORECASE,
        ),
    ),
    (
        "number",  # not a digit inside a word (Neo4j, k3s)
        re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?(?![\w])"),
    ),
    ("name", re.compile(r"\b[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*")),
)

# Sentence openers that are not names (a capitalised first word is a name otherwise).
_COMMON_WORDS = (
    "a an the this that these those it its we our us they their them he his him she her i "
    "my me you your there here what which who whom whose when where why how all any each "
    "every some no not none both either neither one two three first last next new old now "
    "then today yesterday tomorrow also and but or so if as at by for from in into of on "
    "to with without about after before during since until while is are was were be been "
    "has have had do does did will would can could should may might must shall let please "
    "note remember important deadline meeting project team user users uses used use "
    "prefers likes works working lives currently recently usually always never sometimes "
    "maybe "
)
_COMMON = frozenset(_COMMON_WORDS.split())


@dataclass(frozen=True)
class Change:
    """Values of one kind that each text has and the other lacks."""

    kind: str
    left: tuple[str, ...]
    right: tuple[str, ...]


def _normal(kind: str, token: str) -> str:
    token = " ".join(token.split())
    if kind == "date":
        return _date_value(token) or token.lower()
    if kind == "number":
        return token.replace(",", "").lstrip("+")
    if kind in ("version", "id"):
        return token.lower().removeprefix("v") if kind == "version" else token.lower()
    return token


def _date_value(token: str) -> str | None:
    """The ISO date of a token whose format says it unambiguously, else None."""
    text = token.lower().replace(",", " ").replace(".", " ")
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(token, fmt).date().isoformat()
        except ValueError:
            pass
    words = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text).split()
    months = [_MONTHS[w] for w in words if w in _MONTHS]
    numbers = [int(w) for w in words if w.isdigit()]
    if len(months) == 1 and len(numbers) == 2:
        day, year = (numbers[0], numbers[1]) if numbers[1] > 31 else (numbers[1], numbers[0])
        try:
            return datetime(year, months[0], day).date().isoformat()
        except ValueError:
            return None
    return None


def tokens(text: str) -> dict[str, Counter[str]]:
    """The dates, versions, ids, numbers and names in ``text``, normalised, by kind."""
    found: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    masked = text
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(masked):
            value = match.group(0)
            if kind == "name":
                value = _name(masked, match.start(), value)
                if not value:
                    continue
            found[kind][_normal(kind, value)] += 1
        masked = pattern.sub(lambda m: " " * len(m.group(0)), masked)
    return found


def _name(text: str, start: int, value: str) -> str:
    """``value`` without a first word that only opens a sentence ("" if nothing is left)."""
    before = text[:start].rstrip()
    opens_sentence = not before or before[-1] in ".!?:;\n-•*"
    words = value.split()
    if opens_sentence and words and words[0].lower() in _COMMON:
        words = words[1:]
    if len(words) == 1 and words[0] == "I":
        return ""
    return " ".join(words)


def update_changes(left: str, right: str) -> tuple[Change, ...]:
    """The kinds of value in which the two texts differ, each text having one of that
    kind the other lacks (in ``KINDS`` order). Empty: not a possible update."""
    a, b = tokens(left), tokens(right)
    words_a, words_b = _words(left), _words(right)
    changes = []
    for kind in KINDS:
        only_a, only_b = a[kind] - b[kind], b[kind] - a[kind]
        if kind == "name":  # a name the other text has in another case is not a change
            only_a = Counter({n: c for n, c in only_a.items() if not _has(words_b, n)})
            only_b = Counter({n: c for n, c in only_b.items() if not _has(words_a, n)})
        if only_a and only_b:
            changes.append(Change(kind, tuple(sorted(only_a)), tuple(sorted(only_b))))
    return tuple(changes)


_WORD = re.compile(r"[\w'&-]+")


def _words(text: str) -> str:
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def _has(words: str, name: str) -> bool:
    return _words(name) in words


def newer_and_older(
    a: Mapping[str, Any], b: Mapping[str, Any]
) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    """(newer, older) of two note documents by ``created_at`` (when the text was first
    written), then ``updated_at``; None when neither tells them apart. ``updated_at`` comes
    second because decay and importance changes rewrite it without touching the text."""
    for name in ("created_at", "updated_at"):
        x, y = a.get(name), b.get(name)
        if isinstance(x, datetime) and isinstance(y, datetime) and x != y:
            return (a, b) if x > y else (b, a)
    return None
