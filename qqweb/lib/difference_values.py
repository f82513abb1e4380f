"""The values a text names, by kind (dates, versions, ids, numbers, names), each as a
canonical key that two spellings of one value share (2027-02-01 / 1 February 2027, 1.5
million / 1,500,000, third / 3rd): what :mod:`differences` compares. Pure functions."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from qqweb.lib import difference_words as W

VALUE_KINDS = ("date", "version", "id", "number", "name")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _number_key(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g["ordw"]:
        return _ordinal(W.ORDINAL_WORDS[g["ordw"].lower()])
    if g["word"]:
        parts = g["word"].lower().split("-")
        value: float | int = sum(W.NUMBER_WORDS.get(p, 0) for p in parts)
        scale, unit = g["wscale"], g["wunit"]
    else:
        digits = g["num"].replace(",", "")
        value = float(digits) if "." in digits else int(digits)  # an int keeps every digit
        scale, unit = g["scale"], g["unit"]
        if g["ord"]:
            return _ordinal(int(value))
    if scale:
        value *= W.SCALES[scale.lower()]
    symbol = W.UNITS.get((g["cur"] or unit or "").lower(), "")
    number = f"{value:.6g}" if value != int(value) else str(int(value))
    return f"{number}{symbol}" if symbol else number


def _date_value(token: str) -> str | None:
    """The ISO date of a token whose format says it unambiguously, else None."""
    text = token.lower().replace(",", " ").replace(".", " ")
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(token, fmt).date().isoformat()
        except ValueError:
            pass
    words = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text).split()
    months = [W.MONTHS[w] for w in words if w in W.MONTHS]
    numbers = [int(w) for w in words if w.isdigit()]
    if len(months) == 1 and len(numbers) == 2:
        day, year = (numbers[0], numbers[1]) if numbers[1] > 31 else (numbers[1], numbers[0])
        try:
            return datetime(year, months[0], day).date().isoformat()
        except ValueError:
            return None
    if len(months) == 1 and len(numbers) == 1:
        if numbers[0] > 31:
            return f"{numbers[0]:04d}-{months[0]:02d}"
        return f"--{months[0]:02d}-{numbers[0]:02d}"  # a day of a month, no year
    return None


def _key(kind: str, m: re.Match[str]) -> tuple[str, str, str] | None:
    """(kind, comparison key, shown value) of a match, None to drop it."""
    token = " ".join(m.group(0).split())
    low = token.lower()
    if kind in ("url", "email", "ip"):
        return "id", low.rstrip("/"), token
    if kind == "port":
        port = m.group(1) or m.group(2)
        return "id", f"port {port}", f"port {port}"
    if kind == "date":
        value = _date_value(token)
        return "date", value or low, value if value and len(value) == 10 else token
    if kind == "decade":
        digits = re.sub(r"\D", "", token)
        full = digits if len(digits) == 4 else ("19" + digits[-2:])
        return "date", f"{full[:3]}x", f"{full}s"
    if kind == "year":
        return "date", token, token
    if kind == "month":
        return "date", f"month {W.MONTHS[low.rstrip('.')]:02d}", token.rstrip(".")
    if kind == "weekday":
        return "date", low, token.capitalize()
    if kind == "relative":
        return "date", low, low
    if kind == "version":
        return "version", low.removeprefix("v"), low.removeprefix("v")
    if kind == "named-version":
        return "version", m.group(1), token
    if kind == "id":
        return "id", low, low
    key = _number_key(m)
    return None if key is None else ("number", key, key)


def tokens_and_names(text: str) -> tuple[dict[str, Counter[str]], dict[str, str]]:
    """The keys of each kind in ``text``, and the value to show for each key."""
    found: dict[str, Counter[str]] = {kind: Counter() for kind in VALUE_KINDS}
    shown: dict[str, str] = {}
    masked = text
    for kind, pattern in W.PATTERNS:
        spans = []
        for m in pattern.finditer(masked):
            if not m.group(0).strip():
                continue
            got = _key(kind, m)
            if got is None:
                continue
            k, key, value = got
            found[k][key] += 1
            shown[f"{k}:{key}"] = value
            spans.append(m.span(1) if kind == "named-version" else m.span())
        for start, end in reversed(spans):
            masked = masked[:start] + " " * (end - start) + masked[end:]
    for m in W.NAME.finditer(masked):
        name = _name(masked, m.start(), m.group(0))
        if name:
            found["name"][name] += 1
            shown[f"name:{name}"] = name
    return found, shown


def _name(text: str, start: int, value: str) -> str:
    """``value`` unless it only opens a sentence, is a title or "I" ("" then)."""
    value = re.sub(r"'s?$", "", value)
    before = text[:start].rstrip()
    opens_sentence = not before or before[-1] in '.!?:;\n-•*"“'
    low = value.lower()
    # A sentence's first word is capitalised as a sentence's first word: a common word, an
    # adverb or a verb's -ing / -ed form ("Researching the migration" / "Reading about the
    # migration" is a rewording, not a changed name) is no name there; four letters or
    # fewer may be a name (Ming, Ted).
    if opens_sentence and (
        low in W.COMMON or low.endswith("ly") or (low.endswith(("ing", "ed")) and len(low) > 4)
    ):
        return ""
    if low in W.TITLES or value == "I" or len(value) < 2:
        return ""
    return value


def tokens(text: str) -> dict[str, Counter[str]]:
    """The dates, versions, ids, numbers and names in ``text``, by kind, as the keys they
    are compared by (ISO dates, numbers without separators, ids in lower case)."""
    return tokens_and_names(text)[0]
