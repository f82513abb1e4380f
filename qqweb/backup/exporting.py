"""Export every store into one NDJSON file (format: ``ndjson.py``), streaming: a batch of
notes, a line of a file, a fetch of graph rows at a time. Written to a temp file beside
the destination and renamed when complete, so a crash never leaves a file that looks
whole."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from graph_app.knowledge.backup import encode_props
from graph_app.stores import graph_store
from memory_app.facts.stores import facts_enabled, facts_store
from memory_app.notes.stores import memory_files, notes_store
from qqweb.backup import ndjson
from qqweb.recall.backup import pin_count, pin_records

# Called with (records written so far, records expected or None).
Progress = Callable[[int, int | None], None]
PROGRESS_EVERY = 1000


@dataclass
class ExportSummary:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    bytes: int = 0


class _Writer:
    def __init__(self, handle: IO[str], progress: Progress | None, total: int | None) -> None:
        self.handle = handle
        self.counts: Counter[str] = Counter()
        self.progress = progress
        self.total = total
        self.written = 0

    def write(self, record: dict[str, Any]) -> None:
        self.handle.write(ndjson.line_for(record))
        self.counts[record["kind"]] += 1
        self.written += 1
        if self.progress and self.written % PROGRESS_EVERY == 0:
            self.progress(self.written, self.total)


def backup_export(*, destination: Path, progress: Progress | None = None) -> ExportSummary:
    """Write every store to ``destination``: notes, memory files, graph, and the facts
    when they are configured."""
    notes, files, graph = notes_store(), memory_files(), graph_store()
    facts = facts_store() if facts_enabled() else None
    counts = graph.export_counts()
    total = notes.count() + counts.nodes + counts.relationships + (facts.count() if facts else 0)
    total += pin_count()
    file_names = files.names()
    header = {
        "kind": "header",
        "format": ndjson.FORMAT,
        "version": ndjson.VERSION,
        "created_at": datetime.now(UTC).isoformat(),
        "stores": {
            "notes": list(notes.location),
            "memory_files": file_names,
            "graph": True,
            "facts": list(facts.location) if facts else None,
            "pins": True,
        },
    }
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        out = _Writer(handle, progress, total)
        out.write(header)
        for document in notes.export_documents():
            out.write(ndjson.document_record("note", document))
        for name in file_names:
            digest, lines = hashlib.sha256(), 0
            for line in files.read_lines(name):
                digest.update(line)
                lines += 1
                out.write(ndjson.file_line_record(name, line))
            out.write(
                {"kind": "file_end", "name": name, "lines": lines, "sha256": digest.hexdigest()}
            )
        for node in graph.export_nodes():
            out.write(
                {
                    "kind": "node",
                    "id": node.id,
                    "labels": list(node.labels),
                    "props": encode_props(node.props),
                }
            )
        for rel in graph.export_relationships():
            out.write(
                {
                    "kind": "relationship",
                    "start": rel.start,
                    "type": rel.type,
                    "end": rel.end,
                    "props": encode_props(rel.props),
                }
            )
        if facts is not None:
            for document in facts.export_documents():
                out.write(ndjson.document_record("fact", document))
        for record in pin_records():
            out.write(record)
        counts_out = {kind: out.counts[kind] for kind in ndjson.COUNTED}
        out.write({"kind": "end", "counts": counts_out})
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, destination)
    if progress:
        progress(out.written, out.written)
    return ExportSummary(str(destination), counts_out, file_names, destination.stat().st_size)
