"""How two texts differ: the one analysis behind every pair qqweb shows or acts on (the
notes review queue, auto-consolidation, the facts pages). Two texts about the same thing
that differ in a value are more likely an old and a new value of one fact ("the deadline
is 2027-01-10" / "... 2027-02-01") than two copies; two that differ in a negation ("the
pandas are lying" / "the pandas are not lying") contradict each other.

Pure functions over the two texts (no I/O, no framework). :func:`differences` returns one
:class:`Difference` per kind in which they differ, in :data:`KINDS` order, each with the
values of the left and of the right text side by side:

- ``negation``: one text negates what the other affirms (not, n't, never, no, no longer,
  without, nobody, nothing ...) or holds the ``un-``/``in-``/``dis-`` antonym of one of its
  words (able / unable). The one kind that is a *contradiction*.
- ``date``: ISO and written dates, years, decades (1970s, '70s), months, weekdays and
  relative words (today, tomorrow, next week ...).
- ``version``: v1.2, 1.2.3, and a name's number (Gemini 2.5, Python 3.11).
- ``id``: URLs, e-mail addresses, IP addresses (with a port), ports, UUIDs, tickets
  (LUM-42, #42), hashes, snake ids, long digit ids.
- ``number``: digits, number words (two, twenty-five), scales (1.5 million), ordinals
  (3rd, third), percentages (5%, 5 percent) and units (5 km, $20).
- ``name``: capitalised words, one by one (Priya Sharma / Priya Patel differ in Sharma);
  a sentence's first word counts unless it is a common English word.
- ``polarity``: a word and its opposite in a short list (higher / lower, morning /
  afternoon, increase / decrease ...).

Values of a kind count as changed only when each text has one that the other lacks, so a
text that only adds a detail is not an update; values that agree (2027 and 2027-02-01, a
number with and without its unit, Iraq and Iraqi) are not a change either. Tokens are
found by kind, most specific first (a date is not also read as three numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from qqweb.lib import difference_words as W
from qqweb.lib.difference_values import VALUE_KINDS, tokens_and_names

KINDS = ("negation", "date", "version", "id", "number", "name", "colour", "polarity")
_NEGATION_SCOPE = 3  # the words after a negation that it negates


@dataclass(frozen=True)
class Difference:
    """Values of one kind that each text has and the other lacks."""

    kind: str
    left: tuple[str, ...]
    right: tuple[str, ...]

    @property
    def contradiction(self) -> bool:
        """One text says the opposite of the other (a negation), not a newer value."""
        return self.kind == "negation"


@dataclass(frozen=True)
class PairJudgment:
    """What a pair's differences say, for a page or a job to act on."""

    differences: tuple[Difference, ...]
    same_words: bool = False  # the same content words in the same order (:func:`same_words`)

    @property
    def unattended_merge(self) -> bool:
        """Safe to merge with nobody looking: no difference found and the same words in
        the same order, only punctuation, case or small words apart (bench/judgment.py:
        no labelled different-fact pair of its train or dev splits passes, at any
        similarity). Every other pair waits for review."""
        return not self.differences and self.same_words

    @property
    def flagged(self) -> bool:
        """Not plain copies: a possible update or a contradiction."""
        return bool(self.differences)

    @property
    def contradiction(self) -> bool:
        return any(d.contradiction for d in self.differences)

    @property
    def verdict(self) -> str:
        """``contradiction``, ``possible update`` or ``""`` (no difference found)."""
        if self.contradiction:
            return "contradiction"
        return "possible update" if self.differences else ""

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(d.kind for d in self.differences)


# --- comparing ----------------------------------------------------------------------------


def _agree(kind: str, a: str, b: str) -> bool:
    """Two different keys that do not contradict each other: one date contains the other
    (2027 / 2027-02-01, the 1970s / 1975), a number with and without its unit."""
    if kind == "date":
        ca, cb = _date_class(a), _date_class(b)
        if "relative" in (ca, cb) or "weekday" in (ca, cb):
            return ca != cb  # today / Wednesday: no calendar to compare them by
        if "monthday" in (ca, cb):
            day, other = (a, b) if ca == "monthday" else (b, a)
            if ca == cb:
                return False
            if len(other) == 10:
                return other[4:] == day[1:]
            return not other.startswith("month ") or other[6:] == day[2:4]
        if "decade" in (ca, cb):
            return (a[:3] == b[:3] and ca != cb) or a == b
        if "month" in (ca, cb):
            month, other = (a, b) if ca == "month" else (b, a)
            return cb != ca and (other[4:5] != "-" or other[5:7] == month[6:])
        return a.startswith(b) or b.startswith(a)
    if kind == "number":
        ordinal = re.compile(r"\d(?:st|nd|rd|th)$")
        if bool(ordinal.search(a)) != bool(ordinal.search(b)):
            return False
        unit_a, unit_b = re.sub(r"[\d.]", "", a), re.sub(r"[\d.]", "", b)
        same_unit = unit_a == unit_b or not unit_a or not unit_b
        return same_unit and re.sub(r"[^\d.]", "", a) == re.sub(r"[^\d.]", "", b)
    return False


def _date_class(key: str) -> str:
    if key.startswith("--"):
        return "monthday"
    if key.startswith("month "):
        return "month"
    if key in W.WEEKDAYS:
        return "weekday"
    if key.endswith("x"):
        return "decade"
    return "date" if key[:1].isdigit() or key.startswith("q") else "relative"


def _words(text: str) -> list[str]:
    """The words of ``text`` in lower case, a hyphenated word also as its parts."""
    words = W.WORD.findall(text.lower())
    return words + [part for w in words if "-" in w for part in w.split("-") if part]


def _related(name: str, words: list[str], text: str) -> bool:
    """The other text has the name in any case, a word it starts (Iraq / Iraqi), a spelling
    of it (Gonzles / Gonzales) or the words it abbreviates (UCLA / University of California
    at Los Angeles)."""
    n = name.lower()
    for w in words:
        short, long_ = (n, w) if len(n) <= len(w) else (w, n)
        if n == w or (len(short) >= 4 and long_.startswith(short)) or long_ == short + "s":
            return True
        if len(n) >= 5 and len(w) >= 5 and SequenceMatcher(None, n, w).ratio() >= 0.8:
            return True
    if any(n in group and group & set(words) for group in W.ALIASES):
        return True
    if name.isupper() and len(name) >= 2:
        initials = "".join(w[0] for w in re.findall(r"\b[A-Z][\w]*", text))
        return name in initials
    return False


def _aligned(a: str, b: str, names_a: set[str], names_b: set[str]) -> tuple[set[str], set[str]]:
    """The names of each side that stand where the other text has one of its own names
    (one replaced by the other), not names that one text only adds elsewhere."""
    wa = [re.sub(r"'s?$", "", w) for w in W.WORD.findall(a)]
    wb = [re.sub(r"'s?$", "", w) for w in W.WORD.findall(b)]
    matcher = SequenceMatcher(
        None, [w.lower() for w in wa], [w.lower() for w in wb], autojunk=False
    )
    keep_a: set[str] = set()
    keep_b: set[str] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        left = {w for w in wa[i1:i2] if w in names_a}
        right = {w for w in wb[j1:j2] if w in names_b}
        if left and right:
            keep_a |= left
            keep_b |= right
    return keep_a, keep_b


def _value_differences(a: str, b: str) -> list[Difference]:
    ta, shown_a = tokens_and_names(a)
    tb, shown_b = tokens_and_names(b)
    words_a, words_b = _words(a), _words(b)
    out = []
    for kind in VALUE_KINDS:
        only_a, only_b = set(ta[kind] - tb[kind]), set(tb[kind] - ta[kind])
        if kind == "name":  # a name the other text has in another case is not a change
            only_a = {n for n in only_a if not _related(n, words_b, b)}
            only_b = {n for n in only_b if not _related(n, words_a, a)}
        if kind == "name" and only_a and only_b:
            only_a, only_b = _aligned(a, b, only_a, only_b)
        for x in sorted(only_a):
            for y in sorted(only_b):
                if _agree(kind, x, y):
                    only_a.discard(x)
                    only_b.discard(y)
                    break
        if only_a and only_b:
            out.append(
                Difference(
                    kind,
                    tuple(sorted(shown_a[f"{kind}:{k}"] for k in only_a)),
                    tuple(sorted(shown_b[f"{kind}:{k}"] for k in only_b)),
                )
            )
    return out


def _negations(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each negation of ``text`` with the (up to three) words it negates:
    ("no", ("dog", "playing"))."""
    out = []
    for m in W.NEGATION.finditer(text):
        clause = re.split(r"[,;:.!?()]", text[m.end() : m.end() + 60], maxsplit=1)[0]
        rest = W.WORD.findall(clause)
        scope = tuple(w for w in rest if w.lower() not in W.NOT_NEGATED)[:_NEGATION_SCOPE]
        out.append((m.group(0).lower(), scope))
    return out


def _stem_in(word: str, words: set[str]) -> bool:
    stem = word.lower()[:5]
    return bool(stem) and any(w.startswith(stem) for w in words)


def _negation(a: str, b: str) -> Difference | None:
    """One text negates a word that the other says without a negation (a negation of a
    word the other text does not have is a detail it adds, not a contradiction)."""
    neg_a, neg_b = _negations(a), _negations(b)
    if len(neg_a) != len(neg_b):
        more, other = (neg_a, b) if len(neg_a) > len(neg_b) else (neg_b, a)
        fewer = neg_b if more is neg_a else neg_a
        other_words = set(_words(other))
        extra = [
            (neg, scope[: 1 + next(i for i, w in enumerate(scope) if _stem_in(w, other_words))])
            for neg, scope in more
            if (neg, scope) not in fewer and any(_stem_in(w, other_words) for w in scope)
        ]
        if extra:
            said = tuple(" ".join((neg, *words)) for neg, words in extra)
            plain = tuple(
                next((w for w in W.WORD.findall(other) if _stem_in(words[-1], {w.lower()})), "")
                for _, words in extra
            )
            return Difference("negation", *((said, plain) if more is neg_a else (plain, said)))
    wa, wb = set(_words(a)), set(_words(b))
    for prefix in W.ANTONYM_PREFIXES:
        for word in sorted(wa - wb):
            if len(word) >= 4 and word not in W.NOT_ANTONYMS and prefix + word in wb - wa:
                return Difference("negation", (word,), (prefix + word,))
        for word in sorted(wb - wa):
            if len(word) >= 4 and word not in W.NOT_ANTONYMS and prefix + word in wa - wb:
                return Difference("negation", (prefix + word,), (word,))
    return None


def _colour(a: str, b: str) -> Difference | None:
    wa, wb = set(_words(a)) & W.COLOURS, set(_words(b)) & W.COLOURS
    if wa - wb and wb - wa:
        return Difference("colour", tuple(sorted(wa - wb)), tuple(sorted(wb - wa)))
    return None


def _polarity(a: str, b: str) -> Difference | None:
    wa, wb = set(_words(a)), set(_words(b))
    only_a, only_b = wa - wb, wb - wa
    left = sorted(w for w in only_a if W.OPPOSITE.get(w, set()) & only_b)
    if not left:
        return None
    right = sorted(set().union(*(W.OPPOSITE[w] & only_b for w in left)))
    return Difference("polarity", tuple(left), tuple(right))


def differences(left: str, right: str) -> tuple[Difference, ...]:
    """The kinds in which the two texts differ, in :data:`KINDS` order; empty when they
    differ in none (copies, rewordings, or one only adding a detail)."""
    found: dict[str, Difference] = {d.kind: d for d in _value_differences(left, right)}
    for diff in (
        _negation(left, right),
        _colour(left, right),
        _polarity(left, right),
    ):
        if diff is not None:
            found[diff.kind] = diff
    return tuple(found[k] for k in KINDS if k in found)


def _content_words(text: str) -> list[str]:
    return [w[:5] for w in W.WORD.findall(text.lower()) if w not in W.NOT_NEGATED and len(w) > 2]


def same_words(left: str, right: str) -> bool:
    """The two texts have the same content words (their first five letters) in the same
    order: copies apart from punctuation, case and small words ("the", "is", "of" ...),
    not a rewording, not one that says more, not the same words with roles swapped."""
    return _content_words(left) == _content_words(right)


def pair_judgment(left: str, right: str) -> PairJudgment:
    return PairJudgment(differences(left, right), same_words(left, right))
