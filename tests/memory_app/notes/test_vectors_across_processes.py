"""Every process on the machine (the gunicorn workers, the Celery workers) has its own
vector index on the same MongoDB and the same snapshot folder:

- the saved snapshots are shared: no process removes a snapshot another is writing or
  opening, and every process's index ends holding every note MongoDB holds. The racers
  are real OS processes (``snapshot_racer.py``), each with its own index on the same
  folder and the same SecantusDB, writing notes and saving snapshots against each other
  for a bounded number of rounds while the agent writes too;
- a note one process writes is found by search and the text filter in the others once
  their change stream has handed it over, without waiting for the follower's next
  scheduled step (the bound: ``memory_app/notes/lib/replica/follow.py``)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.conf import settings
from pymongo import MongoClient

from memory_app.notes.lib.mongo_store import MongoNotesStore
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.lib.replica.query import text_candidates
from memory_app.notes.lib.replica.read_model import ReadModel
from memory_app.notes.lib.replica.state import build_snapshot, load_snapshot
from memory_app.notes.stores import notes_store
from tests.helpers import add_note, agent_writes, vector
from tests.services import ROOT

pytestmark = pytest.mark.usefixtures("mongo")

RACERS = 3
ROUNDS = 30


class Racer:
    def __init__(self, name: str, directory: Path, log: Path) -> None:
        args = {
            "uri": settings.MONGODB_URI,
            "database": settings.QQ_MONGO_DB,
            "directory": str(directory),
            "name": name,
            "rounds": ROUNDS,
        }
        self.log = log
        self._stderr = open(log, "wb")  # noqa: SIM115 (closed by stop())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.memory_app.notes.snapshot_racer", json.dumps(args)],
            cwd=ROOT,
            env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )

    def expect(self, word: str) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        assert line == word or word == "", f"racer said {line!r}:\n{self.log.read_text()}"
        return line

    def tell(self, word: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()

    def report(self) -> dict[str, Any]:
        line = self.expect("")
        try:
            return dict(json.loads(line))
        except ValueError:
            raise AssertionError(f"racer said {line!r}:\n{self.log.read_text()}") from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        self._stderr.close()


def test_processes_saving_snapshots_in_one_folder_never_fail_a_refresh_nor_miss_a_note(
    tmp_path: Path,
) -> None:
    for i in range(20):
        add_note(f"note_seed{i:08d}", f"seed note {i} about Kafka and Grafana")
    folder = tmp_path / "vectors"
    racers = [Racer(f"r{n}", folder, tmp_path / f"racer-{n}.log") for n in range(RACERS)]
    try:
        for racer in racers:
            racer.expect("ready")
        for racer in racers:
            racer.tell("go")
        for i in range(10):  # the agent writes while the racers save snapshots
            agent_writes(f"note_agent{i:07d}", f"the agent notes fact {i}")
        for racer in racers:
            racer.expect("written")
        for racer in racers:
            racer.tell("check")
        reports = [racer.report() for racer in racers]
    finally:
        for racer in racers:
            racer.stop()
    in_mongo = sorted(d["note_id"] for d in notes_store().collection.find({}, {"note_id": 1}))
    assert len(in_mongo) == 20 + 10 + RACERS * ROUNDS
    for n, report in enumerate(reports):
        missed = sorted(set(in_mongo) - set(report["held"]))
        unvectored = sorted(set(in_mongo) - set(report["with_vector"]))
        unfound = sorted(set(in_mongo) - set(report["found"]))
        failures = "\n".join(report["failures"][:3])
        assert report["failures"] == [], f"racer r{n}: {len(report['failures'])}:\n{failures}"
        assert report["held"] == in_mongo, f"racer r{n} misses {missed}"
        assert report["with_vector"] == in_mongo, f"racer r{n} has no vector of {unvectored}"
        assert report["found"] == in_mongo, f"racer r{n}'s search does not find {unfound}"


def _text_filter(index: VectorIndex, word: str) -> set[str]:
    """The note ids the notes list's text filter finds for ``word`` in ``index``."""

    def question(model: ReadModel) -> set[str]:
        rows = set(np.flatnonzero(text_candidates(model, word)).tolist())
        return {note_id for note_id, row in model.rows.items() if row in rows}

    return index.read(question, wait=60) or set()


def test_a_note_written_in_one_process_is_found_in_another_as_soon_as_its_stream_has_it(
    tmp_path: Path,
) -> None:
    """The other process's follower steps once an hour here: only the change stream's
    hand-over can bring the note in before the test's patience runs out."""
    add_note("note_000000000001", "Kafka streams events")
    writer = notes_store()  # this process's store and index: the note is written here
    other_client: MongoClient[dict[str, Any]] = MongoClient(settings.MONGODB_URI, tz_aware=False)
    other_store = MongoNotesStore(
        database=settings.QQ_MONGO_DB, collection="notes", client=other_client
    )
    other = other_store.vector_index = VectorIndex(
        other_store, refresh_interval=3600, directory=tmp_path / "other"
    )
    try:
        assert other.wait_caught_up(timeout=60)
        assert other.follows_change_stream
        text = "Grafana dashboards for metrics"
        writer.upsert_note("note_000000000002", text, vector(text), "Key Topics")
        assert writer.vector_index.holds("note_000000000002")  # the writer's at once

        deadline = time.monotonic() + 60  # patience, not the bound: an hour without the wake
        while not other.holds("note_000000000002"):
            assert time.monotonic() < deadline, "the other process never read the note"
            time.sleep(0.05)
        hits = other.search(vector(text), limit=1).hits
        assert hits[0][0] == "note_000000000002"
        assert _text_filter(other, "grafana") == {"note_000000000002"}
    finally:
        other.close()
        other_client.close()


def test_a_snapshot_removed_from_under_its_index_is_read_again_from_mongodb(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A snapshot folder taken away by something that does not take the lock (a person
    clearing ``var/``, a process of an older release): a starting index reads every note
    from MongoDB instead, and says nothing is wrong."""
    add_note("note_000000000001", "Kafka streams events")
    first = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    assert first.wait_caught_up(timeout=60)
    first.close()
    current = json.loads((tmp_path / "current.json").read_text())
    shutil.rmtree(tmp_path / current["state"])
    add_note("note_000000000002", "Grafana dashboards for metrics")

    again = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    try:
        assert again.wait_caught_up(timeout=60)
        assert again.holds("note_000000000001") and again.holds("note_000000000002")
    finally:
        again.close()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_save_of_an_older_generation_leaves_the_newer_snapshot_current(tmp_path: Path) -> None:
    """A process that has not yet seen a rebuild (generation 1) folds and saves its
    generation 0: the processes that start next still open the rebuilt snapshot."""
    note = {"note_id": "note_000000000001", "embedding": vector("Kafka"), "section": ""}
    build_snapshot(iter([note]), 1, tmp_path, exact_below=20_000)
    build_snapshot(iter([note]), 0, tmp_path, exact_below=20_000)
    rebuilt = load_snapshot(tmp_path, 1)
    assert rebuilt is not None and "note_000000000001" in rebuilt.rows
    assert load_snapshot(tmp_path, 0) is None


def test_in_step_waits_for_the_notes_the_follower_is_reading(tmp_path: Path) -> None:
    """The change stream wakes the follower, which is reading the note another process
    wrote (held here until the test lets it go): ``in_step``, asked meanwhile, returns
    only once the index holds it, never as soon as it finds nothing left to read. The
    test gives ``in_step`` two seconds to return wrongly before it lets the read go; the
    assertion is on what the index holds when ``in_step`` returns, not on a time."""
    add_note("note_000000000001", "Kafka streams events")
    client: MongoClient[dict[str, Any]] = MongoClient(settings.MONGODB_URI, tz_aware=False)
    store = MongoNotesStore(database=settings.QQ_MONGO_DB, collection="notes", client=client)
    reading, gate = threading.Event(), threading.Event()
    read = store.vector_rows

    def held_back(**kwargs: Any) -> Iterator[dict[str, Any]]:
        if kwargs.get("object_ids"):  # what the change stream handed over
            reading.set()
            assert gate.wait(timeout=60), "the test never let the read go"
        yield from read(**kwargs)

    store.vector_rows = held_back  # type: ignore[method-assign]
    index = VectorIndex(store, refresh_interval=3600, directory=tmp_path)
    try:
        assert index.wait_caught_up(timeout=60)
        assert index.follows_change_stream
        agent_writes("note_000000000002", "Grafana dashboards for metrics")
        assert reading.wait(timeout=60), "the follower never read the note"
        answer: dict[str, bool] = {}

        def ask() -> None:
            answer["in_step"] = index.in_step(timeout=60)
            answer["holds"] = index.holds("note_000000000002")

        asking = threading.Thread(target=ask)
        asking.start()
        asking.join(timeout=2)
        gate.set()
        asking.join(timeout=60)
        assert answer == {"in_step": True, "holds": True}
    finally:
        gate.set()
        index.close()
        client.close()
