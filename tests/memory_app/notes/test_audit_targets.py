"""The Audit log's target column links each target (a note, an entity, a run) to its page
while it still exists, and says plainly when it no longer does, with no dead link."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from memory_app.notes.services import note_archive, note_create
from memory_app.notes.stores import archive_manager
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor

pytestmark = pytest.mark.django_db
CORA = Actor("user", "cora-curator", role="curator")


def target_cells(html: str) -> dict[str, str]:
    """Each row's target cell by the event's target id (its title, or its text)."""
    cells = re.findall(r'<td data-label="Target" class="audit-target">(.*?)</td>', html, re.S)
    out = {}
    for cell in cells:
        named = re.search(r'title="([^"]+)"', cell)
        out[unescape(named.group(1)) if named else cell.strip()] = cell
    return out


def test_a_note_target_links_while_it_exists_and_says_where_it_went(curator_client, stores):
    kept = note_create(actor=CORA, content="Lumen keeps its vectors in MongoDB")
    gone = note_create(actor=CORA, content="Priya was out on Tuesday")
    note_archive(actor=CORA, note_id=gone.note_id)
    purged = note_create(actor=CORA, content="The build broke on Friday")
    note_archive(actor=CORA, note_id=purged.note_id)
    archive_manager().drop([archive_manager().find_line(purged.note_id)])
    html = curator_client.get(reverse("memory_app:audit")).content.decode()
    cells = target_cells(html)
    page = reverse("memory_app:note_detail", args=[kept.note_id])
    assert f'<a href="{page}"' in cells[kept.note_id]
    assert curator_client.get(page).status_code == 200
    archived = cells[gone.note_id]
    assert "(archived)" in archived
    line = curator_client.get(unescape(re.search(r'href="([^"]+)"', archived).group(1)))
    assert f'<code class="muted">{gone.note_id}</code>' in line.content.decode()
    assert "(no longer in the notes)" in cells[purged.note_id]
    assert "<a " not in cells[purged.note_id]


def test_a_run_target_opens_the_run_that_made_the_change(admin_client_, stores):
    from qqweb.jobs.models import Run

    run = Run.objects.create(kind="decay_pass", started_by="user:ada-admin")
    event = audit_begin(
        Actor("job", "decay_pass"), "notes.decay", "notes", "2 notes", None, run.batch_id
    )
    audited(event, lambda: {"written": 2})
    lost = audit_begin(Actor("job", "decay_pass"), "notes.decay", "notes", "3 notes", None, None)
    audited(lost, lambda: {"written": 3})
    html = admin_client_.get(reverse("memory_app:audit")).content.decode()
    cells = target_cells(html)
    run_page = reverse("memory_app:maintenance_run", args=[run.pk])
    assert f'<a href="{run_page}"' in cells["2 notes"]
    assert admin_client_.get(run_page).status_code == 200
    assert "(its run is no longer kept)" in cells["3 notes"] and "<a " not in cells["3 notes"]
    assert AuditEvent.objects.count() == 2
