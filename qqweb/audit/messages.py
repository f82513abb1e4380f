"""The message after an action, with an Undo button in it.

``done_with_undo`` adds a success message whose ``extra_tags`` name what to undo
(``undo-event:<id>`` or ``undo-batch:<uuid>``); ``templates/_messages.html`` renders it
with a small form posting to the audit log's undo (the event's or the batch's), so the
curator undoes an action where they see it said, not by finding it in the audit log.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.messages.storage.base import Message
from django.http import HttpRequest
from django.urls import reverse

from qqweb.audit.models import AuditEvent


def done_with_undo(
    request: HttpRequest,
    text: str,
    *,
    event_id: int | None = None,
    batch_id: uuid.UUID | str | None = None,
    events: Sequence[AuditEvent] = (),
) -> None:
    """A success message; with an Undo button for the event or the batch when given, or
    for what ``events`` did (recorded with ``events_recorded``: one event, or one batch;
    only the ones that completed)."""
    done = [e for e in events if e.status == AuditEvent.DONE]
    if event_id is None and batch_id is None and done:
        batches = {e.batch_id for e in done}
        if len(done) == 1:
            event_id = done[0].pk
        elif len(batches) == 1:
            batch_id = done[0].batch_id
    tag = f"undo-event:{event_id}" if event_id else f"undo-batch:{batch_id}" if batch_id else ""
    messages.success(request, text, extra_tags=tag)


@dataclass(frozen=True)
class UndoTarget:
    kind: str  # "event" or "batch"
    ident: str
    url: str


def undo_target(message: Message) -> UndoTarget | None:
    """What a message's Undo button undoes, read from its tags (None: no button)."""
    for tag in str(message.extra_tags or "").split():
        kind, _, ident = tag.partition(":")
        if kind == "undo-event" and ident.isdigit():
            return UndoTarget("event", ident, reverse("memory_app:audit_undo", args=[int(ident)]))
        if kind == "undo-batch":
            try:
                batch = uuid.UUID(ident)
            except ValueError:
                continue
            return UndoTarget("batch", ident, reverse("memory_app:audit_batch_undo", args=[batch]))
    return None
