"""The memory tests' writes: pin and unpin (audited, undoable), import a labelled set
(one audit batch, undone as one), and run every pin (:mod:`qqweb.recall.running`).

A pin names an item its memory holds now (``engine.whereabouts(item_id).present``);
its text is kept with it, to name it once it is gone."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction

from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor
from qqweb.lib.errors import InvalidInput
from qqweb.recall.engines import RecallEngine, recall_engine, recall_sources
from qqweb.recall.errors import (
    AlreadyPinned,
    InvalidPinLine,
    ItemNotFound,
    PinNotFound,
    UnknownSource,
)
from qqweb.recall.models import MAX_COMMENT, MAX_ITEM_ID, MAX_QUERY, Pin
from qqweb.recall.running import memory_tests_run

PIN = "recall.pin"
UNPIN = "recall.unpin"
TARGET = "pin"
TARGET_ID_MAX = 300  # the audit event's target_id (a core note's id is its whole text)
DEFAULT_SOURCE = "notes"
MAX_IMPORT_LINES = 1000
MAX_IMPORT_BYTES = 2_000_000
IMPORT_FIELDS = ("query", "item_id", "source", "comment")

__all__ = [
    "MAX_IMPORT_BYTES",
    "PIN",
    "UNDO_HANDLERS",
    "UNDO_ROLES",
    "UNPIN",
    "ImportResult",
    "memory_tests_run",
    "pin_create",
    "pin_delete",
    "pins_import",
]


def pin_snapshot(pin: Pin) -> dict[str, Any]:
    """The pin as the audit log keeps it (and its undo puts it back)."""
    return {
        "id": pin.pk,
        "source": pin.source,
        "query": pin.query,
        "item_id": pin.item_id,
        "item_text": pin.item_text,
        "comment": pin.comment,
        "created_by": pin.created_by,
        "created_at": pin.created_at,
    }


def _text(value: Any, name: str, limit: int, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InvalidInput(name, "must be a text")
    value = value.strip()
    if required and not value:
        raise InvalidInput(name, "must not be empty")
    if len(value) > limit:
        raise InvalidInput(name, f"must be at most {limit} characters")
    return value


def _engine(source: str) -> RecallEngine:
    engine = recall_engine(source)
    if engine is None:
        raise UnknownSource(source, [s for s in recall_sources() if recall_engine(s)])
    return engine


@dataclass(frozen=True)
class PinSpec:
    source: str
    query: str
    item_id: str
    comment: str
    item_text: str = ""


def _checked(source: Any, query: Any, item_id: Any, comment: Any) -> PinSpec:
    """The pin's fields, checked, with the item's text now; refused (InvalidInput naming
    the field) when a value does not fit or the memory does not hold the item."""
    source = _text(source, "source", 20)
    spec = PinSpec(
        source,
        _text(query, "query", MAX_QUERY),
        _text(item_id, "item_id", MAX_ITEM_ID),
        _text(comment, "comment", MAX_COMMENT, required=False),
    )
    where = _engine(source).whereabouts(spec.item_id)
    if not where.present:
        raise ItemNotFound(source, spec.item_id, where.reason)
    return PinSpec(spec.source, spec.query, spec.item_id, spec.comment, where.text)


def _write(actor: Actor, spec: PinSpec, batch_id: uuid.UUID | None) -> Pin:
    """The pin and its audit event in one transaction: a crash leaves both or neither
    (no event pending for a pin that is there)."""
    with transaction.atomic():
        event = audit_begin(actor, PIN, TARGET, spec.item_id[:TARGET_ID_MAX], None, batch_id)

        def work() -> dict[str, Any]:
            try:
                with transaction.atomic():
                    pin = Pin.objects.create(
                        source=spec.source,
                        query=spec.query,
                        item_id=spec.item_id,
                        item_text=spec.item_text,
                        comment=spec.comment,
                        created_by=actor.label,
                    )
            except IntegrityError as e:
                raise AlreadyPinned(spec.query, spec.item_id) from e
            return pin_snapshot(pin)

        return Pin.objects.get(pk=audited(event, work)["id"])


def pin_create(
    *, actor: Actor, query: Any, item_id: Any, source: Any = DEFAULT_SOURCE, comment: Any = ""
) -> Pin:
    """Pin "when the agent is asked ``query``, it must recall ``item_id``" (``recall.pin``;
    its undo removes the pin). Refused when the item is not in the memory or the same
    recall is pinned already (409)."""
    spec = _checked(source, query, item_id, comment)
    if Pin.objects.filter(source=spec.source, query=spec.query, item_id=spec.item_id).exists():
        raise AlreadyPinned(spec.query, spec.item_id)
    return _write(actor, spec, None)


def pin_delete(*, actor: Actor, pin_id: int) -> None:
    """Unpin (``recall.unpin``; its undo brings the pin back with its id). Its past results
    stay in the history."""
    pin = Pin.objects.filter(pk=pin_id).first()
    if pin is None:
        raise PinNotFound(pin_id)
    with transaction.atomic():  # the unpin and its event: both or neither
        event = audit_begin(
            actor, UNPIN, TARGET, pin.item_id[:TARGET_ID_MAX], pin_snapshot(pin), None
        )

        def work() -> None:
            Pin.objects.filter(pk=pin_id).delete()

        audited(event, work)


@dataclass
class ImportResult:
    batch_id: uuid.UUID
    created: list[Pin] = field(default_factory=list)
    already: int = 0  # lines pinned already (or twice in the file): left as they were


def _line_spec(number: int, line: str) -> PinSpec:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise InvalidPinLine(number, "line", f"is not JSON ({e.msg})") from e
    if not isinstance(data, dict):
        raise InvalidPinLine(number, "line", "must be a JSON object")
    unknown = sorted(set(data) - set(IMPORT_FIELDS))
    if unknown:
        raise InvalidPinLine(number, unknown[0], f"is not a field (fields: {IMPORT_FIELDS})")
    try:
        return _checked(
            data.get("source", DEFAULT_SOURCE),
            data.get("query"),
            data.get("item_id"),
            data.get("comment"),
        )
    except InvalidInput as e:
        raise InvalidPinLine(number, e.field, e.message) from e


def pins_import(*, actor: Actor, text: str) -> ImportResult:
    """Pin every line of a labelled set (JSONL: ``{"query", "item_id", "source", "comment"}``
    a line; blank lines skipped). Every line is checked before anything is written: a bad
    one refuses the import (400 naming its line and field). The pins are one audit batch,
    undone as one; a recall pinned already is left as it was."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise InvalidInput("file", "holds no line to import")
    if len(lines) > MAX_IMPORT_LINES:
        raise InvalidInput("file", f"holds {len(lines)} lines; at most {MAX_IMPORT_LINES}")
    specs = [_line_spec(n, line) for n, line in lines]
    result = ImportResult(uuid.uuid4())
    seen: set[tuple[str, str, str]] = set()
    with transaction.atomic():
        for spec in specs:
            key = (spec.source, spec.query, spec.item_id)
            exists = Pin.objects.filter(
                source=spec.source, query=spec.query, item_id=spec.item_id
            ).exists()
            if key in seen or exists:
                result.already += 1
                continue
            seen.add(key)
            result.created.append(_write(actor, spec, result.batch_id))
    return result


def _undo_pin(before: Any, after: Any) -> None:
    deleted, _ = Pin.objects.filter(pk=after["id"]).delete()
    if not deleted:
        raise UndoRefused("this pin was removed since")


def _undo_unpin(before: Any, after: Any) -> dict[str, Any]:
    if Pin.objects.filter(pk=before["id"]).exists():
        raise UndoRefused("this pin is back already")
    same = Pin.objects.filter(
        source=before["source"], query=before["query"], item_id=before["item_id"]
    )
    if same.exists():
        raise UndoRefused("the same recall was pinned again since")
    pin = Pin.objects.create(**before)
    return pin_snapshot(pin)


UNDO_HANDLERS = {PIN: _undo_pin, UNPIN: _undo_unpin}
UNDO_ROLES = {PIN: "curator", UNPIN: "curator"}
