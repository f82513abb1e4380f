"""Maintenance jobs: each one a service that works in batches, honours a dry run, reports
progress, audits its changes with the job as actor under the run's batch id (so the whole
run can be undone from the audit log), and does nothing twice when run again.

A job function takes the run and a progress callback and returns its stats. The Celery
task, the maintenance page, the API and the management commands all start jobs through
:func:`job_run`, which holds the job's lock while it runs.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, PeriodicTask
from django_celery_beat.validators import crontab_validator

from graph_app.knowledge import GraphUnavailable
from graph_app.stores import graph_store
from memory_app.job_params import (
    ArchivalParams,
    ArchivePurgeParams,
    AutoConsolidationParams,
    DedupScanParams,
    JobParams,
    NoParams,
    ReembedParams,
    params_validate,
)
from memory_app.memory import InvalidNote, NoteNotFound, StoreUnavailable
from memory_app.memory.documents import utcnow_naive
from memory_app.memory.errors import StaleWrite
from memory_app.memory.importance import BASE_FIELD, DECAYED_FIELD
from memory_app.memory.mongo import EmbeddingWrite
from memory_app.memory.mongo.scans import DecayBatch
from memory_app.models import JobLock, MaintenanceRun
from memory_app.selectors import promotion_candidates
from memory_app.services.archive import archive_purge
from memory_app.services.notes import note_archive, pair_merge
from memory_app.services.review import duplicates_scan
from memory_app.services.runs import run_failed, run_finished, run_progress, run_started
from memory_app.stores import deduplicator, notes_store
from qqweb.actors import Actor
from qqweb.audit.services import audit_begin, audited
from qqweb.clients import embedder

Progress = Callable[[int, int | None], None]
BATCH = 500
LOCK_TTL = timedelta(minutes=10)


class JobBusy(InvalidNote):
    def __init__(self, kind: str, run_id: int) -> None:
        super().__init__("job", f"{kind} is running already (run {run_id}); wait for it")


@dataclass(frozen=True)
class Job:
    kind: str
    title: str
    description: str
    work: Callable[[MaintenanceRun, Progress], dict[str, Any]]
    params: type[JobParams] = NoParams  # its parameters, declared once (job_params.py)


def _actor(run: MaintenanceRun) -> Actor:
    return Actor.job(run.kind)


def _batch(run: MaintenanceRun) -> uuid.UUID:
    return run.batch_id if isinstance(run.batch_id, uuid.UUID) else uuid.UUID(str(run.batch_id))


# --- decay ---------------------------------------------------------------------------------


def decay_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
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
            _actor(run), "notes.decay", "notes", f"{len(batch)} notes", before, _batch(run)
        )
        written: list[int] = []

        def write() -> dict[str, float]:
            written.append(apply())
            return {plan.note_id: plan.new_importance for _, plan in batch}

        audited(event, write)
        return written[0]

    report = store.decay_walk(
        now,
        dry_run=run.dry_run,
        batch_size=BATCH,
        write=audit_batch,
        progress=lambda scanned: progress(scanned, max(total, scanned)),
    )
    return {
        "scanned": report.scanned,
        "changed": report.changed,
        "written": report.written,
        "sample": [list(row) for row in report.sample],
    }


def _undo_notes_decay(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Put back the importance of every note whose value is still the one the job wrote."""
    return {"restored": notes_store().restore_decayed(before, after)}


# --- archival, promotion, purge, dedup ------------------------------------------------------


def archival_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Archive every note whose effective importance is below QQ_ARCHIVE_THRESHOLD (or the
    run's ``threshold``), with the agent's reason ``importance_decay_<x.xxx>``."""
    threshold = ArchivalParams.model_validate(run.params).threshold
    candidates = notes_store().archival_candidates(threshold, utcnow_naive())
    stats: dict[str, Any] = {
        "threshold": threshold,
        "candidates": len(candidates),
        "archived": 0,
        "failed": 0,
        "sample": [i for i, _ in candidates[:10]],
    }
    for index, (note_id, value) in enumerate(candidates, start=1):
        if not run.dry_run:
            try:
                note_archive(
                    actor=_actor(run),
                    note_id=note_id,
                    reason=f"importance_decay_{value:.3f}",
                    batch_id=_batch(run),
                )
                stats["archived"] += 1
            except (NoteNotFound, StaleWrite):  # changed or gone meanwhile: it stays
                stats["failed"] += 1
        if index % 50 == 0:
            progress(index, len(candidates))
    progress(len(candidates), len(candidates))
    return stats


def promotion_scan_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Count the promotion candidates (the Core page lists them; verdicts are remembered)."""
    found = promotion_candidates(limit=1000)
    progress(len(found), len(found))
    return {"candidates": len(found), "sample": [c["note_id"] for c in found[:10]]}


def purge_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    days = ArchivePurgeParams.model_validate(run.params).days
    result = archive_purge(actor=_actor(run), days=days, dry_run=run.dry_run)
    progress(result["would_drop"], result["would_drop"])
    return result


def dedup_scan_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    threshold = DedupScanParams.model_validate(run.params).threshold
    if run.dry_run:
        pairs = deduplicator().find_similar_ids(threshold)
        progress(len(pairs), len(pairs))
        return {
            "pairs_found": len(pairs),
            "sample": [[a, b, round(s, 3)] for a, b, s in pairs[:10]],
        }
    return duplicates_scan(run=run, threshold=threshold, progress=progress)


# --- re-embed --------------------------------------------------------------------------------


def reembed_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Embed with the configured embedder: notes with no embedding or one of another
    dimension (``scope: missing``, the default), or every note (``scope: all``). Each write
    is conditional on ``updated_at``; the old vectors are kept in the audit event."""
    scope = ReembedParams.model_validate(run.params).scope
    model = embedder()
    dim = model.dimension
    store = notes_store()
    docs = store.notes_to_embed(dim, every_note=scope == "all")
    stats: dict[str, Any] = {
        "scope": scope,
        "dimension": dim,
        "candidates": len(docs),
        "embedded": 0,
        "sample": [d["note_id"] for d in docs[:10]],
    }
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
                _actor(run), "notes.reembed", "notes", f"{len(chunk)} notes", before, _batch(run)
            )

            def write(chunk: list[dict[str, Any]] = chunk, vectors: Any = vectors) -> Any:
                now = utcnow_naive()
                stats["embedded"] += store.write_embeddings(
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


def auto_consolidation_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """The agent's behaviour, for those who want it (not scheduled by default): merge every
    pair above the threshold with the simple merge, each merge audited and undoable. Runs
    only when there are more than QQ_MAX_WORKING_NOTES notes, unless ``force``."""
    dedup = deduplicator()
    params = AutoConsolidationParams.model_validate(run.params)
    threshold = params.threshold
    if not params.force and not dedup.should_consolidate():
        return {
            "skipped": f"{dedup.store.count()} notes, not more than "
            f"{settings.QQ_MAX_WORKING_NOTES} (QQ_MAX_WORKING_NOTES)"
        }

    def merge(a: str, b: str, similarity: float) -> bool:
        pair_merge(
            actor=_actor(run), note_a_id=a, note_b_id=b, similarity=similarity, batch_id=_batch(run)
        )
        return True

    report = dedup.consolidation_walk(
        merge,
        threshold=threshold,
        dry_run=run.dry_run,
        tolerate=(NoteNotFound, StaleWrite, InvalidNote),
        progress=progress,
    )
    progress(report.pairs_found, report.pairs_found)
    return {
        "pairs_found": report.pairs_found,
        "merged": report.consolidated,
        "failed": len(report.errors),
        "errors": report.errors[:10],
        "sample": [[a, b, round(s, 3)] for a, b, s in report.sample],
    }


def vector_index_rebuild_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Drop the in-process vector indexes (every web and worker process notices this run
    and rebuilds on its next search) and rebuild this process's one now."""
    store = notes_store()
    if run.dry_run:
        return {"would_index": store.count()}
    store.vector_index.refresh(force=True, reload=True)
    dims = store.vector_index.dimensions()
    progress(sum(dims.values()), sum(dims.values()))
    return {"indexed": sum(dims.values()), "dimensions": {str(k): v for k, v in dims.items()}}


def graph_orphan_scan_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Entities with no relationship to another entity (provenance does not count)."""
    try:
        orphans = graph_store().orphans(limit=1000)
    except GraphUnavailable as e:
        raise StoreUnavailable("neo4j", e.message) from e
    progress(len(orphans), len(orphans))
    return {"orphans": len(orphans), "sample": [f"{o['label']}:{o['name']}" for o in orphans[:10]]}


def graph_reembed_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Embed ``"name: description"`` for entities whose embedding is missing or of another
    dimension than the configured model's; the old vectors go into the audit event."""
    model = embedder()
    store = graph_store()
    try:
        todo = store.entities_to_embed(model.dimension)
    except GraphUnavailable as e:
        raise StoreUnavailable("neo4j", e.message) from e
    stats: dict[str, Any] = {
        "candidates": len(todo),
        "embedded": 0,
        "sample": [f"{e['label']}:{e['name']}" for e in todo[:10]],
    }
    for start in range(0, len(todo), 64):
        chunk = todo[start : start + 64]
        if not run.dry_run:
            vectors = model.embed([f"{e['name']}: {e['description']}" for e in chunk])
            event = audit_begin(
                _actor(run),
                "graph.reembed",
                "graph",
                f"{len(chunk)} entities",
                {e["id"]: e["embedding"] for e in chunk},
                _batch(run),
            )

            def write(chunk: list[dict[str, Any]] = chunk, vectors: Any = vectors) -> Any:
                rows = [
                    {"id": e["id"], "embedding": [float(x) for x in v]}
                    for e, v in zip(chunk, vectors, strict=True)
                ]
                stats["embedded"] += store.set_embeddings(rows)
                return {"ids": [e["id"] for e in chunk]}

            audited(event, write)
        progress(min(start + 64, len(todo)), len(todo))
    return stats


def _undo_graph_reembed(before: dict[str, Any], after: Any) -> dict[str, Any]:
    rows = [{"id": element_id, "embedding": vector} for element_id, vector in before.items()]
    return {"restored": graph_store().set_embeddings(rows)}


JOBS: dict[str, Job] = {
    job.kind: job
    for job in (
        Job(
            "decay",
            "Decay pass",
            "Write each note's effective importance back; never "
            "compounds, respects the agent's own changes.",
            decay_job,
        ),
        Job(
            "dedup_scan",
            "Dedup scan",
            "Fill the review queue with near-duplicate pairs.",
            dedup_scan_job,
            params=DedupScanParams,
        ),
        Job(
            "archival",
            "Archival pass",
            "Archive notes whose effective importance is below QQ_ARCHIVE_THRESHOLD.",
            archival_job,
            params=ArchivalParams,
        ),
        Job(
            "promotion_scan",
            "Promotion scan",
            "Find notes worth promoting to core.md.",
            promotion_scan_job,
        ),
        Job(
            "archive_purge",
            "Archive purge",
            "Drop archive lines older than QQ_ARCHIVE_RETENTION_DAYS.",
            purge_job,
            params=ArchivePurgeParams,
        ),
        Job(
            "reembed",
            "Re-embed",
            "Embed notes with no embedding or a wrong dimension with the configured model.",
            reembed_job,
            params=ReembedParams,
        ),
        Job(
            "auto_consolidation",
            "Auto-consolidation",
            "The agent's own merge of every pair above the threshold (off by default; runs "
            "above QQ_MAX_WORKING_NOTES).",
            auto_consolidation_job,
            params=AutoConsolidationParams,
        ),
        Job(
            "vector_index_rebuild",
            "Vector index rebuild",
            "Rebuild the in-process search index in every process.",
            vector_index_rebuild_job,
        ),
        Job(
            "graph_orphan_scan",
            "Graph orphan scan",
            "Find entities with no relationship to another entity.",
            graph_orphan_scan_job,
        ),
        Job(
            "graph_reembed",
            "Graph re-embed",
            "Embed entities whose embedding is missing or of another dimension.",
            graph_reembed_job,
        ),
    )
}


# --- running a job ---------------------------------------------------------------------------


def job_create(
    *,
    kind: str,
    actor: Actor,
    dry_run: bool = False,
    params: Mapping[str, Any] | JobParams | None = None,
) -> MaintenanceRun:
    """A queued run of ``kind``. ``params`` is validated with the job's schema (raising
    InvalidJobParams naming each bad one) and stored whole, the settings' values filled in
    for what was left out, so the run records what it will use."""
    if kind not in JOBS:
        raise InvalidNote("job", f"must be one of {', '.join(JOBS)}")
    valid = params_validate(JOBS[kind].params, params)
    return MaintenanceRun.objects.create(
        kind=kind, started_by=actor.label, params=valid.model_dump(mode="json"), dry_run=dry_run
    )


def _lock(run: MaintenanceRun) -> None:
    now = timezone.now()
    with transaction.atomic():
        JobLock.objects.filter(kind=run.kind, expires_at__lt=now).delete()
        lock = JobLock.objects.filter(kind=run.kind).first()
        if lock is not None and lock.run_id != run.pk:
            raise JobBusy(run.kind, lock.run_id)
        try:
            JobLock.objects.update_or_create(
                kind=run.kind, defaults={"run": run, "expires_at": now + LOCK_TTL}
            )
        except IntegrityError as e:
            raise JobBusy(run.kind, 0) from e


def _unlock(run: MaintenanceRun) -> None:
    JobLock.objects.filter(kind=run.kind, run=run).delete()


def job_run(
    *, run: MaintenanceRun, on_progress: Callable[[int, int | None], None] | None = None
) -> dict[str, Any]:
    """Run (or resume) a job under its lock. A store that is down raises StoreUnavailable
    for the caller to retry; anything else (a StoreError included: a bug) fails the run
    with the reason and is not retried."""
    _lock(run)
    run_started(run)

    def progress(done: int, total: int | None) -> None:
        run_progress(run, done, total)
        if on_progress is not None:
            on_progress(done, total)
        JobLock.objects.filter(kind=run.kind, run=run).update(expires_at=timezone.now() + LOCK_TTL)

    try:
        stats = JOBS[run.kind].work(run, progress)
    except StoreUnavailable:  # an outage: the caller retries (the run stays open)
        _unlock(run)
        raise
    except Exception as e:
        _unlock(run)
        run_failed(run, str(e))
        raise
    run_finished(run, stats)
    _unlock(run)
    return stats


UNDO_HANDLERS = {  # registered in MemoryAppConfig.ready()
    "notes.decay": _undo_notes_decay,
    "notes.reembed": _undo_notes_reembed,
    "graph.reembed": _undo_graph_reembed,
}


DEFAULT_SCHEDULES = (  # kind, minute, hour, day_of_week
    ("decay", "0", "3", "*"),
    ("dedup_scan", "30", "3", "*"),
    ("archival", "0", "4", "0"),
    ("archive_purge", "30", "4", "0"),
)


def schedules_ensure() -> int:
    """The default schedule (daily decay and dedup scan, weekly archival and purge), in
    django-celery-beat's tables where the Maintenance page edits it. Existing entries are
    left as the admin set them."""
    created = 0
    for kind, minute, hour, day_of_week in DEFAULT_SCHEDULES:
        name = f"qqweb: {JOBS[kind].title}"
        if PeriodicTask.objects.filter(name=name).exists():
            continue
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute=minute, hour=hour, day_of_week=day_of_week, day_of_month="*", month_of_year="*"
        )
        PeriodicTask.objects.create(
            name=name,
            task="memory_app.scheduled_job",
            crontab=crontab,
            kwargs=json.dumps({"kind": kind}),
        )
        created += 1
    return created


def schedule_update(
    *, task_id: int, minute: str, hour: str, day_of_week: str, enabled: bool
) -> None:
    try:
        crontab_validator(f"{minute} {hour} * * {day_of_week}")
    except Exception as e:  # the validator raises ValueError or ValidationError
        raise InvalidNote("schedule", f"not a valid crontab: {e}") from e
    task = PeriodicTask.objects.filter(pk=task_id, task="memory_app.scheduled_job").first()
    if task is None:
        raise InvalidNote("schedule", f"there is no schedule {task_id}")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute, hour=hour, day_of_week=day_of_week, day_of_month="*", month_of_year="*"
    )
    task.crontab, task.enabled = crontab, enabled
    task.save()
