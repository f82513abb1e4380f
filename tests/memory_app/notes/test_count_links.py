"""Every count a curator reads on the notes' pages is a link to the items it counts, and
following it shows exactly those items: the Overview's "(no source)" bar, its Archive
card (per reason, restored, the total), its Core and working notes counts, and the
Archive page's counts (per reason, section and month, the total and the restored)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from tests.helpers import agent_archive_line, plant_note, read_model_caught_up
from tests.page_links import count_link, links, list_total


def _notes_shown(html: str) -> int:
    return html.count('<code class="muted">note_')


def test_the_no_source_count_opens_the_notes_without_a_source(viewer_client, stores):
    plant_note("note_00000000ns01", source={"source_type": "file", "file_path": "/a.py"})
    plant_note("note_00000000ns02")  # the agent wrote no source
    plant_note("note_00000000ns03", source={"source_type": ""})
    read_model_caught_up()
    html = viewer_client.get(reverse("memory_app:overview")).content.decode()
    href = count_link(html, "(no source)", 2, within="sources-card")
    assert href == "/notes/?no_source=on"
    listed = viewer_client.get(href).content.decode()
    assert list_total(listed) == 2 and _notes_shown(listed) == 2
    assert "note_00000000ns01" not in listed


def _archive_lines() -> None:
    """Five lines: three low importance (one restored), two decayed; two sections and one
    line with none; the decayed ones archived 40 days ago (the month before, mostly)."""
    from memory_app.notes.stores import archive_manager

    archive_manager().append_entries(
        [
            agent_archive_line("note_00000000ar01", 1),
            agent_archive_line("note_00000000ar02", 1, section="Ongoing Threads"),
            agent_archive_line("note_00000000ar03", 2, restored=True, restored_at=_now()),
            agent_archive_line("note_00000000ar04", 40, reason="importance_decay_0.013"),
            agent_archive_line("note_00000000ar05", 40, reason="importance_decay_0.02", section=""),
        ]
    )


def _now() -> str:
    from memory_app.notes.lib.archive import local_naive_iso

    return local_naive_iso()


def _archive_listed(html: str) -> tuple[int, int]:
    """(the count the filtered Archive page says, the lines it lists)."""
    found = re.search(r'id="archive-matching" data-total="(\d+)"', html)
    assert found, "the Archive page says no count"
    table = html[html.index('id="archive-table"') :]
    return int(found.group(1)), len(re.findall(r'<code class="muted">note_', table))


def test_the_overview_archive_counts_open_the_lines_they_count(viewer_client, stores):
    _archive_lines()
    html = viewer_client.get(reverse("memory_app:overview")).content.decode()
    card = html[html.index('id="archive-card"') : html.index('id="core-card"')]
    for name, count in (("low importance", 3), ("importance decayed", 2), ("restored", 1)):
        href = re.search(rf">{name}</dt><dd><a href=\"([^\"]+)\">{count}</a>", card)
        assert href, f"{name}: {count} is not a link"
        assert _archive_listed(viewer_client.get(unescape(href.group(1))).content.decode()) == (
            count,
            count,
        )
    total = re.search(r'<a class="big" href="([^"]+)">5</a>', card)
    assert total
    assert _archive_listed(viewer_client.get(unescape(total.group(1))).content.decode()) == (5, 5)


def test_the_archive_page_counts_open_the_lines_they_count(viewer_client, stores):
    _archive_lines()
    html = viewer_client.get(reverse("memory_app:archive")).content.decode()
    rows = [
        ("low importance", 3, "archive-by-reason"),
        ("importance decayed", 2, "archive-by-reason"),
        ("Key Topics", 3, "archive-by-section"),
        ("Ongoing Threads", 1, "archive-by-section"),
        ("(no section)", 1, "archive-by-section"),
    ]
    for name, count, card in rows:
        href = count_link(html, name, count, within=card)
        assert _archive_listed(viewer_client.get(href).content.decode()) == (count, count), name
    months = links(html, "archive-by-month")
    assert sum(int(text) for text, _ in months if text.isdigit()) == 5
    for text, href in months:
        if text.isdigit():
            got = _archive_listed(viewer_client.get(href).content.decode())
            assert got == (int(text), int(text)), href
    for link_id, count in (("archive-total", 5), ("archive-restored", 1)):
        href = re.search(rf'href="([^"]+)" id="{link_id}"', html)
        assert href, link_id
        assert _archive_listed(viewer_client.get(unescape(href.group(1))).content.decode()) == (
            count,
            count,
        )


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("month=March", "month: must be a month as YYYY-MM"),
        ("month=2026-13", "month: must be a month as YYYY-MM"),
        ("reason=" + "x" * 301, "reason: must be text of at most 300 characters"),
        ("section=" + "y" * 301, "section: must be text of at most 300 characters"),
    ],
)
def test_a_bad_archive_filter_is_a_400_naming_it(viewer_client, stores, query, said):
    response = viewer_client.get(reverse("memory_app:archive") + "?" + query)
    assert response.status_code == 400
    assert said in response.content.decode()


def test_the_archive_api_filters_and_counts_as_the_page(viewer_client, stores):
    _archive_lines()
    body = viewer_client.get("/api/archive?reason=importance_decay").json()
    assert body["matching"] == 2 and len(body["items"]) == 2
    bad = viewer_client.get("/api/archive?month=2026-1")
    assert bad.status_code == 400 and "month" in bad.content.decode()


def test_the_core_and_working_counts_open_their_sections(viewer_client, stores):
    from memory_app.notes.stores import core_notes, working_notes

    core_notes().add_item("Identity", "Ada prefers tea")
    core_notes().add_item("Identity", "Ada reads at night")
    working_notes().add_item("Key Topics", "Lumen ships on Friday")
    html = viewer_client.get(reverse("memory_app:overview")).content.decode()
    card = html[html.index('id="core-card"') :]
    core = viewer_client.get(reverse("memory_app:core")).content.decode()
    for name, count in (("Identity", 2), ("Key Topics", 1)):
        href = re.search(rf"<dt>{name}</dt><dd><a href=\"([^\"]+)\">{count}</a>", card)
        assert href, f"{name}: {count} is not a link"
        path, anchor = href.group(1).split("#")
        assert path == reverse("memory_app:core")
        heading = rf'<h3 id="{anchor}">.*?data-total="(\d+)".*?<ul[^>]*>(.*?)</ul>'
        section = re.search(heading, core, re.S)
        assert section, f"no section #{anchor} on the Core page"
        assert int(section.group(1)) == count
        assert section.group(2).count("<li>") == count
