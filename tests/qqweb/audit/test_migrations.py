"""The audit log moved from memory_app to the audit app without moving its table: a
database migrated before the move keeps every event, with its links."""

import uuid

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType

from qqweb.audit.models import AuditEvent
from tests.migrations import leaf_migrations, migrate

BEFORE_THE_MOVE = [("memory_app", "0004_job_batches_and_locks"), ("audit", None)]


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_events_of_a_database_migrated_before_the_move():
    latest = leaf_migrations()
    old_apps = migrate(BEFORE_THE_MOVE).loader.project_state(BEFORE_THE_MOVE[:1]).apps
    OldEvent = old_apps.get_model("memory_app", "AuditEvent")
    batch = uuid.uuid4()
    done = OldEvent.objects.create(
        actor="cora",
        action="note.edit",
        target_type="note",
        target_id="n1",
        before={"content": "old"},
        after={"content": "new"},
        batch_id=batch,
        status="done",
    )
    OldEvent.objects.create(
        actor="cora", action="undo.note.edit", target_type="note", target_id="n1", undo_of=done
    )

    migrate(latest)

    events = list(AuditEvent.objects.order_by("id"))
    assert [e.action for e in events] == ["note.edit", "undo.note.edit"]
    assert (events[0].target_id, events[0].batch_id, events[0].status) == ("n1", batch, "done")
    assert events[0].before == {"content": "old"}
    assert events[0].after == {"content": "new"}
    assert events[1].undo_of == events[0]
    assert list(events[0].undo_events.all()) == [events[1]]


@pytest.mark.django_db(transaction=True)
def test_it_moves_the_content_type_and_its_permissions():
    latest = leaf_migrations()
    migrate(BEFORE_THE_MOVE)
    ContentType.objects.filter(model="auditevent").delete()
    old = ContentType.objects.create(app_label="memory_app", model="auditevent")
    Permission.objects.create(content_type=old, codename="view_auditevent", name="Can view")

    migrate(latest)

    ContentType.objects.clear_cache()
    moved = ContentType.objects.get(pk=old.pk)
    assert (moved.app_label, moved.model) == ("audit", "auditevent")
    assert Permission.objects.filter(content_type=moved, codename="view_auditevent").exists()
