"""The memory tests' writes: pin and unpin (audited, undoable), import a labelled set
(one audit batch, undone as one), and run every pin (:mod:`qqweb.recall.running`).

A pin names an item its memory holds now (``engine.whereabouts(item_id).present``);
its text is kept with it, to name it once it is gone."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor
from qqweb.lib.errors import InvalidInput
from qqweb.recall.engines import RecallEngine, recall_engine, recall_sources
from qqweb.recall.errors import (
    AlreadyPinned,
    ItemNotFound,
    ItemNotSearchable,
    PinLinesRefused,
    PinNotFound,
    TooManyPins,
    UnknownSource,
)
from qqweb.recall.models import Pin
from qqweb.recall.pin_lines import DEFAULT_SOURCE, LineProblem, PinLine, lines_of, read_pin_line
from qqweb.recall.pin_values import pin_value_problem
from qqweb.recall.running import memory_tests_run

PIN = "recall.pin"
UNPIN = "recall.unpin"
TARGET = "pin"
TARGET_ID_MAX = 300  # the audit event's target_id (a core note's id is its whole text)
MAX_IMPORT_LINES = 1000
MAX_IMPORT_BYTES = 2_000_000

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


def _text(value: Any, name: str, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    problem = pin_value_problem(name, value)
    if problem:
        raise InvalidInput(name, problem)
    return str(value).strip()


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


def pin_fields_checked(source: Any, query: Any, item_id: Any, comment: Any) -> PinSpec:
    """The pin's fields, checked (InvalidInput naming the field): values a pin may hold
    (:func:`pin_value_problem`) and a memory this qqweb has (a pin of another would fail
    every run). What every door pinning a recall applies, a backup's pin records too."""
    spec = PinSpec(
        _text(source, "source"),
        _text(query, "query"),
        _text(item_id, "item_id"),
        _text(comment, "comment", required=False),
    )
    _engine(spec.source)
    return spec


def _checked(source: Any, query: Any, item_id: Any, comment: Any) -> PinSpec:
    """The pin's fields, checked, with the item's text now; refused (InvalidInput naming
    the field) when a value does not fit or the memory does not hold the item."""
    return _held(pin_fields_checked(source, query, item_id, comment))


def _held(spec: PinSpec) -> PinSpec:
    """``spec`` with its item's text now; refused when the memory does not hold it, or
    holds it without a vector (no search can recall it: the pin would never pass)."""
    engine = _engine(spec.source)
    where = engine.whereabouts(spec.item_id)
    if not where.present:
        raise ItemNotFound(spec.source, spec.item_id, where.reason)
    unsearchable = engine.unsearchable(spec.item_id)
    if unsearchable:
        raise ItemNotSearchable(spec.source, spec.item_id, unsearchable)
    return PinSpec(spec.source, spec.query, spec.item_id, spec.comment, where.text)


def pins_room(source: str, adding: int) -> None:
    """Refuse (TooManyPins, 409) pinning ``adding`` more recalls of ``source`` past
    ``QQ_MAX_PINS_PER_MEMORY``: a run asks the agent once per pinned question, and a
    plan's preview up to twice per pinned question it touches."""
    limit = settings.QQ_MAX_PINS_PER_MEMORY
    pinned = Pin.objects.filter(source=source).count()
    if adding and pinned + adding > limit:
        raise TooManyPins(source, pinned, adding, limit)


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
    pins_room(spec.source, 1)
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


def _line_checked(line: PinLine) -> PinSpec | LineProblem:
    spec = PinSpec(line.source, line.query, line.item_id, line.comment)
    try:
        return _held(spec)
    except InvalidInput as e:  # no such memory, or it does not hold the item
        return LineProblem(line.line, e.field, e.message)


def pins_import(*, actor: Actor, text: str) -> ImportResult:
    """Pin every line of a labelled set (JSONL: ``{"query", "item_id", "source", "comment"}``
    a line; blank lines skipped; read by :mod:`qqweb.recall.pin_lines`). Every line is
    checked before anything is written: any bad line refuses the import
    (:class:`PinLinesRefused`, 400, naming every bad line, its field and why). The pins
    are one audit batch, undone as one; a recall pinned already is left as it was. A
    memory past ``QQ_MAX_PINS_PER_MEMORY`` with the new pins refuses it (409)."""
    lines = list(lines_of(text))
    if not lines:
        raise InvalidInput("file", "holds no line to import")
    if len(lines) > MAX_IMPORT_LINES:
        raise InvalidInput("file", f"holds {len(lines)} lines; at most {MAX_IMPORT_LINES}")
    problems: list[LineProblem] = []
    specs: list[PinSpec] = []
    for number, raw in lines:
        read = read_pin_line(number, raw)
        checked = _line_checked(read) if isinstance(read, PinLine) else read
        if isinstance(checked, PinSpec):
            specs.append(checked)
        elif isinstance(checked, LineProblem):
            problems.append(checked)
        else:
            problems.extend(checked)
    if problems:
        raise PinLinesRefused(problems)
    result = ImportResult(uuid.uuid4())
    new: dict[tuple[str, str, str], PinSpec] = {}
    for spec in specs:
        key = (spec.source, spec.query, spec.item_id)
        pinned = Pin.objects.filter(source=spec.source, query=spec.query, item_id=spec.item_id)
        if key in new or pinned.exists():
            result.already += 1
        else:
            new[key] = spec
    for source in sorted({spec.source for spec in new.values()}):
        pins_room(source, sum(1 for spec in new.values() if spec.source == source))
    with transaction.atomic():
        for spec in new.values():
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
