"""Audited merges of two notes: the contract's merge (or with a curator's text), and
"keep the newer text" (supersede) for a pair that is an old and a new value of one fact.
Both write in the merge's crash-safe order and are undone by one handler, which also
puts the review queue's pair back to pending."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import numpy as np

from memory_app.notes.errors import InvalidMerge
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.dedup.maths import MergePlan, newer_and_older, plan_supersede
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.grace import with_grace
from memory_app.notes.lib.mongo import MERGED_IDS_FIELD
from memory_app.notes.lib.mongo.writes import merged_ids
from memory_app.notes.models import ReviewPair
from memory_app.notes.selectors.archive import grace_until
from memory_app.notes.services.common import same_time
from memory_app.notes.stores import archive_manager, deduplicator, notes_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_begin, audited
from qqweb.audit.snapshots import from_json
from qqweb.lib.actors import Actor
from qqweb.lib.vectors import normalise


def pair_merge(
    *,
    actor: Actor,
    note_a_id: str,
    note_b_id: str,
    primary_id: str | None = None,
    content: str | None = None,
    similarity: float | None = None,
    use_llm: bool = False,
    batch_id: uuid.UUID | None = None,
    expected_updated_at: Mapping[str, datetime | None] | None = None,
) -> Note:
    """Merge two notes the contract's way (or with a curator's text); crash-safe order.
    (:func:`pair_merge_audited` also returns its audit event.)"""
    return pair_merge_audited(
        actor=actor,
        note_a_id=note_a_id,
        note_b_id=note_b_id,
        primary_id=primary_id,
        content=content,
        similarity=similarity,
        use_llm=use_llm,
        batch_id=batch_id,
        expected_updated_at=expected_updated_at,
    )[0]


def pair_merge_audited(
    *,
    actor: Actor,
    note_a_id: str,
    note_b_id: str,
    primary_id: str | None = None,
    content: str | None = None,
    similarity: float | None = None,
    use_llm: bool = False,
    batch_id: uuid.UUID | None = None,
    expected_updated_at: Mapping[str, datetime | None] | None = None,
) -> tuple[Note, AuditEvent]:
    """Merge two notes the contract's way (or with a curator's text); crash-safe order.
    ``use_llm`` (without a curator's text) asks the configured LLM (QQ_LLM_URL) for the
    merged text and, when it does not answer, keeps the simple merge, as the agent does.
    ``expected_updated_at`` (a plan's, by note id): a note changed since is refused
    (StaleWrite) before anything is written."""
    store = notes_store()
    a, b = store.note(note_a_id), store.note(note_b_id)
    resumed = _interrupted_merge_finished("pair.merge", {note_a_id: a, note_b_id: b})
    if resumed is not None:
        return resumed
    for note_id, note in ((note_a_id, a), (note_b_id, b)):
        if note is None:
            raise NoteNotFound(note_id)
        if expected_updated_at is not None and note_id in expected_updated_at:
            planned = expected_updated_at[note_id]
            if planned is not None and not same_time(note.updated_at, planned):
                raise StaleWrite(note_id, note.to_document())
    assert a is not None and b is not None
    if note_a_id == note_b_id:
        raise InvalidMerge("note_b_id", "a note cannot be merged with itself")
    if primary_id is not None and primary_id not in (note_a_id, note_b_id):
        raise InvalidMerge("primary_id", "must be one of the two notes")
    dedup = deduplicator()
    if content is None and use_llm:
        content = dedup.llm_merge_text(*dedup.ordered(a, b, primary_id))
    plan = dedup.plan(
        a,
        b,
        similarity if similarity is not None else cosine(a, b),
        content=content,
        primary_id=primary_id,
    )
    primary, secondary = (a, b) if plan.primary_id == note_a_id else (b, a)
    dedup.check_reembed(plan, primary)  # a new text must keep the primary's dimension
    return merge_write(actor, "pair.merge", plan, primary, secondary, batch_id)


def pair_supersede(
    *,
    actor: Actor,
    note_a_id: str,
    note_b_id: str,
    similarity: float | None = None,
    batch_id: uuid.UUID | None = None,
) -> tuple[Note, AuditEvent]:
    """Keep the newer text of a pair that is an old and a new value of one fact: the
    newer note (written later, :func:`newer_and_older`) survives with its text, the older
    one is archived the merge's crash-safe way (``plan_supersede``). Audited as
    ``pair.supersede``, undone like a merge. InvalidMerge when neither note is newer."""
    store = notes_store()
    a, b = store.note(note_a_id), store.note(note_b_id)
    resumed = _interrupted_merge_finished("pair.supersede", {note_a_id: a, note_b_id: b})
    if resumed is not None:
        return resumed
    for note_id, note in ((note_a_id, a), (note_b_id, b)):
        if note is None:
            raise NoteNotFound(note_id)
    assert a is not None and b is not None
    if note_a_id == note_b_id:
        raise InvalidMerge("note_b_id", "a note cannot supersede itself")
    ordered = newer_and_older(a, b)
    if ordered is None:
        raise InvalidMerge("pair", "neither note is newer than the other: merge them instead")
    newer, older = ordered
    plan = plan_supersede(newer, older, similarity if similarity is not None else cosine(a, b))
    return merge_write(actor, "pair.supersede", plan, newer, older, batch_id)


def merge_write(
    actor: Actor,
    action: str,
    plan: MergePlan,
    primary: Note,
    secondary: Note,
    batch_id: uuid.UUID | None,
) -> tuple[Note, AuditEvent]:
    """Write a merge plan (a merge or a supersede) under an audit event of ``action``,
    whose ``before`` holds both notes' documents, exactly as read, and the plan: enough
    for ``_undo_pair_merge``."""
    before = {
        "primary": primary.to_document(),
        "secondary": secondary.to_document(),
        "plan": {
            "inc_access": plan.inc_access,
            "pushed_source": plan.pushed_source,
            "archive_reason": plan.archive_reason,
        },
    }
    event = audit_begin(actor, action, "note", plan.primary_id, before, batch_id)

    def write() -> dict[str, Any]:
        deduplicator().apply_merge(plan, archive_manager())
        return notes_store().get_full_note(plan.primary_id) or {}

    audited(event, write)
    note = notes_store().note(plan.primary_id)
    if note is None:
        raise NoteNotFound(plan.primary_id)
    return note, event


def _interrupted_merge_finished(
    action: str, notes: dict[str, Note | None]
) -> tuple[Note, AuditEvent] | None:
    """A retry of a merge whose earlier try died after it had merged the primary (the
    secondary is listed in its ``qqweb_merged_ids``): finish that merge under the earlier
    try's event (pending, or failed by the reaper), so the event that ends done holds the
    notes as they were before the first try, which is what undo puts back. The secondary,
    when still there, is archived with the first try's reason (a line it wrote already is
    not written again) and deleted. A try that died after its event said done is simply
    answered (the review queue then records its verdict). None when no earlier try of
    ``action`` was cut short."""
    if len(notes) != 2:
        return None
    (first, a), (second, b) = notes.items()
    if a is not None and second in merged_ids(a):
        primary, secondary_id, secondary = a, second, b
    elif b is not None and first in merged_ids(b):
        primary, secondary_id, secondary = b, first, a
    else:
        return None
    primary_id = primary.note_id
    event = _interrupted_event(action, primary_id, secondary_id)
    if event is None:
        return None
    if event.status == AuditEvent.DONE:  # it died after saying so: nothing left to do
        return primary, event
    reason = from_json(event.before)["plan"]["archive_reason"]

    def write() -> dict[str, Any]:
        if secondary is not None:
            archive_manager().archive_document(secondary.to_document(), reason)
        return notes_store().get_full_note(primary_id) or {}

    event.detail = ""
    event.save(update_fields=["detail"])
    audited(event, write)
    note = notes_store().note(primary_id)
    if note is None:
        raise NoteNotFound(primary_id)
    return note, event


def _interrupted_event(action: str, primary_id: str, secondary_id: str) -> AuditEvent | None:
    """The newest event of ``action`` merging ``secondary_id`` into ``primary_id`` that
    was not undone."""
    events = AuditEvent.objects.filter(
        action=action,
        target_type="note",
        target_id=primary_id,
        undone_at__isnull=True,
        undo_of__isnull=True,
    ).order_by("-id")
    for event in events[:20]:
        before = from_json(event.before) or {}
        if (before.get("secondary") or {}).get("note_id") == secondary_id:
            return event
    return None


def cosine(a: Note, b: Note) -> float:
    va, vb = a.embedding, b.embedding
    if not va or len(va) != len(vb):
        return 0.0
    pair = normalise(np.asarray([va, vb], dtype=np.float32))
    return round(float(pair[0] @ pair[1]), 4)


def review_pair_reopen(note_a: str, note_b: str) -> int | None:
    """Put the queue's pair of these two notes, merged or superseded, back to pending (an
    undone merge: the pair is a question again, and calibration no longer counts the
    verdict). Returns the pair's id, or None when the merge was not the queue's."""
    a, b = sorted((note_a, note_b))
    pair = ReviewPair.objects.filter(
        note_a=a, note_b=b, status__in=[ReviewPair.MERGED, ReviewPair.SUPERSEDED]
    ).first()
    if pair is None:
        return None
    pair.status, pair.decided_by, pair.decided_at, pair.primary = ReviewPair.PENDING, "", None, ""
    pair.event = None
    pair.save(update_fields=["status", "decided_by", "decided_at", "primary", "event"])
    return pair.pk


def _undo_pair_merge(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    primary, secondary, plan = before["primary"], before["secondary"], before["plan"]
    current = store.note(primary["note_id"])
    if current is None:
        raise UndoRefused("the merged note is gone")
    if store.note(secondary["note_id"]) is not None:
        raise UndoRefused(f"a note {secondary['note_id']!r} exists again")
    history = list(primary.get("source_history") or [])
    since = list(current.source_history)[len(history) :]
    if plan["pushed_source"] and since[:1] == [plan["pushed_source"]]:
        since = since[1:]
    restore = {
        k: v
        for k, v in primary.items()
        if k not in ("access_count", "source_history", "updated_at", MERGED_IDS_FIELD)
    }
    if current.last_accessed != after.get("last_accessed"):
        restore.pop("last_accessed", None)  # the agent read the note since: keep that
    had_history = "source_history" in primary or bool(since)
    store.unmerge_primary(
        primary["note_id"],
        secondary["note_id"],
        restore,
        inc_access=int(plan["inc_access"]),
        source_history=history + since if had_history else None,
    )
    store.insert_agent_documents([with_grace(secondary, grace_until())])
    manager = archive_manager()
    merged_line = manager.find_line(secondary["note_id"])
    if merged_line is not None and merged_line.reason == plan["archive_reason"]:
        manager.drop([merged_line])
    reopened = review_pair_reopen(primary["note_id"], secondary["note_id"])
    return {
        "primary": primary["note_id"],
        "secondary": secondary["note_id"],
        "pair_reopened": reopened,
    }


UNDO_HANDLERS = {  # registered in MemoryAppConfig.ready()
    "pair.merge": _undo_pair_merge,
    "pair.supersede": _undo_pair_merge,
}
