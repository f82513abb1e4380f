"""The graph jobs (registered by graph_app): the orphan scan finds entities with no
relationship, re-embed embeds the missing ones, and undoing the run puts them back."""

from __future__ import annotations

import pytest

from graph_app.stores import graph_store
from qqweb.audit.services import batch_undo
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor

ADA = Actor("user", "ada-admin", role="admin")
pytestmark = pytest.mark.django_db


def run(kind: str) -> Run:
    job = job_create(kind=kind, actor=ADA)
    job_run(run=job)
    job.refresh_from_db()
    return job


def test_graph_jobs_find_orphans_and_re_embed_entities(mongo, memory_dir, neo4j):
    store = graph_store()
    store.merge_entities(
        "Person",
        [
            {"name": "Ada", "props": {"description": "a friend"}},
            {"name": "Bob", "props": {"description": "a colleague", "embedding": [0.5, 0.5]}},
        ],
    )
    store.merge_entities("Project", [{"name": "Lumen", "props": {"embedding": [0.1] * 384}}])
    store.merge_relationships(
        "Person", "WORKS_ON", "Project", [{"a": "Bob", "b": "Lumen", "props": {}}]
    )
    assert run("graph_orphan_scan").stats == {"orphans": 1, "sample": ["Person:Ada"]}
    job = run("graph_reembed")
    assert job.stats["candidates"] == 2 and job.stats["embedded"] == 2
    assert store.entities_to_embed(384) == []
    batch_undo(actor=ADA, batch_id=job.batch_id)
    left = {e["name"]: e["embedding"] for e in store.entities_to_embed(384)}
    assert left == {"Ada": None, "Bob": [0.5, 0.5]}
