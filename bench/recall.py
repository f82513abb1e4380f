"""Does curation cost the agent its recall? LoCoMo's conversations loaded as the qq agent
holds them (bench/recall_data.py: a turn a note, the agent's shape, all-MiniLM-L6-v2 through
the app's own embedder, the numpy encoder), each question pinned to its evidence turns, and
the agent's own retrieval asked every question (the memory tests' notes engine,
``memory_app.notes.selectors.recall.notes_recall``, exactly what the memory tests page runs)
at four points:

1. **before curation**, the notes as loaded;
2. **after dedup**: the dedup scan job (``dedup_scan``, full, at QQ_DEDUP_THRESHOLD) and
   every pair it queued merged as the Review page's "merge" does (``review_verdict``,
   most similar first; a pair whose note went in an earlier merge is counted, not merged;
   a pair the app refuses to merge without a chosen note, two texts that contradict each
   other, is merged into the agent's primary, the higher importance);
3. **after archival**: the archival job with its defaults (QQ_ARCHIVE_THRESHOLD), on the
   notes as loaded;
4. **after both**: the archival job after 2.

A question is **recalled at k** when any of its evidence notes, or the note holding its
text now after a merge (``whereabouts(...).now_id``), is among the first k the agent injects
(the engine's k is 10, the retrieval preview's); its rank is the best of them. recall@5,
recall@10 and MRR are ``qqweb.recall.maths``'. The memory's size is the notes in MongoDB
and the lines of archive.jsonl.

Each conversation is its own memory (a MongoDB database of the in-process SecantusDB server
and a memory directory under a temporary folder): LoCoMo asks each conversation's questions
of that conversation. Two ways of dating the notes, each a table:

- **aged** (the figures that count): LoCoMo's session dates, "now" the last session's
  (bench/recall_data.py); never accessed, so the agent's decay applies in full;
- **fresh**: every note written now (no decay), to show what dedup alone does to recall.

Conversations 0-4 are the dev split, 5-9 the test split: a setting is chosen on dev only
and the figures quoted are test's and all ten's. ``--conversations 0-2`` runs a subset.
The turns' vectors are cached in var/recall/ (keyed by the data's checksum and the model),
so a rerun embeds nothing but the questions (each once: ``QuestionVectors``). About 10
minutes for all ten here (10.4 min at load 3-6, 65 s of it embedding the 5,882 turns the
first time; 12.6 min from the cache at load 17-50). Writes bench/results/recall.md and .json.

    .venv/bin/python bench/recall.py [--conversations 0-9] [--mirror /work/.mirror]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import recall_data
from bench.common import django_in, load
from bench.recall_curation import archival, dedup
from bench.recall_data import Pins, Turn
from bench.recall_report import POINTS, report

RESULTS = ROOT / "bench" / "results"
CACHE = ROOT / "var" / "recall"


@dataclass
class Point:
    """One memory at one point: each pinned question's best rank (None: not injected)."""

    ranks: list[int | None] = field(default_factory=list)
    # the same engine with a window over every note: what the agent's own retrieval (every
    # note with its score and effective importance, then the best k) would inject
    wide_ranks: list[int | None] = field(default_factory=list)
    notes: int = 0
    archive_lines: int = 0
    evidence_merged: int = 0  # evidence notes merged into another (followed)
    evidence_archived: int = 0  # evidence notes archived (not merged)
    lost: int = 0  # questions recalled at 10 before curation and not here
    gained: int = 0  # and the other way round
    seconds: float = 0.0
    load: float = 0.0
    curation: dict[str, int] = field(default_factory=dict)


def parse_range(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out += range(int(low), int(high or low) + 1)
    return out


def setup(work: Path, uri: str) -> None:
    django_in(
        work,
        uri,
        QQ_EMBEDDING_BACKEND="sentence-transformers",
        QQ_EMBEDDING_MODEL="all-MiniLM-L6-v2",
    )


def turn_vectors(turns: list[Turn]) -> tuple[np.ndarray, bool]:
    """One conversation's turn vectors from the app's embedder, cached per conversation,
    data checksum and model; and whether they came from the cache."""
    from django.conf import settings

    from qqweb.lib.clients import embedder

    name = f"{recall_data.SOURCE.sha256[:16]}-{settings.QQ_EMBEDDING_MODEL}-{turns[0].conversation}"
    path = CACHE / f"{name}.npy"
    if path.exists():
        cached = np.load(path)
        if len(cached) == len(turns):
            return cached, True
    vectors = np.asarray(embedder().embed([turn.text for turn in turns]), dtype=np.float32)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors, False


class QuestionVectors:
    """The app's embedder with each question's vector kept: the engine embeds the message
    on every call, and the benchmark asks each question up to 16 times (the same model,
    the same vector; 9 ms a question saved each time)."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self._kept: dict[str, np.ndarray] = {}

    @property
    def model_name(self) -> str:
        return str(self._model.model_name)

    @property
    def dimension(self) -> int:
        return int(self._model.dimension)

    def embed(self, texts: list[str]) -> np.ndarray:
        if len(texts) != 1:
            return np.asarray(self._model.embed(texts))
        if texts[0] not in self._kept:
            self._kept[texts[0]] = np.asarray(self._model.embed(texts))
        return self._kept[texts[0]]


def keep_question_vectors() -> None:
    """The engine's module embeds through ``embedder()``: hand it the memoising one."""
    from memory_app.notes.selectors import recall as engine_module
    from qqweb.lib.clients import embedder

    memo = QuestionVectors(embedder())
    engine_module.embedder = lambda: memo


def use_memory(work: Path, name: str) -> None:
    """Point the app at the memory ``name``: its own database and memory directory."""
    from django.conf import settings

    from memory_app.notes.stores import notes_store, vector_indexes_close

    vector_indexes_close()
    settings.QQ_MONGO_DB = f"locomo_{name}"
    settings.MEMORY_DIR = work / "memory" / name
    settings.MEMORY_DIR.mkdir(parents=True, exist_ok=True)
    notes_store().ensure_indexes()


def plant(docs: list[dict[str, Any]]) -> None:
    from memory_app.notes.stores import notes_store

    notes_store().collection.insert_many([dict(d) for d in docs], ordered=False)


def measure(pins: Pins, curation: dict[str, int] | None = None) -> Point:
    """Ask the agent's retrieval every pinned question."""
    from memory_app.notes.selectors.recall import notes_recall
    from memory_app.notes.stores import archive_manager, notes_store

    t = time.perf_counter()
    store = notes_store()
    if not store.vector_index.in_step(300):
        raise SystemExit("the vector index did not catch up with MongoDB in 300 s")
    engine = notes_recall()
    present = set(store.collection.distinct("note_id"))
    gone: dict[str, Any] = {}
    point = Point(curation=curation or {})
    # ``without`` ids that name no note widen the engine's search window by as many hits
    # and leave nothing out: the window then holds every note
    pad = frozenset(f"bench-window-{i}" for i in range(len(present)))
    for question, notes in pins.pinned:
        for ranks, without in ((point.ranks, frozenset[str]()), (point.wide_ranks, pad)):
            if ranks is point.wide_ranks and point.ranks[-1] is not None:
                # the window's ranked notes are the first of the wider window's, in the
                # same order: a note found in the first is at the same rank in the second
                ranks.append(point.ranks[-1])
                continue
            recall = engine.recall(question.text, without=without)
            if recall.error:
                raise SystemExit(f"the agent's retrieval failed: {recall.error}")
            best: int | None = None
            for note_id in notes:
                rank = recall.rank_of(note_id)
                if rank is None and note_id not in present:
                    if note_id not in gone:
                        gone[note_id] = engine.whereabouts(note_id)
                    if gone[note_id].now_id:
                        rank = recall.rank_of(gone[note_id].now_id)
                if rank is not None and (best is None or rank < best):
                    best = rank
            ranks.append(best)
    point.evidence_merged = sum(1 for w in gone.values() if w.now_id)
    point.evidence_archived = sum(1 for w in gone.values() if not w.now_id)
    point.notes = store.count()
    point.archive_lines = len(archive_manager().read_lines())
    point.seconds = time.perf_counter() - t
    point.load = load()
    return point


def measured_unless_unchanged(pins: Pins, curation: dict[str, int], before: Point) -> Point:
    """The point after an archival pass; one that archived nothing left the memory as it
    was (the fresh notes: none decayed), and has the figures measured before it."""
    if curation.get("archived"):
        return measure(pins, curation)
    return replace(before, curation={**before.curation, **curation})


def conversation_points(
    work: Path, sample: dict[str, Any], vectors: np.ndarray, turns: list[Turn], *, aged: bool
) -> dict[str, Point]:
    from memory_app.notes.lib.documents import utcnow_naive

    label = "aged" if aged else "fresh"
    points: dict[str, Point] = {}
    for run in ("dedup", "archival"):
        namespace = f"{label}-{run}"
        docs = recall_data.note_documents(turns, now=utcnow_naive(), namespace=namespace, aged=aged)
        for doc, vector in zip(docs, vectors, strict=True):
            doc["embedding"] = [float(x) for x in vector]
        pins = recall_data.pins_of(
            recall_data.questions_of(sample),
            {t.dia_id: doc["note_id"] for t, doc in zip(turns, docs, strict=True)},
        )
        use_memory(work, f"{sample['sample_id'].replace('-', '')}_{namespace}")
        plant(docs)
        if run == "dedup":
            points["before curation"] = measure(pins)
            merged = dedup({d["note_id"] for d in docs})
            points["after dedup"] = measure(pins, merged)
            points["after both"] = measured_unless_unchanged(
                pins, {**merged, **archival()}, points["after dedup"]
            )
        else:
            points["after archival"] = measured_unless_unchanged(
                pins, archival(), points["before curation"]
            )
    before = [r is not None and r <= 10 for r in points["before curation"].ranks]
    for point in points.values():
        now = [r is not None and r <= 10 for r in point.ranks]
        point.lost = sum(1 for b, a in zip(before, now, strict=True) if b and not a)
        point.gained = sum(1 for b, a in zip(before, now, strict=True) if a and not b)
    return points


def summary(points: list[Point]) -> dict[str, Any]:
    from qqweb.recall.maths import mean_reciprocal_rank, recall_at_k

    ranks = [r for p in points for r in p.ranks]
    wide = [r for p in points for r in p.wide_ranks]
    curation: dict[str, int] = {}
    for p in points:
        for key, value in p.curation.items():
            if key != "threshold_x1000":
                curation[key] = curation.get(key, 0) + value
    return {
        "questions": len(ranks),
        "recall_at_5": recall_at_k(ranks, 5),
        "recall_at_10": recall_at_k(ranks, 10),
        "mrr": mean_reciprocal_rank(ranks),
        "wide_recall_at_10": recall_at_k(wide, 10),
        "notes": sum(p.notes for p in points),
        "archive_lines": sum(p.archive_lines for p in points),
        "evidence_merged": sum(p.evidence_merged for p in points),
        "evidence_archived": sum(p.evidence_archived for p in points),
        "lost": sum(p.lost for p in points),
        "gained": sum(p.gained for p in points),
        "seconds": round(sum(p.seconds for p in points), 1),
        "load": max(p.load for p in points),
        "curation": curation,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--conversations", default="0-9", help="indices, e.g. 0-4 or 0,5")
    parser.add_argument("--variants", default="aged,fresh")
    parser.add_argument("--port", type=int, default=0, help="SecantusDB's port (0: any free)")
    parser.add_argument("--out", default="recall", help="bench/results/<out>.{md,json}")
    args = parser.parse_args()
    started = time.perf_counter()
    samples = recall_data.load(args.mirror)
    indices = parse_range(args.conversations)
    from secantus import SecantusDBServer

    work = Path(tempfile.mkdtemp(prefix="qqweb-bench-recall-"))
    server = SecantusDBServer(storage_path=str(work / "secantus"), port=args.port)
    server.start()
    try:
        setup(work, server.uri)
        keep_question_vectors()
        all_turns = [recall_data.turns_of(samples[i]) for i in indices]
        flat = [t for turns in all_turns for t in turns]
        t = time.perf_counter()
        embedded = [turn_vectors(turns) for turns in all_turns]
        embed_s = time.perf_counter() - t
        cached = all(hit for _, hit in embedded)
        print(
            f"{len(flat)} turns' vectors {'from the cache' if cached else 'embedded'} "
            f"in {embed_s:.0f} s [load {load():.1f}]"
        )
        results: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
        for variant in args.variants.split(","):
            per: dict[str, list[tuple[int, Point]]] = {name: [] for name in POINTS}
            for index, turns, (rows, _) in zip(indices, all_turns, embedded, strict=True):
                points = conversation_points(
                    work, samples[index], rows, turns, aged=variant == "aged"
                )
                for name, point in points.items():
                    per[name].append((index, point))
                print(
                    f"{variant} {samples[index]['sample_id']}: "
                    + "; ".join(
                        f"{name} r@10 {sum(1 for r in p.ranks if r and r <= 10)}"
                        f"/{len(p.ranks)} notes {p.notes} archive {p.archive_lines}"
                        for name, p in points.items()
                    )
                    + f" [load {load():.1f}]"
                )
            results[variant] = {
                name: {
                    split: summary([p for i, p in rows_ if keep(i)])
                    for split, keep in (
                        ("all", lambda i: True),
                        ("dev", lambda i: i < 5),
                        ("test", lambda i: i >= 5),
                    )
                    if any(keep(i) for i, _ in rows_)
                }
                for name, rows_ in per.items()
            }
        head = {
            "command": f"bench/recall.py --conversations {args.conversations}",
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "turns": len(flat),
            "questions": sum(results[v][POINTS[0]]["all"]["questions"] for v in list(results)[:1]),
            "seconds": time.perf_counter() - started,
            "load": load(),
            "embed_s": embed_s,
            "cached": cached,
        }
        text = report(results, indices, head)
        print(text)
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"{args.out}.md").write_text(text)
        (RESULTS / f"{args.out}.json").write_text(
            json.dumps({"head": head, "results": results}, indent=2) + "\n"
        )
    finally:
        from memory_app.notes.stores import vector_indexes_close

        vector_indexes_close()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
