"""The Overview's archive figures come from statistics kept per archive file: right after
every change (an archive, the agent's own appends, a torn line finished, a restore, a
purge), and the file is not read again while it has not changed (its device, inode, size
and modification time); when lines were appended, only the new end is parsed."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from django.conf import settings

from memory_app.notes.lib.archive import ArchiveManager, reason_kind
from memory_app.notes.lib.archive.stats import archive_stats_cache
from memory_app.notes.services import archive_purge, note_archive, note_restore
from qqweb.lib.actors import Actor
from tests.helpers import add_note, agent_archive_line

ADA = Actor("user", "ada-admin")
pytestmark = pytest.mark.django_db


def _file() -> Any:
    return settings.MEMORY_DIR / "archive.jsonl"


def _shown(client: Any) -> dict[str, Any]:
    response = client.get("/api/overview")
    assert response.status_code == 200
    return response.json()["archive"]


def _from_the_file() -> dict[str, Any]:
    """The figures read from the whole file, as the Overview computed them before."""
    read = ArchiveManager(settings.MEMORY_DIR).read()
    stamps = [n.archived_at for n in read.notes if n.archived_at]
    return {
        "total": len(read.notes),
        "by_reason": dict(Counter(reason_kind(n.reason) for n in read.notes)),
        "restored": sum(1 for n in read.notes if n.restored),
        "unreadable_lines": len(read.bad_lines),
        "oldest": min(stamps) if stamps else None,
        "newest": max(stamps) if stamps else None,
    }


def _agent_appends(text: str) -> None:
    with open(_file(), "a", encoding="utf-8") as handle:
        handle.write(text)


def _right(shown: dict[str, Any]) -> bool:
    expected = _from_the_file()
    return all(shown.get(k) == v for k, v in expected.items() if k in shown)


def test_the_overview_reads_the_archive_once_while_it_does_not_change(
    viewer_client, mongo, memory_dir
):
    for i in range(3):
        _agent_appends(json.dumps(agent_archive_line(f"note_arch{i:07d}", 10 + i)) + "\n")
    cache = archive_stats_cache(_file())
    reads = cache.full_reads
    first = _shown(viewer_client)
    assert first["total"] == 3 and _right(first)
    assert cache.full_reads == reads + 1
    for _ in range(3):
        assert _shown(viewer_client) == first
    assert cache.full_reads == reads + 1 and cache.tail_reads == 0


def test_the_figures_follow_archives_appends_restores_and_purges(viewer_client, mongo, memory_dir):
    for i in range(3):
        _agent_appends(json.dumps(agent_archive_line(f"note_arch{i:07d}", 100 + i)) + "\n")
    cache = archive_stats_cache(_file())
    assert _shown(viewer_client)["total"] == 3
    full = cache.full_reads

    add_note("note_0000000000a1", "Lumen uses MongoDB")
    note_archive(actor=ADA, note_id="note_0000000000a1")
    shown = _shown(viewer_client)
    assert shown["total"] == 4 and shown["by_reason"]["manual"] == 1 and _right(shown)
    assert cache.full_reads == full  # only the appended line was parsed

    _agent_appends(json.dumps(agent_archive_line("note_agent00001", 1))[:40])  # torn
    shown = _shown(viewer_client)
    assert shown["unreadable_lines"] == 1 and shown["total"] == 4 and _right(shown)
    _agent_appends(json.dumps(agent_archive_line("note_agent00001", 1))[40:] + "\n")
    shown = _shown(viewer_client)
    assert shown["unreadable_lines"] == 0 and shown["total"] == 5 and _right(shown)
    assert cache.full_reads == full

    note_restore(actor=ADA, note_id="note_0000000000a1")
    shown = _shown(viewer_client)
    assert shown["restored"] == 1 and shown["total"] == 5 and _right(shown)

    archive_purge(actor=ADA, days=50)
    shown = _shown(viewer_client)
    assert shown["total"] == 2 and _right(shown)  # the three lines of 100+ days gone

    _file().unlink()
    assert _shown(viewer_client)["total"] == 0


def test_a_file_rewritten_in_place_and_longer_is_read_again(viewer_client, mongo, memory_dir):
    """Same inode, larger: not an append when the bytes counted before changed (the
    agent rewriting its file with ``open(..., "w")``)."""
    lines = [agent_archive_line(f"note_arch{i:07d}", 10) for i in range(2)]
    _agent_appends("".join(json.dumps(line) + "\n" for line in lines))
    assert _shown(viewer_client)["by_reason"] == {"low_importance": 2}
    cache = archive_stats_cache(_file())
    full = cache.full_reads
    rewritten = [{**line, "reason": "Consolidated with note_x"} for line in lines] + lines
    with open(_file(), "w", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(line) + "\n" for line in rewritten))
    shown = _shown(viewer_client)
    assert shown["by_reason"] == {"consolidated": 2, "low_importance": 2} and _right(shown)
    assert cache.full_reads == full + 1
