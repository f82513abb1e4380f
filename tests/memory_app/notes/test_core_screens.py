"""core.md, notes.md and promotion candidates: page, API, verdicts remembered."""

import json

import pytest
from django.urls import reverse

from memory_app.notes.stores import core_notes, notes_store, working_notes
from qqweb.audit.models import AuditEvent
from tests.helpers import read_model_caught_up

pytestmark = pytest.mark.usefixtures("stores")


def add(note_id, content, importance, reads):
    notes_store().upsert_note(note_id, content, [], "People & Entities", importance=importance)
    notes_store().collection.update_one({"note_id": note_id}, {"$set": {"access_count": reads}})


@pytest.fixture
def memory(stores):
    add("note_0000000000a1", "My name is Dana Okafor", 0.95, 5)
    add("note_0000000000a2", "Priya is my closest colleague", 0.85, 3)
    add("note_0000000000a3", "Rarely read but important", 0.9, 1)
    add("note_0000000000a4", "Read often but minor", 0.4, 9)
    core_notes().add_core("I live in Lisbon", "Identity")
    working_notes().add_note("Ongoing Threads", "Waiting on Priya")


def test_candidates_need_importance_and_reads_and_get_a_category(viewer_client, memory):
    body = viewer_client.get("/api/core/candidates").json()
    assert [(c["note_id"], c["suggested_category"]) for c in body] == [
        ("note_0000000000a1", "Identity"),
        ("note_0000000000a2", "Relationships"),
    ]


def test_the_page_shows_core_working_and_candidates(viewer_client, memory):
    html = viewer_client.get(reverse("memory_app:core")).content.decode()
    assert "I live in Lisbon" in html and "Waiting on Priya" in html
    assert "My name is Dana Okafor" in html
    assert "Not core" not in html  # viewers give no verdicts


def test_approve_promotes_and_the_candidate_goes_away(curator_client, memory):
    curator_client.post(
        reverse("memory_app:candidate_verdict", args=["note_0000000000a1"]),
        {"verdict": "approve", "category": "Identity"},
    )
    assert core_notes().get_all_items()["Identity"] == [
        "My name is Dana Okafor",
        "I live in Lisbon",
    ]
    ids = [c["note_id"] for c in curator_client.get("/api/core/candidates").json()]
    assert ids == ["note_0000000000a2"]


def test_a_rejection_is_remembered_until_the_text_changes(curator_client, memory):
    curator_client.post(
        reverse("memory_app:candidate_verdict", args=["note_0000000000a2"]), {"verdict": "reject"}
    )
    assert "note_0000000000a2" not in [
        c["note_id"] for c in curator_client.get("/api/core/candidates").json()
    ]
    notes_store().upsert_note(
        "note_0000000000a2",
        "Priya Raman is my closest colleague",
        [],
        "People & Entities",
        importance=0.85,
    )
    assert "note_0000000000a2" in [
        c["note_id"] for c in curator_client.get("/api/core/candidates").json()
    ]


def test_a_rejection_can_be_undone(curator_client, memory):
    curator_client.post("/api/core/candidates/note_0000000000a2/reject")
    event = AuditEvent.objects.get(action="promotion.reject")
    curator_client.post(f"/api/audit/{event.pk}/undo")
    assert "note_0000000000a2" in [
        c["note_id"] for c in curator_client.get("/api/core/candidates").json()
    ]


def test_remove_and_edit_items_from_the_page(curator_client, memory):
    curator_client.post(
        reverse("memory_app:core_item_remove"),
        {"section": "Identity", "content": "I live in Lisbon"},
    )
    curator_client.post(
        reverse("memory_app:working_item_edit"),
        {
            "section": "Ongoing Threads",
            "content": "Waiting on Priya",
            "new_content": "Waiting on Priya's review",
        },
    )
    assert core_notes().get_all_items()["Identity"] == []
    assert working_notes().get_all_items()["Ongoing Threads"] == ["Waiting on Priya's review"]
    curator_client.post(
        reverse("memory_app:working_item_remove"),
        {"section": "Ongoing Threads", "content": "Waiting on Priya's review"},
    )
    assert working_notes().get_all_items()["Ongoing Threads"] == []


def test_removing_an_item_that_is_not_there_says_so(curator_client, memory):
    response = curator_client.post(
        reverse("memory_app:core_item_remove"),
        {"section": "Identity", "content": "nope"},
        follow=True,
    )
    assert "no such item under Identity" in response.content.decode()


def test_api_promote_with_a_bad_category_is_a_400(curator_client, memory):
    response = curator_client.post(
        "/api/core/promote",
        json.dumps({"note_id": "note_0000000000a1", "category": "Hobbies"}),
        content_type="application/json",
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "category"
    assert core_notes().get_all_items()["Identity"] == ["I live in Lisbon"]


def test_api_core_lists_both_files(viewer_client, memory):
    body = viewer_client.get("/api/core").json()
    assert body["core"]["Identity"] == ["I live in Lisbon"]
    assert body["working"]["Ongoing Threads"] == ["Waiting on Priya"]


def test_viewers_cannot_change_core(viewer_client, memory):
    assert (
        viewer_client.post(
            reverse("memory_app:core_item_remove"),
            {"section": "Identity", "content": "I live in Lisbon"},
        ).status_code
        == 403
    )
    assert (
        viewer_client.post(
            "/api/core/promote",
            json.dumps({"note_id": "note_0000000000a1"}),
            content_type="application/json",
        ).status_code
        == 403
    )


def test_candidates_are_found_past_hundreds_of_rejected_notes(viewer_client, memory):
    """The candidates are read a page of the list at a time until enough are found: a
    curator who rejected the 300 most important notes still sees the next ones."""
    from memory_app.notes.models import PromotionVerdict
    from memory_app.notes.selectors.core import content_hash

    store = notes_store()
    docs = [
        {
            "note_id": f"note_rejected{i:05d}",
            "content": f"Rejected thought number {i}",
            "section": "Key Topics",
            "importance": 0.99,
            "access_count": 7,
            "embedding": [],
        }
        for i in range(300)
    ]
    store.collection.insert_many(docs)  # as the agent writes them
    read_model_caught_up()
    PromotionVerdict.objects.bulk_create(
        PromotionVerdict(
            note_id=d["note_id"],
            content_hash=content_hash(d["content"]),
            verdict=PromotionVerdict.REJECTED,
            decided_by="curator",
        )
        for d in docs
    )
    body = viewer_client.get("/api/core/candidates").json()
    assert [c["note_id"] for c in body] == ["note_0000000000a1", "note_0000000000a2"]
