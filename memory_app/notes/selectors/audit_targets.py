"""Where the Audit log's notes targets are now (``qqweb.audit.registry.TargetPage``): a
note's page while it is in the notes; an archived one's line on the Archive page, said
"archived"; otherwise "no longer in the notes", with no link. A run's changes (a job's
events, target "12 notes") open the run's page, found by the run's audit batch.
Registered in ``MemoryAppConfig.ready()`` for the target types the notes write."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.registry import TargetPage
from qqweb.jobs.models import Run

GONE = "no longer in the notes"


def note_target_pages(events: list[Any]) -> dict[int, TargetPage]:
    """Events whose target is a note id (``note``, and ``archive``: a restore's); one
    query for the page's notes, the archive only for those not found."""
    purges = [e for e in events if e.action.endswith("archive.purge")]  # "older than 90 days"
    events = [e for e in events if e not in purges]
    pages = {e.pk: TargetPage(reverse("memory_app:archive")) for e in purges}
    found = notes_store().notes_by_ids(e.target_id for e in events)
    archived: dict[str, bool] = {}
    for event in events:
        note_id = str(event.target_id)
        if note_id in found:
            pages[event.pk] = TargetPage(reverse("memory_app:note_detail", args=[note_id]))
            continue
        if note_id not in archived:
            archived[note_id] = archive_manager().find_line(note_id) is not None
        if archived[note_id]:
            query = urlencode({"q": note_id})
            pages[event.pk] = TargetPage(f"{reverse('memory_app:archive')}?{query}", "archived")
        else:
            pages[event.pk] = TargetPage(said=GONE)
    return pages


def run_target_pages(events: list[Any]) -> dict[int, TargetPage]:
    """A job's events (target "12 notes", "graph"): the run that made them, by its audit
    batch; a run no longer kept is said so."""
    runs = dict(
        Run.objects.filter(batch_id__in={e.batch_id for e in events}).values_list("batch_id", "pk")
    )
    return {
        e.pk: TargetPage(reverse("memory_app:maintenance_run", args=[runs[e.batch_id]]))
        if e.batch_id in runs
        else TargetPage(said="its run is no longer kept")
        for e in events
    }
