"""One purge: the seed API's purge_old_archives and the audited purge service run the same
steps, and the service's audit event holds exactly the lines it dropped."""

import json
import shutil

import pytest
from django.db.models.signals import post_save

from memory_app.notes.lib import ArchiveManager
from memory_app.notes.lib.archive import local_naive_iso
from memory_app.notes.services import archive_purge
from memory_app.notes.stores import archive_manager
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.lib.actors import Actor
from qqweb.lib.errors import InvalidInput
from tests.helpers import agent_archive_line as agent_line

ADA = Actor("user", "ada-admin", role="admin")

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive(stores):
    manager = archive_manager()
    manager.append_entries(
        [
            agent_line("note_0000000000a0", 150),
            agent_line("note_0000000000a1", 200, restored=True, restored_at=local_naive_iso()),
            agent_line("note_0000000000a2", 3, agent_version="0.9"),
        ]
    )
    with open(manager.archive_file, "a") as f:  # what the agent may write: never purged
        f.write(json.dumps(agent_line("note_0000000000a3", 120, archived_at="yesterday")) + "\n")
        f.write('{"note_id": "note_0000000000a4", "archived_at": "2020-01-01T00:00:00", torn\n')
    return manager


def test_the_seed_purge_and_the_service_drop_the_same_lines(archive, stores, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(stores["memory_dir"], copy)
    seed = ArchiveManager(copy)
    assert seed.purge_old_archives(90, dry_run=True) == 2

    summary = archive_purge(actor=ADA, days=90, dry_run=True)
    assert (summary["would_drop"], summary["dropped"]) == (2, 0)
    assert summary["sample"] == ["note_0000000000a0", "note_0000000000a1"]

    assert seed.purge_old_archives(90) == 2
    assert archive_purge(actor=ADA, days=90)["dropped"] == 2

    assert archive.archive_file.read_bytes() == seed.archive_file.read_bytes()
    kept = [json.loads(x)["note_id"] for x in archive.archive_file.read_text().splitlines()[:2]]
    assert kept == ["note_0000000000a2", "note_0000000000a3"]  # and the torn line stays


def test_the_purge_event_holds_the_dropped_lines_and_undo_puts_them_back(archive):
    dropped_lines = archive.archive_file.read_text().splitlines()[:2]
    archive_purge(actor=ADA, days=90)
    event = AuditEvent.objects.get(action="archive.purge")
    assert event.before["lines"] == [json.loads(x) for x in dropped_lines]
    assert event.after["kept"] == []

    audit_undo(actor=ADA, event_id=event.pk)

    assert archive.archive_file.read_text().splitlines()[-2:] == dropped_lines


def test_a_line_restored_while_the_purge_is_audited_is_kept_and_not_put_back_twice(archive):
    def restore_meanwhile(sender, instance, created, **kwargs):
        if created and instance.action == "archive.purge":
            archive.restore_note("note_0000000000a0")  # between the plan and the rewrite

    post_save.connect(restore_meanwhile, sender=AuditEvent, dispatch_uid="restore_meanwhile")
    try:
        result = archive_purge(actor=ADA, days=90)
    finally:
        post_save.disconnect(sender=AuditEvent, dispatch_uid="restore_meanwhile")

    assert result["dropped"] == 1
    assert [e["note_id"] for e in result["kept"]] == ["note_0000000000a0"]
    restored = archive.find_line("note_0000000000a0", include_restored=True)
    assert restored.restored and restored.line_number == 1

    audit_undo(actor=ADA, event_id=AuditEvent.objects.get(action="archive.purge").pk)

    ids = [n.note_id for n in archive.read().notes]
    assert ids.count("note_0000000000a0") == 1 and ids.count("note_0000000000a1") == 1


def test_days_are_checked_in_one_place(archive):
    for days in (-1, "90", 1.5, True):
        with pytest.raises(InvalidInput, match="days"):
            archive.purge_old_archives(days)
        with pytest.raises(InvalidInput, match="days"):
            archive_purge(actor=ADA, days=days)


def test_an_old_line_holding_infinity_stays_and_the_purge_still_drops_the_others(archive):
    """An audit row cannot hold Infinity (the purge failed on its event, every time): such
    a line stays, as a torn one does, and the rest is purged."""
    infinite = json.dumps(agent_line("note_0000000000a5", 300)).replace("0.02", "Infinity")
    with open(archive.archive_file, "a") as f:
        f.write(infinite + "\n")

    result = archive_purge(actor=ADA, days=90)

    assert result["dropped"] == 2
    assert infinite in archive.archive_file.read_text().splitlines()
