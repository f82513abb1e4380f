"""Plans of the destructive jobs (archival pass, archive purge, decay; auto-consolidation's
are in consolidation.py).

A dry run of one of them keeps its plan on the run (``Run.plan``): one item per
note it would change, each ``{"note_id", "text", "before", "after", "guard"}``, where
``guard`` holds what the note was when it was planned. Applying the plan (a run with
``plan_of``) changes exactly those notes, by id, each with the compare-and-set guard of
its store operation: a note that changed since the plan, or is gone, is skipped and
counted (``changed_since_plan``, ``gone``), never changed on a newer state the curator
did not see. Nothing outside the plan is touched."""

from __future__ import annotations

from datetime import datetime
from typing import Any

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
from qqweb.audit.snapshots import from_json, to_json
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Progress, run_actor, run_batch

TEXT = 200  # characters of each note's text kept in the plan, for the table


def _text(note: Note | None) -> str:
    return note.content[:TEXT] if note is not None else ""


def _when(value: Any) -> datetime | None:
    decoded = from_json(value)
    return decoded if isinstance(decoded, datetime) else None


def _apply_stats(items: list[dict[str, Any]], done_key: str) -> dict[str, Any]:
    return {"planned": len(items), done_key: 0, "changed_since_plan": 0, "gone": 0}


# --- archival -------------------------------------------------------------------------------


def archival_plan(candidates: list[tuple[str, float]]) -> list[dict[str, Any]]:
    docs: dict[str, Note] = {}
    ids = [note_id for note_id, _ in candidates]
    for start in range(0, len(ids), 1000):
        docs.update(notes_store().notes_by_ids(ids[start : start + 1000]))
    return [
        {
            "note_id": note_id,
            "text": _text(docs.get(note_id)),
            "before": f"effective importance {value:.3f}",
            "after": "archived",
            "guard": {
                "updated_at": to_json(docs[note_id].updated_at),
                "value": value,
            },
        }
        for note_id, value in candidates
        if note_id in docs
    ]


def archival_apply(run: Run, items: list[dict[str, Any]], progress: Progress) -> dict[str, Any]:
    stats = _apply_stats(items, "archived")
    for index, item in enumerate(items, start=1):
        guard = item["guard"]
        try:
            note_archive(
                actor=run_actor(run),
                note_id=item["note_id"],
                reason=f"importance_decay_{guard['value']:.3f}",
                batch_id=run_batch(run),
                expected_updated_at=_when(guard["updated_at"]),
            )
            stats["archived"] += 1
        except StaleWrite:
            stats["changed_since_plan"] += 1
        except NoteNotFound:
            stats["gone"] += 1
        if index % 50 == 0 or index == len(items):
            progress(index, len(items))
    return stats


# --- decay ----------------------------------------------------------------------------------


def decay_plan_items(batch: DecayBatch) -> list[dict[str, Any]]:
    return [
        {
            "note_id": plan.note_id,
            "text": "",
            "before": f"{plan.expected_importance:.3f}",
            "after": f"{plan.new_importance:.3f}",
            "guard": {
                "expected": plan.expected_importance,
                "base": plan.base,
                "new": plan.new_importance,
                "prev": to_json(
                    {f: doc.get(f) for f in ("importance", "updated_at", BASE_FIELD, DECAYED_FIELD)}
                ),
            },
        }
        for doc, plan in batch
    ]


def decay_apply(run: Run, items: list[dict[str, Any]], progress: Progress) -> dict[str, Any]:
    """Write the planned values, each only where the importance is still the planned one."""
    store = notes_store()
    stats = _apply_stats(items, "written")
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        plans = [
            DecayWrite(i["note_id"], i["guard"]["expected"], i["guard"]["base"], i["guard"]["new"])
            for i in chunk
        ]
        before = {i["note_id"]: from_json(i["guard"]["prev"]) for i in chunk}
        event = audit_begin(
            run_actor(run), "notes.decay", "notes", f"{len(chunk)} notes", before, run_batch(run)
        )

        def write(plans: list[DecayWrite] = plans) -> dict[str, float]:
            written = store.apply_decay(plans, utcnow_naive())
            stats["written"] += written
            stats["changed_since_plan"] += len(plans) - written
            return {p.note_id: p.new_importance for p in plans}

        audited(event, write)
        progress(min(start + BATCH, len(items)), len(items))
    return stats


# --- archive purge --------------------------------------------------------------------------


def purge_plan(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "note_id": str(line.get("note_id", "")),
            "text": str(line.get("content", ""))[:TEXT],
            "before": f"archived {str(line.get('archived_at', ''))[:10]} "
            f"({line.get('reason', '')})",
            "after": "dropped from archive.jsonl",
            "guard": {"entry": line},
        }
        for line in lines
    ]


def purge_apply(run: Run, items: list[dict[str, Any]], progress: Progress) -> dict[str, Any]:
    """Drop exactly the planned lines; a line restored or gone since is kept and counted."""
    result = archive_purge(
        actor=run_actor(run),
        days=int(run.params.get("days", 0)),
        planned=[i["guard"]["entry"] for i in items],
        batch_id=run_batch(run),
    )
    progress(len(items), len(items))
    return {
        "planned": len(items),
        "dropped": result["dropped"],
        "changed_since_plan": len(result.get("kept", [])),
        "gone": 0,
    }
