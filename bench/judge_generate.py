"""The generated pairs of the judge's training set (bench/judge_data.py): each generator
takes a sentence and gives a changed one (or None), labelled with the class the change
makes; :func:`generated` draws them from the STS-B train sentences and
:func:`memory_facts` from agent-memory templates. Seeded by the caller's ``rng``."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_words import (
    AFTER_OBJECT,
    ANTONYMS,
    AUXILIARIES,
    CATEGORIES,
    CONTRACTIONS,
    DATES,
    DETAILS,
    MEMORY_FACTS,
    NEGATORS,
    NUMBER_WORDS,
    PARTICIPLES,
    PROJECTS,
    ROLE,
    SUBJECTS,
    SYNONYMS,
)


@dataclass(frozen=True)
class Example:
    left: str
    right: str
    label: str
    origin: str  # stsb | negation | antonym | category | value | roles | detail | surface | memory


# -- generators: each takes a sentence and gives a changed one, or None -----------------------


def _stem(s: str) -> str:
    return s.rstrip(" .!?")


def _replace_word(s: str, old: str, new: str) -> str | None:
    pattern = re.compile(rf"\b{re.escape(old)}\b")
    if not pattern.search(s):
        return None
    out = pattern.sub(new, s, count=1)
    if s[:1].isupper() and out[:1].islower():
        out = out[:1].upper() + out[1:]
    return out


def negate(s: str, rng: random.Random) -> str | None:
    m = AUXILIARIES.search(s)
    if not m:
        return None
    aux = m.group(1)
    kind = rng.random()
    if kind < 0.45:
        neg = f"{aux} not"
        neg = CONTRACTIONS.get(neg, neg) if rng.random() < 0.4 else neg
    elif kind < 0.75:
        neg = f"{aux} {rng.choice(NEGATORS)}"
    elif aux in ("is", "are", "was", "were") and re.search(rf"\b{aux} (\w+ing)\b", s):
        neg = f"{aux} {rng.choice(['unable to be', 'yet to be', 'anything but'])}"
        if neg.endswith("anything but"):
            neg = f"{aux} not"
    else:
        neg = f"{aux} not"
    out = s[: m.start()] + neg + s[m.end() :]
    return out if out != s else None


def quantifier_negation(s: str) -> str | None:
    m = re.match(r"^(A|An|Someone|Somebody|There is a|There are)\b\s*(.*)$", s)
    if not m:
        return None
    head, rest = m.groups()
    new = {
        "A": "No",
        "An": "No",
        "Someone": "No one",
        "Somebody": "Nobody",
        "There is a": "There is no",
        "There are": "There are no",
    }[head]
    return f"{new} {rest}"


def antonym(s: str, rng: random.Random) -> str | None:
    pairs = ANTONYMS[:]
    rng.shuffle(pairs)
    for a, b in pairs:
        for old, new in ((a, b), (b, a)):
            out = _replace_word(s, old, new)
            if out:
                return out
    return None


def category(s: str, rng: random.Random) -> str | None:
    groups = CATEGORIES[:]
    rng.shuffle(groups)
    for group in groups:
        present = [w for w in group if re.search(rf"\b{re.escape(w)}\b", s)]
        if present:
            old = rng.choice(present)
            new = rng.choice([w for w in group if w != old])
            return _replace_word(s, old, new)
    return None


def value(s: str, rng: random.Random) -> str | None:
    years = re.findall(r"\b(19\d\d|20\d\d)\b", s)
    if years:
        y = rng.choice(years)
        return s.replace(y, str(int(y) + rng.choice([-3, -2, -1, 1, 2, 5])), 1)
    numbers = re.findall(r"\b\d+(?:\.\d+)?\b", s)
    if numbers:
        n = rng.choice(numbers)
        try:
            new = str(max(0, int(float(n)) + rng.choice([-2, -1, 1, 2, 10, 100])))
        except ValueError:
            return None
        return None if new == n else re.sub(rf"\b{re.escape(n)}\b", new, s, count=1)
    for w in NUMBER_WORDS:
        if re.search(rf"\b{w}\b", s, re.IGNORECASE):
            new = rng.choice([x for x in NUMBER_WORDS if x != w])
            return re.sub(rf"\b{w}\b", new, s, count=1, flags=re.IGNORECASE)
    return None


def roles(s: str) -> str | None:
    m = ROLE.match(_stem(s))
    if not m or m.group(2).lower() == m.group(6).lower() or not AFTER_OBJECT.match(m.group(7)):
        return None
    d1, n1, aux, verb, d2, n2, rest = m.groups()
    subject, plural = _noun_phrase(d2, n2, True)
    if aux in ("is", "are"):
        aux = "are" if plural else "is"
    elif aux in ("was", "were"):
        aux = "were" if plural else "was"
    return f"{subject} {aux} {verb} {d1.lower()} {n1}{rest}."


def _noun_phrase(det: str, noun: str, start: bool) -> tuple[str, bool]:
    """The phrase, capitalised at the start, and whether it is plural."""
    plural = det.lower() in ("two", "three", "some") or (
        noun.endswith("s") and det.lower() == "the"
    )
    return (det.capitalize() if start else det.lower()) + " " + noun, plural


def passive(s: str, swap: bool = False) -> str | None:
    """ "A girl is eating a cupcake" as "A cupcake is being eaten by a girl" (the same
    fact), or with ``swap`` "A girl is being eaten by a cupcake" (the roles swapped)."""
    m = ROLE.match(_stem(s))
    if not m or m.group(4) not in PARTICIPLES or m.group(3) not in ("is", "are"):
        return None
    if m.group(2).lower() == m.group(6).lower() or not AFTER_OBJECT.match(m.group(7)):
        return None
    d1, n1, _, verb, d2, n2, rest = m.groups()
    if swap:
        d1, n1, d2, n2 = d2, n2, d1, n1
    subject, plural = _noun_phrase(d2, n2, True)
    agent, _ = _noun_phrase(d1, n1, False)
    aux = "are" if plural else "is"
    return f"{subject} {aux} being {PARTICIPLES[verb]} by {agent}{rest}."


def synonym(s: str, rng: random.Random) -> str | None:
    pairs = SYNONYMS[:]
    rng.shuffle(pairs)
    for a, b in pairs:
        for old, new in ((a, b), (b, a)):
            if re.search(rf"\b{re.escape(old)}\b", s):
                return re.sub(rf"\b{re.escape(old)}\b", new, s, count=1)
    return None


def with_detail(s: str, detail: str) -> str:
    return f"{_stem(s)} {detail}."


def with_sentence(s: str, t: str) -> str:
    return f"{_stem(s)}. {t}"


def surface(s: str, rng: random.Random) -> str | None:
    """The same statement written another way: contraction, case, punctuation."""
    for full, short in CONTRACTIONS.items():
        if full in s:
            return s.replace(full, short, 1)
        if short in s:
            return s.replace(short, full, 1)
    choice = rng.random()
    if choice < 0.4:
        return _stem(s) if s != _stem(s) else s + "."
    if choice < 0.7:
        return s.lower()
    return s.replace(",", "", 1) if "," in s else None


def _fill(template: str, s: str, p: str, x: str, n: int, d: str) -> str:
    return template.format(s=s, p=p, x=x, n=n, d=d)


def memory_facts(rng: random.Random, count: int) -> list[Example]:
    """Agent-memory statements in the classes above, from the templates here."""
    out = []
    for _ in range(count):
        template, paraphrases, fillers = rng.choice(MEMORY_FACTS)
        s, p = rng.choice(SUBJECTS), rng.choice(PROJECTS)
        x = rng.choice(fillers) if fillers else ""
        n, d = rng.randint(2, 9999) if "port" in template else rng.randint(1, 5), rng.choice(DATES)
        base = _fill(template, s, p, x, n, d)
        para = _fill(rng.choice(paraphrases), s, p, x, n, d)
        kind = rng.random()
        if kind < 0.25:
            out.append(Example(base, para, "same", "memory"))
        elif kind < 0.45:
            x2 = rng.choice([f for f in fillers if f != x]) if fillers else x
            n2 = n + rng.choice([1, 2, 100]) if "{n}" in template else n
            d2 = rng.choice([v for v in DATES if v != d]) if "{d}" in template else d
            other = _fill(rng.choice([template, *paraphrases]), s, p, x2, n2, d2)
            if other == base:
                other = _fill(template, rng.choice([v for v in SUBJECTS if v != s]), p, x, n, d)
            out.append(Example(base, other, "different", "memory"))
        elif kind < 0.65:
            neg = negate(para, rng)
            if neg:
                out.append(Example(base, neg, "contradiction", "memory"))
        elif kind < 0.85:
            detail = rng.choice(DETAILS)
            out.append(Example(base, with_detail(para, detail), "right_more", "memory"))
        else:
            d1, d2 = rng.sample(DETAILS, 2)
            out.append(Example(with_detail(base, d1), with_detail(para, d2), "each_more", "memory"))
    return out


# -- assembling ------------------------------------------------------------------------------


def generated(
    sentences: list[str], same: list[tuple[str, str]], rng: random.Random, per_kind: int
) -> list[Example]:
    out: list[Example] = []

    def take(kind: str, label: str, change: Callable[[str], str | None]) -> None:
        pool = sentences[:]
        rng.shuffle(pool)
        made = 0
        for s in pool:
            new = change(s)
            if new and new.strip() and new != s:
                out.append(Example(s, new, label, kind))
                made += 1
                if made >= per_kind:
                    return

    take("negation", "contradiction", lambda s: negate(s, rng))
    take("negation", "contradiction", quantifier_negation)
    take("antonym", "contradiction", lambda s: antonym(s, rng))
    take("category", "different", lambda s: category(s, rng))
    take("value", "different", lambda s: value(s, rng))
    take("roles", "different", roles)
    take("roles", "different", lambda s: passive(s, swap=True))
    take("passive", "same", passive)
    take("synonym", "same", lambda s: synonym(s, rng))
    take("surface", "same", lambda s: surface(s, rng))
    take("detail", "right_more", lambda s: with_detail(s, rng.choice(DETAILS)))
    take("detail", "right_more", lambda s: with_sentence(s, rng.choice(sentences)))
    # the same two sentences in the other order are the same note
    for _ in range(per_kind // 2):
        a, b = rng.sample(sentences, 2)
        out.append(Example(with_sentence(a, b), with_sentence(b, a), "same", "surface"))
    # each side adds its own detail, to one sentence or to two that say the same
    for _ in range(per_kind):
        if same and rng.random() < 0.5:
            a, b = rng.choice(same)
        else:
            a = b = rng.choice(sentences)
        if rng.random() < 0.5:
            d1, d2 = rng.sample(DETAILS, 2)
            left, right = with_detail(a, d1), with_detail(b, d2)
        else:
            t1, t2 = rng.sample(sentences, 2)
            left, right = with_sentence(a, t1), with_sentence(b, t2)
        out.append(Example(left, right, "each_more", "detail"))
    # a paraphrase with a detail added is still "says more"
    for a, b in rng.sample(same, min(len(same), per_kind // 2)):
        out.append(Example(a, with_detail(b, rng.choice(DETAILS)), "right_more", "detail"))
    return out
