"""Reads of the facts store for the pages and the API. Facts stores are small (the agent
reads every fact at every turn), so the plan and the lint are computed over all facts on
each call; the list itself is a keyset page read from MongoDB."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_app.facts.detail import FactDetail as FactDetail  # one fact's page, re-exported
from memory_app.facts.detail import Neighbour as Neighbour
from memory_app.facts.detail import fact_detail as fact_detail
from memory_app.facts.lib import EmbeddingState, Fact, FactQuery, StoredDocument
from memory_app.facts.lib.constants import SIMILAR_THRESHOLD
from memory_app.facts.lib.extjson import content_hash
from memory_app.facts.lib.lint import BREAKS, Finding, lint
from memory_app.facts.lib.rules import (
    CleanupPlan,
    Deletion,
    Retrieval,
    cleanup_plan,
    retrieval_top,
    similar_pairs,
)
from memory_app.facts.models import ArchivedFact, PairVerdict, SeenFact
from memory_app.facts.stores import agent_embedding, facts_store, judged_pairs
from qqweb.lib.differences import Difference, differences
from qqweb.lib.errors import InvalidInput
from qqweb.lib.judge.model import CLASSES
from qqweb.lib.judge.verdicts import Verdict, verdict

EMBEDDING_FILTERS = ("ok", "missing", "invalid")
KIND_FILTERS = ("fact", "turn")  # facts, or the legacy conversation turns


@dataclass(frozen=True)
class FactRow:
    doc: StoredDocument
    kind: str  # fact, turn, foreign
    text: str
    embedding: str  # ok, missing, empty, zero, invalid; "" for non-facts
    legacy: bool
    deleted_at_next_start: bool
    anchor_id: str = ""  # the older fact that deletes it

    @property
    def id(self) -> str:
        return self.doc.hex_id

    @property
    def timestamp(self) -> Any:
        return self.doc.timestamp


@dataclass(frozen=True)
class FactsListing:
    rows: list[FactRow]
    next_cursor: str | None
    total: int
    next_start_deletions: int
    breaks: int  # lint findings that break the agent
    matching: int | None = None  # how many the filter matches; None: no filter


def _row(doc: StoredDocument, plan: CleanupPlan) -> FactRow:
    deleting = {d.deleted.hex_id: d.anchor.hex_id for d in plan.deletions}
    return FactRow(
        doc=doc,
        kind=doc.kind,
        text=doc.text,
        embedding=doc.embedding.value if isinstance(doc, Fact) else "",
        legacy=doc.is_legacy,
        deleted_at_next_start=doc.hex_id in deleting,
        anchor_id=deleting.get(doc.hex_id, ""),
    )


def _matching_ids(
    docs: list[StoredDocument], plan: CleanupPlan, embedding: str, next_start: bool, kind: str
) -> tuple[Any, ...] | None:
    if not embedding and not next_start and not kind:
        return None
    deleted = plan.deleted_ids
    keep = []
    for doc in docs:
        if next_start and doc.hex_id not in deleted:
            continue
        if kind and doc.kind != kind:
            continue
        if embedding:
            if not isinstance(doc, Fact):
                continue
            state = doc.embedding
            ok = state is EmbeddingState.OK
            if embedding == "ok" and not ok:
                continue
            if embedding == "missing" and state is not EmbeddingState.MISSING:
                continue
            if embedding == "invalid" and state in (EmbeddingState.OK, EmbeddingState.MISSING):
                continue
        keep.append(doc.id)
    return tuple(keep)


def facts_list(
    *,
    text: str = "",
    embedding: str = "",
    legacy: bool = False,
    next_start: bool = False,
    kind: str = "",
    cursor: str | None = None,
    limit: int = 50,
) -> FactsListing:
    """A keyset page, newest first on ``(timestamp, _id)``. ``embedding``: ok (usable by
    the agent), missing (legacy, unseen by it) or invalid (empty, zero or breaking);
    ``next_start``: only the facts the agent deletes at its next start; ``kind``: only
    facts ("fact") or only legacy conversation turns ("turn")."""
    store = facts_store()
    docs = store.documents()
    plan = cleanup_plan([d for d in docs if isinstance(d, Fact)])
    ids = _matching_ids(docs, plan, embedding, next_start, kind)
    query = FactQuery(text=text, ids=ids, legacy=legacy)
    page = store.page(query, cursor=cursor, limit=limit)
    filtered = bool(query.to_filter())
    findings = lint(docs, store.indexes())
    return FactsListing(
        rows=[_row(d, plan) for d in page.items],
        next_cursor=page.next_cursor,
        total=len(docs),
        next_start_deletions=len(plan.deletions),
        breaks=sum(1 for f in findings if f.severity == BREAKS),
        matching=min(store.count_matching(query), len(docs)) if filtered else None,
    )


def next_start_plan() -> CleanupPlan:
    """What the agent's next start hard-deletes, pair by pair (W3, exactly)."""
    return cleanup_plan(facts_store().facts())


# --- how the two texts of a pair differ ---------------------------------------------------


def pair_differences(older: str, newer: str) -> tuple[Difference, ...]:
    """How two texts differ (an id "port 9000" / "port 9100", a version "Gemini 2.0" /
    "Gemini 2.5", an IP, a date, a negation ...), each kind with the older text's values
    and the newer's. Empty: the newer text is a copy, a rewording or adds a detail. The
    facts pages' one call to the pair analysis (:mod:`qqweb.lib.differences`)."""
    return differences(older, newer)


@dataclass(frozen=True)
class PairRow:
    """A pair of the next-start plan as its review row shows it."""

    pair: Deletion  # anchor: the older fact the agent keeps; deleted: the newer one
    changes: tuple[Difference, ...]
    verdict: Verdict | None = None  # the judge's and the rules' verdict, in words

    @property
    def id(self) -> str:  # the row's DOM id
        return f"pair-{self.pair.anchor.hex_id}-{self.pair.deleted.hex_id}"

    @property
    def is_update(self) -> bool:
        """The texts differ in a value: the agent deletes a correction, not a copy."""
        return bool(self.changes)

    @property
    def contradiction(self) -> bool:
        """One text negates the other: the agent deletes one side of a contradiction."""
        return any(c.contradiction for c in self.changes)


@dataclass(frozen=True)
class NextStartReview:
    plan: CleanupPlan
    rows: list[PairRow]


def _pair_rows(pairs: list[Deletion]) -> list[PairRow]:
    """Rows of ``pairs`` with the rules' values and the judge's verdict (judged once per
    pair of texts: :func:`judged_pairs`)."""
    texts = [(p.anchor.text, p.deleted.text) for p in pairs]
    judged = judged_pairs(texts)
    rows = []
    for pair, key in zip(pairs, texts, strict=True):
        changes = pair_differences(*key)
        stored = judged.get(key)
        said = verdict(
            dict(zip(CLASSES, stored, strict=True)) if stored else None,
            *key,
            changes,
            left_name="the older fact",
            right_name="the newer fact",
        )
        rows.append(PairRow(pair, changes, said))
    return rows


def next_start_review() -> NextStartReview:
    """The next-start plan with, for each pair, the values its two texts differ in and
    the verdict on it."""
    plan = next_start_plan()
    return NextStartReview(plan, _pair_rows(list(plan.deletions)))


def next_start_row(*, anchor_id: str, deleted_id: str) -> PairRow | None:
    """One pair's row, None when the plan holds that pair no more."""
    for pair in next_start_plan().deletions:
        if pair.anchor.hex_id == anchor_id and pair.deleted.hex_id == deleted_id:
            return _pair_rows([pair])[0]
    return None


PAIR_QUESTIONS = {
    "keep-older": "Keep the older fact, archive the newer one?",
    "keep-newer-text": "Give the older fact the newer text, archive the newer one?",
    "delete-both": "Archive both facts?",
}
PAIR_CONFIRM = {
    "keep-older": "Yes, archive the newer",
    "keep-newer-text": "Yes, move the text and archive the newer",
    "delete-both": "Yes, archive both",
}
PAIR_DONE = {
    "keep-older": "Kept the older fact; the newer one is archived",
    "keep-newer-text": "The older fact has the newer text; the newer one is archived",
    "delete-both": "Archived both facts",
}


def facts_lint() -> list[Finding]:
    store = facts_store()
    return lint(store.documents(), store.indexes())


# --- curation: archive, vanished facts, possible contradictions ---------------------------


def _location() -> str:
    return ".".join(facts_store().location)


def archived_facts(*, restored: bool = False, limit: int = 200) -> list[ArchivedFact]:
    """qqweb's archive of this store, newest first; ``restored``: those brought back too."""
    rows = ArchivedFact.objects.filter(location=_location())
    if not restored:
        rows = rows.filter(restored_at__isnull=True)
    return list(rows[:limit])


def vanished_facts(*, limit: int = 200) -> list[SeenFact]:
    """Facts the agent deleted (qqweb's own archives left out), newest first."""
    return list(
        SeenFact.objects.filter(location=_location(), vanished_at__isnull=False)
        .exclude(cause=SeenFact.QQWEB)
        .select_related("archive")[:limit]
    )


@dataclass(frozen=True)
class Contradiction:
    pair: Deletion  # anchor: the older fact
    verdict: str  # "", both-true, contradiction
    changes: tuple[Difference, ...] = ()  # the values the two texts differ in
    judged: Verdict | None = None  # the pair judge's and the rules' verdict, in words

    @property
    def contradiction(self) -> bool:
        return any(c.contradiction for c in self.changes)


def contradictions(*, include_dismissed: bool = False) -> list[Contradiction]:
    """Pairs at 0.85 <= cosine < 0.95 (the agent keeps both), with the verdict remembered
    for their two texts; "both true" ones are left out unless asked for."""
    store = facts_store()
    pairs = similar_pairs(store.facts(), SIMILAR_THRESHOLD)
    verdicts = {
        (v.hash_a, v.hash_b): v.verdict
        for v in PairVerdict.objects.filter(location=".".join(store.location))
    }
    shown = []
    for pair in sorted(pairs, key=lambda p: -p.score):
        key = tuple(sorted((content_hash(pair.anchor.content), content_hash(pair.deleted.content))))
        remembered = verdicts.get((key[0], key[1]), "")
        if remembered == PairVerdict.BOTH_TRUE and not include_dismissed:
            continue
        shown.append((pair, remembered))
    rows = _pair_rows([pair for pair, _ in shown])
    return [
        Contradiction(pair, remembered, row.changes, row.verdict)
        for (pair, remembered), row in zip(shown, rows, strict=True)
    ]


# --- the shared protocol (qqweb.lib.sources): summary and search -----------------------------


@dataclass(frozen=True)
class FactsSummary:
    location: str
    counts: list[tuple[str, int]]
    breaks: int


def facts_summary() -> FactsSummary:
    """Counts for the Overview: facts, legacy documents, what the next start deletes, the
    lint's breaking findings, qqweb's archive and the facts seen vanishing."""
    store = facts_store()
    docs = store.documents()
    facts = [d for d in docs if isinstance(d, Fact)]
    findings = lint(docs, store.indexes())
    location = ".".join(store.location)
    counts = [
        ("facts", len(facts)),
        ("with a usable vector", sum(1 for f in facts if f.embedding is EmbeddingState.OK)),
        ("legacy facts (no vector)", sum(1 for f in facts if f.is_legacy)),
        ("legacy conversation turns", sum(1 for d in docs if d.kind == "turn")),
        ("deleted at the next start", len(cleanup_plan(facts).deletions)),
        ("archived by qqweb", ArchivedFact.objects.filter(location=location).count()),
        (
            "vanished",
            SeenFact.objects.filter(location=location, vanished_at__isnull=False)
            .exclude(cause=SeenFact.QQWEB)
            .count(),
        ),
    ]
    return FactsSummary(location, counts, sum(1 for f in findings if f.severity == BREAKS))


def facts_search(text: str, k: int = 10) -> Retrieval:
    """The facts nearest to ``text`` by the agent's own cosine, embedded with its model."""
    if not text.strip():
        raise InvalidInput("query", "type something to search for")
    return retrieval_top(agent_embedding(text), facts_store().facts(), k)
