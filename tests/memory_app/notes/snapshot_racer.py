"""One process of the vector-snapshot race test (``test_vectors_across_processes.py``):
what a gunicorn worker or a Celery worker is to the vector index, without Django.

Run as ``python -m tests.memory_app.notes.snapshot_racer '<json>'`` with ``uri``, ``database``,
``directory`` (the snapshot folder every racer shares), ``name`` and ``rounds``. It opens
its own :class:`VectorIndex` on the shared folder (following MongoDB's change stream, its
follower stepping every 50 ms) and talks to the test on stdin/stdout, one line each:

- it prints ``ready`` once its index is caught up, then waits for ``go`` (so the racers
  start together);
- each round it writes one note through its store (the index is told, as after
  ``POST /api/notes``) and refreshes, which folds the change into a new saved snapshot
  (below ``exact_below`` notes every change is folded) while the other racers do the
  same; every fifth round it also opens a second index on the folder (a process that
  starts meanwhile) and drops it once caught up;
- it prints ``written``, waits for ``check``, brings its index in step
  (:meth:`VectorIndex.in_step`) and prints one JSON line: the notes its index holds (the
  read model's rows, those with a vector, and those a search with the note's own vector
  finds) and every failure it saw: an exception out
  of a refresh it called, or a record logged at WARNING or above by the index's threads
  (the follower's "vector index: refresh failed").
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from pathlib import Path
from typing import Any

from pymongo import MongoClient

from memory_app.notes.lib.mongo_store import MongoNotesStore
from memory_app.notes.lib.replica.index import VectorIndex
from qqweb.lib.embeddings import HashingEmbedder

EMBEDDER = HashingEmbedder(384)
RESTART_EVERY = 5


class Failures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f": {record.exc_info[1]!r}"
        self.seen.append(text)


def vector(text: str) -> list[float]:
    return [float(x) for x in EMBEDDER.embed([text])[0]]


def expect(word: str) -> None:
    line = sys.stdin.readline().strip()
    if line != word:
        raise SystemExit(f"expected {word!r} from the test, got {line!r}")


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def index_on(store: MongoNotesStore, directory: Path) -> VectorIndex:
    return VectorIndex(store, refresh_interval=0.05, directory=directory, ready_timeout=60)


def main(args: dict[str, Any]) -> None:
    failures = Failures()
    logging.getLogger("memory_app").addHandler(failures)
    directory = Path(args["directory"])
    client: MongoClient[dict[str, Any]] = MongoClient(args["uri"], tz_aware=False)
    store = MongoNotesStore(database=args["database"], collection="notes", client=client)
    index = store.vector_index = index_on(store, directory)
    if not index.wait_caught_up(timeout=60):
        raise SystemExit("the index did not catch up within 60 s")
    say("ready")
    expect("go")
    for round_ in range(int(args["rounds"])):
        text = f"{args['name']} writes note {round_} on subject {'abcdefg'[round_ % 7]}"
        store.upsert_note(f"note_{args['name']}{round_:06d}", text, vector(text), "Key Topics")
        try:
            index.refresh()
        except Exception:
            failures.seen.append("refresh raised: " + traceback.format_exc(limit=3))
        if round_ % RESTART_EVERY == RESTART_EVERY - 1:
            starting = index_on(store, directory)
            if not starting.wait_caught_up(timeout=60):
                failures.seen.append("a starting index did not catch up within 60 s")
            starting.close()
    say("written")
    expect("check")
    if not index.in_step(timeout=60):
        failures.seen.append("the index was not in step within 60 s")
    held = index.read(lambda model: sorted(model.rows), wait=60) or []
    with_vector = [note_id for note_id in held if index.holds(note_id)]
    found = [
        doc["note_id"]
        for doc in store.collection.find({}, {"note_id": 1, "embedding": 1})
        if doc["note_id"]
        in {i for i, s in index.search(doc["embedding"], limit=3).hits if s > 0.9999}
    ]
    index.close()
    report = {"held": held, "with_vector": with_vector, "found": sorted(found)}
    say(json.dumps({**report, "failures": failures.seen}))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
