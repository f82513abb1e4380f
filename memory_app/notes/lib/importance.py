"""ImportanceScorer: the agent's scoring and decay, as pure functions (no I/O).

Patterns, weights and formulas are the contract's (shared/qq-data-contract.md), which is
read from the agent's code. (An older public copy of the agent also rewarded sizes such
as "64 GB"; the contract does not, so neither do we.)

Decay that writes back must not compound. :func:`decay_write_plan` computes, from the
stored ``importance`` and our two bookkeeping fields, what a decay pass writes:

- ``qqweb_base_importance``: the undecayed importance the decay starts from;
- ``qqweb_decayed_importance``: the value our last pass wrote into ``importance``.

When ``importance`` still equals what we wrote, the base is reused, so a second pass the
same day changes nothing and daily passes end where one pass would. When the agent
changed ``importance`` since (a boost, a re-score), that new value becomes the base: the
agent's change is respected, never overwritten with a value computed from a stale one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

CORE_THRESHOLD = 0.8
ARCHIVE_THRESHOLD = 0.05
MIN_RETRIEVAL_IMPORTANCE = 0.2
BASE_DECAY_RATE = 0.01
PROMOTION_MIN_ACCESS = 3

IMPORTANCE_LEVELS = {"core": 1.0, "high": 0.7, "medium": 0.4, "low": 0.2}
DEFAULT_BASELINE = 0.3

IDENTITY_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(my name|i am|i'm|i prefer|call me)\b"), 0.5),
    (re.compile(r"\b(my role|i work|my job|profession)\b"), 0.4),
    (re.compile(r"\b(i live|my location|i'm from|i'm in)\b"), 0.4),
    (re.compile(r"\b(my email|my phone|contact)\b"), 0.3),
)
PROJECT_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(my project|building|working on|developing)\b"), 0.3),
    (re.compile(r"\b(our (project|system|app|codebase))\b"), 0.3),
)
SPECIFICITY_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b\d{4}[-/]\d{2}[-/]\d{2}\b"), 0.1),  # dates
    (re.compile(r"\b(version|v)\s*\d+\.\d+"), 0.1),  # versions
    (re.compile(r"https?://"), 0.05),  # URLs
)
SECTION_WEIGHTS = {"People & Entities": 0.2, "Important Facts": 0.1, "File Knowledge": -0.1}

BASE_FIELD = "qqweb_base_importance"
DECAYED_FIELD = "qqweb_decayed_importance"


def clamp(value: float) -> float:
    return max(0.0, min(1.0, value))


@dataclass
class ScoredNote:
    content: str
    section: str | None
    importance: float = 0.5
    access_count: int = 0
    last_accessed: datetime | None = None
    created_at: datetime = field(default_factory=datetime.now)
    decay_rate: float = BASE_DECAY_RATE
    note_id: str | None = None

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> ScoredNote:
        """From a MongoDB document as the agent writes it (missing fields get defaults)."""
        importance = doc.get("importance", 0.5)
        return cls(
            content=str(doc.get("content", "")),
            section=doc.get("section"),
            importance=float(importance) if isinstance(importance, int | float) else 0.5,
            access_count=int(doc.get("access_count") or 0),
            last_accessed=doc.get("last_accessed"),
            created_at=doc.get("created_at") or datetime.now(),
            decay_rate=float(doc.get("decay_rate") or BASE_DECAY_RATE),
            note_id=doc.get("note_id"),
        )


def score_content(content: str, section: str | None, importance_hint: str | None = None) -> float:
    score = IMPORTANCE_LEVELS.get(importance_hint or "", DEFAULT_BASELINE)
    text = content.lower()
    for pattern, bonus in (*IDENTITY_PATTERNS, *PROJECT_PATTERNS, *SPECIFICITY_PATTERNS):
        if pattern.search(text):
            score += bonus
    score += SECTION_WEIGHTS.get(section or "", 0.0)
    if len(content) < 20:
        score -= 0.1
    elif len(content) > 500:
        score -= 0.05
    return clamp(score)


def classify(score: float) -> str:
    if score >= 0.8:
        return "core"
    if score >= 0.5:
        return "high"
    if score >= 0.3:
        return "medium"
    return "low"


def decayed_importance(
    *,
    importance: float,
    access_count: int,
    created_at: datetime,
    last_accessed: datetime | None,
    decay_rate: float,
    now: datetime,
) -> float:
    """The contract's formula, with whole days as the agent counts them."""
    days_since_creation = (now - created_at).days
    days_since_access = (now - last_accessed).days if last_accessed else days_since_creation
    access_bonus = min(0.5, access_count * 0.05)
    age_factor = 1.0 / (1 + days_since_creation * 0.01)
    staleness = days_since_access * (decay_rate or BASE_DECAY_RATE)
    return clamp((importance - staleness + access_bonus) * age_factor)


def decay_base(doc: dict[str, Any]) -> float:
    """The undecayed importance a decay pass starts from (see the module docstring)."""
    stored = float(doc.get("importance", 0.5))
    ours = doc.get(DECAYED_FIELD)
    base = doc.get(BASE_FIELD)
    if (
        isinstance(ours, int | float)
        and isinstance(base, int | float)
        and abs(ours - stored) < 1e-12
    ):
        return float(base)
    return stored


@dataclass(frozen=True)
class DecayWrite:
    note_id: str
    expected_importance: float  # compare-and-set: the value read
    base: float
    new_importance: float

    @property
    def changes(self) -> bool:
        return abs(self.new_importance - self.expected_importance) > 1e-9


def decay_write_plan(doc: dict[str, Any], now: datetime) -> DecayWrite:
    base = decay_base(doc)
    note = ScoredNote.from_document(doc)
    new = decayed_importance(
        importance=base,
        access_count=note.access_count,
        created_at=note.created_at,
        last_accessed=note.last_accessed,
        decay_rate=note.decay_rate,
        now=now,
    )
    return DecayWrite(str(doc["note_id"]), float(doc.get("importance", 0.5)), base, round(new, 6))


# The agent's own decay command (and its archival and dedup) use this rate for every note,
# whatever its stored ``decay_rate``, and decay the stored importance, so a second run
# compounds. qqweb honours the stored rate and never compounds (see the module docstring).
AGENT_DECAY_RATE = 0.01
# Values closer than this are shown the same (three decimals): not a difference.
AGENT_DIFFERENCE = 0.001


@dataclass(frozen=True)
class AgentDecayComparison:
    """What the agent's own decay command would write for a note, against our pass:
    ``differs`` when the two values differ; ``by_rate`` when the note's stored
    ``decay_rate`` is not the agent's 0.01; ``by_compounding`` when its importance is
    already a decayed value of ours, which the agent would decay again."""

    agent_importance: float
    differs: bool
    by_rate: bool
    by_compounding: bool


def agent_decay_comparison(
    doc: dict[str, Any], plan: DecayWrite, now: datetime
) -> AgentDecayComparison:
    note = ScoredNote.from_document(doc)
    agent = round(
        decayed_importance(
            importance=note.importance,
            access_count=note.access_count,
            created_at=note.created_at,
            last_accessed=note.last_accessed,
            decay_rate=AGENT_DECAY_RATE,
            now=now,
        ),
        6,
    )
    return AgentDecayComparison(
        agent_importance=agent,
        differs=abs(agent - plan.new_importance) >= AGENT_DIFFERENCE,
        by_rate=abs(note.decay_rate - AGENT_DECAY_RATE) > 1e-12,
        by_compounding=abs(plan.base - plan.expected_importance) > 1e-9,
    )


class ImportanceScorer:
    """The seed API (``qq.memory.importance.ImportanceScorer``) over the pure functions."""

    def __init__(
        self,
        core_threshold: float = CORE_THRESHOLD,
        archive_threshold: float = ARCHIVE_THRESHOLD,
        base_decay_rate: float = BASE_DECAY_RATE,
        min_retrieval_importance: float = MIN_RETRIEVAL_IMPORTANCE,
    ) -> None:
        self.core_threshold = core_threshold
        self.archive_threshold = archive_threshold
        self.base_decay_rate = base_decay_rate
        self.min_retrieval_importance = min_retrieval_importance

    def score_note(
        self, content: str, section: str = "", importance_hint: str | None = None
    ) -> float:
        return score_content(content, section, importance_hint)

    def classify_importance(self, content: str, section: str = "") -> str:
        return classify(score_content(content, section))

    def decay_importance(self, note: ScoredNote, current_time: datetime | None = None) -> float:
        return decayed_importance(
            importance=note.importance,
            access_count=note.access_count,
            created_at=note.created_at,
            last_accessed=note.last_accessed,
            decay_rate=note.decay_rate or self.base_decay_rate,
            now=current_time or datetime.now(),
        )

    def decay_notes(
        self, notes: list[ScoredNote], current_time: datetime | None = None
    ) -> list[tuple[ScoredNote, float]]:
        return [(note, self.decay_importance(note, current_time)) for note in notes]

    def get_archival_candidates(
        self,
        notes: list[ScoredNote],
        threshold: float | None = None,
        current_time: datetime | None = None,
    ) -> list[ScoredNote]:
        limit = threshold if threshold is not None else self.archive_threshold
        return [n for n in notes if self.decay_importance(n, current_time) < limit]

    def get_promotion_candidates(
        self, notes: list[ScoredNote], threshold: float | None = None
    ) -> list[ScoredNote]:
        limit = threshold if threshold is not None else self.core_threshold
        return [
            n for n in notes if n.importance >= limit and n.access_count >= PROMOTION_MIN_ACCESS
        ]

    def should_retrieve(
        self, note: ScoredNote, threshold: float | None = None, current_time: datetime | None = None
    ) -> bool:
        limit = threshold if threshold is not None else self.min_retrieval_importance
        return self.decay_importance(note, current_time) >= limit
