"""A pair's verdict in words, from the judge's probabilities and the rules' differences.

The judge (:mod:`.model`) says what the right text is to the left one; the rules
(:mod:`qqweb.lib.differences`) say which values differ. A page shows both: the verdict in
words ("the newer note says more: 'on Tuesdays'", "contradiction: 'is' / 'is not'",
"possible update: port 9000 → 9100") and the values as its evidence.

The judge flags a pair when its probability that the two texts are *not* the same fact,
``1 - P(same)``, is at least :data:`FLAG_AT` (chosen by bench/judgment.py on the MRPC and
SICK train splits, which the judge never trained on: where rules and judge together leave
the fewest different facts unflagged plus duplicates flagged in the review queue; the
curator's verdicts per judge verdict, on the Review page's calibration, say whether it
suits a memory). A flagged
pair's verdict is the judge's most likely class other than ``same``. A rule's negation
always makes a contradiction, whatever the judge says; a value the rules find changed
makes a "possible update" with the values ("port 9000 → 9100"), whatever the judge's class.

Pure functions: no I/O, no framework.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from qqweb.lib.differences import Difference

# The threshold bench/judgment.py chose on train for the shipped weights (see the notes).
FLAG_AT = 0.95
# The judge's probability of the same fact a pair needs to be merged with nobody looking
# (auto-consolidation, beside the rules' copies test): a confident "same", never a doubt.
MERGE_AT = 0.8
SAME, LEFT_MORE, RIGHT_MORE, EACH_MORE = "same", "left_more", "right_more", "each_more"
DIFFERENT, CONTRADICTION, UPDATE = "different", "contradiction", "update"
_EXTRA_WORDS = 12  # words of an added detail quoted in the verdict
_PUNCTUATION = ".,;:!?\"'\u201c\u201d\u2018\u2019()"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Verdict:
    """What a pair is, for a page: ``kind`` is one of ``same``, ``left_more``,
    ``right_more``, ``each_more``, ``different``, ``update``, ``contradiction``; ``words``
    the sentence a curator reads; ``evidence`` the rules' differences; ``p_same`` the
    judge's probability of the same fact (None when only the rules judged)."""

    kind: str
    words: str
    evidence: tuple[Difference, ...] = ()
    p_same: float | None = None
    extra_left: str = ""  # what only the left text says (a "says more" verdict)
    extra_right: str = ""

    @property
    def flagged(self) -> bool:
        """Not to be merged without a look: anything but the same fact."""
        return self.kind != SAME

    @property
    def contradiction(self) -> bool:
        return self.kind == CONTRADICTION

    @property
    def safe_to_merge_unattended(self) -> bool:
        """The same fact, and the judge sure of it (:data:`MERGE_AT`); without the judge
        (``p_same`` None) the rules' copies test alone decides."""
        return self.kind == SAME and (self.p_same is None or self.p_same >= MERGE_AT)

    @property
    def says_more(self) -> bool:
        return self.kind in (LEFT_MORE, RIGHT_MORE, EACH_MORE)


def only_in(a: str, b: str) -> tuple[str, str]:
    """The words only ``a`` has and the words only ``b`` has (in order, runs joined by
    " … "), by a word diff of the two texts that ignores case and punctuation."""
    wa, wb = a.split(), b.split()
    na, nb = ([w.strip(_PUNCTUATION).lower() for w in ws] for ws in (wa, wb))
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, na, nb, autojunk=False).get_opcodes():
        if op != "equal":
            if i2 > i1:
                left.append(" ".join(wa[i1:i2]))
            if j2 > j1:
                right.append(" ".join(wb[j1:j2]))
    return " … ".join(left), " … ".join(right)


def _quoted(text: str) -> str:
    words = text.split()
    cut = " ".join(words[:_EXTRA_WORDS]) + (" …" if len(words) > _EXTRA_WORDS else "")
    return f"“{cut}”"


def change_label(d: Difference) -> str:
    """One rule difference as a curator reads it, from the left value to the right:
    "port 9000 → 9100" (the words both values start with said once), "name: Aisha →
    Bello"."""
    left = ", ".join(d.left) or "(none)"
    right = ", ".join(d.right) or "(none)"
    lw, rw = left.split(), right.split()
    common = 0
    while common < min(len(lw), len(rw)) - 1 and lw[common] == rw[common]:
        common += 1
    if common:
        head = " ".join(lw[:common])
        return f"{head} {' '.join(lw[common:])} → {' '.join(rw[common:])}"
    return f"{d.kind}: {left} → {right}"


def verdict(
    probabilities: dict[str, float] | None,
    left: str,
    right: str,
    changes: tuple[Difference, ...],
    *,
    left_name: str = "the first note",
    right_name: str = "the second note",
    flag_at: float = FLAG_AT,
) -> Verdict:
    """The verdict on the pair (``left``, ``right``). ``probabilities``: the judge's, by
    class (None: the judge is not installed, the rules alone decide); ``changes``: the
    rules' differences, left to right; the names say each side in the words ("the newer
    note", "the older fact")."""
    negations = tuple(c for c in changes if c.contradiction)
    extra_left, extra_right = only_in(left, right)
    p_same = None if probabilities is None else probabilities.get(SAME, 0.0)
    kind = SAME
    if probabilities is not None and 1.0 - (p_same or 0.0) >= flag_at:
        others = {k: v for k, v in probabilities.items() if k != SAME}
        kind = max(others, key=lambda k: others[k])
    if negations:
        kind = CONTRADICTION
    elif changes:
        kind = UPDATE  # a value changed: the values say more than the judge's class
    words = _words(kind, changes, negations, extra_left, extra_right, left_name, right_name)
    return Verdict(kind, words, changes, p_same, extra_left, extra_right)


def _words(
    kind: str,
    changes: tuple[Difference, ...],
    negations: tuple[Difference, ...],
    extra_left: str,
    extra_right: str,
    left_name: str,
    right_name: str,
) -> str:
    if kind == CONTRADICTION:
        if negations:
            d = negations[0]
            said = " / ".join(_quoted(" ".join(side)) for side in (d.left, d.right) if side)
            return f"contradiction: {said}" if said else "contradiction"
        return "contradiction: the texts say opposite things"
    if kind == UPDATE:
        return "possible update: " + "; ".join(change_label(c) for c in changes)
    if kind == LEFT_MORE:
        more = f": {_quoted(extra_left)}" if extra_left else ""
        return f"{left_name} says more{more}"
    if kind == RIGHT_MORE:
        more = f": {_quoted(extra_right)}" if extra_right else ""
        return f"{right_name} says more{more}"
    if kind == EACH_MORE:
        return "each says something the other does not"
    if kind == DIFFERENT:
        return "different facts"
    return "same fact"


def _sentences(text: str) -> list[str]:
    return [s for s in (part.strip() for part in _SENTENCE_END.split(text.strip())) if s]


def merged_both(left: str, right: str) -> str:
    """A text that keeps what each of two texts says, for a pair where each says
    something the other does not: the longer text, then every sentence of the other one
    that the longer does not already hold (both texts whole when they are one sentence
    each). Offered before the merge, editable; never written without the curator."""
    longer, shorter = (left, right) if len(left) >= len(right) else (right, left)
    kept = _sentences(longer)
    lowered = {s.lower().rstrip(".!?") for s in kept}
    extra = [s for s in _sentences(shorter) if s.lower().rstrip(".!?") not in lowered]
    if not extra:
        return longer
    parts = [s if s[-1] in ".!?" else s + "." for s in (*kept, *extra)]
    return " ".join(parts)
