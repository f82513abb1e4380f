"""The catalogue of jobs: kind, title, what it does, its parameters, its work."""

from __future__ import annotations

from memory_app.notes.errors import RunRefused
from memory_app.notes.job_params import (
    ArchivalParams,
    ArchivePurgeParams,
    AutoConsolidationParams,
    DedupScanParams,
    ReembedParams,
)
from memory_app.notes.services.maintenance.common import Job
from memory_app.notes.services.maintenance.consolidation import (
    auto_consolidation_job,
    consolidation_apply,
)
from memory_app.notes.services.maintenance.graph_jobs import (
    graph_orphan_scan_job,
    graph_reembed_job,
)
from memory_app.notes.services.maintenance.notes_jobs import (
    archival_job,
    decay_job,
    dedup_scan_job,
    promotion_scan_job,
    purge_job,
    reembed_job,
    vector_index_rebuild_job,
)
from memory_app.notes.services.maintenance.plans import (
    archival_apply,
    decay_apply,
    purge_apply,
)
from memory_app.notes.services.maintenance.undo import undo_run_job

JOBS: dict[str, Job] = {
    job.kind: job
    for job in (
        Job(
            "decay",
            "Decay pass",
            "Write each note's effective importance back with its own decay_rate; never "
            "compounds, respects the agent's own changes. The dry run also counts the notes "
            "the agent's own decay command (0.01 for all, compounding) would treat "
            "differently.",
            decay_job,
            apply=decay_apply,
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
            apply=archival_apply,
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
            apply=purge_apply,
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
            "The agent's merge of near-duplicates, only the copies above the threshold "
            "(QQ_CONSOLIDATION_THRESHOLD, 0.95): a pair whose texts differ in a value, "
            "contradict each other or are worded differently is left for review (off by "
            "default; runs above QQ_MAX_WORKING_NOTES).",
            auto_consolidation_job,
            apply=consolidation_apply,
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


UNDO_KIND = "undo"

# Runs that are not jobs of the catalogue (no page form, API route or command of their own).
HIDDEN_JOBS: dict[str, Job] = {
    UNDO_KIND: Job(
        UNDO_KIND,
        "Undo a run",
        "Undo every change a maintenance run made (its audit batch), newest first.",
        undo_run_job,
    )
}


# Runs that other parts of qqweb record as MaintenanceRuns (qqweb.backup: its exports and
# imports, run by its own task): each has a run page and can be cancelled; none has a plan
# to apply or work here.
RECORDED_KINDS: dict[str, str] = {"export": "Export", "import": "Import"}

# Every kind a MaintenanceRun may have.
RUN_KINDS: tuple[str, ...] = (*JOBS, *HIDDEN_JOBS, *RECORDED_KINDS)


def job_of(kind: str) -> Job:
    """The job that runs runs of ``kind``; refused (RunRefused) for a kind recorded by
    another part of qqweb (an export, an import), or unknown."""
    job = JOBS.get(kind) or HIDDEN_JOBS.get(kind)
    if job is None:
        raise RunRefused(f"{kind!r} runs are not run by the maintenance jobs")
    return job


def kind_title(kind: str) -> str:
    job = JOBS.get(kind) or HIDDEN_JOBS.get(kind)
    return job.title if job is not None else RECORDED_KINDS.get(kind, kind)


def plan_job(kind: str) -> Job | None:
    """The destructive job whose dry runs of ``kind`` keep a plan to apply, or None."""
    job = JOBS.get(kind)
    return job if job is not None and job.apply is not None else None


def planning_kinds() -> list[str]:
    return [kind for kind in JOBS if plan_job(kind) is not None]
