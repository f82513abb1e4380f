"""The notes pages: list, detail, edit, archive, promote, search, audit, bulk."""

import re

import pytest
from django.urls import reverse

from memory_app.notes.stores import core_notes, notes_store
from qqweb.audit.models import AuditEvent
from tests.helpers import add_note as add

pytestmark = pytest.mark.usefixtures("stores")


@pytest.fixture
def notes():
    add("note_0000000000a1", "My name is Dana and I live in Lisbon", "People & Entities", 0.9)
    add("note_0000000000a2", "Lumen uses MongoDB for vector search", importance=0.6)
    add("note_0000000000a3", "tidepool runs k3s on Raspberry Pis", importance=0.2)


def test_the_list_shows_notes_with_their_importance(viewer_client, notes):
    page = viewer_client.get(reverse("memory_app:notes")).content.decode()
    assert "Lumen uses MongoDB for vector search" in page
    assert reverse("memory_app:note_detail", args=["note_0000000000a2"]) in page


def test_an_htmx_filter_returns_only_the_table(viewer_client, notes):
    response = viewer_client.get(
        reverse("memory_app:notes") + "?section=Key+Topics", HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="notes-table">')
    assert "<html" not in html
    assert "Lumen uses MongoDB" in html and "My name is Dana" not in html


def test_pages_follow_the_cursor_in_the_url(viewer_client):
    for i in range(55):
        add(f"note_{i:012x}", f"note number {i}")
    first = viewer_client.get(reverse("memory_app:notes") + "?sort=created").content.decode()
    next_link = re.search(r'href="\?([^"]*cursor=[^"]+)"', first).group(1).replace("&amp;", "&")
    assert "sort=created" in next_link
    second = viewer_client.get(reverse("memory_app:notes") + "?" + next_link).content.decode()
    assert second.count('name="note_ids"') == 0  # a viewer gets no bulk checkboxes
    assert "End of the list." in second
    assert second.count("note number") == 5


def test_a_bad_filter_is_a_400_that_names_the_field(viewer_client, notes):
    response = viewer_client.get(reverse("memory_app:notes") + "?min_importance=7")
    assert response.status_code == 400
    assert "min_importance" in response.content.decode()


@pytest.mark.parametrize(
    "query",
    ["stale_days=1000000", "min_effective=NaN", "max_importance=inf", "cursor=" + "A" * 600],
)
def test_a_filter_out_of_its_bounds_is_a_400_not_a_crash(viewer_client, notes, query):
    response = viewer_client.get(reverse("memory_app:notes") + "?" + query)
    assert response.status_code == 400
    assert query.split("=")[0] in response.content.decode()


def test_the_detail_page_shows_fields_provenance_curve_and_similar_notes(viewer_client, notes):
    add("note_0000000000a4", "Lumen uses MongoDB for search")
    page = viewer_client.get(reverse("memory_app:note_detail", args=["note_0000000000a2"]))
    html = page.content.decode()
    assert "384 dimensions" in html
    assert "<polyline" in html
    assert "Lumen uses MongoDB for search" in html  # a similar note
    assert "Edit" not in html  # a viewer sees no curation forms


def test_a_missing_note_is_a_404_page(viewer_client):
    response = viewer_client.get(reverse("memory_app:note_detail", args=["note_00000000zzzz"]))
    assert response.status_code == 404


def test_a_curator_edits_a_note(curator_client, notes):
    doc = notes_store().get_full_note("note_0000000000a2")
    response = curator_client.post(
        reverse("memory_app:note_edit", args=["note_0000000000a2"]),
        {
            "expected_updated_at": doc["updated_at"].isoformat(),
            "content": "Lumen uses Postgres",
            "section": "Important Facts",
            "importance": "0.7",
        },
    )
    assert response.status_code == 302
    note = notes_store().get_full_note("note_0000000000a2")
    assert (note["content"], note["section"], note["importance"]) == (
        "Lumen uses Postgres",
        "Important Facts",
        0.7,
    )


def test_a_stale_edit_is_refused_and_shows_both_versions(curator_client, notes):
    doc = notes_store().get_full_note("note_0000000000a2")
    notes_store().upsert_note("note_0000000000a2", "Lumen uses MongoDB 8 now", [], "Key Topics")
    response = curator_client.post(
        reverse("memory_app:note_edit", args=["note_0000000000a2"]),
        {
            "expected_updated_at": doc["updated_at"].isoformat(),
            "content": "Lumen uses Postgres",
            "section": "Key Topics",
            "importance": "0.6",
        },
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert '<span class="gone">MongoDB 8 now</span>' in html  # the store's, word by word
    assert '<span class="new">Postgres</span>' in html  # the curator's
    assert 'name="content" value="Lumen uses Postgres"' in html  # ready to save on top
    assert notes_store().get_full_note("note_0000000000a2")["content"] == "Lumen uses MongoDB 8 now"


def test_a_viewer_cannot_post_curation_actions(viewer_client, notes):
    url = reverse("memory_app:note_archive", args=["note_0000000000a2"])
    assert viewer_client.post(url).status_code == 403
    assert notes_store().get_full_note("note_0000000000a2") is not None


def test_archive_then_undo_from_the_audit_page(curator_client, notes):
    curator_client.post(reverse("memory_app:note_archive", args=["note_0000000000a2"]))
    assert notes_store().get_full_note("note_0000000000a2") is None
    audit = curator_client.get(reverse("memory_app:audit")).content.decode()
    assert "note.archive" in audit and "user:cora-curator" in audit  # in the titles
    assert '<td data-label="Who" title="user:cora-curator">cora-curator</td>' in audit
    assert '<td data-label="Action" title="note.archive">Archive a note</td>' in audit
    event = AuditEvent.objects.get(action="note.archive")
    curator_client.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert notes_store().get_full_note("note_0000000000a2") is not None


def test_promote_uses_the_suggested_category(curator_client, notes):
    page = curator_client.get(reverse("memory_app:note_detail", args=["note_0000000000a1"]))
    assert "Suggested: Identity" in page.content.decode()
    curator_client.post(
        reverse("memory_app:note_promote", args=["note_0000000000a1"]), {"category": "Identity"}
    )
    assert core_notes().get_all_items()["Identity"] == ["My name is Dana and I live in Lisbon"]


def test_search_page_returns_the_results_fragment_for_htmx(viewer_client, notes):
    response = viewer_client.get(
        reverse("memory_app:search") + "?q=MongoDB+vector+search", HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="search-results">')
    first = re.search(r'<li><a href="/notes/([^/]+)/">', html).group(1)
    assert first == "note_0000000000a2"


def test_search_says_when_the_model_does_not_match(viewer_client, settings, notes):
    settings.QQ_EMBEDDING_DIMENSION = 1024
    html = viewer_client.get(reverse("memory_app:search") + "?q=MongoDB").content.decode()
    assert "1024 dimensions but the stored vectors have 384" in html


def test_bulk_moves_the_selected_notes_to_another_section(curator_client, notes):
    curator_client.post(
        reverse("memory_app:notes_bulk"),
        {
            "action": "move_section",
            "to_section": "Ongoing Threads",
            "scope": "selected",
            "note_ids": ["note_0000000000a2", "note_0000000000a3"],
            "section": "Key Topics",
            "confirmed": "on",
        },
    )
    assert notes_store().get_full_note("note_0000000000a3")["section"] == "Ongoing Threads"
    assert notes_store().get_full_note("note_0000000000a1")["section"] == "People & Entities"


def test_bulk_asks_to_confirm_with_the_count_then_applies(curator_client, notes):
    url = reverse("memory_app:notes_bulk")
    ask = curator_client.post(
        url,
        {
            "action": "set_importance",
            "importance": "0.3",
            "scope": "matching",
            "section": "Key Topics",
        },
    )
    assert "<strong>2</strong> notes" in ask.content.decode()
    assert notes_store().get_full_note("note_0000000000a2")["importance"] == 0.6
    done = curator_client.post(
        url,
        {
            "action": "set_importance",
            "importance": "0.3",
            "scope": "matching",
            "section": "Key Topics",
            "confirmed": "on",
        },
        HTTP_HX_REQUEST="true",
    )
    assert done.status_code == 204 and done["HX-Redirect"].startswith("/notes/")
    assert notes_store().get_full_note("note_0000000000a2")["importance"] == 0.3
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9


def test_the_detail_page_shows_both_source_shapes(viewer_client, notes):
    analyzer = {
        "source_type": "file",
        "file_path": "/home/dana/lumen/docs/architecture.md",
        "file_name": "architecture.md",
        "checksum": "sha256:" + "0" * 64,
        "git_metadata": {"branch": "main"},
        "analyzed_at": "2026-11-04T15:13:09",
    }
    provenance = {
        "source_type": "conversation",
        "session_id": "c71b",
        "agent_id": "",
        "timestamp": "2026-01-20T17:56:44+00:00",
        "source_id": "session:c71b",
    }
    notes_store().append_source_history("note_0000000000a2", provenance)
    notes_store().append_source_history("note_0000000000a2", analyzer)
    notes_store().collection.update_one(
        {"note_id": "note_0000000000a2"}, {"$set": {"source": analyzer}}
    )
    response = viewer_client.get(reverse("memory_app:note_detail", args=["note_0000000000a2"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "session c71b" in html and "/home/dana/lumen/docs/architecture.md" in html
    assert "2026-11-04T15:13:09" in html


def test_the_detail_page_names_the_source_in_words_and_its_dates_in_one_format(
    viewer_client, notes
):
    analyzer = {
        "source_type": "file",
        "file_path": "/home/dana/lumen/docs/architecture.md",
        "git_metadata": {"repo": "github.com/dana/lumen", "branch": "main"},
        "analyzed_at": "2026-11-04T15:13:09.125000",
    }
    provenance = {
        "source_type": "conversation",
        "session_id": "c71b",
        "timestamp": "2026-01-20T17:56:44.700239+00:00",
        "source_id": "session:c71b",
    }
    notes_store().append_source_history("note_0000000000a2", provenance)
    notes_store().collection.update_one(
        {"note_id": "note_0000000000a2"}, {"$set": {"source": analyzer}}
    )
    html = viewer_client.get(
        reverse("memory_app:note_detail", args=["note_0000000000a2"])
    ).content.decode()
    latest = html[html.index("<h3>Latest source</h3>") : html.index("<h3>History</h3>")]
    assert "<dt>Source</dt><dd>file</dd>" in latest
    assert "<dt>File</dt><dd>/home/dana/lumen/docs/architecture.md</dd>" in latest
    assert "<dt>Repository</dt><dd>github.com/dana/lumen</dd>" in latest
    assert "<dt>Branch</dt>" in latest
    for key in ("source_type", "file_path", "git_metadata", "analyzed_at"):
        assert key not in latest
    # the analyzer's naive time is the agent's clock: no zone claimed, the exact text kept
    assert 'title="2026-11-04T15:13:09.125000 (no time zone)">4 Nov 2026, 15:13</time>' in latest
    assert (
        'title="2026-01-20T17:56:44.700239+00:00">20 Jan 2026, 17:56 UTC</time>' in html
    )  # the provenance history
    assert "<dt>Id</dt>" in html and "note_id</dt>" not in html
    assert re.search(
        r'<dt>Updated</dt><dd><time class="when" [^>]*> ?\d+ \w{3} \d{4}, \d\d:\d\d UTC</time>',
        html,
    )


def test_a_bad_filter_names_the_field_by_its_label_not_its_key(viewer_client, notes):
    page = viewer_client.get(
        reverse("memory_app:notes") + "?min_importance=7&max_importance=9"
    ).content.decode()
    alert = page[page.index('<p class="error" role="alert">') :]
    alert = alert[: alert.index("</p>")]
    assert "Importance from: " in alert and "Max importance: " in alert
    assert "min_importance" not in alert and "max_importance" not in alert
