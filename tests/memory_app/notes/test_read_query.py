"""The list's pure numpy part (memory/read_query.py, memory/read_words.py): pages in
exactly MongoDB's order, whatever the values (null, missing, NaN, -0.0, ties, ids of any
length), and the word index's candidates through flushes, merges, edits and deletes."""

import math
import random
from datetime import datetime, timedelta

import pytest

from memory_app.notes.lib.listing import SORT_FIELDS, NoteFilter
from memory_app.notes.lib.replica import words as read_words
from memory_app.notes.lib.replica.lists import text_pattern
from memory_app.notes.lib.replica.query import cursor_value, filter_mask, page_rows
from memory_app.notes.lib.replica.read_model import ReadModel

BASE = datetime(2026, 1, 1)


def planted(seed=1, n=1500):
    rng = random.Random(seed)
    docs = {}
    for i in range(n):
        note_id = rng.choice(["n", "note_", "note_" + "x" * 60]) + f"{rng.randrange(10**6)}{i}"
        doc = {"note_id": note_id, "content": f"word{i % 7} Lumen{i % 3}", "section": "Key Topics"}
        pick = rng.random()
        if pick < 0.1:
            pass  # no importance at all
        elif pick < 0.15:
            doc["importance"] = None
        elif pick < 0.18:
            doc["importance"] = float("nan")
        else:
            doc["importance"] = rng.choice([0.5, 0.25, -0.0, 0.0, 1, rng.random()])
        if rng.random() < 0.7:
            doc["access_count"] = rng.choice([0, 0, 0, 1, 2, 5])
        doc["created_at"] = BASE + timedelta(days=rng.randrange(100))
        doc["updated_at"] = rng.choice([None, BASE + timedelta(milliseconds=rng.randrange(9))])
        if rng.random() < 0.5:
            doc["last_accessed"] = BASE + timedelta(days=rng.randrange(300))
        docs[note_id] = doc
    return docs


def mongo_order(value):
    """MongoDB's ascending order of the values a sort field holds here."""
    if value is None:
        return (0, 0)
    if isinstance(value, float) and math.isnan(value):
        return (1, 0)
    if isinstance(value, datetime):
        return (2, value.timestamp())
    return (2, value)


@pytest.mark.parametrize("sort", list(SORT_FIELDS))
@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_pages_follow_mongodbs_order_to_the_last_note(sort, direction):
    docs = planted()
    model = ReadModel()
    for doc in docs.values():
        model.put(doc)
    for note_id in list(docs)[:100]:  # deleted rows are reused by later notes
        model.forget(note_id)
        del docs[note_id]
    field = SORT_FIELDS[sort]
    expected = [
        d["note_id"]
        for d in sorted(
            docs.values(),
            key=lambda d: (mongo_order(d.get(field)), d["note_id"].encode()),
            reverse=direction == "desc",
        )
    ]
    mask = filter_mask(model, NoteFilter(), BASE)
    got, position = [], None
    while True:
        page = page_rows(
            model, mask, sort=sort, descending=direction == "desc", position=position, take=37
        )
        assert page.before == len(got) and page.total == len(docs)
        rows = page.rows.tolist()
        got += [model.ids[r].decode() for r in rows]
        if len(rows) < 37:
            break
        position = (cursor_value(model, sort, rows[-1]), model.ids[rows[-1]].decode())
    assert got == expected


def test_a_cursor_whose_id_is_longer_than_every_stored_one_still_pages():
    model = ReadModel()
    for i in range(5):
        model.put({"note_id": f"n{i}", "importance": 0.5})
    mask = filter_mask(model, NoteFilter(), BASE)
    after = page_rows(
        model, mask, sort="importance", descending=False, position=(0.5, "n2" + "z" * 90), take=9
    )
    assert [model.ids[r].decode() for r in after.rows] == ["n3", "n4"]
    before = page_rows(
        model, mask, sort="importance", descending=True, position=(0.5, "n2" + "z" * 90), take=9
    )
    assert [model.ids[r].decode() for r in before.rows] == ["n2", "n1", "n0"]


def test_the_word_index_finds_what_the_text_filter_confirms_through_edits(monkeypatch):
    monkeypatch.setattr(read_words, "FLUSH_AT", 50)  # many segments, many merges
    rng = random.Random(3)
    vocab = ["lumen", "Lumens", "illumen", "tea", "TEAPOT", "té", "coffee_bean", "x" * 40]
    model, contents = ReadModel(), {}
    for step in range(2000):
        note_id = f"note_{rng.randrange(400)}"
        if rng.random() < 0.1:
            model.forget(note_id)
            contents.pop(note_id, None)
            continue
        text = " ".join(rng.choice(vocab) for _ in range(rng.randrange(1, 6)))
        contents[note_id] = text
        model.put({"note_id": note_id, "content": text, "access_count": step})
    for query in ["lumen", "LUM", "tea", "teap", "té", "coffee", "bean", "x" * 30, "lumen tea"]:
        found = model.words.candidates(query, model.size)
        ids = {model.ids[r].decode() for r in found.nonzero()[0]}
        assert ids <= set(contents), query  # no deleted note
        truth = {i for i, t in contents.items() if text_pattern(query).search(t)}
        assert truth <= ids, query  # every match is a candidate
        if " " not in query:
            assert ids == truth, query  # one word: exactly the matches
