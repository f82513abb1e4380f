"""The steps every facts action is made of, run in order, each undoable:

- ``archive``: snapshot the document into :class:`ArchivedFact` (qqweb's table), *then*
  delete it, guarded on the content that was archived;
- ``set``: the guarded in-place edit (contract 4.2 rules 1 and 2);
- ``insert``: a new fact in the agent's exact shape;
- ``restore``: an archived document back, under its ``_id`` when that is free (rule 5);
- ``embed``: ``$set content_embedding`` on a legacy fact (rule 6).

An action's steps are its audit event's ``before``; the steps as done (with the archive
rows and ids they made) its ``after``. A step that finds the store changed stops the
action: the steps already done are undone, newest first, and nothing is left half-written.
The undo of a whole action replays the inverse steps, newest first (:func:`undo_steps`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from memory_app.facts.lib import Fact, FactNotFound, FactsStore
from memory_app.facts.lib.domain import new_fact_id
from memory_app.facts.lib.errors import FactChanged
from memory_app.facts.lib.extjson import document_dumps, document_loads
from memory_app.facts.lib.guard import WritePlan
from memory_app.facts.models import ArchivedFact
from qqweb.audit.errors import UndoRefused

Step = dict[str, Any]


@dataclass(frozen=True)
class FactAction:
    """What a facts write did: its plan, whether it was applied, and the steps it took."""

    action: str
    plan: WritePlan
    applied: bool
    fact_id: str = ""  # the fact written (created, edited, restored, embedded), if any
    event_id: int | None = None
    steps: list[Step] = field(default_factory=list)

    @property
    def archived(self) -> list[str]:
        return [s["id"] for s in self.steps if s["op"] == "archive"]


def location_of(store: FactsStore) -> str:
    return ".".join(store.location)


def aware_utc(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return None


def archive_document(
    store: FactsStore, doc_id: str, content: Any, *, reason: str, detail: str, actor: str
) -> ArchivedFact:
    """Snapshot, then delete (guarded). The snapshot row is removed again when the delete
    finds the document changed or gone, and :class:`FactChanged` says which."""
    try:
        doc = store.get(doc_id)
    except FactNotFound as e:
        raise FactChanged(doc_id, "it is gone (the agent replaced or deleted it)") from e
    current = doc.content if isinstance(doc, Fact) else None
    if current != content:
        raise FactChanged(doc_id, "its text is not the one shown any more")
    row = ArchivedFact.objects.create(
        location=location_of(store),
        fact_id=doc.hex_id,
        content=doc.text,
        timestamp=aware_utc(doc.timestamp),
        document=document_dumps(doc.to_document()),
        reason=reason,
        detail=detail,
        actor=actor,
    )
    if not store.delete_if_unchanged(doc_id, content):
        row.delete()
        raise FactChanged(doc_id, "it changed while it was being archived")
    return row


def restore_document(store: FactsStore, row: ArchivedFact, document: dict[str, Any]) -> str:
    """Insert ``document`` (an archived one, maybe re-embedded) under its ``_id`` when free,
    else under a new ObjectId; the archive row records where it went."""
    doc = dict(document)
    if store.id_in_use(doc["_id"]):
        doc["_id"] = new_fact_id()
    store.insert_fact(doc)
    row.restored_at = timezone.now()
    row.restored_id = str(doc["_id"])
    row.save(update_fields=["restored_at", "restored_id"])
    return str(doc["_id"])


def _run_archive(store: FactsStore, step: Step, actor: str) -> Step:
    row = archive_document(
        store,
        step["id"],
        step.get("content"),
        reason=step["reason"],
        detail=step.get("detail", ""),
        actor=actor,
    )
    return {**step, "archive_pk": row.pk}


def _run_set(store: FactsStore, step: Step, actor: str) -> Step:
    if not store.set_content_if_unchanged(step["id"], step["from"], step["to"], step["vector"]):
        raise FactChanged(step["id"], "its text is not the one shown any more, or it is gone")
    return step


def _run_insert(store: FactsStore, step: Step, actor: str) -> Step:
    return {**step, "id": str(store.insert_fact(document_loads(step["document"])))}


def _run_restore(store: FactsStore, step: Step, actor: str) -> Step:
    row = ArchivedFact.objects.get(pk=step["archive_pk"])
    if row.restored_at is not None:
        raise FactChanged(row.fact_id, "this archived copy was restored already")
    return {**step, "id": restore_document(store, row, document_loads(step["document"]))}


def _run_embed(store: FactsStore, step: Step, actor: str) -> Step:
    if not store.set_embedding_if_missing(step["id"], step["content"], step["vector"]):
        raise FactChanged(step["id"], "it is gone, its text changed, or it has a vector now")
    return step


_RUNNERS: dict[str, Callable[[FactsStore, Step, str], Step]] = {
    "archive": _run_archive,
    "set": _run_set,
    "insert": _run_insert,
    "restore": _run_restore,
    "embed": _run_embed,
}


def run_steps(store: FactsStore, steps: list[Step], actor: str) -> list[Step]:
    """Every step in order; on the first failure the done ones are undone, then the
    error goes on."""
    done: list[Step] = []
    try:
        for step in steps:
            done.append(_RUNNERS[step["op"]](store, step, actor))
    except Exception:
        undo_steps(store, done, actor, strict=False)
        raise
    return done


def _undo_one(store: FactsStore, step: Step, actor: str) -> Step:
    op = step["op"]
    if op == "archive":
        row = ArchivedFact.objects.get(pk=step["archive_pk"])
        if row.restored_at is not None:
            raise UndoRefused(f"the archived fact {row.fact_id} was restored already")
        return {"op": "restore", "id": restore_document(store, row, document_loads(row.document))}
    if op == "set":
        if step.get("from_vector") is None:
            raise UndoRefused(f"fact {step['id']} had an invalid vector, which qqweb never writes")
        if not store.set_content_if_unchanged(
            step["id"], step["to"], step["from"], step["from_vector"]
        ):
            raise UndoRefused(f"fact {step['id']} changed since (the agent or another curator)")
        return {"op": "set", "id": step["id"], "content": step["from"]}
    if op in ("insert", "restore"):
        content = document_loads(step["document"]).get("content")
        try:
            row = archive_document(
                store, step["id"], content, reason=ArchivedFact.UNDO, detail="", actor=actor
            )
        except FactChanged as e:
            raise UndoRefused(str(e)) from e
        if op == "restore":  # the original archive row can be restored again
            ArchivedFact.objects.filter(pk=step["archive_pk"]).update(
                restored_at=None, restored_id=""
            )
        return {"op": "archive", "id": step["id"], "archive_pk": row.pk}
    if op == "embed":
        if not store.unset_embedding_if_unchanged(step["id"], step["content"]):
            raise UndoRefused(f"fact {step['id']} changed since (the agent or another curator)")
        return {"op": "unembed", "id": step["id"]}
    raise UndoRefused(f"unknown step {op!r}")


def undo_steps(
    store: FactsStore, done: list[Step], actor: str, *, strict: bool = True
) -> list[Step]:
    """The inverse of ``done``, newest first. ``strict``: the first refusal stops (undo);
    else every step is tried (clean-up after a failed action)."""
    undone: list[Step] = []
    for step in reversed(done):
        try:
            undone.append(_undo_one(store, step, actor))
        except Exception:
            if strict:
                raise
    return undone


def as_snapshot_time(value: datetime) -> datetime:
    """Naive UTC at millisecond precision: what the agent's ``datetime.utcnow()`` becomes
    in BSON."""
    value = value.astimezone(UTC).replace(tzinfo=None)
    return value.replace(microsecond=value.microsecond // 1000 * 1000)
