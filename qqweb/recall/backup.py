"""The pins in a backup (``qqweb.backup``): each one a ``pin`` record, checked before an
import writes anything, put back when the same recall is not pinned already (what is
pinned is never overwritten). Their runs are history, not exported."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from qqweb.recall.models import Pin
from qqweb.recall.pin_values import LIMITS, pin_value_problem
from qqweb.recall.services import pin_snapshot


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
    """Why an import would refuse this ``pin`` record ("" when it takes it)."""
    for name in LIMITS:
        problem = pin_value_problem(name, record.get(name, ""))
        if problem:
            return f"its {name} {problem}"
    try:
        datetime.fromisoformat(str(record.get("created_at")))
    except ValueError:
        return "its created_at is not an ISO 8601 date"
    return ""


def _key(record: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(record["source"]), str(record["query"]).strip(), str(record["item_id"]).strip())


def pins_present(records: Iterable[Mapping[str, Any]]) -> int:
    """How many of the records are pinned here already."""
    return sum(
        1
        for r in records
        if Pin.objects.filter(source=r["source"], query=_key(r)[1], item_id=_key(r)[2]).exists()
    )


def pins_restore(records: Iterable[Mapping[str, Any]]) -> int:
    """Pin what is not pinned yet, as it was (who pinned it, when); returns how many."""
    inserted = 0
    with transaction.atomic():
        for r in records:
            source, query, item_id = _key(r)
            if Pin.objects.filter(source=source, query=query, item_id=item_id).exists():
                continue
            created = datetime.fromisoformat(str(r["created_at"]))
            if timezone.is_naive(created):
                created = timezone.make_aware(created, UTC)
            Pin.objects.create(
                source=source,
                query=query,
                item_id=item_id,
                item_text=str(r.get("item_text", "")),
                comment=str(r.get("comment", "")),
                created_by=str(r.get("created_by", "")),
                created_at=created,
            )
            inserted += 1
    return inserted
