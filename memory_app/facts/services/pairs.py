"""The "deleted at the next start" review (contract 4.6): a pair of the agent's cleanup
plan resolved by qqweb now, recoverably, and verdicts on "possible contradictions".

Actions on a pair (``anchor``: the older fact the agent keeps, ``deleted``: the newer one
it hard-deletes):

- ``keep-older``: what the agent would do, but qqweb archives the newer now;
- ``keep-newer-text``: the older fact takes the newer text (keeping its ``_id`` and
  ``timestamp``, so its seniority), then the newer is archived;
- ``delete-both``: both archived;
- "make distinct" is an edit of either fact (:func:`fact_edit`), which re-checks.

Each runs rule 3 on its result first: removing an anchor can let a chain delete further.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from memory_app.facts.lib import Fact
from memory_app.facts.lib.errors import FactChanged
from memory_app.facts.lib.extjson import content_hash
from memory_app.facts.lib.guard import write_plan
from memory_app.facts.lib.rules import Deletion, cleanup_plan
from memory_app.facts.models import ArchivedFact, PairVerdict
from memory_app.facts.services.actions import (
    FactAction,
    agent_vector,
    archive_step,
    find_fact,
    perform,
    resolution_steps,
    store_and_facts,
)
from memory_app.facts.services.steps import location_of
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.lib.errors import InvalidInput

PAIR_ACTIONS = ("keep-older", "keep-newer-text", "delete-both")


def _planned_pair(facts: list[Fact], anchor_id: str, deleted_id: str) -> Deletion:
    for pair in cleanup_plan(facts).deletions:
        if pair.anchor.hex_id == anchor_id and pair.deleted.hex_id == deleted_id:
            return pair
    raise FactChanged(
        f"{anchor_id}/{deleted_id}", "this pair is not in the agent's next-start plan any more"
    )


def pair_resolve(
    *,
    actor: Actor,
    anchor_id: str,
    deleted_id: str,
    how: str,
    confirm: Collection[str] | None = None,
    dry_run: bool = False,
    embedder: Embedder | None = None,
) -> FactAction:
    if how not in PAIR_ACTIONS:
        raise InvalidInput("how", f"must be one of {', '.join(PAIR_ACTIONS)}")
    store, facts = store_and_facts()
    pair = _planned_pair(facts, anchor_id, deleted_id)
    anchor, newer = pair.anchor, pair.deleted
    detail = f"pair {anchor_id}/{deleted_id} at cosine {pair.score:.6f}"
    written: set[str] = set()
    if how == "keep-older":
        after = [f for f in facts if f is not newer]
        primary = [archive_step(newer, ArchivedFact.KEEP_OLDER, detail)]
    elif how == "delete-both":
        after = [f for f in facts if f is not newer and f is not anchor]
        primary = [
            archive_step(newer, ArchivedFact.DELETE_BOTH, detail),
            archive_step(anchor, ArchivedFact.DELETE_BOTH, detail),
        ]
    else:
        vector = agent_vector(newer.text, embedder)
        taken = replace(anchor, content=newer.content, content_embedding=vector)
        after = [taken if f is anchor else f for f in facts if f is not newer]
        written = {anchor_id}
        primary = [
            archive_step(newer, ArchivedFact.KEEP_NEWER_TEXT, detail),
            {
                "op": "set",
                "id": anchor_id,
                "from": anchor.content,
                "to": newer.content,
                "vector": vector,
                "from_vector": anchor.content_embedding,
            },
        ]
    plan = write_plan(facts, after, written)
    return perform(
        store=store,
        actor=actor,
        action=f"fact.pair.{how}",
        target=f"{anchor_id}/{deleted_id}",
        plan=plan,
        steps=[*primary, *resolution_steps(plan)],
        confirm=confirm,
        dry_run=dry_run,
        fact_id=anchor_id if how == "keep-newer-text" else "",
    )


def _hashes(a: Fact, b: Fact) -> tuple[str, str]:
    first, second = sorted((content_hash(a.content), content_hash(b.content)))
    return first, second


def contradiction_verdict(*, actor: Actor, a_id: str, b_id: str, verdict: str) -> AuditEvent:
    """Remember a verdict on a 0.85-0.95 pair by its two texts (it holds until either text
    changes). Undoable: the undo puts the previous verdict (or none) back; the audit event
    returned is what an Undo button undoes."""
    if verdict not in dict(PairVerdict.VERDICTS):
        raise InvalidInput("verdict", f"must be one of {', '.join(dict(PairVerdict.VERDICTS))}")
    store, facts = store_and_facts()
    a, b = find_fact(facts, a_id), find_fact(facts, b_id)
    if a is None or b is None:
        raise FactChanged(f"{a_id}/{b_id}", "one of the two facts is gone")
    hash_a, hash_b = _hashes(a, b)
    key = {"location": location_of(store), "hash_a": hash_a, "hash_b": hash_b}
    previous = PairVerdict.objects.filter(**key).first()
    before = {**key, "verdict": previous.verdict if previous else None}
    event = audit_begin(actor, "fact.verdict", "fact", f"{a_id}/{b_id}", before, None)

    def work() -> dict[str, str]:
        PairVerdict.objects.update_or_create(
            location=key["location"],
            hash_a=hash_a,
            hash_b=hash_b,
            defaults={"verdict": verdict, "actor": actor.label},
        )
        return {**key, "verdict": verdict}

    audited(event, work)
    return event


def undo_verdict(before: dict[str, str | None], after: dict[str, str]) -> dict[str, str | None]:
    key = {k: before[k] for k in ("location", "hash_a", "hash_b")}
    if before["verdict"] is None:
        PairVerdict.objects.filter(**key).delete()
    else:
        PairVerdict.objects.filter(**key).update(verdict=before["verdict"])
    return before
