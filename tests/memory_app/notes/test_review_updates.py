"""The review queue's possible updates ("keep the newer text"), undoing a verdict: the
pair comes back and calibration stops counting it; "back" and the message's Undo."""

import json

import pytest
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.selectors import review_calibration, review_next
from memory_app.notes.services import duplicates_scan
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from tests.helpers import plant_note, vector

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

ADA = Actor("user", "ada-admin", role="admin")
OLD, NEW = "note_0000000000a1", "note_0000000000a2"
OLD_TEXT = "Deadline for the Lumen beta is 2027-01-10"
NEW_TEXT = "Deadline for the Lumen beta is 2027-02-01"


def scan():
    return duplicates_scan(
        run=run_create(kind="dedup_scan", actor=ADA, params={"threshold": 0.85}),
        threshold=0.85,
    )


@pytest.fixture
def deadline():
    """The demo's first pair: the older note has the stale date and the higher importance
    (the agent's primary); both share one vector, so the scan finds them at 1.0."""
    same = vector(NEW_TEXT)
    plant_note(OLD, 0.6, 40, embedding=same, content=OLD_TEXT, access_count=3)
    plant_note(NEW, 0.4, 2, embedding=same, content=NEW_TEXT, access_count=1)
    assert scan()["queued"] == 1
    return ReviewPair.objects.get()


def verdict(client, pair, **data):
    return client.post(reverse("memory_app:review_verdict", args=[pair.pk]), data, follow=True)


def text(note_id):
    doc = notes_store().get_full_note(note_id)
    return None if doc is None else doc["content"]


def test_a_pair_that_differs_in_a_date_is_flagged_with_both_ages_and_the_newer_kept(
    curator_client, deadline
):
    html = curator_client.get(reverse("memory_app:review")).content.decode()
    assert 'id="possible-update"' in html and 'data-kinds="date"' in html
    assert "<code>2027-01-10</code>" in html and "<code>2027-02-01</code>" in html
    assert f'data-note-id="{NEW}" data-newer="true"' in html
    assert html.count("data-created=") == 2 and html.count("data-updated=") == 2
    assert 'id="verdict-supersede"' in html and "Keep the newer text" in html
    assert f"kept: <code>{NEW}</code>" in html  # pre-selected: the merge keeps the newer text


def test_keep_the_newer_text_archives_the_older_note_and_is_audited(curator_client, deadline):
    html = verdict(curator_client, deadline, verdict="supersede").content.decode()
    assert "Kept the newer text" in html
    assert text(NEW) == NEW_TEXT and text(OLD) is None
    kept = notes_store().get_full_note(NEW)
    assert kept["access_count"] == 4 and kept["importance"] == 0.65  # the higher, + 0.05
    line = archive_manager().find_line(OLD)
    assert line.content == OLD_TEXT and line.reason.startswith(f"Consolidated with {NEW}")
    deadline.refresh_from_db()
    assert (deadline.status, deadline.primary) == ("superseded", NEW)
    assert deadline.event.action == "pair.supersede"
    assert 'id="message-undo"' in html and f'data-undo-event="{deadline.event_id}"' in html


def test_the_message_undo_puts_both_notes_back_and_the_pair_in_the_queue(curator_client, deadline):
    verdict(curator_client, deadline, verdict="supersede")
    event = AuditEvent.objects.get(action="pair.supersede")
    html = curator_client.post(
        reverse("memory_app:audit_undo", args=[event.pk]), {"next": "/review/"}, follow=True
    ).content.decode()
    assert text(OLD) == OLD_TEXT and text(NEW) == NEW_TEXT
    assert archive_manager().find_line(OLD) is None
    assert ReviewPair.objects.get().status == "pending"
    assert f'data-pair-id="{deadline.pk}"' in html  # shown again


def test_undoing_a_merge_reopens_the_pair_and_calibration_stops_counting_it(
    curator_client, deadline
):
    verdict(curator_client, deadline, verdict="merge", primary=OLD)
    assert text(OLD) == OLD_TEXT and text(NEW) is None
    assert sum(r.merged for r in review_calibration().rows) == 1
    event = AuditEvent.objects.get(action="pair.merge")
    curator_client.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert text(NEW) == NEW_TEXT
    assert ReviewPair.objects.get().status == "pending"
    assert sum(r.judged for r in review_calibration().rows) == 0
    html = curator_client.get(reverse("memory_app:review")).content.decode()
    assert f'data-pair-id="{deadline.pk}"' in html


def test_back_takes_back_the_last_merge(curator_client, deadline):
    verdict(curator_client, deadline, verdict="merge")
    html = curator_client.get(reverse("memory_app:review")).content.decode()
    assert 'id="review-back"' in html and f'data-pair-id="{deadline.pk}"' in html
    response = curator_client.post(reverse("memory_app:review_back"), follow=True)
    html = response.content.decode()
    assert "Took back the last verdict" in html
    assert text(OLD) == OLD_TEXT and text(NEW) == NEW_TEXT
    assert ReviewPair.objects.get().status == "pending"
    assert f'id="review-status" data-pair-id="{deadline.pk}"' in html
    assert 'id="review-back"' not in html  # nothing of this curator's left to take back


def test_back_takes_back_a_skip_and_a_rejection(curator_client, deadline):
    verdict(curator_client, deadline, verdict="skip")
    curator_client.post(reverse("memory_app:review_back"))
    assert ReviewPair.objects.get().status == "pending"
    verdict(curator_client, deadline, verdict="not_duplicate")
    assert sum(r.rejected for r in review_calibration().rows) == 1
    curator_client.post(reverse("memory_app:review_back"))
    assert ReviewPair.objects.get().status == "pending"
    assert sum(r.judged for r in review_calibration().rows) == 0


def test_back_with_nothing_to_take_back_says_so(curator_client, deadline):
    html = curator_client.post(reverse("memory_app:review_back"), follow=True).content.decode()
    assert "there is no verdict of yours to take back" in html


def test_back_is_refused_with_the_reason_when_the_kept_note_changed_since(curator_client, deadline):
    verdict(curator_client, deadline, verdict="supersede")
    notes_store().collection.delete_one({"note_id": NEW})  # the agent removed it meanwhile
    html = curator_client.post(reverse("memory_app:review_back"), follow=True).content.decode()
    assert "the last verdict cannot be taken back" in html
    assert ReviewPair.objects.get().status == "superseded"


def test_keep_the_newer_text_is_refused_when_neither_note_is_newer(curator_client):
    same = vector(NEW_TEXT)
    plant_note(OLD, 0.6, 5, embedding=same, content=OLD_TEXT)
    plant_note(NEW, 0.4, 5, embedding=same, content=NEW_TEXT, now=None)
    notes_store().collection.update_many({}, {"$set": {"created_at": None}})
    notes_store().collection.update_many({}, {"$unset": {"updated_at": ""}})
    scan()
    pair = ReviewPair.objects.get()
    html = verdict(curator_client, pair, verdict="supersede").content.decode()
    assert "neither note is newer" in html
    assert text(OLD) == OLD_TEXT and text(NEW) == NEW_TEXT
    assert ReviewPair.objects.get().status == "pending"


def test_the_api_supersedes_and_takes_back(curator_client, deadline):
    done = curator_client.post(
        f"/api/duplicates/{deadline.pk}/verdict",
        json.dumps({"verdict": "supersede"}),
        content_type="application/json",
    )
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "superseded" and done.json()["primary"] == NEW
    assert done.json()["event_id"] == AuditEvent.objects.get(action="pair.supersede").pk
    back = curator_client.post("/api/duplicates/back")
    assert back.status_code == 200 and back.json()["status"] == "pending"
    assert text(OLD) == OLD_TEXT
    nothing = curator_client.post("/api/duplicates/back")
    assert nothing.status_code == 400 and nothing.json()["error"]["field"] == "verdict"


def test_the_diff_strikes_the_older_value_whichever_side_the_newer_note_is_on(db):
    """The newer note on the left: its date is the new value, not one that was removed."""
    same = vector(NEW_TEXT)
    plant_note("note_0000000000a0", 0.4, 2, embedding=same, content=NEW_TEXT)  # newer, left
    plant_note("note_0000000000a9", 0.6, 40, embedding=same, content=OLD_TEXT)
    assert scan()["queued"] == 1
    item = review_next()
    assert item.a.note_id == "note_0000000000a0" and item.newer_id == "note_0000000000a0"
    assert ("new", "2027-02-01") in item.diff_a and ("gone", "2027-01-10") in item.diff_b
