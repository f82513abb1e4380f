"""The jobs over the knowledge graph: orphan scan and re-embed."""

from __future__ import annotations

from typing import Any

from graph_app.knowledge import GraphUnavailable
from graph_app.stores import graph_store
from memory_app.notes.models import MaintenanceRun
from memory_app.notes.services.maintenance.common import Progress, _actor, _batch
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.clients import embedder
from qqweb.lib.errors import StoreUnavailable


def graph_orphan_scan_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Entities with no relationship to another entity (provenance does not count)."""
    try:
        orphans = graph_store().orphans(limit=1000)
    except GraphUnavailable as e:
        raise StoreUnavailable("neo4j", e.message) from e
    progress(len(orphans), len(orphans))
    return {"orphans": len(orphans), "sample": [f"{o['label']}:{o['name']}" for o in orphans[:10]]}


def graph_reembed_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Embed ``"name: description"`` for entities whose embedding is missing or of another
    dimension than the configured model's; the old vectors go into the audit event."""
    model = embedder()
    store = graph_store()
    try:
        todo = store.entities_to_embed(model.dimension)
    except GraphUnavailable as e:
        raise StoreUnavailable("neo4j", e.message) from e
    stats: dict[str, Any] = {
        "candidates": len(todo),
        "embedded": 0,
        "sample": [f"{e['label']}:{e['name']}" for e in todo[:10]],
    }
    for start in range(0, len(todo), 64):
        chunk = todo[start : start + 64]
        if not run.dry_run:
            vectors = model.embed([f"{e['name']}: {e['description']}" for e in chunk])
            event = audit_begin(
                _actor(run),
                "graph.reembed",
                "graph",
                f"{len(chunk)} entities",
                {e["id"]: e["embedding"] for e in chunk},
                _batch(run),
            )

            def write(chunk: list[dict[str, Any]] = chunk, vectors: Any = vectors) -> Any:
                rows = [
                    {"id": e["id"], "embedding": [float(x) for x in v]}
                    for e, v in zip(chunk, vectors, strict=True)
                ]
                stats["embedded"] += store.set_embeddings(rows)
                return {"ids": [e["id"] for e in chunk]}

            audited(event, write)
        progress(min(start + 64, len(todo)), len(todo))
    return stats


def _undo_graph_reembed(before: dict[str, Any], after: Any) -> dict[str, Any]:
    rows = [{"id": element_id, "embedding": vector} for element_id, vector in before.items()]
    return {"restored": graph_store().set_embeddings(rows)}


UNDO_HANDLERS = {"graph.reembed": _undo_graph_reembed}
