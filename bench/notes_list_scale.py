"""The notes list's rows of issue 14's table, in-process at any size (1M included): the
code path the Notes page and the API call (``memory/read_list.py``: the read model's
masks, the partitioned page after the cursor, the word index for the text filter), on a
read model of ``n`` agent-shaped notes with realistic text (30 words a note drawn from a
30,000-word vocabulary by Zipf's law, plus the note's number).

What is not MongoDB here: the page's documents "fetched by id" are made in the process
(the same documents, deterministic by note number), so a figure is the read model's part
plus building the page's ``Note`` objects; on a server add one ``$in`` of 50 ids
(about 2-10 ms on the Rust server at 100k, ``server_scale.py``). The naive column: sort
(or filter) every note in Python, timed on at most 100k documents and scaled linearly.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import numpy as np

from bench.common import NOW, SECTIONS, Figure, Row, load, sample, timed_ms
from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import NoteFilter, NotesCount, NotesPage
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.lib.replica.query import cursor_value, filter_mask, page_rows
from memory_app.notes.lib.replica.read_model import ReadModel

VOCABULARY = 30_000
WORDS_PER_NOTE = 30


class Notes:
    """``n`` notes, each one's document made on demand from its number."""

    def __init__(self, n: int) -> None:
        rng = np.random.default_rng(14)
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        lengths = rng.integers(3, 11, VOCABULARY)
        self.vocab = list(dict.fromkeys("".join(rng.choice(letters, k)) for k in lengths))
        picks = rng.zipf(1.3, size=(n, WORDS_PER_NOTE)) % len(self.vocab)
        self.words = picks.astype(np.uint16)
        self.n = n

    def doc(self, i: int) -> dict[str, Any]:
        created = NOW - timedelta(minutes=(i * 48_271) % (400 * 1440))
        file_note = i % 3 == 0
        words = " ".join(self.vocab[w] for w in self.words[i].tolist())
        return {
            "note_id": f"note_{i:012x}",
            "content": f"{words} note {i}",
            "section": SECTIONS[i % 4],
            "importance": ((i * 2_654_435_761) % 1000) / 1000,
            "decay_rate": [0.01, 0.005, 0.02][i % 3],
            "access_count": (i * 7) % 20,
            "created_at": created,
            "updated_at": created + timedelta(days=i % 30),
            "last_accessed": None if i % 5 == 0 else created + timedelta(days=3),
            "embedding": [],
            "source": {
                "source_type": "file" if file_note else "conversation",
                "file_path": f"/repo/docs/f{i % 200}.md" if file_note else "",
            },
            "metadata": {},
        }


class BenchSource:
    """What ``read_list`` asks of the store, answered in the process."""

    def __init__(self, notes: Notes, model: ReadModel) -> None:
        self.notes = notes
        self.vector_index = VectorIndex(None)
        self.vector_index.start()
        self.vector_index.read_model = model

    def notes_by_ids(self, note_ids: Iterable[str]) -> dict[str, Note]:
        return {i: Note.from_document(self.notes.doc(int(i[5:], 16))) for i in note_ids}

    def list_notes(self, *args: Any, **kwargs: Any) -> NotesPage:
        raise AssertionError("the read model is ready: no query")

    def count_notes(self, *args: Any, **kwargs: Any) -> NotesCount:
        raise AssertionError("the read model is ready: no query")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def list_rows(n: int) -> list[Row]:
    rows: list[Row] = []
    gc.collect()
    before = rss_mb()
    notes = Notes(n)
    model = ReadModel()
    t = time.perf_counter()
    for i in range(n):
        model.put(notes.doc(i))
    model.words.flush(merge_all=True)
    built = time.perf_counter() - t
    words_mb = model.words.nbytes / 2**20
    columns_mb = (
        sum(c.nbytes for c in model.columns.values()) + model.ids.nbytes + model.nulls.nbytes
    ) / 2**20
    print(
        f"  read model of {n:,} notes with text filled in {built:.0f} s: columns "
        f"{columns_mb:.0f} MB, word index {words_mb:.0f} MB "
        f"({len(model.words.segments[0].vocab):,} words), process grew "
        f"{rss_mb() - before:.0f} MB (the generator's word matrix included) [load {load():.1f}]",
        flush=True,
    )
    source = BenchSource(notes, model)
    kept = [notes.doc(i) for i in range(min(n, 100_000))]
    scale = n / len(kept)
    note = f"Python work on {len(kept):,}, scaled" if scale > 1 else ""

    def cursor_at(flt: NoteFilter, sort: str, depth: int) -> str | None:
        if depth == 0:
            return None
        from memory_app.notes.lib.listing import encode_cursor

        mask = filter_mask(model, flt, NOW)
        page = page_rows(model, mask, sort=sort, descending=True, position=None, take=depth)
        last = int(page.rows[-1])
        return encode_cursor(cursor_value(model, sort, last), model.ids[last].decode())

    common = notes.vocab[40]
    rare = notes.vocab[5_000]
    phrase = " ".join(notes.doc(12_345 % n)["content"].split()[3:5])
    cases: list[tuple[str, NoteFilter, str, int, Any]] = [
        ("unfiltered, by updated", NoteFilter(), "updated", 0, None),
        ("unfiltered, by updated, depth 50k", NoteFilter(), "updated", 50_000, None),
        ("unfiltered, by access count, depth 50k", NoteFilter(), "access_count", 50_000, None),
        ("section", NoteFilter(section="Key Topics"), "updated", 0, None),
        (
            "importance 0.3-0.6",
            NoteFilter(min_importance=0.3, max_importance=0.6),
            "updated",
            0,
            None,
        ),
        ("effective importance >= 0.9", NoteFilter(min_effective=0.9), "updated", 0, None),
        (f"text, one word ({common!r})", NoteFilter(text=common), "updated", 0, None),
        (f"text, a prefix ({rare[:3]!r})", NoteFilter(text=rare[:3]), "updated", 0, None),
        (f"text, two words ({phrase!r})", NoteFilter(text=phrase), "updated", 0, None),
    ]
    for title, flt, sort, depth, _ in cases:
        cursor = cursor_at(flt, sort, depth)
        row = Row(f"notes list page, {title} (in-process)")

        def page(f: NoteFilter = flt, s: str = sort, c: str | None = cursor) -> NotesPage:
            return read_list.list_page(
                source, f, sort=s, direction="desc", cursor=c, limit=50, now=NOW
            )

        def counted(f: NoteFilter = flt) -> NotesCount:
            return read_list.count(source, f, now=NOW)

        shown = len(page().items)
        total = counted().value
        p50, p95 = sample(page, 20)
        row.figures["read model"] = Figure(p50, load(), f"{shown} shown of {total}")
        row.figures["read model p95"] = Figure(p95, load())
        c50, _ = sample(counted, 10)
        row.figures["read model count"] = Figure(c50, load())
        key = {"updated": "updated_at", "access_count": "access_count"}[sort]
        pattern = read_list.text_pattern(flt.text) if flt.text else None

        def naive(
            f: NoteFilter = flt, k: str = key, d: int = depth, pattern: Any = pattern
        ) -> list[Any]:
            picked = [
                x
                for x in kept
                if (f.section is None or x["section"] == f.section)
                and (f.min_importance is None or x["importance"] >= f.min_importance)
                and (f.max_importance is None or x["importance"] <= f.max_importance)
                and (f.min_effective is None or effective_importance(x, NOW) >= f.min_effective)
                and (pattern is None or pattern.search(x["content"]))
            ]
            picked.sort(key=lambda x: (x[k], x["note_id"]), reverse=True)
            return picked[d : d + 50]

        ms, _ = timed_ms(naive)
        row.figures["naive"] = Figure(ms * scale, load(), note)
        rows.append(row)
        cells = "; ".join(f"{k}: {f.text()}" for k, f in row.figures.items())
        print(f"  {row.name}: {cells}", flush=True)
    return rows
