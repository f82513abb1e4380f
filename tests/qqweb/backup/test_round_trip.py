"""An export of the demo memory imported into empty stores gives back every store
exactly: the same documents with the same BSON types, the same files byte for byte, the
same graph with its nanosecond DateTimes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from graph_app.knowledge.backup import encode_props
from graph_app.stores import graph_store
from memory_app.facts.stores import facts_store
from memory_app.notes.stores import notes_store
from qqweb.backup.exporting import backup_export
from qqweb.backup.importing import backup_import


def typed(value: Any) -> Any:
    """A value with the Python type of every part of it, so ``==`` also compares types
    (an int64 is not an int32, a float 1.0 is not an int 1)."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, repr(value))


def snapshot() -> dict[str, Any]:
    graph = graph_store()
    nodes = {n.id: n for n in graph.export_nodes()}

    def node_key(node_id: str) -> str:
        node = nodes[node_id]
        return repr((node.labels, typed(encode_props(node.props))))

    return {
        "notes": [typed(d) for d in notes_store().export_documents()],
        "facts": [typed(d) for d in facts_store().export_documents()],
        "files": {
            p.name: p.read_bytes()
            for p in sorted(Path(settings.MEMORY_DIR).iterdir())
            if not p.name.endswith(".lock")
        },
        "nodes": sorted(node_key(i) for i in nodes),
        "relationships": sorted(
            repr((node_key(r.start), r.type, node_key(r.end), typed(encode_props(r.props))))
            for r in graph.export_relationships()
        ),
        "raw_datetimes": sorted(
            repr(n.props.get("first_seen")) for n in nodes.values() if "first_seen" in n.props
        ),
    }


def test_an_export_imported_into_empty_stores_gives_back_every_store_exactly(
    demo_stores, empty_stores, tmp_path
):
    before = snapshot()
    export = tmp_path / "export.ndjson"
    summary = backup_export(destination=export)
    assert summary.counts["note"] == len(before["notes"]) > 400
    assert summary.counts["fact"] == len(before["facts"]) > 100

    empty_stores()
    result = backup_import(source=export)

    assert result.preview.conflicts == 0
    after = snapshot()
    assert after["notes"] == before["notes"]
    assert after["facts"] == before["facts"]
    assert after["files"] == before["files"]
    assert after["nodes"] == before["nodes"]
    assert after["relationships"] == before["relationships"]
    assert after["raw_datetimes"] == before["raw_datetimes"]
    assert any("123456789" in d for d in after["raw_datetimes"])
