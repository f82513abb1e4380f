"""The jobs over the knowledge graph: orphan scan and re-embed, registered with the jobs
app by ``GraphAppConfig.ready()``."""

from __future__ import annotations

from typing import Any

from graph_app.stores import graph_store
from qqweb.audit.services import audit_begin, audited
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Job, Progress, run_actor, run_batch
from qqweb.lib.clients import embedder


def graph_orphan_scan_job(run: Run, progress: Progress) -> dict[str, Any]:
    """Entities with no relationship to another entity (provenance does not count)."""
    orphans = graph_store().orphans(limit=1000)  # Neo4j down: retried (GraphUnavailable)
    progress(len(orphans), len(orphans))
    return {"orphans": len(orphans), "sample": [f"{o['label']}:{o['name']}" for o in orphans[:10]]}


def graph_reembed_job(run: Run, progress: Progress) -> dict[str, Any]:
    """Embed ``"name: description"`` for entities whose embedding is missing or of another
    dimension than the configured model's; the old vectors go into the audit event."""
    model = embedder()
    store = graph_store()
    todo = store.entities_to_embed(model.dimension)
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
                run_actor(run),
                "graph.reembed",
                "graph",
                f"{len(chunk)} entities",
                {e["id"]: e["embedding"] for e in chunk},
                run_batch(run),
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


# Undone by an admin, as every job's changes are (the curation's undo is a curator's).
JOB_UNDO_HANDLERS = {"graph.reembed": _undo_graph_reembed}

GRAPH_JOBS = (
    Job(
        "graph_orphan_scan",
        "Graph orphan scan",
        "Find entities with no relationship to another entity.",
        graph_orphan_scan_job,
    ),
    Job(
        "graph_reembed",
        "Graph re-embed",
        "Embed entities whose embedding is missing or of another dimension.",
        graph_reembed_job,
    ),
)
