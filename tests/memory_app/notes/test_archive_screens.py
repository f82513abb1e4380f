"""Archive screens and API: browse, restore with its preview and conflict check, purge."""

import json
import re
from datetime import datetime, timedelta

import pytest
from django.urls import reverse

from memory_app.notes.lib.archive import local_naive_iso
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent

pytestmark = pytest.mark.usefixtures("stores")


def line(note_id, content, days_ago=1, **extra):
    return {
        "note_id": note_id,
        "content": content,
        "section": "Key Topics",
        "importance": 0.02,
        "reason": "low_importance",
        "archived_at": local_naive_iso(datetime.now() - timedelta(days=days_ago)),
        "original_created_at": "2026-01-02T03:04:05",
        "access_count": 2,
        "metadata": {},
        "source": {"source_type": "file", "file_path": "/a.py"},
        **extra,
    }


@pytest.fixture
def archived(stores):
    manager = archive_manager()
    manager.append_entries(
        [
            line("note_0000000000a1", "Lumen used Qdrant once", 120),
            line("note_0000000000a2", "Priya was out last week", 3),
        ]
    )
    with open(manager.archive_file, "a") as f:
        f.write("{broken\n")
    return manager


def test_the_archive_page_lists_newest_first_with_stats_and_bad_lines(viewer_client, archived):
    html = viewer_client.get(reverse("memory_app:archive")).content.decode()
    assert html.index("Priya was out last week") < html.index("Lumen used Qdrant once")
    assert "1 line could not be read" in html and "{broken" in html
    assert 'aria-label="low importance: 2"' in html
    assert "Restore…" not in html  # viewers do not restore


def test_the_archive_page_and_overview_name_the_reasons_in_words(viewer_client, stores):
    archive_manager().append_entries(
        [
            line("note_0000000000b1", "Lumen used Qdrant once"),
            line("note_0000000000b2", "Priya was out", reason="importance_decay_0.013"),
        ]
    )
    archive = viewer_client.get(reverse("memory_app:archive")).content.decode()
    overview = viewer_client.get(reverse("memory_app:overview")).content.decode()
    by_reason = archive[archive.index("By reason") : archive.index("By section")]
    assert "low importance" in by_reason and "importance decayed" in by_reason
    assert ">importance decayed to 0.013<" in archive and ">low importance<" in archive
    card = overview[overview.index('id="archive-card"') :]
    assert '<dt title="low_importance">low importance</dt>' in card
    assert '<dt title="importance_decay">importance decayed</dt>' in card
    for page in (archive, overview):  # the raw reason only in a title and a link's query
        shown = re.sub(r'(title|href)="[^"]*"', "", page)
        assert "low_importance" not in shown and "importance_decay" not in shown


def test_archive_search_is_an_htmx_fragment(viewer_client, archived):
    response = viewer_client.get(
        reverse("memory_app:archive") + "?q=qdrant", HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="archive-table">')
    assert "Lumen used Qdrant once" in html and "Priya" not in html


def test_restore_preview_then_restore(admin_client_, archived):
    url = reverse("memory_app:archive_restore", args=["note_0000000000a1"])
    preview = admin_client_.get(url).content.decode()
    assert "0.02 → 0.12 after restore" in preview and "/a.py" in preview
    response = admin_client_.post(url)
    assert response.status_code == 302
    doc = notes_store().get_full_note("note_0000000000a1")
    assert doc["source"] == {"source_type": "file", "file_path": "/a.py"}
    assert len(doc["embedding"]) == 384


def test_restore_preview_warns_when_the_id_exists_and_offers_a_new_one(admin_client_, archived):
    notes_store().upsert_note("note_0000000000a1", "a newer note", [], "Key Topics")
    url = reverse("memory_app:archive_restore", args=["note_0000000000a1"])
    preview = admin_client_.get(url).content.decode()
    assert "exists in MongoDB already" in preview
    new_id = preview.split('name="new_id" value="')[1].split('"')[0]
    admin_client_.post(url, {"new_id": new_id})
    assert notes_store().get_full_note("note_0000000000a1")["content"] == "a newer note"
    assert notes_store().get_full_note(new_id)["content"] == "Lumen used Qdrant once"


def test_curators_may_not_restore(curator_client, archived):
    url = reverse("memory_app:archive_restore", args=["note_0000000000a1"])
    assert curator_client.post(url).status_code == 403
    assert notes_store().get_full_note("note_0000000000a1") is None


def test_bulk_restore_reports_each_note(admin_client_, archived):
    admin_client_.post(
        reverse("memory_app:archive_restore_many"),
        {"note_ids": ["note_0000000000a1", "note_0000000000a2"]},
    )
    assert notes_store().count() == 2
    assert (
        AuditEvent.objects.filter(action="note.restore").values("batch_id").distinct().count() == 1
    )


def test_purge_counts_first_then_drops_and_undo_puts_lines_back(admin_client_, archived):
    before = archived.archive_file.read_text()
    ask = admin_client_.post(reverse("memory_app:archive_purge"), {"days": "90"})
    assert "<strong>1</strong> line archived more than 90 days ago" in ask.content.decode()
    assert archived.archive_file.read_text() == before
    done = admin_client_.post(
        reverse("memory_app:archive_purge"), {"days": "90", "confirmed": "on"}
    )
    assert done.status_code == 204
    text = archived.archive_file.read_text()
    assert "Lumen used Qdrant once" not in text and "{broken" in text
    event = AuditEvent.objects.get(action="archive.purge")
    admin_client_.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert "Lumen used Qdrant once" in archived.archive_file.read_text()


def test_purge_with_bad_days_is_a_400(admin_client_, archived):
    response = admin_client_.post(reverse("memory_app:archive_purge"), {"days": "soon"})
    assert response.status_code == 400 and "days" in response.content.decode()
    too_far = admin_client_.post(reverse("memory_app:archive_purge"), {"days": "10000000"})
    assert too_far.status_code == 400 and "0 to 36500" in too_far.content.decode()


def test_archive_api_purge_takes_the_purge_jobs_days(admin_client_, archived, settings):
    settings.QQ_ARCHIVE_RETENTION_DAYS = 100
    assert (
        admin_client_.post("/api/archive/purge", "{}", content_type="application/json").json()[
            "days"
        ]
        == 100
    )
    for days in (-1, 36501, 10_000_000):
        response = admin_client_.post(
            "/api/archive/purge", json.dumps({"days": days}), content_type="application/json"
        )
        assert response.status_code == 422 and response.json()["error"]["fields"] == ["body.days"]


def test_archive_api_lists_and_restores(admin_client_, archived):
    body = admin_client_.get("/api/archive?q=priya").json()
    assert [i["note_id"] for i in body["items"]] == ["note_0000000000a2"]
    assert body["unreadable_lines"][0]["line"] == 3
    restored = admin_client_.post(
        "/api/archive/note_0000000000a2/restore", json.dumps({}), content_type="application/json"
    )
    assert restored.status_code == 200 and restored.json()["note_id"] == "note_0000000000a2"


def test_archive_api_conflict_is_a_409_with_a_suggested_id(admin_client_, archived):
    notes_store().upsert_note("note_0000000000a2", "newer", [], "Key Topics")
    response = admin_client_.post(
        "/api/archive/note_0000000000a2/restore", "{}", content_type="application/json"
    )
    assert response.status_code == 409
    suggested = response.json()["error"]["suggested_id"]
    again = admin_client_.post(
        "/api/archive/note_0000000000a2/restore",
        json.dumps({"new_id": suggested}),
        content_type="application/json",
    )
    assert again.status_code == 200 and again.json()["note_id"] == suggested


def test_archive_api_purge_defaults_to_a_dry_run(admin_client_, curator_client, archived):
    body = admin_client_.post(
        "/api/archive/purge", json.dumps({"days": 90}), content_type="application/json"
    ).json()
    assert body == {
        "days": 90,
        "would_drop": 1,
        "dropped": 0,
        "sample": ["note_0000000000a1"],
        # the dry run's effect on the pinned recalls (none pinned here)
        "pins": {"pins": 0, "lost": [], "pinned_items": [], "error": ""},
    }
    assert (
        curator_client.post("/api/archive/purge", "{}", content_type="application/json").status_code
        == 403
    )


@pytest.fixture
def long_archive(stores):
    """About 4 MB of archive: 8,000 lines, the oldest one about "Oslo"."""
    manager = archive_manager()
    entries = [line("note_00000000a000", "Lumen moved its servers to Oslo", 400)]
    entries += [
        line(f"note_{i:012x}", f"note number {i} " + "filler " * 40, 399 - i // 40)
        for i in range(1, 8000)
    ]
    with open(manager.archive_file, "a") as f:
        f.writelines(json.dumps(e) + "\n" for e in entries)
    return manager


def test_the_archive_pages_back_from_the_newest_lines_without_gaps(viewer_client, long_archive):
    url = reverse("memory_app:archive")
    shown: list[str] = []
    page = viewer_client.get(url).content.decode()
    assert "8000 lines" in page
    for _ in range(3):
        shown += re.findall(r"note number (\d+) ", page)
        older = re.search(r'id="archive-older" href="\?before=(\d+)"', page)
        assert older, "each page links to the older lines"
        page = viewer_client.get(url, {"before": older.group(1)}).content.decode()
    assert [int(n) for n in shown] == list(range(7999, 7999 - 300, -1))


def test_a_search_of_a_long_archive_says_how_far_back_it_looked_and_goes_on(
    viewer_client, long_archive
):
    url = reverse("memory_app:archive")
    page = viewer_client.get(url, {"q": "oslo"}).content.decode()
    assert "Lumen moved its servers" not in page
    assert "Searched the lines archived since" in page and "Search older lines" in page
    found = ""
    for _ in range(5):
        older = re.search(r'id="archive-older" href="\?q=oslo&amp;before=(\d+)"', page)
        if older is None:
            break
        page = viewer_client.get(url, {"q": "oslo", "before": older.group(1)}).content.decode()
        found += page
    assert "Lumen moved its servers to Oslo" in found


def test_a_bad_place_in_the_archive_is_a_400(viewer_client, archived):
    page = viewer_client.get(reverse("memory_app:archive"), {"before": "-5"})
    assert page.status_code == 400 and "before" in page.content.decode()
    answer = viewer_client.get("/api/archive", {"before": "x"})
    assert answer.status_code == 422 and "before" in answer.content.decode()


def test_the_api_pages_the_archive_with_older(viewer_client, long_archive):
    first = viewer_client.get("/api/archive", {"limit": 50}).json()
    second = viewer_client.get("/api/archive", {"limit": 50, "before": first["older"]}).json()
    ids = [n["note_id"] for n in first["items"] + second["items"]]
    assert ids == [f"note_{i:012x}" for i in range(7999, 7899, -1)]
    assert first["total"] == 8000
