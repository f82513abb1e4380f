"""seed_demo writes exactly what the agent writes (shared/qq-data-contract.md)."""

import json
import re
from datetime import datetime

import numpy as np
import pytest
from django.core.management import call_command

from graph_app.stores import graph_store
from memory_app.notes.lib.constants import NOTE_ID_RE, SECTIONS
from memory_app.notes.stores import notes_store
from qqweb.lib.clients import neo4j_driver


@pytest.fixture
def seeded(mongo, memory_dir, neo4j):
    call_command("seed_demo")
    return {"memory_dir": memory_dir}


def test_notes_follow_the_agents_document_schema(seeded):
    docs = list(notes_store().collection.find({}, {"_id": 0}))
    assert 450 <= len(docs) <= 550
    assert {d["section"] for d in docs} == set(SECTIONS)
    for doc in docs:
        assert NOTE_ID_RE.match(doc["note_id"]), doc["note_id"]
        assert isinstance(doc["content"], str) and doc["content"]
        assert isinstance(doc["embedding"], list)
        assert 0.0 <= doc["importance"] <= 1.0
        for field in ("created_at", "updated_at"):
            assert isinstance(doc[field], datetime) and doc[field].tzinfo is None
        assert doc["last_accessed"] is None or isinstance(doc["last_accessed"], datetime)
    ids = [d["note_id"] for d in docs]
    assert any(i.startswith("note_") for i in ids)
    assert any(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)
    assert sum(1 for d in docs if d["embedding"] == []) >= 3
    created = [d["created_at"] for d in docs]
    assert (max(created) - min(created)).days > 300  # ages spread over 1 to 400 days


def test_notes_carry_both_source_shapes(seeded):
    sources = [d["source"] for d in notes_store().collection.find({"source": {"$exists": True}})]
    provenance = [s for s in sources if "source_id" in s]
    analyzer = [s for s in sources if "git_metadata" in s]
    assert {s["source_type"] for s in provenance} >= {"file", "conversation"}
    assert analyzer and all("source_id" not in s and "analyzed_at" in s for s in analyzer)
    assert all(s["checksum"].startswith("sha256:") for s in provenance if "checksum" in s)


def test_planted_near_duplicates_are_similar(seeded):
    docs = {d["note_id"]: d for d in notes_store().collection.find({}, {"_id": 0})}
    by_content = {d["content"]: d for d in docs.values()}
    pairs = [
        (d, by_content[d["content"].replace("Note: ", "", 1)])
        for d in docs.values()
        if d["content"].startswith("Note: ") and d["content"][6:] in by_content
    ]
    assert pairs, "expected planted 'Note: ...' near-duplicates"
    for a, b in pairs:
        if a["embedding"] and b["embedding"]:
            va, vb = np.array(a["embedding"]), np.array(b["embedding"])
            assert va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)) > 0.85


def test_archive_lines_are_naive_local_iso_with_the_three_reasons(seeded):
    lines = (seeded["memory_dir"] / "archive.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert 40 <= len(entries) <= 60
    for entry in entries:
        parsed = datetime.fromisoformat(entry["archived_at"])
        assert parsed.tzinfo is None
        assert set(entry) >= {
            "note_id",
            "content",
            "section",
            "importance",
            "reason",
            "archived_at",
            "original_created_at",
            "access_count",
            "metadata",
        }
        if "source" in entry:
            assert entry["source"]
    reasons = {e["reason"] for e in entries}
    assert "low_importance" in reasons
    assert any(re.fullmatch(r"importance_decay_\d\.\d{3}", r) for r in reasons)
    assert any(re.fullmatch(r"Consolidated with \S+ \(similarity: 0\.\d\d\)", r) for r in reasons)
    restored = [e for e in entries if e.get("restored")]
    assert restored and all(
        datetime.fromisoformat(e["restored_at"]).tzinfo is None for e in restored
    )


def test_core_and_working_notes_use_the_templates_with_items(seeded):
    core = (seeded["memory_dir"] / "core.md").read_text()
    notes = (seeded["memory_dir"] / "notes.md").read_text()
    assert core.startswith("# Core Memory\n\nLast updated: ")
    assert (
        "## Identity\n<!-- User's personal information: name, location, role, preferences -->\n- "
        in core
    )
    assert notes.startswith("# QQ Memory Notes\n\nLast updated: ")
    assert notes.count("\n- ") >= 10


def test_graph_has_labels_relationships_provenance_orphans_and_a_shared_name(seeded):
    store = graph_store()
    labels = store.count_by_label()
    assert len(labels) >= 8
    assert 120 <= sum(labels.values()) <= 180
    assert 250 <= sum(store.count_by_relationship_type().values()) <= 350
    assert store.count_sources() >= 10
    assert store.count_orphans() >= 3
    records, _, _ = neo4j_driver().execute_query("""
        MATCH (n) WHERE NOT n:Source WITH n.name AS name, count(*) AS c WHERE c > 1
        RETURN collect(name) AS names""")
    assert "Lumen" in records[0]["names"]
    records, _, _ = neo4j_driver().execute_query("""
        MATCH (e)-[:EXTRACTED_FROM]->(s:Source)-[:EVIDENCES]->(e)
        RETURN count(*) AS n, min(size(e.embedding)) AS dim""")
    assert records[0]["n"] > 0
    assert records[0]["dim"] == 384


def test_a_second_run_keeps_the_data_and_adds_nothing(seeded):
    before = notes_store().count(), (seeded["memory_dir"] / "archive.jsonl").read_text()
    call_command("seed_demo")
    after = notes_store().count(), (seeded["memory_dir"] / "archive.jsonl").read_text()
    assert before == after
