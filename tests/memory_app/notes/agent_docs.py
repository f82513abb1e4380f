"""Documents, archive lines and vectors exactly as the data contract says the agent writes
them, planted for the contract tests (test_contract_reads.py, test_contract_round_trip.py)."""

from datetime import datetime

from memory_app.notes.stores import notes_store
from qqweb.lib.embeddings import HashingEmbedder

CREATED = datetime(2026, 3, 4, 5, 6, 7, 123000)

PROVENANCE = {
    "source_type": "conversation",
    "file_path": "",
    "file_name": "",
    "line_start": None,
    "line_end": None,
    "checksum": "",
    "git_repo": "",
    "git_branch": "",
    "git_commit": "",
    "git_author": "",
    "session_id": "abc",
    "agent_id": "",
    "timestamp": "2026-03-04T05:06:07+00:00",
    "source_id": "session:abc",
}
ANALYZER = {
    "source_type": "file",
    "file_path": "/home/dana/lumen/retrieval.py",
    "file_name": "retrieval.py",
    "checksum": "sha256:" + "0" * 64,
    "git_metadata": {"branch": "main", "commit": "f" * 40},
    "analyzed_at": "2026-03-04T05:06:07",
}


def agent_doc(note_id, content, embedding, **extra):
    return {
        "note_id": note_id,
        "content": content,
        "embedding": embedding,
        "section": "Important Facts",
        "metadata": {},
        "importance": 0.5,
        "decay_rate": 0.01,
        "access_count": 0,
        "created_at": CREATED,
        "updated_at": CREATED,
        "last_accessed": None,
        **extra,
    }


AGENT_1024 = HashingEmbedder(1024)  # stands in for the agent's 1024-d model


def vector_1024(text):
    return [float(x) for x in AGENT_1024.embed([text])[0]]


def plant(*docs):
    notes_store().collection.insert_many([dict(d) for d in docs])


def archive_line(note_id, **extra):
    return {
        "note_id": note_id,
        "content": f"content of {note_id}",
        "section": "Key Topics",
        "importance": 0.02,
        "reason": "low_importance",
        "archived_at": "2026-10-01T10:00:00.123456",
        "original_created_at": "2026-03-04T05:06:07.123000",
        "access_count": 0,
        "metadata": {},
        **extra,
    }
