"""The notes jobs: kind, title, what it does, its parameters, its work; registered with the
jobs app (:mod:`qqweb.jobs.registry`) by ``MemoryAppConfig.ready()``. A destructive job's
run started with dry_run false plans first and waits for review when its plan would lose a
pinned recall (:mod:`.pins_first`)."""

from __future__ import annotations

from memory_app.notes.job_params import (
    ArchivalParams,
    ArchivePurgeParams,
    AutoConsolidationParams,
    DedupScanParams,
    ReembedParams,
)
from memory_app.notes.job_plans import ArchivalItem, DecayItem, PairItem, PurgeItem
from memory_app.notes.selectors.plans import plan_changed_count
from memory_app.notes.services.jobs.consolidation import (
    auto_consolidation_job,
    consolidation_apply,
)
from memory_app.notes.services.jobs.notes_jobs import (
    archival_job,
    decay_job,
    dedup_scan_job,
    promotion_scan_job,
    purge_job,
    reembed_job,
    vector_index_rebuild_job,
)
from memory_app.notes.services.jobs.pins_first import pins_first
from memory_app.notes.services.jobs.plans import (
    archival_apply,
    decay_apply,
    purge_apply,
)
from qqweb.jobs.registry import Job, PlanApply

# each destructive job's apply: of a dry run's plan, or of its own (pins_first)
DECAY_APPLY = PlanApply(DecayItem.to_apply, decay_apply)
ARCHIVAL_APPLY = PlanApply(ArchivalItem.to_apply, archival_apply)
PURGE_APPLY = PlanApply(PurgeItem.to_apply, purge_apply)
CONSOLIDATION_APPLY = PlanApply(PairItem.to_apply, consolidation_apply)

NOTES_JOBS: tuple[Job, ...] = (
    Job(
        "decay",
        "Decay pass",
        "Write each note's effective importance back with its own decay rate; never "
        "compounds, respects the agent's own changes. The dry run also counts the notes "
        "the agent's own decay command (0.01 for all, compounding) would treat "
        "differently.",
        pins_first(decay_job, DECAY_APPLY),
        apply=DECAY_APPLY,
        plan_changed=plan_changed_count,
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
        "Archive notes whose effective importance is below the threshold (the archive "
        "threshold setting by default).",
        pins_first(archival_job, ARCHIVAL_APPLY),
        apply=ARCHIVAL_APPLY,
        plan_changed=plan_changed_count,
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
        "Drop archive lines older than the given number of days (the archive's "
        "retention setting by default).",
        pins_first(purge_job, PURGE_APPLY),
        apply=PURGE_APPLY,
        plan_changed=plan_changed_count,
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
        "(0.95 by default): a pair whose texts differ in a value, contradict each other "
        "or are worded differently is left for review (off by default; runs only when "
        "the agent holds more notes than its working limit, unless forced).",
        pins_first(auto_consolidation_job, CONSOLIDATION_APPLY),
        apply=CONSOLIDATION_APPLY,
        plan_changed=plan_changed_count,
        params=AutoConsolidationParams,
    ),
    Job(
        "vector_index_rebuild",
        "Vector index rebuild",
        "Rebuild the in-process search index in every process.",
        vector_index_rebuild_job,
    ),
)
