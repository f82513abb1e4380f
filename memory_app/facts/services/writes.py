"""The curator's writes to the facts store (contract 4.2), each with rule 3 first:

- :func:`fact_create`: a new fact in the agent's exact shape;
- :func:`fact_edit`: in place, guarded on the text the curator saw, ``timestamp`` kept;
- :func:`fact_delete`: archived, then deleted (legacy turns too);
- :func:`fact_restore`: an archived fact back, under its ``_id`` when free, with its
  ``timestamp`` (its seniority);
- :func:`fact_embed`: a vector for a legacy fact (it joins the cleanup with an old
  ``timestamp`` and wins).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime

from memory_app.facts.lib import Fact, FactNotFound, FactsStore
from memory_app.facts.lib.domain import EmbeddingState, document_from_bson, new_fact_id
from memory_app.facts.lib.errors import FactChanged, InvalidFact
from memory_app.facts.lib.extjson import document_dumps, document_loads
from memory_app.facts.lib.guard import write_plan
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services.actions import (
    FactAction,
    agent_vector,
    archive_step,
    clean_content,
    find_fact,
    perform,
    resolution_steps,
    store_and_facts,
)
from memory_app.facts.services.gone import gone_error
from memory_app.facts.services.steps import as_snapshot_time, location_of
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder


def fact_create(
    *,
    actor: Actor,
    content: str,
    confirm: Collection[str] | None = None,
    dry_run: bool = False,
    embedder: Embedder | None = None,
) -> FactAction:
    """``{type: "fact", content, content_embedding, timestamp: utcnow (ms), metadata: {}}``
    under a new ObjectId. ``plan.add.refused``: the agent itself would not have saved it."""
    text = clean_content(content)
    vector = agent_vector(text, embedder)
    store, facts = store_and_facts()
    new = Fact(
        id=new_fact_id(),
        content=text,
        content_embedding=vector,
        timestamp=as_snapshot_time(datetime.now(UTC)),
        metadata={},
    )
    plan = write_plan(facts, [*facts, new], {new.hex_id})
    steps = [
        *resolution_steps(plan),
        {"op": "insert", "document": document_dumps(new.to_document())},
    ]
    return perform(
        store=store,
        actor=actor,
        action="fact.create",
        target=new.hex_id,
        plan=plan,
        steps=steps,
        confirm=confirm,
        dry_run=dry_run,
        fact_id=new.hex_id,
    )


def _editable(
    store: FactsStore, facts: list[Fact], fact_id: str, expected: str, embedder: Embedder | None
) -> Fact:
    fact = find_fact(facts, fact_id)
    if fact is None:  # replaced by the agent's update, deleted, or never there
        raise gone_error(
            facts=facts,
            location=location_of(store),
            fact_id=fact_id,
            expected=expected,
            embedder=embedder,
        )
    if fact.content != expected:
        raise FactChanged(fact_id, "another curator edited it (the agent never edits in place)")
    return fact


def fact_edit(
    *,
    actor: Actor,
    fact_id: str,
    expected_content: str,
    content: str,
    confirm: Collection[str] | None = None,
    dry_run: bool = False,
    embedder: Embedder | None = None,
) -> FactAction:
    """Contract 4.2 rules 1-3: ``$set`` content and vector where ``_id``, ``type`` and the
    content the curator saw match; ``_id``, ``timestamp`` and ``metadata`` are kept."""
    text = clean_content(content)
    store, facts = store_and_facts()
    fact = _editable(store, facts, fact_id, expected_content, embedder)
    if fact.is_legacy:
        raise InvalidFact("fact_id", "is a legacy fact without a vector: embed it first")
    if text == fact.content:
        raise InvalidFact("content", "is the text the fact has already")
    vector = agent_vector(text, embedder)
    edited = replace(fact, content=text, content_embedding=vector)
    after = [edited if f is fact else f for f in facts]
    plan = write_plan(facts, after, {fact_id})
    before_vector = fact.content_embedding if fact.embedding is EmbeddingState.OK else None
    steps = [
        *resolution_steps(plan),
        {
            "op": "set",
            "id": fact_id,
            "from": fact.content,
            "to": text,
            "vector": vector,
            "from_vector": before_vector,
        },
    ]
    return perform(
        store=store,
        actor=actor,
        action="fact.edit",
        target=fact_id,
        plan=plan,
        steps=steps,
        confirm=confirm,
        dry_run=dry_run,
        fact_id=fact_id,
    )


def fact_delete(
    *,
    actor: Actor,
    fact_id: str,
    confirm: Collection[str] | None = None,
    dry_run: bool = False,
) -> FactAction:
    """Archive, then delete. Removing a fact that keeps others (an anchor of the cleanup)
    can let them delete each other: those are archived too, once confirmed."""
    store, facts = store_and_facts()
    doc = store.get(fact_id)
    after = [f for f in facts if f.hex_id != doc.hex_id]
    plan = write_plan(facts, after, set())
    steps = [archive_step(doc, ArchivedFact.ARCHIVE), *resolution_steps(plan)]
    return perform(
        store=store,
        actor=actor,
        action="fact.delete",
        target=doc.hex_id,
        plan=plan,
        steps=steps,
        confirm=confirm,
        dry_run=dry_run,
    )


def fact_restore(
    *,
    actor: Actor,
    archive_id: int,
    confirm: Collection[str] | None = None,
    dry_run: bool = False,
    embedder: Embedder | None = None,
) -> FactAction:
    """Rule 5: the archived document back as it was (``timestamp`` and ``metadata``
    included), under its ``_id`` when free, else a new ObjectId; a vector the agent could
    not use is replaced by the agent's model's."""
    store, facts = store_and_facts()
    row = ArchivedFact.objects.filter(pk=archive_id, location=location_of(store)).first()
    if row is None:
        raise FactNotFound(f"archive {archive_id}")
    if row.restored_at is not None:
        raise FactChanged(row.fact_id, f"it was restored already, as {row.restored_id}")
    document = document_loads(row.document)
    restored = document_from_bson(document)
    if isinstance(restored, Fact) and restored.embedding is EmbeddingState.INVALID:
        document["content_embedding"] = agent_vector(restored.text, embedder)
    if store.id_in_use(document["_id"]):
        document["_id"] = new_fact_id()
    restored = document_from_bson(document)
    after = [*facts, restored] if isinstance(restored, Fact) else facts
    plan = write_plan(facts, after, {restored.hex_id})
    steps = [
        *resolution_steps(plan),
        {"op": "restore", "archive_pk": row.pk, "document": document_dumps(document)},
    ]
    return perform(
        store=store,
        actor=actor,
        action="fact.restore",
        target=row.fact_id,
        plan=plan,
        steps=steps,
        confirm=confirm,
        dry_run=dry_run,
        fact_id=restored.hex_id,
    )


def fact_embed(
    *,
    actor: Actor,
    fact_id: str,
    confirm: Collection[str] | None = None,
    dry_run: bool = False,
    embedder: Embedder | None = None,
) -> FactAction:
    """Rule 6: ``$set content_embedding`` on a legacy fact. It carries a 2025-04
    ``timestamp``, so it wins every pair it joins: the preview shows those."""
    store, facts = store_and_facts()
    fact = find_fact(facts, fact_id)
    if fact is None:
        raise FactNotFound(fact_id)
    if not fact.is_legacy:
        raise InvalidFact("fact_id", "has a vector already")
    if not fact.text.strip():
        raise InvalidFact("content", "is empty: there is nothing to embed")
    vector = agent_vector(fact.text, embedder)
    embedded = replace(fact, content_embedding=vector)
    plan = write_plan(facts, [embedded if f is fact else f for f in facts], {fact_id})
    steps = [
        *resolution_steps(plan),
        {"op": "embed", "id": fact_id, "content": fact.content, "vector": vector},
    ]
    return perform(
        store=store,
        actor=actor,
        action="fact.embed",
        target=fact_id,
        plan=plan,
        steps=steps,
        confirm=confirm,
        dry_run=dry_run,
        fact_id=fact_id,
    )
