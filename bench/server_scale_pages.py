"""The page rows of bench/server_scale.py: the Overview and the notes list (unfiltered at
depth, by each sort, and with a filter), each measured three ways: "current" (the MongoDB
queries the pages made before the read model; only on the servers of ``--before-on``),
"read model" (the selectors the pages call now) and "naive" (every document fetched and
worked through in Python). Also the cursor a user paging that deep would hold.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.common import SECTIONS, Figure, Row, load
from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.lib.listing import NoteFilter, encode_cursor
from memory_app.notes.lib.replica.query import cursor_value, filter_mask, page_rows
from memory_app.notes.selectors import memory_insights, memory_overview, notes_count, notes_list

if TYPE_CHECKING:
    from bench.server_scale import Budget


def scan_overview(store: Any, now: datetime) -> None:
    """The Overview as it was computed before the read model: notes per section and the
    stored-importance histogram counted by the database, then one pass over every note
    (no embeddings) for the decay overlays, the what-if, sources and weeks."""
    store.count_by_section()
    store.importance_histogram(bins=10)
    types: Counter[str] = Counter()
    files: Counter[str] = Counter()
    for doc in store.insight_rows():
        for days in (0, 7, 30, 90):
            effective_importance(doc, now + timedelta(days=days))
        source = doc.get("source") or {}
        types[str(source.get("source_type") or "(no source)")] += 1
        if source.get("file_path"):
            files[str(source["file_path"])] += 1


def read_model_cursor(index: Any, flt: NoteFilter, sort: str, depth: int) -> str | None:
    """The cursor a user paging ``depth`` notes deep would hold (not timed)."""
    if depth == 0:
        return None
    with index.reading() as m:
        mask = filter_mask(m, flt, utcnow_naive())
        rows = page_rows(m, mask, sort=sort, descending=True, position=None, take=depth).rows
        last = int(rows[-1])
        return encode_cursor(cursor_value(m, sort, last), m.ids[last].decode())


def overview_and_list_rows(
    store: Any,
    index: Any,
    docs: list[Any],
    now: datetime,
    args: Any,
    budget: Budget,
    naive: Callable[[Any], Figure],
    report: Callable[[Row], None],
    before: bool,
    not_run: str,
) -> None:
    """The Overview row, the notes list at depth by each sort and with each filter, every
    row handed to ``report`` (``measure``'s ``pages`` rows)."""
    # --- Overview ---
    row = Row("Overview")
    # current: the scan the Overview made before the read model (a $group, a $bucket
    # and a pass over every note's small fields in Python); read model: the selectors
    # the page calls now (memory_overview + memory_insights, from the read model)
    if before:
        row.figures["current"], _ = budget.run(lambda: scan_overview(store, now), repeat=3)
    else:
        row.figures["current"] = Figure(None, load(), not_run)
    row.figures["read model"], _ = budget.run(
        lambda: (memory_overview(), memory_insights(archive_threshold=0.2)), repeat=20
    )

    def naive_overview() -> None:
        values = {
            d: [effective_importance(x, now + timedelta(days=d)) for x in docs]
            for d in (0, 7, 30, 90)
        }
        Counter(str((x.get("source") or {}).get("source_type")) for x in docs)
        Counter(x.get("section") for x in docs)
        np.histogram([x.get("importance", 0.5) for x in docs], bins=10, range=(0, 1))
        sum(1 for v in values[0] if v < 0.2)

    row.figures["naive"] = naive(naive_overview)
    report(row)

    # --- notes list, unfiltered, at depth ---
    fields = {
        "updated": "updated_at",
        "importance": "importance",
        "access_count": "access_count",
    }
    for sort in fields:
        for depth in (0, args.depth):
            cursor = None
            t = time.perf_counter()
            for _ in range(depth // 50 if before else 0):  # walk there as a user pages
                if time.perf_counter() - t > args.walk_budget_s:
                    cursor = "too-deep"
                    break
                cursor = store.list_notes(sort=sort, limit=50, cursor=cursor).next_cursor
            row = Row(f"notes list by {sort}, depth {depth:,}")
            if not before:
                row.figures["current"] = Figure(None, load(), not_run)
            elif cursor == "too-deep":
                budget.settle()
                row.figures["current"] = Figure(
                    None, load(), f"paging there took over {args.walk_budget_s:.0f} s"
                )
            else:
                row.figures["current"], row.figures["current p95"] = budget.run(
                    lambda c=cursor, s=sort: (
                        store.list_notes(sort=s, limit=50, cursor=c),
                        store.count_notes(NoteFilter()),
                    )
                )

            rm_cursor = read_model_cursor(index, NoteFilter(), sort, depth)

            def rm_page(s: str = sort, c: str | None = rm_cursor) -> None:
                notes_list(flt=NoteFilter(), sort=s, cursor=c, limit=50)
                notes_count(flt=NoteFilter())

            row.figures["read model"], row.figures["read model p95"] = budget.run(rm_page, 20)
            field = fields[sort]
            row.figures["naive"] = naive(
                lambda f=field, d=depth: sorted(docs, key=lambda x: x.get(f) or 0, reverse=True)[
                    d : d + 50
                ]
            )
            report(row)

    # --- notes list with a filter ---
    filters: list[tuple[str, NoteFilter, Any]] = [
        (
            f"section = {SECTIONS[1]}",
            NoteFilter(section=SECTIONS[1]),
            lambda x: x.get("section") == SECTIONS[1],
        ),
        (
            "importance 0.4-0.6",
            NoteFilter(min_importance=0.4, max_importance=0.6),
            lambda x: 0.4 <= x.get("importance", 0.5) <= 0.6,
        ),
        (
            "effective importance >= 0.9",
            NoteFilter(min_effective=0.9),
            lambda x: effective_importance(x, now) >= 0.9,
        ),
        ("text 'billing'", NoteFilter(text="billing"), lambda x: "billing" in x["content"]),
    ]
    for name, flt, keep in filters:
        row = Row(f"notes list, {name}")
        if before:
            row.figures["current"], row.figures["current p95"] = budget.run(
                lambda f=flt: (store.list_notes(f, limit=50), store.count_notes(f))
            )
        else:
            row.figures["current"] = Figure(None, load(), not_run)

        def rm_filtered(f: NoteFilter = flt) -> None:
            notes_list(flt=f, limit=50)
            notes_count(flt=f)

        row.figures["read model"], row.figures["read model p95"] = budget.run(rm_filtered, 20)
        row.figures["naive"] = naive(
            lambda k=keep: sorted(
                (x for x in docs if k(x)), key=lambda x: x["updated_at"], reverse=True
            )[:50]
        )
        report(row)
