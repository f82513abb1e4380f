"""Import an export (``ndjson.py``) into the stores.

Every import reads the file three times. The first two passes are the preview, writing
nothing: the first checks every record (``checking.py``: the header and version, each
record against the stores' own checks, each file's line count and SHA-256, the end
record) and lists each refused record with its reason; the second counts what the stores
hold already of the records that pass (notes by ``note_id`` or ``_id``, entities by label and name,
``:Source`` nodes by ``source_id``, facts by ``_id``, memory files by content). The third
pass writes, and only when no record is refused (or the caller chose to import the valid
ones, leaving the refused ones out) and the preview found no conflict (or the caller
accepted them): nothing already in a store is ever overwritten; a conflicting note, node
or fact is left as it is and counted as skipped, a memory file that holds other content
is kept (``archive.jsonl`` gets the lines it lacks).

Facts into a facts store that already holds facts go through the second agent's own add
test first (facts contract 4.2 rule 3 and 4.9): a fact at cosine >= 0.95 to one already
there (or imported before it) is one the agent would not have saved, and one its next start
would hard-delete or make it delete; it is left out and listed in the summary
(``facts_skipped``), never written. Into an empty facts store the facts come back as they
were, pending pairs included: the agent's next start then does exactly what it would have
done to the original, and the facts pages show it before.

Into empty stores everything comes back exactly: documents with their ``_id`` and BSON
types, files byte for byte, nodes and relationships with every property (nanosecond
DateTimes included). Writes are batched and idempotent, so an import that died half-way
is finished by running it again: what is there is skipped, not doubled.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from graph_app.knowledge.backup import ExportedNode, ExportedRelationship, decode_props
from graph_app.stores import graph_store
from memory_app.facts.lib.domain import EmbeddingState, Fact, document_from_bson
from memory_app.facts.lib.rules import AddTest
from memory_app.facts.lib.store import FactsStore
from memory_app.facts.stores import facts_enabled, facts_store
from memory_app.notes.lib.backup_files import KEPT
from memory_app.notes.stores import memory_files, notes_store
from qqweb.backup import ndjson
from qqweb.backup.checking import RecordChecker
from qqweb.backup.ndjson import ExportFormatError
from qqweb.lib.clients import embedder
from qqweb.recall.backup import pins_present, pins_restore, pins_unsearchable
from qqweb.recall.models import Pin

Progress = Callable[[int, int | None], None]
BATCH = 500
SAMPLE = 20
LEFT_OUT = "file_line_left_out"  # not a kind a file can hold (``ndjson.KINDS``)


@dataclass
class ImportPreview:
    """What an import of the file would do; ``conflicts`` counts what it would skip."""

    counts: dict[str, int] = field(default_factory=dict)
    notes_present: int = 0
    notes_sample: list[str] = field(default_factory=list)
    nodes_present: int = 0
    nodes_sample: list[str] = field(default_factory=list)
    facts_present: int = 0
    facts_off: bool = False  # the file holds facts but no facts store is configured
    pins_present: int = 0  # memory tests' pins pinned here already (left as they are)
    files: list[dict[str, Any]] = field(default_factory=list)
    # records the stores would not take, with the reason (the first checking.LISTED)
    refused: list[dict[str, Any]] = field(default_factory=list)
    refused_count: int = 0

    @property
    def files_kept(self) -> list[str]:
        return [f["name"] for f in self.files if f["outcome"] == KEPT]

    @property
    def conflicts(self) -> int:
        return (
            self.notes_present
            + self.nodes_present
            + self.facts_present
            + self.pins_present
            + len(self.files_kept)
        )

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "conflicts": self.conflicts, "files_kept": self.files_kept}


@dataclass
class ImportSummary:
    preview: ImportPreview
    inserted: dict[str, int] = field(default_factory=dict)
    files: list[dict[str, Any]] = field(default_factory=list)
    # facts the second agent would not have saved (>= 0.95 to one already there): left out
    facts_skipped: list[dict[str, Any]] = field(default_factory=list)
    pins_inserted: int = 0  # the memory tests' pins put back
    # pins put back on an item no search can recall (no vector): kept, and named
    pins_unsearchable: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "preview": self.preview.to_json(),
            "inserted": self.inserted,
            "pins_inserted": self.pins_inserted,
            "pins_unsearchable": self.pins_unsearchable,
            "files": self.files,
            "facts_skipped": self.facts_skipped,
        }


def _facts_the_agent_would_save(
    facts: FactsStore,
    documents: list[dict[str, Any]],
    test: AddTest,
    skipped: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The W1 test on each document not in the store yet, against what is there and what
    this import added before it; ``test`` grows with what is kept."""
    present = facts.ids_present([d.get("_id") for d in documents])
    kept: list[dict[str, Any]] = []
    for doc in documents:
        if doc.get("_id") in present:
            continue
        fact = document_from_bson(doc)
        if isinstance(fact, Fact) and fact.embedding is EmbeddingState.OK:
            verdict = test.check(fact.content_embedding)
            if verdict.refused and verdict.best is not None:
                skipped.append(
                    {
                        "fact_id": fact.hex_id,
                        "content": fact.text,
                        "like_id": verdict.best.hex_id,
                        "score": round(float(verdict.best_score or 0.0), 6),
                    }
                )
                continue
            test.add(fact)
        kept.append(doc)
    return kept


@dataclass(frozen=True)
class ImportStart:
    """What an import found just before its first write, kept on its run, so that a retry
    of the same run (Celery's, after an outage; a redelivery, after its worker died)
    finishes what the first try began instead of judging the stores that try half filled:
    the records the first try wrote are not conflicts (it passed the conflicts check, or
    its conflicts were accepted), and facts imported into a facts store that was empty
    come back as they were, pending pairs included (the agent's add test applies only
    when the store held facts before the first try)."""

    facts_checked: bool  # the facts store held facts: each fact takes the agent's add test


class ImportConflicts(Exception):
    """The stores already hold some of what the file holds; nothing was written."""

    def __init__(self, preview: ImportPreview) -> None:
        super().__init__(
            f"the stores already hold {preview.conflicts} of the records in this file "
            f"({preview.notes_present} notes, {preview.nodes_present} graph nodes, "
            f"{preview.facts_present} facts, files {preview.files_kept}); an import keeps "
            "them and skips those records: confirm to import the rest"
        )
        self.preview = preview


class RecordsRefused(ExportFormatError):
    """Some records of the file are refused (the preview lists them); nothing was written.
    An import of the valid records leaves them out."""

    def __init__(self, preview: ImportPreview) -> None:
        shown = "; ".join(
            f"line {r['line']} ({r['kind'] or 'unreadable'}): {r['reason']}"
            for r in preview.refused[:3]
        )
        more = preview.refused_count - min(3, len(preview.refused))
        message = (
            f"{preview.refused_count} record(s) of this file are refused, so nothing was "
            f"written: {shown}{f'; and {more} more' if more else ''}. The preview lists "
            "them; import the valid records to leave them out"
        )
        ValueError.__init__(self, message)
        self.line, self.message, self.preview = 0, message, preview


class _Ticker:
    def __init__(self, progress: Progress | None, total: int | None) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def add(self, n: int) -> None:
        self.done += n
        if self.progress and n:
            self.progress(self.done, self.total)


def _file_lines(first: dict[str, Any], records: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    """The lines of the file ``first`` starts, checked against its ``file_end``; a line
    left out (an archive line the checks refused) counts but is not given."""
    name, digest, count = first["name"], hashlib.sha256(), 0
    record = first
    while record["kind"] in ("file_line", LEFT_OUT):
        if record.get("name") != name:
            raise ExportFormatError(0, f"file {name!r} has no file_end before the next file")
        line = ndjson.file_line_bytes(record)
        digest.update(line)
        count += 1
        if record["kind"] == "file_line":
            yield line
        record = next(records)
    if record["kind"] != "file_end" or record.get("name") != name:
        raise ExportFormatError(0, f"file {name!r} is not closed by its file_end")
    if record.get("lines") != count or record.get("sha256") != digest.hexdigest():
        raise ExportFormatError(0, f"file {name!r} does not match its line count and SHA-256")


def _grouped(records: Iterator[dict[str, Any]]) -> Iterator[tuple[str, Any]]:
    """The records as (kind, batch) pairs: notes, facts, nodes and relationships in batches
    of ``BATCH``, a file as ("file", (name, lines)), the end as ("end", counts)."""
    batch: list[dict[str, Any]] = []
    batch_kind = ""
    for record in records:
        kind = record["kind"]
        if batch and kind != batch_kind:
            yield batch_kind, batch
            batch = []
        if kind in ("note", "fact", "node", "relationship", "pin"):
            batch_kind = kind
            batch.append(record)
            if len(batch) >= BATCH:
                yield kind, batch
                batch = []
        elif kind in ("file_line", LEFT_OUT):
            yield "file", (record["name"], _file_lines(record, records))
        elif kind == "file_end":
            yield "file", (record["name"], _file_lines(record, records))  # an empty file
        elif kind == "end":
            yield "end", record.get("counts", {})
    if batch:
        yield batch_kind, batch


def _taken(source: Path, checker: RecordChecker) -> Iterator[dict[str, Any]]:
    """The records of the file that passed the checks, in order; an archive line refused
    alone comes as a ``LEFT_OUT`` record (its file's count and SHA-256 still hold it)."""
    for line in ndjson.read_lines(source):
        if line.record is None or line.number in checker.refused_lines:
            continue
        if line.number in checker.left_out_lines:
            yield {**line.record, "kind": LEFT_OUT}
        else:
            yield line.record


def _checked(source: Path) -> RecordChecker:
    """The first pass: every record checked (``checking.py``)."""
    notes = notes_store()
    checker = RecordChecker(dimension=lambda: notes.dominant_dimension() or embedder().dimension)
    for line in ndjson.read_lines(source):
        checker.take(line)
    checker.finish()
    return checker


def _node(record: dict[str, Any]) -> ExportedNode:
    return ExportedNode(str(record["id"]), tuple(record["labels"]), decode_props(record["props"]))


def backup_preview(*, source: Path) -> ImportPreview:
    """Check every record and count what the stores hold already; writes nothing."""
    preview, _refused = _preview(source)
    return preview


def _preview(source: Path) -> tuple[ImportPreview, RecordChecker]:
    checker = _checked(source)
    notes, files, graph = notes_store(), memory_files(), graph_store()
    facts = facts_store() if facts_enabled() else None
    preview = ImportPreview(counts=dict(checker.counts))
    preview.refused = [r.to_json() for r in checker.refusals]
    preview.refused_count = checker.refused_count
    for kind, batch in _grouped(_taken(source, checker)):
        if kind == "note":
            present = notes.documents_present([r["document"] for r in batch])
            preview.notes_present += len(present)
            preview.notes_sample += sorted(present)[: SAMPLE - len(preview.notes_sample)]
        elif kind == "fact" and facts is not None:
            preview.facts_present += len(
                facts.ids_present([r["document"].get("_id") for r in batch])
            )
        elif kind == "fact":
            preview.facts_off = True
        elif kind == "pin":
            preview.pins_present += pins_present(batch)
        elif kind == "node":
            nodes = [_node(r) for r in batch]
            present = set(graph.nodes_present(nodes))
            preview.nodes_present += len(present)
            preview.nodes_sample += [
                f"{n.key[0]}:{n.key[2]}" for n in nodes if n.id in present and n.key
            ][: SAMPLE - len(preview.nodes_sample)]
        elif kind == "file":
            name, lines = batch
            preview.files.append(asdict(files.plan(name, lines)))
    return preview, checker


def backup_import(
    *,
    source: Path,
    accept_conflicts: bool = False,
    import_valid: bool = False,
    progress: Progress | None = None,
    resume: ImportStart | None = None,
    on_start: Callable[[ImportStart], None] | None = None,
) -> ImportSummary:
    """Preview, then write what is missing (see the module). Raises, writing nothing,
    :class:`RecordsRefused` when the checks refuse a record and ``import_valid`` is not
    set, :class:`ImportConflicts` when the stores hold some of it already and
    ``accept_conflicts`` is not set. ``on_start`` is told, before the first write, what
    a retry must keep to; a retry passes it back as ``resume`` (see
    :class:`ImportStart`)."""
    preview, checker = _preview(source)
    if preview.refused_count and not import_valid:
        raise RecordsRefused(preview)
    if resume is None and preview.conflicts and not accept_conflicts:
        raise ImportConflicts(preview)
    notes, files, graph = notes_store(), memory_files(), graph_store()
    facts = facts_store() if facts_enabled() else None
    merge_graph = graph.export_counts().nodes > 0
    start = resume or ImportStart(facts_checked=facts is not None and not facts.is_empty())
    if resume is None and on_start is not None:
        on_start(start)
    add_test = AddTest(facts.facts()) if facts is not None and start.facts_checked else None
    summary = ImportSummary(preview, {k: 0 for k in ("note", "node", "relationship", "fact")})
    ticker = _Ticker(progress, sum(preview.counts.values()))
    element_ids: dict[str, str] = {}  # export node id -> this graph's element id
    restored: list[Pin] = []
    for kind, batch in _grouped(_taken(source, checker)):
        if kind == "note":
            summary.inserted["note"] += notes.insert_exported([r["document"] for r in batch])
        elif kind == "fact" and facts is not None:
            documents = [r["document"] for r in batch]
            if add_test is not None:  # a store with facts: the agent's add test first
                documents = _facts_the_agent_would_save(
                    facts, documents, add_test, summary.facts_skipped
                )
            summary.inserted["fact"] += facts.insert_exported(documents)
        elif kind == "node":
            nodes = [_node(r) for r in batch]
            found = graph.nodes_present(nodes) if merge_graph else {}
            created = graph.create_nodes([n for n in nodes if n.id not in found])
            element_ids.update(found)
            element_ids.update(created)
            summary.inserted["node"] += len(created)
        elif kind == "pin":
            restored += pins_restore(batch)
            summary.pins_inserted = len(restored)
        elif kind == "relationship":
            rels = [_relationship(r, element_ids) for r in batch]
            summary.inserted["relationship"] += graph.create_relationships(
                rels, only_missing=merge_graph
            )
        elif kind == "file":
            name, lines = batch
            summary.files.append(asdict(files.import_file(name, lines)))
            continue
        else:
            continue
        ticker.add(len(batch))
    summary.pins_unsearchable = pins_unsearchable(restored)  # after every item is in
    if progress:
        progress(ticker.total or 0, ticker.total)
    return summary


def _relationship(record: dict[str, Any], element_ids: dict[str, str]) -> ExportedRelationship:
    try:
        start, end = element_ids[str(record["start"])], element_ids[str(record["end"])]
    except KeyError as e:
        raise ExportFormatError(
            0, f"a relationship names node {e.args[0]!r}, not in the file"
        ) from e
    return ExportedRelationship(start, str(record["type"]), end, decode_props(record["props"]))
