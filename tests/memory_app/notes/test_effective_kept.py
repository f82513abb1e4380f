"""The Overview's effective-importance pictures, its "would be archived" count, the notes
per week and the "effective importance >= x" filter come from what the read model keeps
up to date (``replica/effective.py``), not from a pass over every note per request
(issue 35). They must stay exactly what computing every note's decayed importance
afresh gives (and the stored importance's histogram, kept the same way, what the
database's ``$bucket`` gives): after notes change, and as time passes (minutes, hours,
across a note's daily tick, days, and a clock set back)."""

import bisect
from datetime import datetime, timedelta

import numpy as np

from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.replica.aggregates import DECAY_DAYS, read_pictures
from memory_app.notes.lib.replica.read_model import ReadModel

START = datetime(2026, 11, 28, 9, 17, 23, 412_000)
THRESHOLD = 0.2


def _note(rng: np.random.Generator, i: int) -> dict:
    """A note created up to 400 days before START at any time of day, read since or
    never, some without a creation date or an importance."""
    created = START - timedelta(microseconds=int(rng.integers(0, 400 * 86_400 * 10**6)))
    doc = {
        "note_id": f"note_{i:06d}",
        "section": "Key Topics",
        "importance": round(float(rng.uniform(0, 1)), 3),
        "access_count": int(rng.integers(0, 12)),
        "decay_rate": float(rng.choice([0.0, 0.005, 0.01, 0.02])),
        "created_at": created,
        "updated_at": created,
    }
    if rng.random() < 0.6:
        doc["last_accessed"] = created + (START - created) * float(rng.random())
    if rng.random() < 0.03:
        del doc["created_at"]
    if rng.random() < 0.03:
        doc["importance"] = None
    return doc


def _brute(docs: dict[str, dict], now: datetime, bins: int = 10, weeks: int = 26) -> dict:
    """Every number afresh, note by note, as the agent's formula gives it."""
    values = {
        d: [effective_importance(doc, now + timedelta(days=d)) for doc in docs.values()]
        for d in DECAY_DAYS
    }
    per_week = [0] * weeks
    for doc in docs.values():
        created = doc.get("created_at")
        if created is None:
            continue
        ago = (now - created).days // 7
        if 0 <= ago < weeks:
            per_week[weeks - 1 - ago] += 1
    bounds = [round(i / bins, 6) for i in range(bins)] + [1.000001]
    stored = [0] * bins
    for doc in docs.values():
        value = doc.get("importance", 0.5)
        if isinstance(value, float) and 0 <= value < 1.000001:
            stored[bisect.bisect_right(bounds, value) - 1] += 1
    return {
        "stored": stored,
        "effective": {
            d: [int(c) for c in np.histogram(np.clip(v, 0, 1), bins=bins, range=(0, 1))[0]]
            for d, v in values.items()
        },
        "would_archive": sum(v < THRESHOLD for v in values[0]),
        "at_least_0.9": sum(v >= 0.9 for v in values[0]),
        "per_week": per_week,
    }


def _kept(model: ReadModel, now: datetime) -> dict:
    pictures = read_pictures(model, now=now, threshold=THRESHOLD)
    return {
        "stored": pictures.stored,
        "effective": pictures.effective,
        "would_archive": pictures.would_archive,
        "at_least_0.9": int((model.effective_importance(now) >= 0.9).sum()),
        "per_week": pictures.per_week,
    }


def _model(docs: dict[str, dict]) -> ReadModel:
    model = ReadModel()
    for doc in docs.values():
        model.put(doc)
    return model


def test_the_pictures_equal_every_note_recomputed_as_time_passes():
    rng = np.random.default_rng(35)
    docs = {d["note_id"]: d for d in (_note(rng, i) for i in range(3000))}
    model = _model(docs)
    now = START
    for step in (
        timedelta(0),
        timedelta(minutes=1),
        timedelta(minutes=37),
        timedelta(hours=5, seconds=11),
        timedelta(hours=18, minutes=50),  # past every note's next daily tick
        timedelta(days=2, hours=3),  # more than a day on: counted afresh
        timedelta(hours=-1),  # a clock set back
        timedelta(microseconds=1),
    ):
        now += step
        assert _kept(model, now) == _brute(docs, now), now


def test_the_pictures_equal_every_note_recomputed_after_notes_change():
    rng = np.random.default_rng(36)
    docs = {d["note_id"]: d for d in (_note(rng, i) for i in range(2000))}
    model = _model(docs)
    now = START
    assert _kept(model, now) == _brute(docs, now)
    for round_ in range(4):
        now += timedelta(minutes=7 * (round_ + 1))
        ids = sorted(docs)
        for note_id in rng.choice(ids, 60, replace=False):  # read, re-rated, re-dated
            doc = dict(docs[note_id])
            doc["access_count"] = doc["access_count"] + 1
            doc["last_accessed"] = now
            doc["importance"] = round(float(rng.uniform(0, 1)), 3)
            if rng.random() < 0.3:
                doc["created_at"] = now - timedelta(days=int(rng.integers(0, 60)))
            docs[note_id] = doc
            model.put(doc)
        for note_id in rng.choice(sorted(docs), 40, replace=False):  # deleted
            del docs[note_id]
            model.forget(note_id)
        for i in range(50):  # written by the agent
            doc = _note(rng, 10_000 + 100 * round_ + i)
            doc["created_at"] = now - timedelta(hours=int(rng.integers(0, 30)))
            docs[doc["note_id"]] = doc
            model.put(doc)
        assert _kept(model, now) == _brute(docs, now), round_
