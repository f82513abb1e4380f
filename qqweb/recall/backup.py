"""The pins in a backup (``qqweb.backup``): each one a ``pin`` record, checked before an
import writes anything, put back when the same recall is not pinned already (what is
pinned is never overwritten). Their runs are history, not exported.

A backup's pin is put back as it was, even on an item the memory holds without a vector
(which a new pin may not name: no search can recall it): the export kept it so, the item
may be embedded later, and refusing it would lose the curator's question. The import's
summary names each such pin (:func:`pins_unsearchable`), and its next run fails it saying
why."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from qqweb.lib.errors import InvalidInput
from qqweb.lib.mongo.safe_values import datetime_problem
from qqweb.recall.engines import recall_engine
from qqweb.recall.errors import UnknownSource
from qqweb.recall.models import Pin
from qqweb.recall.pin_values import pin_value_problem
from qqweb.recall.services import pin_fields_checked, pin_snapshot


def pin_records() -> Iterator[dict[str, Any]]:
    """Each pin as the audit log keeps it, without its id (a pin put back takes a new one
    where it is missing), its date in ISO 8601."""
    for pin in Pin.objects.order_by("id").iterator():
        record = pin_snapshot(pin)
        del record["id"]
        yield {"kind": "pin", **record, "created_at": pin.created_at.isoformat()}


def pin_count() -> int:
    return Pin.objects.count()


def pin_record_problem(record: Mapping[str, Any]) -> str:
    """Why an import would refuse this ``pin`` record ("" when it takes it): the checks
    every door pinning a recall applies (:func:`pin_fields_checked`: values a pin may
    hold, a memory this qqweb has), the same value checks of ``item_text`` and
    ``created_by``, and a ``created_at`` that is an ISO 8601 date in range. Unlike a new
    pin, the item need not be in the memory now: the export kept the pin as it was, and a
    run says where its item went."""
    try:
        pin_fields_checked(
            record.get("source"), record.get("query"), record.get("item_id"), record.get("comment")
        )
    except UnknownSource as e:
        return str(e)
    except InvalidInput as e:
        return f"its {e.field} {e.message}"
    for name in ("item_text", "created_by"):
        problem = pin_value_problem(name, record.get(name, ""))
        if problem:
            return f"its {name} {problem}"
    created = record.get("created_at")
    try:
        when = datetime.fromisoformat(created) if isinstance(created, str) else None
    except ValueError:
        when = None
    if when is None:
        return "its created_at is not an ISO 8601 date"
    return datetime_problem(when, where="its created_at")


def _key(record: Mapping[str, Any]) -> tuple[str, str, str]:
    source, query, item_id = (str(record[name]).strip() for name in ("source", "query", "item_id"))
    return source, query, item_id


def pins_present(records: Iterable[Mapping[str, Any]]) -> int:
    """How many of the records are pinned here already."""
    return sum(
        1
        for r in records
        if Pin.objects.filter(source=_key(r)[0], query=_key(r)[1], item_id=_key(r)[2]).exists()
    )


def pins_unsearchable(pins: Iterable[Pin]) -> list[dict[str, str]]:
    """The ``pins`` whose item the memory holds but no search can recall (no vector),
    each with why: a warning of the import that put them back."""
    found = []
    for pin in pins:
        engine = recall_engine(pin.source)
        why = engine.unsearchable(pin.item_id) if engine is not None else ""
        if why:
            found.append(
                {
                    "source": pin.source,
                    "query": pin.query,
                    "item_id": pin.item_id,
                    "item_text": pin.item_text,
                    "why": why,
                }
            )
    return found


def pins_restore(records: Iterable[Mapping[str, Any]]) -> list[Pin]:
    """Pin what is not pinned yet, as it was (who pinned it, when); returns those pins."""
    inserted: list[Pin] = []
    with transaction.atomic():
        for r in records:
            source, query, item_id = _key(r)
            if Pin.objects.filter(source=source, query=query, item_id=item_id).exists():
                continue
            created = datetime.fromisoformat(str(r["created_at"]))
            if timezone.is_naive(created):
                created = timezone.make_aware(created, UTC)
            pin = Pin.objects.create(
                source=source,
                query=query,
                item_id=item_id,
                item_text=str(r.get("item_text", "")),
                comment=str(r.get("comment", "")),
                created_by=str(r.get("created_by", "")),
                created_at=created,
            )
            inserted.append(pin)
    return inserted
