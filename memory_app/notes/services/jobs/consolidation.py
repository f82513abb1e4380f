"""Auto-consolidation: the agent's merge of near-duplicate pairs, safe to run unattended.

Only the pairs at or above the threshold (QQ_CONSOLIDATION_THRESHOLD, 0.95 by default) are
considered, and of those only the copies are merged (``PairJudgment.unattended_merge`` of
``qqweb.lib.differences``: no difference found, the same content words in the
same order; ``merge="unflagged"`` also merges rewordings with no difference found). A pair
whose texts differ in a value (a date, number, version, id or name) or contradict each
other is never merged: it is left for review (queued in the review queue, where a curator
sees both values side by side) and listed on the run's page with the reason, as is a
rewording under the default. A pair the rules would merge is merged only if the pair judge
(qqweb/lib/judge) also calls it the same fact, at every similarity: an edit of one small
word ("has yet to", "childless") keeps the words a copy has. The dry run's plan is
made of the other pairs only; applying it merges exactly those, each only if neither note
changed since the plan."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from memory_app.notes.job_params import AutoConsolidationParams
from memory_app.notes.job_plans import PairItem, plan_to_json
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.services.jobs.plans import TEXT, MergesApplied
from memory_app.notes.services.merging import pair_merge
from memory_app.notes.services.review import duplicates_scan
from memory_app.notes.stores import deduplicator, notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Progress, run_actor, run_batch
from qqweb.lib.differences import PairJudgment, pair_judgment
from qqweb.lib.errors import DimensionMismatch, InvalidInput
from qqweb.lib.judge.model import CLASSES, judge_pairs
from qqweb.lib.judge.verdicts import verdict

LEFT_LISTED = 500  # pairs left for review listed on the run (all are counted and queued)

Pair = tuple[str, str, float]


@dataclass(frozen=True)
class LeftPair:
    """A pair left for review, with why (listed on the run: its stats' ``left``)."""

    note_id: str
    other_id: str
    similarity: float
    reason: str

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> LeftPair:
        return cls(
            str(row["note_id"]),
            str(row["other_id"]),
            float(row["similarity"]),
            str(row.get("reason") or ""),
        )


@dataclass(frozen=True)
class ConsolidationSkipped:
    skipped: str  # why: not more notes than QQ_MAX_WORKING_NOTES


@dataclass(frozen=True)
class ConsolidationPlanned:
    """A dry run's stats."""

    of_notes: int
    pairs_found: int
    would_merge: int
    left_for_review: int
    left: list[LeftPair]  # the first LEFT_LISTED
    merged: int = 0


@dataclass(frozen=True)
class ConsolidationDone:
    of_notes: int
    pairs_found: int
    left_for_review: int
    left: list[LeftPair]  # the first LEFT_LISTED
    merged: int
    changed_since_plan: int
    gone: int
    failed: int
    errors: list[str]  # the first ten


NOT_A_COPY = (
    "not a copy: the texts are worded differently (a rewording or an added detail waits "
    "for review; merge='unflagged' merges those too)"
)


def pair_reason(judgment: PairJudgment) -> str:
    """Why a pair is not merged, in words: "possible update: the texts differ in a number
    (9000 / 9100)", "contradiction: ...", or that it is not a copy."""
    if not judgment.flagged:
        return NOT_A_COPY
    values = ", ".join(
        f"{'an' if d.kind[0] in 'aeiou' else 'a'} {d.kind} "
        f"({', '.join(d.left)} / {', '.join(d.right)})"
        for d in judgment.differences
    )
    return f"{judgment.verdict}: the texts differ in {values}"


def pairs_split(
    pairs: list[Pair], merge: str = "copies"
) -> tuple[list[Pair], list[LeftPair], dict[str, Note]]:
    """``(mergeable, left, docs)``: the pairs merged unattended (``copies``: the pair
    analysis' ``unattended_merge``, copies apart from punctuation, case and small words;
    ``unflagged``: any pair it finds no difference in), the others as rows left for review
    (ids, similarity, reason), and the notes as they are now. A pair with a note gone
    since the search is dropped."""
    ids = sorted({i for a, b, _ in pairs for i in (a, b)})
    docs: dict[str, Note] = {}
    for start in range(0, len(ids), 1000):
        docs.update(notes_store().notes_by_ids(ids[start : start + 1000]))
    candidates: list[Pair] = []
    left: list[LeftPair] = []
    for a, b, similarity in pairs:
        if a not in docs or b not in docs:
            continue
        judgment = pair_judgment(docs[a].content, docs[b].content)
        if judgment.flagged or (merge == "copies" and not judgment.unattended_merge):
            left.append(LeftPair(a, b, round(similarity, 4), pair_reason(judgment)))
        else:
            candidates.append((a, b, similarity))
    mergeable, doubted = judged_copies(candidates, docs, merge)
    return mergeable, left + doubted, docs


def judged_copies(
    candidates: list[Pair], docs: dict[str, Note], merge: str = "copies"
) -> tuple[list[Pair], list[LeftPair]]:
    """Of the pairs the rules would merge, those the pair judge also calls the same fact:
    with confidence for copies (``Verdict.safe_to_merge_unattended``, P(same) >=
    MERGE_AT), and without a flag of its own for ``merge="unflagged"`` (the rewordings a
    curator opted into);
    the others are left for review with the judge's words ("not a copy, says the pair
    judge: different facts"). A one-word edit that turns a fact around ("has visited" /
    "has yet to visit") keeps the same words in order, so the rules alone would merge it at
    any similarity. The judge runs on these pairs only (one batch); without it installed,
    the rules alone decide."""
    judged = judge_pairs(
        [(docs[a].content, docs[b].content) for a, b, _ in candidates], settings.QQ_JUDGE_THREADS
    )
    if not candidates or judged is None:
        return candidates, []
    mergeable: list[Pair] = []
    doubted: list[LeftPair] = []
    for (a, b, similarity), row in zip(candidates, judged, strict=True):
        said = verdict(dict(zip(CLASSES, row, strict=True)), docs[a].content, docs[b].content, ())
        sure = said.safe_to_merge_unattended if merge == "copies" else not said.flagged
        if not sure:
            words = said.words if said.flagged else f"same fact, but only {said.p_same:.0%} sure"
            reason = f"not a copy, says the pair judge: {words}"
            doubted.append(LeftPair(a, b, round(similarity, 4), reason))
        else:
            mergeable.append((a, b, similarity))
    return mergeable, doubted


def _greedy(pairs: list[Pair]) -> list[Pair]:
    """Most similar first, each note merged at most once (the agent's walk)."""
    chosen: list[Pair] = []
    touched: set[str] = set()
    for a, b, similarity in pairs:
        if a not in touched and b not in touched:
            chosen.append((a, b, similarity))
            touched.update((a, b))
    return chosen


def consolidation_plan(pairs: list[Pair], docs: dict[str, Note]) -> list[PairItem]:
    """The pairs the pass would merge, with both notes' ``updated_at`` as they are now."""
    return [
        PairItem(
            a,
            docs[a].content[:TEXT],
            f"two notes, similarity {similarity:.3f}",
            "merged into one",
            other_id=b,
            other_text=docs[b].content[:TEXT],
            similarity=similarity,
            updated_at={i: docs[i].updated_at for i in (a, b)},
        )
        for a, b, similarity in _greedy(pairs)
    ]


def _queue_left(run: Run, left: list[LeftPair], threshold: float) -> None:
    if left:
        rows = [(r.note_id, r.other_id, r.similarity) for r in left]
        duplicates_scan(run=run, threshold=threshold, rows=rows)


def auto_consolidation_job(
    run: Run, progress: Progress
) -> ConsolidationSkipped | ConsolidationPlanned | ConsolidationDone:
    """Merge every pair above the threshold whose texts do not differ in a value, with
    the simple merge, each merge audited and undoable; the flagged pairs are left for
    review. Runs only when there are more than QQ_MAX_WORKING_NOTES notes, unless
    ``force``. A dry run keeps the plan and queues nothing."""
    dedup = deduplicator()
    params = AutoConsolidationParams.model_validate(run.params)
    if not params.force and not dedup.should_consolidate():
        return ConsolidationSkipped(
            f"{dedup.store.count()} notes, not more than "
            f"{settings.QQ_MAX_WORKING_NOTES} (QQ_MAX_WORKING_NOTES)"
        )
    found = dedup.find_similar_ids(params.threshold)
    mergeable, left, docs = pairs_split(found, params.merge)
    of_notes = dedup.store.count()
    if run.dry_run:
        plan = consolidation_plan(mergeable, docs)
        run.plan = plan_to_json(plan)
        progress(len(found), len(found))
        return ConsolidationPlanned(of_notes, len(found), len(plan), len(left), left[:LEFT_LISTED])
    _queue_left(run, left, params.threshold)
    done = _merge_all(run, consolidation_plan(mergeable, docs), progress)
    return ConsolidationDone(
        of_notes,
        len(found),
        len(left),
        left[:LEFT_LISTED],
        merged=done.merged,
        changed_since_plan=done.changed_since_plan,
        gone=done.gone,
        failed=len(done.errors),
        errors=done.errors[:10],
    )


def _merge_all(run: Run, items: list[PairItem], progress: Progress) -> MergesApplied:
    use_llm = bool(run.params.get("use_llm"))
    stats = MergesApplied(len(items))
    for index, item in enumerate(items, start=1):
        try:
            pair_merge(
                actor=run_actor(run),
                note_a_id=item.note_id,
                note_b_id=item.other_id,
                similarity=item.similarity,
                use_llm=use_llm,
                batch_id=run_batch(run),
                expected_updated_at=dict(item.updated_at),
            )
            stats.merged += 1
        except StaleWrite:
            stats.changed_since_plan += 1
        except NoteNotFound:
            stats.gone += 1
        except (InvalidInput, DimensionMismatch) as e:
            stats.errors.append(f"{item.note_id} + {item.other_id}: {e}")
        if index % 20 == 0 or index == len(items):
            progress(index, len(items))
    return stats


def consolidation_apply(run: Run, items: list[PairItem], progress: Progress) -> MergesApplied:
    """Merge exactly the planned pairs (each only if unchanged since the plan) and queue
    the pairs the dry run left for review (the plan's run, or this run's own plan when it
    planned first: ``pins_first``)."""
    plan_run = (
        Run.objects.filter(pk=run.plan_of_id).only("stats").first() if run.plan_of_id else run
    )
    rows = (plan_run.stats or {}).get("left") or [] if plan_run is not None else []
    left = [LeftPair.from_json(row) for row in rows]
    _queue_left(run, left, float(run.params.get("threshold") or 1.0))
    stats = _merge_all(run, items, progress)
    stats.errors = stats.errors[:10]
    stats.left_for_review = len(left)
    return stats
