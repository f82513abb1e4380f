"""The read model (memory/read_model.py, kept by the vector index) answers exactly what
MongoDB answers, after every kind of write and after a restart: its questions (histogram,
effective importance now and in 30 days, source types, counts, per section), the
Overview's numbers and pictures (replica/aggregates.py) against the pass over every document
they replace, every column of every note, row by row, and the notes list
(memory/read_list.py): every filter, both directions of every sort, page by page, its
counts and positions, against the MongoDB query (mongo/paging.py)."""

import time
from collections import Counter
from datetime import timedelta
from functools import partial

import numpy as np
import pytest

from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.listing import SORT_FIELDS, NoteFilter
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.lib.replica.aggregates import read_pictures, section_counts
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.lib.replica.read_model import _us
from memory_app.notes.services import note_archive, note_create, note_edit, notes_bulk
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo, batch_undo
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import HashingEmbedder

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

EMB = HashingEmbedder(384)
CORA = Actor("user", "cora-curator", role="curator")
SECTIONS = ["Key Topics", "Important Facts", "Action Items"]


def agent_note(i, now):
    """A note as the agent writes it: assorted ages (some older than the Overview's 26
    weeks), accesses, rates and sources (some none)."""
    doc = {
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
    if i % 10 == 3:
        del doc["source"]
    if i % 13 == 0:
        doc["created_at"] = now - timedelta(days=200 + i)
    return doc


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


def _by_count(counter):
    return sorted(counter.items(), key=lambda row: (-row[1], row[0]))


def mongo_pictures(now, threshold):
    """The Overview's numbers as the pass over every document computed them (the code
    the read model replaced; ties in counts by name)."""
    docs = list(notes_store().collection.find({}, {"embedding": 0}))
    effective = {
        d: [effective_importance(x, now + timedelta(days=d)) for x in docs] for d in (0, 7, 30, 90)
    }
    types, files, weeks = Counter(), Counter(), Counter()
    for doc in docs:
        source = doc.get("source") or {}
        types[str(source.get("source_type") or "(no source)")] += 1
        if source.get("file_path"):
            files[str(source["file_path"])] += 1
        if doc.get("created_at") is not None:
            weeks[(now - doc["created_at"]).days // 7] += 1

    def bucket(values):
        return [int(c) for c in np.histogram(np.clip(values, 0, 1), bins=10, range=(0, 1))[0]]

    by_section = {}
    for key, n in notes_store().count_by_section().items():
        by_section[key or None] = by_section.get(key or None, 0) + n
    return {
        "by_section": by_section,
        "total": len(docs),
        "stored": notes_store().importance_histogram(bins=10),
        "effective": {d: bucket(v) for d, v in effective.items()},
        "would_archive": sum(1 for v in effective[0] if v < threshold),
        "by_source_type": _by_count(types),
        "top_files": _by_count(files)[:10],
        "per_week": [weeks.get(w, 0) for w in range(25, -1, -1)],
    }


def model_pictures(index, now, threshold):
    def question(model):
        pictures = read_pictures(model, now=now, threshold=threshold)
        return {"by_section": section_counts(model), **pictures.__dict__}

    return index.read(question, wait=5)


def pictures_agree(index):
    now = utcnow_naive()
    ours, theirs = model_pictures(index, now, 0.3), mongo_pictures(now, 0.3)
    for key in theirs:
        if ours[key] != theirs[key]:
            print("overview", key, "read model:", ours[key], "mongodb:", theirs[key])
    return ours == theirs


def mongo_rows():
    """Every note's read-model fields as MongoDB holds them."""
    rows = {}
    for d in notes_store().collection.find({}):
        source = d.get("source") or {}
        vector = d.get("embedding")
        rows[d["note_id"]] = (
            float(d.get("importance", 0.5)),
            float(d.get("decay_rate") or 0.01),
            int(d.get("access_count") or 0),
            _us(d.get("created_at")),
            _us(d.get("updated_at")),
            _us(d.get("last_accessed")),
            len(vector) if isinstance(vector, list) else 0,
            d.get("section"),
            source.get("source_type"),
            source.get("file_path"),
        )
    return rows


def model_rows(index):
    """Every live row of the read model, decoded back to values."""
    model = index.read_model
    c, t = model.columns, model.tables

    def name(table, code):
        return t[table][code] if code >= 0 else None

    with index._lock:
        return {
            note_id: (
                float(c["importance"][r]),
                float(c["decay_rate"][r]),
                int(c["access_count"][r]),
                int(c["created_us"][r]),
                int(c["updated_us"][r]),
                int(c["accessed_us"][r]),
                int(c["dim"][r]),
                name("section", int(c["section"][r])),
                name("source_type", int(c["source_type"][r])),
                name("source_file", int(c["source_file"][r])),
            )
            for note_id, r in model.rows.items()
            if model.live[r]
        }


class Through:
    """The store, with this test's index as the one the list reads."""

    def __init__(self, store, index):
        self._store, self.vector_index = store, index

    def __getattr__(self, name):
        return getattr(self._store, name)


FILTERS = [
    NoteFilter(section="Key Topics"),
    NoteFilter(min_importance=0.3, max_importance=0.7),
    NoteFilter(min_effective=0.2, max_effective=0.6),
    # the Overview's links: a histogram bar, "would be archived", a week's bar
    NoteFilter(min_importance=0.3, importance_below=0.5),
    NoteFilter(effective_below=0.3),
    NoteFilter(
        created_after=utcnow_naive() - timedelta(days=21),
        created_until=utcnow_naive() - timedelta(days=14),
    ),
    NoteFilter(source_type="file", source_file="f1.md"),
    NoteFilter(never_accessed=True),
    NoteFilter(min_access=3),
    NoteFilter(min_importance=0.5, min_access=1),  # the promotion candidates' filter
    NoteFilter(stale_days=5),
    NoteFilter(no_embedding=True),
    NoteFilter(no_source=True),  # the Overview's "(no source)"
    NoteFilter(no_source=True, section="Important Facts"),
    NoteFilter(text="NUMBER"),
    NoteFilter(text="number 1"),
    NoteFilter(text="topic 3", section="Important Facts"),
]
ORDERS = [(sort, d) for sort in SORT_FIELDS for d in ("asc", "desc")]


def walk(page_of):
    """Every page of a list: [(ids, offset)], following each page's cursor."""
    pages, cursor = [], None
    while True:
        page = page_of(cursor=cursor)
        pages.append(([n.note_id for n in page.items], page.offset))
        if not page.next_cursor:
            return pages
        cursor = page.next_cursor


def list_differences(index):
    """Where the list from the read model differs from the MongoDB query's."""
    store, through, now = notes_store(), Through(notes_store(), index), utcnow_naive()
    cases = [(NoteFilter(), *order) for order in ORDERS]
    cases += [(f, *ORDERS[i % len(ORDERS)]) for i, f in enumerate(FILTERS)]
    wrong = []
    for flt, sort, direction in cases:
        args = {"sort": sort, "direction": direction, "limit": 25}
        ours = walk(partial(read_list.list_page, through, flt, now=now, **args))
        plain = NoteFilter(**{**flt.__dict__, "text": None})
        theirs = walk(partial(store.list_notes, plain, now=now, **args))
        expected = [i for ids, _ in theirs for i in ids]
        if flt.text:  # the reference: the query's notes whose content holds the text
            pattern = read_list.text_pattern(flt.text)
            docs = store.notes_by_ids(expected)
            expected = [i for i in expected if pattern.search(docs[i].content)]
        got = [i for ids, _ in ours for i in ids]
        seen = 0
        for ids, offset in ours:
            if offset is not None and offset != seen:
                wrong.append((flt, sort, direction, "offset", offset, seen))
            seen += len(ids)
        total = read_list.count(through, flt, now=now).value
        if got != expected or total != len(expected):
            wrong.append((flt, sort, direction, got, expected, total))
    return wrong


def agrees(index, seconds=30.0):
    """Whether the read model catches up with MongoDB within ``seconds`` (its follower
    runs off the request path, every refresh interval; it answers as soon as it agrees,
    and a loaded machine running two test workers can take seconds)."""
    deadline = time.monotonic() + seconds
    while True:
        ok = all(model_answers(index, s) == mongo_answers(s) for s in (None, *SECTIONS))
        ok = ok and model_rows(index) == mongo_rows()
        ok = ok and not list_differences(index)
        ok = ok and pictures_agree(index)
        if ok or time.monotonic() > deadline:
            if not ok:  # say what differs
                ours, theirs = model_rows(index), mongo_rows()
                for note_id in sorted(set(ours) | set(theirs)):
                    mine, real = ours.get(note_id), theirs.get(note_id)
                    if mine != real:
                        print(note_id, "read model:", mine, "mongodb:", real)
                for s in (None, *SECTIONS):
                    ours, theirs = model_answers(index, s), mongo_answers(s)
                    for key in ours:
                        if ours[key] != theirs[key]:
                            print(s, key, "read model:", ours[key], "mongodb:", theirs[key])
                for difference in list_differences(index):
                    print("list:", *difference)
                if not pictures_agree(index):
                    print("the pictures (histograms) differ")
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

        # qqweb: a note added by hand (no reads, its own source), a bulk change, its undo
        note_create(actor=CORA, content="Ada prefers tea over coffee", section="Key Topics")
        bulk = notes_bulk(
            actor=CORA,
            action="set_importance",
            note_ids=[f"note_{i:012x}" for i in range(20, 40)],
            importance=0.05,
        )
        assert agrees(index)
        batch_undo(actor=CORA, batch_id=bulk.batch_id)
        assert agrees(index)

        # the agent re-writes a note whose embedding failed (the contract's empty list)
        store.collection.update_one(
            {"note_id": "note_000000000009"},
            {"$set": {"embedding": [], "updated_at": utcnow_naive()}},
        )
        assert agrees(index)
        assert model_rows(index)["note_000000000009"][6] == 0
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
        assert again.holds("note_000000000001")  # answers from the snapshot at once
        assert again.wait_caught_up(timeout=30)  # the catch-up runs after that
        assert agrees(again)
        assert isinstance(again.read_model.columns["importance"], np.ndarray)
    finally:
        again.close()
