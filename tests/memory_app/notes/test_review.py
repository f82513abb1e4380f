"""The near-duplicate review queue: scan, side-by-side diff, verdicts, calibration."""

import pytest
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.selectors import review_calibration, word_diff
from memory_app.notes.services import duplicates_scan, review_verdict
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from tests.helpers import add_note as add

pytestmark = pytest.mark.usefixtures("stores")

ADA = Actor("user", "ada-admin", role="admin")


def scan(threshold=0.85):
    return duplicates_scan(
        run=run_create(kind="dedup_scan", actor=ADA, params={"threshold": threshold}),
        threshold=threshold,
    )


@pytest.fixture
def twins(db):
    add("note_0000000000a1", "Lumen uses MongoDB for vector search in production", importance=0.7)
    notes_store().append_source_history("note_0000000000a1", {"source_type": "conversation"})
    notes_store().collection.update_one(
        {"note_id": "note_0000000000a1"},
        {
            "$set": {
                "source": {"source_type": "file", "file_path": "/lumen/README.md", "line_start": 3}
            }
        },
    )
    add(
        "note_0000000000a2",
        "Lumen uses MongoDB for vector search in production today",
        importance=0.4,
    )
    add("note_0000000000a3", "Priya reviews pull requests on Fridays")


def test_word_diff_marks_what_changed():
    left, right = word_diff("Lumen uses MongoDB", "Lumen relies on MongoDB")
    assert left == [("same", "Lumen"), ("gone", "uses"), ("same", "MongoDB")]
    assert right == [("same", "Lumen"), ("new", "relies on"), ("same", "MongoDB")]


def test_a_scan_queues_each_pair_once(twins):
    assert scan()["queued"] == 1
    assert scan() == {
        "pairs_found": 1,
        "queued": 0,
        "already_queued": 1,
        "kept_rejected": 0,
        "reopened": 0,
        "judged": 0,  # judged once, when the first scan queued it
        "judged_meanwhile": 0,
    }
    pair = ReviewPair.objects.get()
    assert (pair.note_a, pair.note_b, pair.status) == (
        "note_0000000000a1",
        "note_0000000000a2",
        "pending",
    )


def test_the_page_shows_the_pair_side_by_side_with_a_merge_preview(curator_client, twins):
    scan()
    html = curator_client.get(reverse("memory_app:review")).content.decode()
    assert '<span class="new">today</span>' in html
    assert "1 pair left" in html
    assert "kept: <code>note_0000000000a1</code> · importance 0.75" in html
    assert 'data-key="m"' in html
    assert "file /lumen/README.md lines 3-3" in html and "none recorded" in html


def test_the_preview_follows_the_curators_text_as_a_fragment(curator_client, twins):
    scan()
    pair = ReviewPair.objects.get()
    response = curator_client.get(
        reverse("memory_app:review") + f"?preview=1&pair={pair.pk}&primary=note_0000000000a2"
        "&content=Lumen+runs+on+MongoDB",
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="card" id="merge-preview">')
    assert "Lumen runs on MongoDB" in html and "kept: <code>note_0000000000a2</code>" in html


def test_merge_verdict_merges_into_the_chosen_primary(curator_client, twins):
    scan()
    pair = ReviewPair.objects.get()
    curator_client.post(
        reverse("memory_app:review_verdict", args=[pair.pk]),
        {"verdict": "merge", "primary": "note_0000000000a2"},
    )
    assert notes_store().get_full_note("note_0000000000a1") is None
    assert notes_store().get_full_note("note_0000000000a2")["importance"] == 0.45
    pair.refresh_from_db()
    assert (pair.status, pair.primary, pair.decided_by) == (
        "merged",
        "note_0000000000a2",
        "user:cora-curator",
    )


def test_not_a_duplicate_is_remembered_until_a_text_changes(curator_client, twins):
    scan()
    pair = ReviewPair.objects.get()
    curator_client.post(
        reverse("memory_app:review_verdict", args=[pair.pk]), {"verdict": "not_duplicate"}
    )
    assert scan()["kept_rejected"] == 1
    assert "The queue is empty" in curator_client.get(reverse("memory_app:review")).content.decode()
    add("note_0000000000a2", "Lumen uses MongoDB for vector search in production now")
    assert scan()["reopened"] == 1
    assert ReviewPair.objects.get().status == "pending"


def test_a_verdict_given_while_a_rescan_runs_is_not_put_back_in_the_queue(twins):
    scan()
    pair = ReviewPair.objects.get()
    cora = Actor("user", "cora-curator", role="curator")

    def curator_judges_meanwhile(done, total):  # the scan has read the queue, not written
        if done == total:
            review_verdict(actor=cora, pair_id=pair.pk, verdict="not_duplicate")

    stats = duplicates_scan(
        run=run_create(kind="dedup_scan", actor=ADA, params={"threshold": 0.85}),
        threshold=0.85,
        rows=[(pair.note_a, pair.note_b, 0.9123)],  # a new similarity: the pair is rewritten
        progress=curator_judges_meanwhile,
    )
    assert stats["judged_meanwhile"] == 1
    pair.refresh_from_db()
    assert (pair.status, pair.decided_by) == ("rejected", "user:cora-curator")


def test_a_rejection_can_be_undone(curator_client, twins):
    scan()
    pair = ReviewPair.objects.get()
    curator_client.post(
        reverse("memory_app:review_verdict", args=[pair.pk]), {"verdict": "not_duplicate"}
    )
    event = AuditEvent.objects.get(action="pair.reject")
    curator_client.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert ReviewPair.objects.get().status == "pending"


def test_a_bad_verdict_changes_nothing(curator_client, twins):
    scan()
    pair = ReviewPair.objects.get()
    response = curator_client.post(
        reverse("memory_app:review_verdict", args=[pair.pk]),
        {"verdict": "delete both"},
        follow=True,
    )
    expected = "verdict: must be one of merge, supersede, not_duplicate, skip"
    assert expected in response.content.decode()
    assert ReviewPair.objects.get().status == "pending" and notes_store().count() == 3


def test_viewers_cannot_judge_and_curators_cannot_scan(viewer_client, curator_client, twins):
    scan()
    pair = ReviewPair.objects.get()
    assert (
        viewer_client.post(
            reverse("memory_app:review_verdict", args=[pair.pk]), {"verdict": "skip"}
        ).status_code
        == 403
    )
    assert curator_client.post(reverse("memory_app:review_scan")).status_code == 403


def test_calibration_suggests_where_curators_merge(db):
    for i, (similarity, status) in enumerate(
        [
            (0.86, "rejected"),
            (0.87, "rejected"),
            (0.91, "merged"),
            (0.92, "merged"),
            (0.93, "merged"),
            (0.95, "merged"),
            (0.97, "merged"),
            (0.88, "merged"),
        ]
    ):
        ReviewPair.objects.create(
            note_a=f"a{i}",
            note_b=f"b{i}",
            hash_a="x",
            hash_b="y",
            similarity=similarity,
            status=status,
        )
    calibration = review_calibration()
    assert calibration.suggested_threshold == 0.875
    bucket = next(r for r in calibration.rows if r.low <= 0.86 < r.high)
    assert (bucket.merged, bucket.rejected, bucket.merge_share) == (0, 2, 0.0)


def test_a_bad_scan_threshold_is_a_400(admin_client_, twins):
    response = admin_client_.post(reverse("memory_app:review_scan"), {"threshold": "2"})
    assert response.status_code == 400 and "threshold" in response.content.decode()
    assert Run.objects.count() == 0


def test_api_lists_the_queue_and_takes_verdicts(curator_client, twins):
    import json

    scan()
    pairs = curator_client.get("/api/duplicates").json()
    assert [(p["note_a"], p["note_b"]) for p in pairs] == [
        ("note_0000000000a1", "note_0000000000a2")
    ]
    bad = curator_client.post(
        f"/api/duplicates/{pairs[0]['id']}/verdict",
        json.dumps({"verdict": "merge", "primary_id": "note_x"}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "primary_id"
    done = curator_client.post(
        f"/api/duplicates/{pairs[0]['id']}/verdict",
        json.dumps({"verdict": "merge", "content": "Lumen: MongoDB"}),
        content_type="application/json",
    )
    assert done.json()["status"] == "merged"
    assert notes_store().get_full_note("note_0000000000a1")["content"] == "Lumen: MongoDB"
    again = curator_client.post(
        f"/api/duplicates/{pairs[0]['id']}/verdict",
        json.dumps({"verdict": "skip"}),
        content_type="application/json",
    )
    assert again.status_code == 409 and "merged already" in again.json()["error"]["message"]
    assert again.json()["error"]["code"] == "pair_decided"


def test_api_scan_is_admin_only_and_returns_a_run(admin_client_, curator_client, twins):
    import json

    assert (
        curator_client.post(
            "/api/duplicates/scan", "{}", content_type="application/json"
        ).status_code
        == 403
    )
    response = admin_client_.post(
        "/api/duplicates/scan", json.dumps({"threshold": 0.9}), content_type="application/json"
    )
    assert response.status_code == 202
    run = response.json()
    assert run["kind"] == "dedup_scan" and run["params"] == {"threshold": 0.9, "full": False}
    assert admin_client_.get(f"/api/maintenance/runs/{run['id']}").json()["status"] == "queued"
    assert admin_client_.get("/api/maintenance/runs/999").status_code == 404
