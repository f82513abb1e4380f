"""The words and patterns :mod:`qqweb.lib.differences` reads texts with: month and
number words, units, names that are not names, negations, opposites and the token patterns
of each kind (most specific first). Data only; the reading is there."""

from __future__ import annotations

import re


def _list(text: str) -> list[str]:
    return text.split()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


MONTH_NAMES = (
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
)
MONTHS = {m: i for i, names in enumerate(MONTH_NAMES, start=1) for m in names}
MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
# A month without a year only written with a capital ("in May", not "you may").
CAP_MONTH = (
    r"(?-i:" + "|".join(sorted((m.capitalize() for m in MONTHS), key=len, reverse=True)) + r")\.?"
)
FULL_MONTH = (
    r"(?:January|February|March|April|June|July|August|September|October|November"
    r"|December)"
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
RELATIVE = (
    r"today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening)"
    r"|(?:next|last|this) (?:week|month|year|quarter|weekend)"
)
SMALL = _list(
    """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty
    """
)
NUMBER_WORDS = {w: i for i, w in enumerate(SMALL)} | {
    w: 10 * i
    for i, w in enumerate(_list("thirty forty fifty sixty seventy eighty ninety"), start=3)
}
ORDINAL_WORDS = {
    w: i
    for i, w in enumerate(
        _list("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"),
        start=1,
    )
}
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9}
UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "pct": "%", "$": "$", "dollars": "$",
    "dollar": "$", "€": "€", "£": "£",
    "pounds": "£", "km": "km", "kilometres": "km", "kilometers": "km",
    "miles": "mi", "mile": "mi", "kg": "kg", "kilograms": "kg", "mb": "MB", "gb": "GB",
    "tb": "TB", "ms": "ms", "seconds": "s", "second": "s", "minutes": "min",
    "minute": "min", "hours": "h", "hour": "h", "days": "d", "day": "d", "weeks": "wk",
    "week": "wk", "months": "mo", "month": "mo", "years": "y", "year": "y", "am": "am",
    "a.m.": "am", "pm": "pm", "p.m.": "pm",
}  # fmt: skip
UNIT = (
    r"(?:"
    + "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True) if u not in "$€£")
    + r")"
)
SCALE = "thousand|million|billion|trillion"
NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
WORD_NUM = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))

# Sentence openers that are not names (a capitalised first word is a name otherwise).
COMMON = _words(
    """
    a an the this that these those it its we our us they their them he his him she her i my
    me you your there here what which who whom whose when where why how all any each every
    some no not none both either neither one two three four five first last next new old
    now then today yesterday tomorrow also and but or so if as at by for from in into of on
    to with without about after before during since until while is are was were be been has
    have had do does did will would can could should may might must shall let please note
    remember important deadline meeting project team user users uses used use prefers likes
    works working lives currently recently usually always never sometimes maybe many most
    more several shares stocks analysts officials police authorities however meanwhile yet
    still under over against among between through across according just less well earlier
    later another even only instead indeed despite although though because unlike like such
    other most much very yes thanks
    """
)
TITLES = _words(
    """
    mr mrs ms dr prof sir st mt jr sr gen general lt lieut sen senator gov governor rep maj
    col capt sgt president chairman ceo
    """
)
# Names of one place or body that texts use for each other.
ALIASES = tuple(
    frozenset(group.split())
    for group in (
        "us usa u.s america american americans united states",
        "uk britain british united kingdom",
        "un u.n united nations",
    )
)

NEGATORS = (
    r"no longer|not|n't|never|no|nobody|nothing|none|nowhere|neither|without|cannot"
    r"|fail(?:s|ed|ing)? to|refus(?:e|es|ed|ing)|declin(?:e|es|ed|ing) to|lack(?:s|ed|ing)?"
)
NEGATION = re.compile(rf"(?<![\w'])(?:{NEGATORS})(?![\w'])|n't\b", re.IGNORECASE)
ANTONYM_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
# Words that take one of those prefixes without turning into their opposite (side, inside).
NOT_ANTONYMS = _words("side form come door deed sure play tend vest tent land mind")

OPPOSITES = (
    ("higher", "lower"), ("high", "low"), ("more", "less"), ("most", "least"),
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("rise", "fall"), ("rose", "fell"), ("rising", "falling"), ("gain", "loss"),
    ("gained", "lost"), ("up", "down"), ("before", "after"), ("earlier", "later"),
    ("morning", "afternoon"), ("morning", "evening"), ("afternoon", "evening"),
    ("day", "night"), ("open", "closed"), ("opened", "closed"), ("enabled", "disabled"),
    ("enable", "disable"), ("on", "off"), ("allow", "deny"), ("allowed", "denied"),
    ("accepted", "rejected"), ("approved", "rejected"), ("win", "lose"), ("won", "lost"),
    ("true", "false"), ("minimum", "maximum"), ("min", "max"), ("inside", "outside"),
    ("indoors", "outdoors"), ("larger", "smaller"), ("bigger", "smaller"),
    ("faster", "slower"), ("cheaper", "dearer"), ("always", "sometimes"),
    ("start", "end"), ("started", "ended"), ("sell", "buy"), ("sold", "bought"),
    ("man", "woman"), ("men", "women"), ("boy", "girl"), ("boys", "girls"),
    ("sitting", "standing"), ("empty", "full"), ("hot", "cold"), ("near", "far"),
    ("raising", "lowering"), ("raises", "lowers"), ("raised", "lowered"),
    ("arriving", "leaving"), ("arrive", "leave"), ("pushing", "pulling"), ("push", "pull"),
    ("front", "behind"), ("onto", "off"), ("into", "out"), ("deep", "shallow"),
    ("catching", "missing"), ("hitting", "missing"), ("left", "right"),
    ("same", "different"), ("gathering", "scattering"), ("big", "little"),
    ("big", "small"), ("large", "small"), ("huge", "small"), ("huge", "tiny"),
    ("tall", "short"), ("long", "short"), ("young", "old"), ("wet", "dry"),
    ("quickly", "slowly"), ("fast", "slow"), ("happy", "sad"), ("light", "heavy"),
    ("success", "failure"), ("succeeded", "failed"), ("strong", "weak"), ("few", "many"),
    ("few", "lots"), ("close", "far"),
)  # fmt: skip
COLOURS = _words(
    """
    red blue green yellow black white brown gray grey pink purple orange colorful colourful
    golden silver
    """
)
OPPOSITE: dict[str, set[str]] = {}
for _a, _b in OPPOSITES:
    OPPOSITE.setdefault(_a, set()).add(_b)
    OPPOSITE.setdefault(_b, set()).add(_a)


# --- patterns, most specific first --------------------------------------------------------

IGNORE_CASE = re.IGNORECASE
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>\"')]+[^\s<>\"').,;:!?]", IGNORE_CASE)),
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("ip", re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b")),
    (
        "date",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b"
            r"|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
            rf"|\b{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH}\s+\d{{4}}\b"
            rf"|\b{MONTH}\s+\d{{4}}\b"
            r"|\bQ[1-4]\s+\d{4}\b"
            rf"|\b{CAP_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?![.,:]\d)"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{CAP_MONTH}(?!\w)",
            IGNORE_CASE,
        ),
    ),
    ("decade", re.compile(r"\b(?:1[89]|20)\d0'?s\b|(?<![\w'])'\d0s\b")),
    ("year", re.compile(r"(?<![\w.,$€£#-])(?:1[89]|20)\d{2}(?![\w.%-]|,\d)")),
    (
        "month",
        re.compile(
            rf"\b{FULL_MONTH}\b|\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\b\.?"
            rf"|(?<=\b(?:in|of|by) )May\b|\bMay(?= \d)"
        ),
    ),
    ("weekday", re.compile(r"\b(?:" + "|".join(WEEKDAYS) + r")\b", IGNORE_CASE)),
    ("relative", re.compile(rf"\b(?:{RELATIVE})\b", IGNORE_CASE)),
    (
        "version",
        re.compile(r"\bv\d+(?:\.\d+)*\b|\b\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.]+)?\b", IGNORE_CASE),
    ),
    ("named-version", re.compile(r"\b[A-Z][\w-]*\s+(\d+(?:\.\d+)+|\d+\.x)\b")),
    (
        "id",
        re.compile(
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
            r"|\b[A-Z][A-Z0-9]+-\d+\b"  # a ticket: ABC-123
            r"|#\d+\b"
            r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b"  # a hash, a hex id
            r"|\b(?=\w*[A-Za-z])(?=\w*\d)\w*_\w+\b"  # note_ab12, user_42
            r"|(?<![\w.,])\d{9,}(?![\w,]|\.\d)",  # a long digit id
            IGNORE_CASE,
        ),
    ),
    ("port", re.compile(r"\bport\s+(\d{2,5})\b|\b[A-Za-z][\w.-]*:(\d{2,5})\b", IGNORE_CASE)),
    (
        "number",
        re.compile(
            rf"(?P<cur>[$€£])?\s?(?P<num>{NUM})(?:[\s-]?(?P<scale>{SCALE}|bn)\b)?"
            rf"(?:\s?(?P<unit>{UNIT})(?![\w]))?(?P<ord>st|nd|rd|th)?(?![\w])"
            rf"|\b(?P<word>(?:{WORD_NUM})(?:-(?:{'|'.join(SMALL[1:10])}))?)"
            rf"(?:\s(?P<wscale>{SCALE})\b)?(?:\s(?P<wunit>{UNIT})\b)?(?!-)\b"
            rf"|\b(?P<ordw>{'|'.join(ORDINAL_WORDS)})\b",
            IGNORE_CASE,
        ),
    ),
)
NAME = re.compile(r"\b[A-Z][\w'&]*")
WORD = re.compile(r"[\w'&-]+")

NOT_NEGATED = _words(
    """
    be been being a an the any to is are was were one have has had or and there it that
    this even yet only of in on at by for with some all its his her their our my your
    """
)
