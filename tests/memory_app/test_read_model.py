"""The read model (memory/read_model.py, kept by the vector index) answers exactly what
MongoDB answers, after every kind of write and after a restart."""

import time
from collections import Counter
from datetime import timedelta

import numpy as np
import pytest

from memory_app.memory import HashingEmbedder
from memory_app.memory.documents import effective_importance
from memory_app.memory.mongo_store import utcnow_naive
from memory_app.memory.vectors import VectorIndex
from memory_app.services import note_archive, note_edit
from memory_app.stores import notes_store
from qqweb.actors import Actor
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

EMB = HashingEmbedder(384)
CORA = Actor("user", "cora-curator", role="curator")
SECTIONS = ["Key Topics", "Important Facts", "Action Items"]


def agent_note(i, now):
    """A note as the agent writes it: assorted ages, accesses, rates and sources."""
    return {
        "note_id": f"note_{i:012x}",
        "content": f"note number {i} about topic {i % 7}",
        "embedding": [float(x) for x in EMB.embed([f"topic {i % 7} note {i}"])[0]],
        "section": SECTIONS[i % 3],
        "importance": round((i * 37 % 101) / 100, 2),
        "decay_rate": [0.01, 0.02, 0.005][i % 3],
        "access_count": i % 9,
        "created_at": now - timedelta(days=i % 60, hours=i % 24),
        "updated_at": now - timedelta(days=i % 5),
        "last_accessed": None if i % 4 == 0 else now - timedelta(days=i % 11),
        "source": {"source_type": ["conversation", "file"][i % 2], "file_path": f"f{i % 4}.md"},
        "metadata": {},
    }


def mongo_answers(section=None):
    store = notes_store()
    now = utcnow_naive()
    docs = list(store.collection.find({} if section is None else {"section": section}))
    return {
        "histogram": store.importance_histogram(bins=10, section=section),
        "effective": sorted(effective_importance(d, now) for d in docs),
        "in_30_days": sorted(effective_importance(d, now + timedelta(days=30)) for d in docs),
        "types": Counter(d["source"]["source_type"] for d in docs if d.get("source")),
        "count": len(docs),
    }


def model_answers(index, section=None):
    model = index.read_model
    now = utcnow_naive()
    with index._lock:
        mask = model._mask(section)
        types = model.columns["source_type"][: model.size][mask]
        return {
            "histogram": model.importance_histogram(bins=10, section=section),
            "effective": sorted(model.effective_importance(now, section).tolist()),
            "in_30_days": sorted(
                model.effective_importance(now + timedelta(days=30), section).tolist()
            ),
            "types": Counter(model.tables["source_type"][t] for t in types if t >= 0),
            "count": int(mask.sum()),
        }


def agrees(index, seconds=5.0):
    """Whether the read model catches up with MongoDB within ``seconds`` (its follower
    runs off the request path, every refresh interval)."""
    deadline = time.monotonic() + seconds
    while True:
        ok = all(model_answers(index, s) == mongo_answers(s) for s in (None, *SECTIONS))
        if ok or time.monotonic() > deadline:
            if not ok:  # say what differs
                for s in (None, *SECTIONS):
                    ours, theirs = model_answers(index, s), mongo_answers(s)
                    for key in ours:
                        if ours[key] != theirs[key]:
                            print(s, key, "read model:", ours[key], "mongodb:", theirs[key])
            return ok
        time.sleep(0.2)


@pytest.mark.parametrize("change_stream", [True, False], ids=["change-stream", "id-diff"])
def test_the_read_model_answers_what_mongodb_answers_after_every_kind_of_write(
    change_stream, tmp_path
):
    store = notes_store()
    now = utcnow_naive()
    store.collection.insert_many([agent_note(i, now) for i in range(120)])
    index = VectorIndex(
        store, refresh_interval=0.2, use_change_stream=change_stream, directory=tmp_path
    )
    try:
        assert index.holds("note_000000000001")
        assert agrees(index)

        # the agent: new notes, a retrieval bump that leaves updated_at alone, a delete
        store.collection.insert_many([agent_note(i, now) for i in range(120, 140)])
        store.collection.update_many(
            {"section": "Key Topics"},
            {"$inc": {"access_count": 1}, "$set": {"last_accessed": now}},
        )
        store.collection.delete_one({"note_id": "note_000000000005"})
        assert agrees(index)

        # qqweb: an edit, an archive, then the edit undone
        doc = store.get_full_note("note_000000000007")
        note_edit(
            actor=CORA,
            note_id="note_000000000007",
            expected_updated_at=doc["updated_at"],
            importance=0.95,
            section="Important Facts",
        )
        note_archive(actor=CORA, note_id="note_000000000008")
        assert agrees(index)
        audit_undo(actor=CORA, event_id=AuditEvent.objects.get(action="note.edit").pk)
        assert agrees(index)
    finally:
        index.close()

    # a restart: the next process starts from the saved snapshot and catches up with
    # what the agent wrote while no qqweb process ran
    store.collection.update_one({"note_id": "note_000000000011"}, {"$set": {"importance": 0.01}})
    store.collection.delete_one({"note_id": "note_000000000012"})
    again = VectorIndex(
        store, refresh_interval=0.2, use_change_stream=change_stream, directory=tmp_path
    )
    try:
        assert again.holds("note_000000000001")
        assert agrees(again)
        assert isinstance(again.read_model.columns["importance"], np.ndarray)
    finally:
        again.close()
