"""The jobs over the notes: decay, archival, promotion scan, purge, dedup scan,
re-embed and the vector index rebuild (auto-consolidation: consolidation.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memory_app.notes.job_params import (
    ArchivalParams,
    ArchivePurgeParams,
    DedupScanParams,
    ReembedParams,
)
from memory_app.notes.job_plans import DecayItem, plan_to_json
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.importance import BASE_FIELD, DECAYED_FIELD
from memory_app.notes.lib.mongo import EmbeddingWrite
from memory_app.notes.lib.mongo.scans import DecayBatch
from memory_app.notes.selectors import promotion_candidates
from memory_app.notes.services.archive import archive_purge
from memory_app.notes.services.dedup_scan import (
    clock_margin,
    duplicates_find_shared,
    last_complete_scan,
)
from memory_app.notes.services.jobs.common import BATCH
from memory_app.notes.services.jobs.plans import (
    archival_plan,
    decay_plan_items,
    purge_plan,
)
from memory_app.notes.services.notes import note_archive
from memory_app.notes.services.review import duplicates_scan
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.services import audit_begin, audited
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Progress, run_actor, run_batch
from qqweb.lib.clients import embedder

# --- what the jobs report (the run's stats) ---------------------------------------------------


@dataclass(frozen=True)
class DecayResult:
    of_notes: int
    scanned: int
    changed: int
    written: int
    # what the agent's own decay command (0.01 for every note, compounding) would
    # write differently: the Jobs page and the run page explain these
    agent_differs: int
    agent_differs_rate: int
    agent_differs_compounding: int
    sample: list[list[Any]]  # [note id, before, after] of the first notes changed


@dataclass
class ArchivalResult:
    threshold: float
    of_notes: int
    candidates: int
    archived: int
    failed: int  # changed or gone meanwhile: they stay
    sample: list[str]  # the first candidates' ids


@dataclass(frozen=True)
class PromotionScanResult:
    candidates: int
    sample: list[str]


@dataclass
class ReembedResult:
    scope: str
    dimension: int
    candidates: int
    embedded: int
    sample: list[str]


@dataclass(frozen=True)
class IndexPlanned:
    would_index: int


@dataclass(frozen=True)
class IndexRebuilt:
    indexed: int
    dimensions: dict[str, int]  # vectors indexed, by dimension


# --- decay ---------------------------------------------------------------------------------


def decay_job(run: Run, progress: Progress) -> DecayResult:
    """Write the effective importance back, never compounding (see importance.py). One
    audit event per batch of changed notes, with the values before, for undo."""
    store = notes_store()
    now = utcnow_naive()
    total = store.count()

    def audit_batch(batch: DecayBatch, apply: Callable[[], int]) -> int:
        before = {
            doc["note_id"]: {
                field: doc.get(field)
                for field in ("importance", "updated_at", BASE_FIELD, DECAYED_FIELD)
            }
            for doc, _ in batch
        }
        event = audit_begin(
            run_actor(run), "notes.decay", "notes", f"{len(batch)} notes", before, run_batch(run)
        )
        written: list[int] = []

        def write() -> dict[str, float]:
            written.append(apply())
            return {plan.note_id: plan.new_importance for _, plan in batch}

        audited(event, write)
        return written[0]

    plan: list[DecayItem] = []
    report = store.decay_walk(
        now,
        dry_run=run.dry_run,
        batch_size=BATCH,
        write=audit_batch,
        progress=lambda scanned: progress(scanned, max(total, scanned)),
        on_batch=(lambda batch: plan.extend(decay_plan_items(batch))) if run.dry_run else None,
    )
    if run.dry_run:
        run.plan = plan_to_json(plan)
    return DecayResult(
        of_notes=total,
        scanned=report.scanned,
        changed=report.changed,
        written=report.written,
        agent_differs=report.agent_differs,
        agent_differs_rate=report.agent_differs_rate,
        agent_differs_compounding=report.agent_differs_compounding,
        sample=[list(row) for row in report.sample],
    )


def _undo_notes_decay(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Put back the importance of every note whose value is still the one the job wrote."""
    return {"restored": notes_store().restore_decayed(before, after)}


# --- archival, promotion, purge, dedup ------------------------------------------------------


def archival_job(run: Run, progress: Progress) -> ArchivalResult:
    """Archive every note whose effective importance is below QQ_ARCHIVE_THRESHOLD (or the
    run's ``threshold``), with the agent's reason ``importance_decay_<x.xxx>``."""
    threshold = ArchivalParams.model_validate(run.params).threshold
    candidates = notes_store().archival_candidates(threshold, utcnow_naive())
    if run.dry_run:
        run.plan = plan_to_json(archival_plan(candidates))
    stats = ArchivalResult(
        threshold=threshold,
        of_notes=notes_store().count(),
        candidates=len(candidates),
        archived=0,
        failed=0,
        sample=[i for i, _ in candidates[:10]],
    )
    for index, (note_id, value) in enumerate(candidates, start=1):
        if not run.dry_run:
            try:
                note_archive(
                    actor=run_actor(run),
                    note_id=note_id,
                    reason=f"importance_decay_{value:.3f}",
                    batch_id=run_batch(run),
                )
                stats.archived += 1
            except (NoteNotFound, StaleWrite):  # changed or gone meanwhile: it stays
                stats.failed += 1
        if index % 50 == 0:
            progress(index, len(candidates))
    progress(len(candidates), len(candidates))
    return stats


def promotion_scan_job(run: Run, progress: Progress) -> PromotionScanResult:
    """Count the promotion candidates (the Core page lists them; verdicts are remembered)."""
    found = promotion_candidates(limit=1000)
    progress(len(found), len(found))
    return PromotionScanResult(len(found), [c.note_id for c in found[:10]])


def purge_job(run: Run, progress: Progress) -> dict[str, Any]:
    days = ArchivePurgeParams.model_validate(run.params).days
    if run.dry_run:
        lines = [n.to_entry() for n in archive_manager().plan_purge(days).lines]
        run.plan = plan_to_json(purge_plan(lines))
    result = archive_purge(
        actor=run_actor(run), days=days, dry_run=run.dry_run, batch_id=run_batch(run)
    )
    progress(result["would_drop"], result["would_drop"])
    return {**result, "of_lines": len(archive_manager().read().notes)}


def dedup_scan_job(run: Run, progress: Progress) -> dict[str, Any]:
    """The scan, in blocks every worker shares (services.dedup_scan): incremental (the
    notes changed since the last complete scan against every note) unless ``full`` is
    asked or there is no complete scan yet. Progress counts the blocks, then the pairs
    queued for review; the stats say which kind ran and how many notes it compared."""
    params = DedupScanParams.model_validate(run.params)
    mark = None if params.full else last_complete_scan(threshold=params.threshold)
    since = None if mark is None or mark.started_at is None else mark.started_at - clock_margin()
    found = duplicates_find_shared(
        run=run, threshold=params.threshold, progress=progress, since=since
    )
    kind = _scan_kind(found.notes, found.changed, mark, asked_full=params.full)
    pairs = found.pairs
    if run.dry_run:
        progress(len(pairs), len(pairs))
        return {
            **kind,
            "pairs_found": len(pairs),
            "sample": [[a, b, round(s, 3)] for a, b, s in pairs[:10]],
            **found.stats,
        }
    stats = duplicates_scan(run=run, threshold=params.threshold, progress=progress, rows=pairs)
    return {**kind, **stats, **found.stats}


def _scan_kind(
    notes: int, changed: int | None, mark: Run | None, *, asked_full: bool
) -> dict[str, Any]:
    """What the run page says: which kind ran, why, and how many notes it compared."""
    if changed is None or mark is None:
        if asked_full:
            why = "asked"
        elif mark is None:
            why = "no complete scan at this threshold or lower yet"
        else:
            why = f"more than half the notes changed since run {mark.pk}"
        return {
            "scan": "full",
            "full_because": why,
            "notes": notes,
            "compared": f"{notes:,} notes, each against every other",
        }
    return {
        "scan": "incremental",
        "changed_since_run": mark.pk,
        "changed_notes": changed,
        "notes": notes,
        "compared": f"{changed:,} changed note{'s' if changed != 1 else ''} against {notes:,}",
    }


# --- re-embed --------------------------------------------------------------------------------


def reembed_job(run: Run, progress: Progress) -> ReembedResult:
    """Embed with the configured embedder: notes with no embedding or one of another
    dimension (``scope: missing``, the default), or every note (``scope: all``). Each write
    is conditional on ``updated_at``; the old vectors are kept in the audit event."""
    scope = ReembedParams.model_validate(run.params).scope
    model = embedder()
    dim = model.dimension
    store = notes_store()
    docs = store.notes_to_embed(dim, every_note=scope == "all")
    stats = ReembedResult(
        scope=scope,
        dimension=dim,
        candidates=len(docs),
        embedded=0,
        sample=[d["note_id"] for d in docs[:10]],
    )
    for start in range(0, len(docs), 64):
        chunk = docs[start : start + 64]
        if not run.dry_run:
            vectors = model.embed([str(d.get("content", "")) for d in chunk])
            before = {
                d["note_id"]: {
                    "embedding": d.get("embedding") or [],
                    "updated_at": d.get("updated_at"),
                }
                for d in chunk
            }
            event = audit_begin(
                run_actor(run),
                "notes.reembed",
                "notes",
                f"{len(chunk)} notes",
                before,
                run_batch(run),
            )

            def write(chunk: list[dict[str, Any]] = chunk, vectors: Any = vectors) -> Any:
                now = utcnow_naive()
                stats.embedded += store.write_embeddings(
                    [
                        EmbeddingWrite(d["note_id"], d.get("updated_at"), list(v), now)
                        for d, v in zip(chunk, vectors, strict=True)
                    ]
                )
                return {"updated_at": now, "note_ids": [d["note_id"] for d in chunk]}

            audited(event, write)
        progress(min(start + 64, len(docs)), len(docs))
    return stats


def _undo_notes_reembed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    writes = [
        EmbeddingWrite(note_id, after["updated_at"], values["embedding"], values["updated_at"])
        for note_id, values in before.items()
    ]
    return {"restored": notes_store().write_embeddings(writes)}


# --- consolidation, index, graph --------------------------------------------------------------


def vector_index_rebuild_job(run: Run, progress: Progress) -> IndexPlanned | IndexRebuilt:
    """Drop the in-process vector indexes (every web and worker process notices this run
    and rebuilds on its next search) and rebuild this process's one now."""
    store = notes_store()
    if run.dry_run:
        return IndexPlanned(store.count())
    store.vector_index.refresh(force=True, reload=True)
    dims = store.vector_index.dimensions()
    progress(sum(dims.values()), sum(dims.values()))
    return IndexRebuilt(sum(dims.values()), {str(k): v for k, v in dims.items()})


UNDO_HANDLERS = {
    "notes.decay": _undo_notes_decay,
    "notes.reembed": _undo_notes_reembed,
}
