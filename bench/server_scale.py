"""The rows of issue 14's table measured against a server holding ``n`` notes: the
Overview, the notes list (unfiltered at depth, and filtered), the note page and search at a
person's pace, the first search after a process starts, and search alone in-process.

Called by ``bench/scale.py`` once Django is configured; see ``bench/common.py`` for what
"current", "read model" and "naive" mean. The Overview and notes-list rows are measured in
``bench/server_scale_pages.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from pymongo import MongoClient

from bench.common import (
    Figure,
    Row,
    agent_notes,
    clustered,
    load,
    row_ids,
    rss_mb,
    sample,
    timed_ms,
    wait_idle,
)
from bench.first_search_http import first_search_over_http
from bench.server_scale_pages import overview_and_list_rows
from bench.server_scale_pages import read_model_cursor as read_model_cursor  # pages_http.py's
from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.lib.replica.index import IndexWarming, VectorIndex
from memory_app.notes.selectors import note_detail, notes_search
from memory_app.notes.stores import notes_store, vector_indexes_close
from qqweb.lib.clients import _cached
from qqweb.lib.mongo.outages import forget_outages

PACE_S = 1.2  # a person's pace: 1.2 s between requests
CATCH_UP_GIVE_UP_S = 600.0  # a catch-up or a load that takes longer is reported, not awaited


def naive_cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


class Budget:
    """A call that takes longer than ``seconds`` is abandoned (the client's socket timeout)
    and reported as such; the server may go on working on it."""

    def __init__(self, seconds: float, server_pid: int | None = None) -> None:
        self.seconds = seconds
        self.server_pid = server_pid

    def settle(self) -> None:
        """After an abandoned call: wait for the server to finish it (see ``wait_idle``)."""
        if self.server_pid is not None:
            waited = wait_idle(self.server_pid)
            print(f"    (waited {waited:.0f} s for the server to finish abandoned work)")

    def run(self, fn: Any, repeat: int = 5, pause: float = 0.0) -> tuple[Figure, Figure]:
        forget_outages()
        try:
            first, _ = timed_ms(fn)
        except Exception as e:
            self.settle()
            forget_outages()
            note = f"gave up after {self.seconds:.0f} s" if "timed out" in str(e) else str(e)
            return Figure(None, load(), note[:60]), Figure(None, load())
        if first > self.seconds * 1000 / 40 or repeat <= 1:  # slow: one sample says enough
            return Figure(first, load(), "1 sample"), Figure(first, load(), "1 sample")
        p50, p95 = sample(fn, repeat, pause)
        return Figure(p50, load()), Figure(p95, load())


def seed(uri: str, n: int, dim: int, prepare: Callable[[], None] | None = None) -> float:
    """``n`` agent-shaped notes in a new collection; ``prepare`` runs on the empty one
    (the indexes first: the Rust server built them over 1M notes afterwards in 15 min)."""
    client: MongoClient[dict[str, Any]] = MongoClient(uri)
    collection = client[settings.QQ_MONGO_DB][settings.QQ_MONGO_COLLECTION]
    collection.drop()
    if prepare is not None:
        prepare()
    t = time.perf_counter()
    for start in range(0, n, 10_000):
        stop = min(n, start + 10_000)
        vectors = clustered(stop - start, dim, seed=start + 1)
        docs = agent_notes(start, stop, vectors)
        for i in range(0, len(docs), 1000):
            collection.insert_many(docs[i : i + 1000], ordered=False)
    client.close()
    return time.perf_counter() - t


def measure(uri: str, n: int, args: Any, server_pid: int, kind: str = "") -> list[Row]:
    """Every server row at ``n`` notes (the collection is seeded here). The MongoDB queries
    the pages made before the read model (the "current" column of the Overview and list
    rows) run only on the servers in ``args.before_on``: on the embedded daemon each takes
    minutes and leaves the server working long after the bench gives up."""
    before = kind in getattr(args, "before_on", kind).split(",")
    not_run = f"not run on the {kind} server (--before-on)"
    settings.MONGODB_URI = uri
    settings.QQ_MONGO_DB = f"bench_scale_{n}"
    # each server its own index folder: a snapshot of another server's notes (same ids,
    # other stamps) would make this one's catch-up re-read every note while the pages
    # are measured (on the daemon: pages 0.4-0.5 s instead of 16-27 ms, and a catch-up
    # that did not end)
    settings.QQ_VECTOR_DIR = str(Path(settings.QQ_VECTOR_DIR).parent / f"vectors-{kind}-{n}")
    vector_indexes_close()
    budget = Budget(args.budget_s, server_pid)
    _cached(  # the app's client, with a socket timeout so a runaway query is abandoned
        ("mongo", uri, settings.QQ_STORE_TIMEOUT_MS),
        lambda: MongoClient(
            uri,
            serverSelectionTimeoutMS=settings.QQ_STORE_TIMEOUT_MS,
            socketTimeoutMS=int(args.budget_s * 1000),
            tz_aware=False,
        ),
    )
    seconds = seed(uri, n, args.dim)
    print(f"  seeded {n:,} notes in {seconds:.0f} s  [load {load():.1f}]", flush=True)
    store = notes_store()
    store.ensure_indexes()
    index = store.vector_index
    t = time.perf_counter()
    index.start()
    while not index.ready:
        time.sleep(0.5)
    print(
        f"  vector index + read model built from the documents in "
        f"{time.perf_counter() - t:.0f} s; server RSS {rss_mb(server_pid):,} MB  "
        f"[load {load():.1f}]",
        flush=True,
    )
    model = index.read_model
    ids = row_ids(model)
    now = utcnow_naive()

    # the naive approach's fetch, once: every whole document
    fetch_ms, docs = timed_ms(lambda: list(store.collection.find({})))
    fetch = Figure(fetch_ms, load())
    print(f"  naive: every document fetched in {fetch.text()}", flush=True)

    def naive(work: Any) -> Figure:
        ms, _ = timed_ms(work)
        return Figure(fetch_ms + ms, load())

    rows: list[Row] = []

    def report(row: Row) -> None:
        rows.append(row)
        cells = "; ".join(f"{k}: {f.text()}" for k, f in row.figures.items())
        print(f"  {row.name}: {cells}", flush=True)

    live = model._mask()
    wanted = set((getattr(args, "rows", "") or "pages,pace,first,search").split(","))
    if "pages" in wanted:
        overview_and_list_rows(
            store, index, docs, now, args, budget, naive, report, before=before, not_run=not_run
        )

    # --- note page and search at a person's pace ---
    browser = _browser()
    # the first page a process renders waits for the layout's store-health checks (this
    # bench starts no Neo4j and no broker: their timeouts); every later page gets the
    # cached answer at once (qqweb/health.py). Paid here, before the timed pages.
    browser.get("/notes/")
    probe_ids = [ids[r] for r in np.random.default_rng(3).choice(np.flatnonzero(live), 20)]
    by_id = {x["note_id"]: x for x in docs}
    if "pace" in wanted:
        queue = list(probe_ids)
        row = Row(f"note detail, {PACE_S} s apart")
        row.figures["current"], row.figures["current p95"] = budget.run(
            lambda: note_detail(note_id=queue.pop() if queue else probe_ids[0]), 20, PACE_S
        )
        pages = list(probe_ids)
        row.figures["page, Django rendered"], row.figures["page, Django rendered p95"] = budget.run(
            lambda: _ok(browser.get(f"/notes/{pages.pop() if pages else probe_ids[0]}/")),
            20,
            PACE_S,
        )

        def naive_detail() -> None:
            doc = by_id[probe_ids[0]]
            [effective_importance(doc, now + timedelta(days=d)) for d in range(0, 91, 5)]
            sorted((naive_cosine(doc["embedding"], x["embedding"]), x["note_id"]) for x in docs)[
                -6:
            ]

        row.figures["naive"] = naive(naive_detail)
        report(row)

        from qqweb.lib.clients import embedder

        embedder().embed(["warm up"])  # the model is loaded at start (not timed here)
        words = ["billing", "deploy", "tea"] * 20
        queries = iter(f"{w} topic {i}" for i, w in enumerate(words))
        row = Row(f"search end to end, {PACE_S} s apart ({settings.QQ_EMBEDDING_BACKEND} embedder)")
        row.figures["current"], row.figures["current p95"] = budget.run(
            lambda: notes_search(query=next(queries), limit=20), 20, PACE_S
        )
        row.figures["page, Django rendered"], row.figures["page, Django rendered p95"] = budget.run(
            lambda: _ok(browser.get("/search/", {"q": next(queries)})), 20, PACE_S
        )

        def naive_search() -> None:
            q = [float(v) for v in embedder().embed(["billing topic 1"])[0]]
            sorted((naive_cosine(q, x["embedding"]), x["note_id"]) for x in docs)[-20:]

        row.figures["naive"] = naive(naive_search)
        report(row)

    # --- the first search after a process starts ---
    if "first" in wanted:
        rows.extend(first_search_rows(store, docs, naive, report))
        report(first_search_over_http(args.port_base + 50))

    # --- search alone, in-process ---
    if "search" not in wanted:
        print(f"  server RSS {rss_mb(server_pid):,} MB", flush=True)
        vector_indexes_close()
        store.collection.drop()
        return rows
    matrix = np.asarray([x["embedding"] for x in docs], dtype=np.float32)
    probes = matrix[np.random.default_rng(4).integers(0, n, 100)]
    probes = probes + np.random.default_rng(5).normal(scale=0.05, size=probes.shape).astype(
        np.float32
    )
    truth = [set(np.argsort(-(matrix @ p))[:10].tolist()) for p in probes]
    found: list[int] = []
    row = Row("search alone, in-process")

    def ours() -> None:
        p = probes[len(found) % len(probes)]
        hits = index.search(p, limit=10).hits
        found.append(len({int(h[0][5:], 16) for h in hits} & truth[len(found) % len(probes)]))

    row.figures["current"], row.figures["current p95"] = budget.run(ours, 100)
    recall = sum(found) / (10 * len(found))
    row.figures["current"].note = f"recall@10 {recall:.3f}"
    row.figures["exact float32 scan"], _ = budget.run(
        lambda: np.argpartition(-(matrix @ probes[0]), 9)[:10], 30
    )
    row.figures["naive"] = Figure(
        timed_ms(lambda: sorted(naive_cosine(probes[0].tolist(), x["embedding"]) for x in docs))[0],
        load(),
    )
    report(row)

    print(f"  server RSS {rss_mb(server_pid):,} MB", flush=True)
    vector_indexes_close()
    store.collection.drop()
    return rows


def _browser() -> Any:
    """A logged-in viewer for the pages (Django's test client: middleware, views and
    templates, no HTTP server)."""
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from qqweb.services import roles_ensure

    roles_ensure()
    user, _ = User.objects.get_or_create(username="bench-viewer")
    user.groups.add(Group.objects.get(name="viewer"))
    client = Client()
    client.force_login(user)
    return client


def _ok(response: Any) -> None:
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}")


def first_search_rows(store: Any, docs: list[Any], naive: Any, report: Any) -> list[Row]:
    """A process that starts: from the saved snapshot (the first answer, then the end of
    its catch-up with MongoDB, which runs after it), without one (reading every vector),
    and how soon a search without a snapshot is told "loading (N of M notes)"."""
    directory = Path(settings.QQ_VECTOR_DIR) / f"{settings.QQ_MONGO_DB}.notes"
    probe = np.asarray(docs[7]["embedding"], dtype=np.float32)
    answered: list[float] = []
    caught_up: list[float] = []
    fetched: list[Figure] = []

    def first_search(where: Path | None) -> None:
        """The first answer and, after it, the end of the catch-up, timed apart (the row's
        figure is the first answer alone, not the catch-up nor stopping the threads)."""
        fresh = VectorIndex(store, directory=where, ready_timeout=3600)
        t = time.perf_counter()
        try:
            hits = fresh.search(probe, limit=10).hits
            first = time.perf_counter() - t
            answered.append(first * 1000)
            if not fresh.wait_caught_up(timeout=1.0):  # a page's fetch during the catch-up
                ms, _ = timed_ms(lambda: store.notes_by_ids([h[0] for h in hits]))
                fetched.append(Figure(ms, load(), "1 s into the catch-up"))
            if fresh.wait_caught_up(timeout=CATCH_UP_GIVE_UP_S):
                caught_up.append((time.perf_counter() - t - first) * 1000)
            else:
                print(f"    the catch-up did not end within {CATCH_UP_GIVE_UP_S:.0f} s", flush=True)
        finally:
            fresh.close()

    told: list[float] = []

    def without_snapshot() -> None:
        """Asked at once (told it is loading, within its 0.5 s wait), then answered."""
        fresh = VectorIndex(store, directory=None, ready_timeout=0.5)
        t = time.perf_counter()
        try:
            try:
                fresh.search(probe, limit=10)
            except IndexWarming as e:
                told.append((time.perf_counter() - t) * 1000)
                print(f"    told after {told[-1]:.0f} ms: {e}", flush=True)
            if not fresh.wait_caught_up(timeout=CATCH_UP_GIVE_UP_S):
                raise RuntimeError(f"not loaded within {CATCH_UP_GIVE_UP_S:.0f} s")
            fresh.search(probe, limit=10)
        finally:
            fresh.close()

    budget = Budget(3600)
    row = Row("first search after a process starts (index only)")
    whole, _ = budget.run(lambda: first_search(directory), repeat=1)
    row.figures["current"] = (
        Figure(answered[-1], load(), "1 sample") if answered else whole  # else: the failure
    )
    row.figures["catch-up after it"] = Figure(caught_up[-1] if caught_up else None, load())
    if fetched:
        row.figures["its 10 notes fetched"] = fetched[-1]
    print(f"    from the snapshot: {row.figures['current'].text()}, caught up after", end=" ")
    print(row.figures["catch-up after it"].text(), flush=True)
    if fetched:
        print(f"    its 10 notes fetched during the catch-up: {fetched[-1].text()}", flush=True)
    row.figures["no snapshot"], _ = budget.run(without_snapshot, repeat=1)
    row.figures["no snapshot: told loading"] = Figure(told[-1] if told else None, load())
    row.figures["naive"] = naive(
        lambda: sorted(naive_cosine(probe.tolist(), x["embedding"]) for x in docs)
    )
    report(row)
    return []
