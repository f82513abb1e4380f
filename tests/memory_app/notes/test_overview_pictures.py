"""The Overview's pictures: decay overlay, archive what-if, sources, notes per week."""

from datetime import timedelta

from django.urls import reverse

from memory_app.notes import stores as stores_module
from memory_app.notes.charts import histogram_chart
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.selectors import memory_insights, overview
from memory_app.notes.stores import notes_store
from tests.helpers import HeldReads, wait_until_counted

NOW = utcnow_naive()


def plant(note_id, importance, days_old, **extra):
    notes_store().collection.insert_one(
        {
            "note_id": note_id,
            "content": "x",
            "embedding": [],
            "section": "Key Topics",
            "importance": importance,
            "decay_rate": 0.01,
            "access_count": 0,
            "created_at": NOW - timedelta(days=days_old),
            "updated_at": NOW,
            "last_accessed": None,
            **extra,
        }
    )


def test_the_histogram_counts_stored_importance_and_decay_moves_the_overlays_down(mongo):
    plant("note_0000000000a1", 0.95, 0, source={"source_type": "file", "file_path": "/a.py"})
    plant("note_0000000000a2", 0.45, 0, source={"source_type": "conversation"})
    plant("note_0000000000a3", 0.02, 200)
    insights = memory_insights()
    assert [b.value for b in insights.histogram.bars] == [1, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    lines = {line.name: line for line in insights.histogram.lines}
    assert set(lines) == {"now", "7 days", "30 days", "90 days"}
    assert insights.would_archive == 1
    assert memory_insights(archive_threshold=0.5).would_archive == 2
    assert dict(insights.by_source_type) == {"file": 1, "conversation": 1, "(no source)": 1}
    assert insights.top_files == [("/a.py", 1)]
    assert sum(b.value for b in insights.per_week.bars) == 2  # the 200-day-old one is older


def test_chart_geometry_scales_bars_to_the_tallest_series():
    chart = histogram_chart(["a", "b"], [1, 2], {"now": [4, 0]})
    assert chart.max_value == 4
    assert chart.bars[1].height == 2 * chart.bars[0].height


def test_a_narrow_chart_shows_every_importance_label_and_every_second_week():
    """Labels of 22 units (11 px in a chart 300 px wide) do not overlap: the ten
    importance labels fit, the thirteen weeks' "MM-DD" ones do not, so half are shown."""
    importance = histogram_chart([f"{i / 10:.1f}" for i in range(10)], [1] * 10)
    assert [narrow for _, _, narrow in importance.x_labels] == [True] * 10
    weeks = histogram_chart([f"11-{d:02d}" for d in range(26)], [1] * 26)
    shown = [text for _, text, narrow in weeks.x_labels if narrow]
    assert len(weeks.x_labels) == 13
    assert shown == ["11-00", "11-04", "11-08", "11-12", "11-16", "11-20", "11-24"]


def test_the_overview_page_draws_the_histogram_and_the_what_if(viewer_client, stores):
    plant("note_0000000000a1", 0.02, 200)
    plant("note_0000000000a2", 0.9, 0)
    html = viewer_client.get(reverse("memory_app:overview") + "?threshold=0.5").content.decode()
    assert 'id="importance-card"' in html and "<polyline" in html
    assert "<strong>1</strong> of 2 notes</a> would be archived" in html
    assert 'href="/notes/?effective_below=0.5"' in html  # the list of that one note


def test_a_bad_threshold_falls_back_to_the_setting(viewer_client, stores):
    plant("note_0000000000a1", 0.9, 0)
    html = viewer_client.get(reverse("memory_app:overview") + "?threshold=abc").content.decode()
    assert "effective importance below 0.05" in html


def test_a_process_that_just_started_shows_the_other_stores_and_says_the_pictures_load(
    viewer_client, stores, monkeypatch
):
    """The read model of a process with no snapshot loads in the background: until it is
    ready the Overview answers at once with the total from MongoDB's metadata, the other
    stores' cards, and says the pictures are loading; once loaded, they are drawn."""
    plant("note_0000000000a1", 0.9, 0)
    plant("note_0000000000a2", 0.2, 3)
    monkeypatch.setattr(overview, "READ_MODEL_WAIT_S", 0.2)
    index = notes_store().vector_index
    with index._refreshing:  # the background load cannot finish while this is held
        page = viewer_client.get(reverse("memory_app:overview")).content.decode()
        api = viewer_client.get("/api/overview").json()
        histogram = viewer_client.get("/api/notes/histogram")
    assert 'id="pictures-loading"' in page and 'id="importance-card"' not in page
    assert '<a class="big" href="/notes/">2</a>' in page  # the metadata count
    assert 'id="archive-card"' in page and 'id="graph-card"' in page
    assert api["loading"] is True and api["notes_total"] == 2
    assert histogram.status_code == 503 and "loading" in histogram.json()["error"]["message"]

    monkeypatch.setattr(overview, "READ_MODEL_WAIT_S", 5)
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()
    assert 'id="importance-card"' in page and 'id="pictures-loading"' not in page
    assert viewer_client.get("/api/notes/histogram").json()["counts"][9] == 1


def test_a_process_loading_its_index_shows_the_loads_count_without_asking_the_server_again(
    viewer_client, stores, monkeypatch
):
    """A count is a scan of every note on SecantusDB's daemon (0.6 s at 100k) that the
    load's reads wait behind: while the index reads the vectors, the Overview's total is
    the count the load began with (a note written since is counted once it is read)."""
    plant("note_0000000000a1", 0.9, 0)
    plant("note_0000000000a2", 0.2, 3)
    monkeypatch.setattr(overview, "READ_MODEL_WAIT_S", 0.05)
    source = HeldReads(notes_store())
    index = VectorIndex(source, use_change_stream=False)
    monkeypatch.setattr(stores_module, "_vector_index_for", lambda store: index)
    try:
        index.start()
        wait_until_counted(index)
        plant("note_0000000000a3", 0.5, 0)  # after the load's count: the server says 3
        api = viewer_client.get("/api/overview").json()
        assert api["loading"] is True and api["notes_total"] == 2
    finally:
        source.go.set()
        index.close()
