"""Plans of the destructive jobs (archival pass, archive purge, decay; auto-consolidation's
are in consolidation.py).

A dry run of one of them keeps its plan on the run (``Run.plan``): one item per
note it would change (:mod:`memory_app.notes.job_plans`: a typed item here, the JSON
``{"note_id", "text", "before", "after", "guard"}`` on the run), where the guard
holds what the note was when it was planned. Applying the plan (a run with
``plan_of``) changes exactly those notes, by id, each with the compare-and-set guard of
its store operation: a note that changed since the plan, or is gone, is skipped and
counted (``changed_since_plan``, ``gone``), never changed on a newer state the curator
did not see. Nothing outside the plan is touched."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory_app.notes.job_plans import ArchivalItem, DecayItem, PurgeItem
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.importance import BASE_FIELD, DECAYED_FIELD, DecayWrite
from memory_app.notes.lib.mongo.scans import DecayBatch
from memory_app.notes.services.archive import archive_purge
from memory_app.notes.services.jobs.common import BATCH
from memory_app.notes.services.notes import note_archive
from memory_app.notes.stores import notes_store
from qqweb.audit.services import audit_begin, audited
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Progress, run_actor, run_batch

TEXT = 200  # characters of each note's text kept in the plan, for the table


def _text(note: Note | None) -> str:
    return note.content[:TEXT] if note is not None else ""


# What applying a plan did (the run's stats): how many were planned, done, skipped.


@dataclass
class ArchivalApplied:
    planned: int
    archived: int = 0
    changed_since_plan: int = 0  # changed since the plan: left as they are
    gone: int = 0


@dataclass
class DecayApplied:
    planned: int
    written: int = 0
    changed_since_plan: int = 0
    gone: int = 0


@dataclass
class PurgeApplied:
    planned: int
    dropped: int = 0
    changed_since_plan: int = 0  # lines restored or changed since: kept
    gone: int = 0


@dataclass
class MergesApplied:
    planned: int
    merged: int = 0
    changed_since_plan: int = 0
    gone: int = 0
    errors: list[str] = field(default_factory=list)  # the first ten
    left_for_review: int = 0  # pairs the dry run left for review, queued by the apply


# --- archival -------------------------------------------------------------------------------


def archival_plan(candidates: list[tuple[str, float]]) -> list[ArchivalItem]:
    docs: dict[str, Note] = {}
    ids = [note_id for note_id, _ in candidates]
    for start in range(0, len(ids), 1000):
        docs.update(notes_store().notes_by_ids(ids[start : start + 1000]))
    return [
        ArchivalItem(
            note_id,
            _text(docs.get(note_id)),
            f"effective importance {value:.3f}",
            "archived",
            updated_at=docs[note_id].updated_at,
            value=value,
        )
        for note_id, value in candidates
        if note_id in docs
    ]


def archival_apply(run: Run, items: list[ArchivalItem], progress: Progress) -> ArchivalApplied:
    stats = ArchivalApplied(len(items))
    for index, item in enumerate(items, start=1):
        try:
            note_archive(
                actor=run_actor(run),
                note_id=item.note_id,
                reason=f"importance_decay_{item.value:.3f}",
                batch_id=run_batch(run),
                expected_updated_at=item.updated_at,
            )
            stats.archived += 1
        except StaleWrite:
            stats.changed_since_plan += 1
        except NoteNotFound:
            stats.gone += 1
        if index % 50 == 0 or index == len(items):
            progress(index, len(items))
    return stats


# --- decay ----------------------------------------------------------------------------------


def decay_plan_items(batch: DecayBatch) -> list[DecayItem]:
    return [
        DecayItem(
            plan.note_id,
            "",
            f"{plan.expected_importance:.3f}",
            f"{plan.new_importance:.3f}",
            expected=plan.expected_importance,
            base=plan.base,
            new=plan.new_importance,
            prev={f: doc.get(f) for f in ("importance", "updated_at", BASE_FIELD, DECAYED_FIELD)},
        )
        for doc, plan in batch
    ]


def decay_apply(run: Run, items: list[DecayItem], progress: Progress) -> DecayApplied:
    """Write the planned values, each only where the importance is still the planned one."""
    store = notes_store()
    stats = DecayApplied(len(items))
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        plans = [DecayWrite(i.note_id, i.expected, i.base, i.new) for i in chunk]
        before = {i.note_id: i.prev for i in chunk}
        event = audit_begin(
            run_actor(run), "notes.decay", "notes", f"{len(chunk)} notes", before, run_batch(run)
        )

        def write(plans: list[DecayWrite] = plans) -> dict[str, float]:
            written = store.apply_decay(plans, utcnow_naive())
            stats.written += written
            stats.changed_since_plan += len(plans) - written
            return {p.note_id: p.new_importance for p in plans}

        audited(event, write)
        progress(min(start + BATCH, len(items)), len(items))
    return stats


# --- archive purge --------------------------------------------------------------------------


def purge_plan(lines: list[dict[str, Any]]) -> list[PurgeItem]:
    return [
        PurgeItem(
            str(line.get("note_id", "")),
            str(line.get("content", ""))[:TEXT],
            f"archived {str(line.get('archived_at', ''))[:10]} ({line.get('reason', '')})",
            "dropped from archive.jsonl",
            entry=line,
        )
        for line in lines
    ]


def purge_apply(run: Run, items: list[PurgeItem], progress: Progress) -> PurgeApplied:
    """Drop exactly the planned lines; a line restored or gone since is kept and counted."""
    result = archive_purge(
        actor=run_actor(run),
        days=int(run.params.get("days", 0)),
        planned=[i.entry for i in items],
        batch_id=run_batch(run),
    )
    progress(len(items), len(items))
    return PurgeApplied(
        len(items), dropped=result["dropped"], changed_since_plan=len(result.get("kept", []))
    )
