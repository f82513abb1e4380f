"""A first load of the vector index (no snapshot) on SecantusDB's Python daemon, the
server ``make dev`` runs (the ``mongo`` fixture is the same server, in-process), reads
every note in bounded queries whatever its ids look like (issue 35): a counter's ids
(``note_000001``...), uuid4s, and a memory mixing them with the contract's shapes. The
daemon reads every document a find's ``note_id`` range matches before it applies the
limit, so each query must carry both edges, and the windows must hold few notes."""

import random
import uuid

import numpy as np
import pytest
from django.conf import settings
from pymongo import MongoClient, monitoring

from memory_app.notes.lib.mongo_store import MongoNotesStore, utcnow_naive
from memory_app.notes.lib.replica.id_windows import IdSpace
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.stores import notes_store

pytestmark = pytest.mark.usefixtures("mongo")

BATCH = 40
DIM = 32


class Finds(monitoring.CommandListener):
    """Every find sent to the notes: its filter, limit and whether it asks for vectors
    (the diff's finds do not), and how many rows came back."""

    def __init__(self) -> None:
        self.finds: list[dict] = []
        self._asked: dict[int, dict] = {}

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "find" and event.command["find"] == "notes":
            command = event.command
            asked = {
                "filter": command.get("filter", {}),
                "limit": command.get("limit"),
                # the load's windows ask for whole documents; the diff's for a few fields
                "vectors": "embedding" in command.get("projection", {"embedding": 1}),
            }
            self._asked[event.request_id] = asked

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        asked = self._asked.pop(event.request_id, None)
        if asked is not None:
            cursor = event.reply.get("cursor") or {}
            asked["returned"] = len(cursor.get("firstBatch") or [])
            asked["open"] = bool(cursor.get("id"))
            self.finds.append(asked)

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self._asked.pop(event.request_id, None)


def _plant(note_ids: list[str]) -> list[dict]:
    rng = np.random.default_rng(35)
    now = utcnow_naive()
    docs = [
        {
            "note_id": note_id,
            "content": f"note {i}",
            "section": "Key Topics",
            "embedding": rng.standard_normal(DIM).tolist(),
            "importance": 0.5,
            "created_at": now,
            "updated_at": now,
        }
        for i, note_id in enumerate(note_ids)
    ]
    notes_store().collection.insert_many([dict(d) for d in docs])
    return docs


def _load(docs: list[dict], tmp_path) -> list[dict]:
    """A first load of ``docs`` by an index with its own listened client: each note is
    held and its own vector finds it first; the finds it sent."""
    listener = Finds()
    client = MongoClient(settings.MONGODB_URI, tz_aware=False, event_listeners=[listener])
    store = MongoNotesStore(database=settings.QQ_MONGO_DB, collection="notes", client=client)
    index = VectorIndex(store, directory=tmp_path, use_change_stream=False, load_batch=BATCH)
    try:
        assert index.wait_caught_up(timeout=120)
        assert index.search(docs[0]["embedding"], limit=1).compared == len(docs)
        for d in docs:
            assert index.holds(d["note_id"]), d["note_id"]
            assert index.search(d["embedding"], limit=1).hits[0][0] == d["note_id"]
    finally:
        index.close()
        client.close()
    return listener.finds


def _read_in_bounded_windows(finds: list[dict], most: int, loads: int = 1) -> None:
    """Every find of the load's vectors asked for at most a batch, in one reply, over a range of
    note ids with an upper edge (the last may be open above), and no range held more
    than ``most`` notes (what the daemon reads for it, whatever the limit)."""
    windows = [f for f in finds if f["vectors"] and "$in" not in f["filter"].get("note_id", {})]
    assert windows
    collection = notes_store().collection
    for find in windows:
        assert 0 < find["limit"] <= BATCH
        assert find["returned"] <= BATCH and not find["open"]
        edges = find["filter"]["note_id"]
        assert set(edges) <= {"$gte", "$gt", "$lt"} and edges
        assert collection.count_documents({"note_id": edges}) <= most, edges
    assert sum("$lt" not in f["filter"]["note_id"] for f in windows) == loads


def test_the_daemon_loads_a_memory_whose_ids_count_up(tmp_path):
    """``note_000001`` ... ``note_001000`` all fell in one window of the hex grid the
    load used to split ids by, so one query read all of them (at 100k the load never
    ended in 900 s): now every note is held and found, and no query's range held more
    than a few batches."""
    docs = _plant([f"note_{i:06d}" for i in range(1, 1001)])
    _read_in_bounded_windows(_load(docs, tmp_path), most=2 * BATCH)


def test_the_daemon_loads_a_memory_of_uuid4_ids(tmp_path):
    docs = _plant([str(uuid.UUID(int=int(i), version=4)) for i in _random_ints(1000)])
    _read_in_bounded_windows(_load(docs, tmp_path), most=3 * BATCH)


def test_the_daemon_loads_a_memory_of_mixed_ids(tmp_path):
    """The agent's ids (``note_`` + 12 hex), bare hex, uuid4s and a counter's ids in one
    memory."""
    ints = _random_ints(1000)
    ids = [f"note_{i % 16**12:012x}" for i in ints[:250]]
    ids += [f"{i % 16**16:016x}" for i in ints[250:500]]
    ids += [str(uuid.UUID(int=int(i), version=4)) for i in ints[500:750]]
    ids += [f"note_{i:06d}" for i in range(1, 251)]
    docs = _plant(ids)
    _read_in_bounded_windows(_load(docs, tmp_path), most=3 * BATCH)


def _random_ints(n: int) -> list[int]:
    rng = np.random.default_rng(7)
    return [int.from_bytes(rng.bytes(16), "big") for _ in range(n)]


def test_the_id_space_keeps_the_order_of_strings():
    """Window edges come from numbers in the id space: a larger number never gives a
    smaller string, and a string's number never decreases as strings increase, so the
    windows follow each other and cover every id."""
    space = IdSpace()
    words = sorted(
        {"note_000001", "note_0a", "note_", "note_zz", "0", "ff", "3f2a-9", "imported-7", ""}
    )
    space.learn(words)
    values = [space.value(w) for w in words]
    assert values == sorted(values)
    draw = random.Random(1)
    numbers = sorted(draw.randrange(space.top()) for _ in range(500))
    strings = [space.string(v) for v in numbers]
    assert strings == sorted(strings)
    assert all(space.value(s) >= v for s, v in zip(strings, numbers, strict=True))


def test_the_dedup_scan_reads_every_vector_from_the_daemon_in_bounded_queries():
    """The full dedup scan without a vector snapshot read every vector in one find (the
    Rust server grew by 4 GB in 10 s at 100k notes; the daemon holds a find's whole
    result): it reads windows of note ids, at most a batch a query, and still gets every
    note's vector (not a note without one), for the whole memory and for one section."""
    ints = _random_ints(600)
    ids = [f"note_{i:06d}" for i in range(1, 301)]
    ids += [str(uuid.UUID(int=int(i), version=4)) for i in ints[:300]]
    docs = _plant(ids)
    collection = notes_store().collection
    collection.update_one({"note_id": ids[5]}, {"$set": {"embedding": []}})
    collection.update_many({"note_id": {"$in": ids[::3]}}, {"$set": {"section": "Other"}})
    listener = Finds()
    client = MongoClient(settings.MONGODB_URI, tz_aware=False, event_listeners=[listener])
    store = MongoNotesStore(database=settings.QQ_MONGO_DB, collection="notes", client=client)
    try:
        groups = store.vectors_by_dimension(batch=BATCH)
        other = store.vectors_by_dimension("Other", batch=BATCH)
    finally:
        client.close()
    wanted = {d["note_id"]: d["embedding"] for d in docs if d["note_id"] != ids[5]}
    got_ids, matrix = groups[DIM]
    assert sorted(got_ids) == sorted(wanted)
    for note_id, row in zip(got_ids, matrix, strict=True):
        assert np.allclose(row, wanted[note_id], atol=1e-6)
    assert sorted(other[DIM][0]) == sorted(ids[::3])
    _read_in_bounded_windows(listener.finds, most=3 * BATCH, loads=2)
