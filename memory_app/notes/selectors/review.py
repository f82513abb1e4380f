"""Reads of the near-duplicate review queue: the next pair with everything needed to judge
it, the calibration of the threshold, and the latest scan."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from django.conf import settings

from memory_app.notes.errors import PairNotFound
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.dedup.maths import MergePlan, merged_note, newer_and_older
from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.models import ReviewPair
from memory_app.notes.selectors.core import content_hash
from memory_app.notes.selectors.notes import SourceSummary, source_summary
from memory_app.notes.selectors.plan_effects import ReviewPinEffects, review_pin_effects
from memory_app.notes.stores import deduplicator, notes_store
from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor
from qqweb.lib.differences import Difference, differences
from qqweb.lib.errors import InvalidInput, StoreUnavailable
from qqweb.lib.judge.model import CLASSES
from qqweb.lib.judge.verdicts import EACH_MORE, LEFT_MORE, RIGHT_MORE, Verdict, merged_both, verdict

Segment = tuple[str, str]  # ("same" | "gone" | "new", words)


@dataclass
class ReviewItem:
    pair: ReviewPair
    a: Note
    b: Note
    diff_a: list[Segment]
    diff_b: list[Segment]
    plan: MergePlan
    merged_preview: Note  # the primary as the merge would leave it
    remaining: int
    changes: tuple[Difference, ...] = ()  # how the two texts differ, kind by kind
    newer_id: str | None = None  # the note written later, when the dates tell
    chosen: bool = True  # a note to keep is selected (a contradiction waits for a choice)
    verdict: Verdict | None = None  # the judge's and the rules' verdict, in words
    merged_both: str = ""  # a text keeping what each note alone says ("each says more")

    @property
    def possible_update(self) -> bool:
        """The texts differ in a value (a date, number, version, id, name, colour or an
        opposite word): perhaps an old and a new value of one fact rather than two copies;
        or one negates the other (:attr:`contradiction`)."""
        return bool(self.changes)

    @property
    def contradiction(self) -> bool:
        """One text negates what the other says: not a duplicate, most likely; neither
        note is kept by default."""
        return any(c.contradiction for c in self.changes)

    @property
    def likely_distinct(self) -> bool:
        """A contradiction, or a pair the judge calls different facts: the page offers "Not
        a duplicate" first."""
        return self.contradiction or (
            self.verdict is not None and self.verdict.kind in ("different", "contradiction")
        )

    @property
    def provenance(self) -> tuple[SourceSummary | None, SourceSummary | None]:
        a, b = self.a.source, self.b.source
        return (
            source_summary(a) if a is not None else None,
            source_summary(b) if b is not None else None,
        )


def word_diff(a: str, b: str) -> tuple[list[Segment], list[Segment]]:
    """Word-level diff of two texts, as segments for the left and the right side."""
    wa, wb = a.split(), b.split()
    left: list[Segment] = []
    right: list[Segment] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op == "equal":
            left.append(("same", " ".join(wa[i1:i2])))
            right.append(("same", " ".join(wb[j1:j2])))
        else:
            if i2 > i1:
                left.append(("gone", " ".join(wa[i1:i2])))
            if j2 > j1:
                right.append(("new", " ".join(wb[j1:j2])))
    return left, right


DECIDED = (ReviewPair.MERGED, ReviewPair.SUPERSEDED, ReviewPair.REJECTED, ReviewPair.SKIPPED)


def review_last_decided(*, actor: Actor) -> ReviewPair | None:
    """The pair ``actor`` gave the latest verdict on, still standing (not taken back)."""
    return (
        ReviewPair.objects.filter(decided_by=actor.label, status__in=DECIDED)
        .order_by("-decided_at", "-id")
        .first()
    )


def review_pending_count() -> int:
    return ReviewPair.objects.filter(status=ReviewPair.PENDING).count()


def review_next(
    *,
    pair_id: int | None = None,
    content: str | None = None,
    primary_id: str | None = None,
    suggest_both: bool = False,
) -> ReviewItem | None:
    """The most similar pending pair (or ``pair_id``) whose two notes still exist, with a
    preview of the merge: the seed's simple merge, or ``content`` as the curator wrote it.
    A pair whose texts differ in a value (:func:`differences`) is flagged a possible
    update, and its merge keeps the newer note unless ``primary_id`` says otherwise; a pair
    whose texts contradict each other (a negation) keeps no note by default: the curator
    chooses (the preview shows the agent's choice meanwhile).

    The judge's verdict (stored by the scan) steers the default too: when one note says
    more, that note is kept; when each says something the other does not,
    ``suggest_both`` (the page's first view of the pair) previews :func:`merged_both`, the
    text the page then offers in its merged-text field, so no merge drops a detail
    unseen."""
    pending = ReviewPair.objects.filter(status=ReviewPair.PENDING)
    if pair_id is not None:
        pending = pending.filter(pk=pair_id)
    store = notes_store()
    for pair in pending.order_by("-similarity", "id")[:50]:
        a, b = store.note(pair.note_a), store.note(pair.note_b)
        if a is None or b is None:
            continue  # merged or archived elsewhere since the scan
        changes = differences(a.content, b.content)
        contradiction = any(c.contradiction for c in changes)
        ordered = newer_and_older(a, b)
        newer_id = ordered[0].note_id if ordered else None
        said = pair_verdict(pair, a, b, changes, newer_id)
        chosen = primary_id is not None or not contradiction
        if primary_id is None and changes and newer_id and not contradiction:
            primary_id = newer_id  # a possible update: keep the newer text by default
        elif primary_id is None and said.kind in (LEFT_MORE, RIGHT_MORE):
            # the note that says more is kept, so the merge loses no detail
            primary_id = a.note_id if said.kind == LEFT_MORE else b.note_id
        both = merged_both(a.content, b.content) if said.kind == EACH_MORE else ""
        if content is None and both and suggest_both:
            content = both  # the page's merged text keeps what each says (shown, editable)
        plan = deduplicator().plan(a, b, pair.similarity, content=content, primary_id=primary_id)
        merged = merged_note(a if plan.primary_id == a.note_id else b, plan)
        merged = merged.annotated(
            effective_importance=effective_importance(merged.to_document(), utcnow_naive())
        )
        diff_a, diff_b = word_diff(a.content, b.content)
        if newer_id == a.note_id:  # from the older text to the newer, on either side
            diff_b, diff_a = word_diff(b.content, a.content)
        return ReviewItem(
            pair,
            a,
            b,
            diff_a,
            diff_b,
            plan,
            merged,
            review_pending_count(),
            changes,
            newer_id,
            chosen,
            said,
            both,
        )
    return None


def pair_verdict(
    pair: ReviewPair, a: Note, b: Note, changes: tuple[Difference, ...], newer_id: str | None
) -> Verdict:
    """The verdict on ``pair`` from the judge's probabilities stored by the scan (when
    they are of the texts as they are now) and the rules' ``changes``; the notes are
    named "the newer note" / "the older note" when the dates tell."""
    stored = pair.judged
    current = (content_hash(a.content), content_hash(b.content)) == (pair.hash_a, pair.hash_b)
    probabilities = (
        dict(zip(CLASSES, stored, strict=True))
        if isinstance(stored, list) and len(stored) == len(CLASSES) and current
        else None
    )
    left_name, right_name = "the first note", "the second note"
    if newer_id:
        newer_left = newer_id == a.note_id
        left_name, right_name = ("the newer note", "the older note")[:: 1 if newer_left else -1]
        if newer_left:  # values read from the older to the newer: "port: 9000 → 9100"
            changes = tuple(Difference(c.kind, c.right, c.left) for c in changes)
    return verdict(
        probabilities,
        a.content,
        b.content,
        changes,
        left_name=left_name,
        right_name=right_name,
    )


@dataclass(frozen=True)
class ReviewPreview:
    """What a verdict on a pending pair would do, as the Review page previews it: the
    merge (``item.plan``, ``item.merged_preview``) and its effect, and the supersede's,
    on the pinned recalls."""

    item: ReviewItem
    pins: ReviewPinEffects


def review_preview(
    *, pair_id: int, primary_id: str | None = None, content: str | None = None
) -> ReviewPreview:
    """The preview of pending pair ``pair_id``'s merge (keeping ``primary_id``, with
    ``content`` when given), nothing written; 404 when the pair is not pending or a note
    of it is gone, 400 when ``primary_id`` is neither note. An empty ``content`` keeps the
    primary's text, as the verdict reads it."""
    item = review_next(pair_id=pair_id, content=content or None, primary_id=primary_id)
    if item is None:
        raise PairNotFound(pair_id, "pending pair")
    if primary_id is not None and primary_id not in (item.a.note_id, item.b.note_id):
        raise InvalidInput("primary_id", "must be one of the two notes")
    pins = review_pin_effects(
        primary_id=item.plan.primary_id,
        secondary_id=item.plan.secondary_id,
        newer_id=item.newer_id,
        text_changed=item.plan.content_changed,
    )
    return ReviewPreview(item, pins)


class _Verdicts:
    """Merged and rejected pairs, and the share merged."""

    merged: int
    rejected: int

    @property
    def judged(self) -> int:
        return self.merged + self.rejected

    @property
    def merge_share(self) -> float | None:
        return round(self.merged / self.judged, 2) if self.judged else None


@dataclass(frozen=True)
class CalibrationRow(_Verdicts):
    low: float
    high: float
    merged: int
    rejected: int


VERDICT_LABELS = {
    "same": "same fact",
    "left_more": "one note says more",
    "right_more": "one note says more (the other side)",
    "each_more": "each says something the other does not",
    "different": "different facts",
    "contradiction": "contradiction",
}


@dataclass(frozen=True)
class VerdictCalibrationRow(_Verdicts):
    """What curators did with the pairs the judge gave one verdict (its most likely class)."""

    verdict: str
    merged: int
    rejected: int

    @property
    def label(self) -> str:
        return VERDICT_LABELS.get(self.verdict, self.verdict)

    @property
    def too_eager(self) -> bool:
        """A warning verdict curators merged anyway at least 80% of 5 or more times."""
        return self.verdict != "same" and self.judged >= 5 and self.merged >= 0.8 * self.judged


@dataclass
class Calibration:
    rows: list[CalibrationRow]
    suggested_threshold: float | None
    by_verdict: list[VerdictCalibrationRow] = field(default_factory=list)


def review_calibration(
    *, step: float = 0.025, min_verdicts: int = 5, target_share: float = 0.8
) -> Calibration:
    """The share of "merge" verdicts per similarity bucket, and the lowest threshold above
    which curators merged at least ``target_share`` of the pairs they judged. A supersede
    counts as a merge (the pair was one fact); a verdict taken back (its pair pending
    again) is not counted."""
    merged_like = (ReviewPair.MERGED, ReviewPair.SUPERSEDED)  # "the same fact": a duplicate
    judged = ReviewPair.objects.filter(status__in=[*merged_like, ReviewPair.REJECTED])
    decided = [
        (s, ReviewPair.MERGED if st in merged_like else st, p)
        for s, st, p in judged.values_list("similarity", "status", "judged")
    ]
    values = [(s, st) for s, st, _ in decided]
    low = min((s for s, _ in values), default=settings.QQ_DEDUP_THRESHOLD)
    start = max(0.0, min(int(low / step) * step, 1.0 - step))  # 1.0 is in the last bucket
    rows = []
    edge = start
    while edge < 1.0 - 1e-9:
        top = round(edge + step, 4)
        in_bucket = [st for s, st in values if edge <= s < top or (top >= 1 and s >= edge)]
        rows.append(
            CalibrationRow(
                round(edge, 4),
                top,
                in_bucket.count(ReviewPair.MERGED),
                in_bucket.count(ReviewPair.REJECTED),
            )
        )
        edge = top
    suggested = None
    for i in range(len(rows)):
        above = rows[i:]
        merged = sum(r.merged for r in above)
        total = sum(r.judged for r in above)
        if total >= min_verdicts and merged / total >= target_share:
            suggested = rows[i].low
            break
    return Calibration(rows, suggested, _by_verdict(decided))


def _by_verdict(decided: list[tuple[float, str, object]]) -> list[VerdictCalibrationRow]:
    """Merged and rejected pairs per verdict of the judge (the class it stored as most
    likely), in the judge's class order; verdicts no curator judged yet are left out."""
    counts: dict[str, list[int]] = {c: [0, 0] for c in CLASSES}
    for _, status, stored in decided:
        if isinstance(stored, list) and len(stored) == len(CLASSES):
            label = CLASSES[max(range(len(CLASSES)), key=lambda i: stored[i])]
            counts[label][0 if status == ReviewPair.MERGED else 1] += 1
    return [VerdictCalibrationRow(c, m, r) for c, (m, r) in counts.items() if m + r]


def latest_scan() -> Run | None:
    """The newest dedup scan that finished (done, failed or cancelled), by when it was
    started: an older run that closes later never takes the place of a newer one."""
    return (
        Run.objects.filter(kind="dedup_scan", status__in=Run.CLOSED)
        .order_by("-created_at", "-pk")
        .first()
    )


def open_scan() -> Run | None:
    """A dedup scan queued or running now (the page names it; it polls only its own)."""
    return (
        Run.objects.filter(kind="dedup_scan", status__in=Run.OPEN)
        .order_by("-created_at", "-pk")
        .first()
    )


@dataclass(frozen=True)
class MergeSuggestion:
    content: str
    model: str


def review_llm_text(*, pair_id: int, primary_id: str | None = None) -> MergeSuggestion:
    """The merged text the configured LLM (QQ_LLM_URL) suggests for a pending pair, for
    the curator to read and edit before merging: a suggestion, never written by itself."""
    pair = ReviewPair.objects.filter(pk=pair_id, status=ReviewPair.PENDING).first()
    if pair is None:
        raise PairNotFound(pair_id, "pending pair")
    dedup = deduplicator()
    if not dedup.llm_url:
        raise InvalidInput(
            "llm",
            "no LLM is configured: set QQ_LLM_URL (and QQ_LLM_MODEL) to an "
            "OpenAI-compatible endpoint",
        )
    store = notes_store()
    a, b = store.note(pair.note_a), store.note(pair.note_b)
    if a is None or b is None:
        raise NoteNotFound(pair.note_a if a is None else pair.note_b)
    text = dedup.llm_merge_text(*dedup.ordered(a, b, primary_id))
    if text is None:
        raise StoreUnavailable("llm", f"{dedup.llm_url} gave no merged text; try again later")
    return MergeSuggestion(text, dedup.llm_model)
