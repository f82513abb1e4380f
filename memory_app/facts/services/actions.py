"""What every facts write shares: the agent's model, checked; rule 3 run on the resulting
state (:func:`memory_app.facts.lib.guard.write_plan`); the curator's confirmation of what
qqweb archives besides; one audit event per action, its steps as ``before``/``after``.

A write whose plan archives facts the caller did not list in ``confirm`` is not made:
:class:`NeedsConfirmation` carries the preview (the API answers 409 with it, the pages
show it with a confirm button that re-sends the same form with those ids). ``dry_run``
returns the preview and writes nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.utils import timezone

from memory_app.facts.lib import Fact, FactsStore
from memory_app.facts.lib.errors import InvalidFact
from memory_app.facts.lib.guard import WritePlan
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services.steps import FactAction, Step, run_steps
from memory_app.facts.shapes import plan_out
from memory_app.facts.stores import agent_embedding, facts_store
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.lib.errors import Conflict

MAX_CONTENT = 10_000


class NeedsConfirmation(Conflict):
    """The write would also archive facts the caller has not confirmed (``plan``): 409,
    nothing written; the body has the preview and the ids to send back in ``archive``."""

    code = "confirm"

    def __init__(self, action: str, plan: WritePlan) -> None:
        ids = ", ".join(plan.archive_ids)
        super().__init__(
            f"{action}: to leave the agent no new deletion, qqweb would also archive {ids}; "
            "nothing was written. Send these ids in `archive` to confirm"
        )
        self.action = action
        self.plan = plan

    def details(self) -> dict[str, object]:
        return {"archive": self.plan.archive_ids, "preview": plan_out(self.plan)}


def agent_vector(text: str, embedder: Embedder | None = None) -> list[float]:
    """The agent's embedding (:func:`memory_app.facts.stores.agent_embedding`)."""
    return agent_embedding(text, embedder)


def clean_content(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        raise InvalidFact("content", "must be a non-empty text")
    if len(content) > MAX_CONTENT:
        raise InvalidFact("content", f"must be at most {MAX_CONTENT} characters")
    return content.strip()


def find_fact(facts: list[Fact], fact_id: str) -> Fact | None:
    return next((f for f in facts if f.hex_id == fact_id), None)


def archive_step(fact: Any, reason: str, detail: str = "") -> Step:
    return {
        "op": "archive",
        "id": fact.hex_id,
        "content": fact.content if isinstance(fact, Fact) else None,
        "reason": reason,
        "detail": detail,
    }


def resolution_steps(plan: WritePlan) -> list[Step]:
    steps = []
    for r in plan.resolutions:
        other = r.pair.anchor if r.archive is r.pair.deleted else r.pair.deleted
        why = (
            "kept your text: the agent would have deleted it"
            if r.keeps_written
            else "the agent would delete it at its next start"
        )
        detail = f"cosine {r.pair.score:.6f} to {other.hex_id}; {why}"
        steps.append(archive_step(r.archive, ArchivedFact.RESOLUTION, detail))
    return steps


def require_confirmed(action: str, plan: WritePlan, confirm: Collection[str] | None) -> None:
    missing = set(plan.archive_ids) - set(confirm or ())
    if missing:
        raise NeedsConfirmation(action, plan)


def perform(
    *,
    store: FactsStore,
    actor: Actor,
    action: str,
    target: str,
    plan: WritePlan,
    steps: list[Step],
    confirm: Collection[str] | None,
    dry_run: bool,
    fact_id: str = "",
) -> FactAction:
    """Preview (``dry_run``), refuse (unconfirmed archives) or run the action's steps
    inside one audit event."""
    if dry_run:
        return FactAction(action, plan, applied=False, fact_id=fact_id)
    require_confirmed(action, plan, confirm)
    event = audit_begin(actor, action, "fact", target, {"steps": steps}, None)
    started = timezone.now().isoformat()  # the undo's rule 5 looks at facts written since

    def write() -> dict[str, Any]:
        return {"steps": run_steps(store, steps, actor.label), "at": started}

    after = audited(event, write)
    for step in after["steps"]:
        if step["op"] == "archive":
            ArchivedFact.objects.filter(pk=step["archive_pk"]).update(batch_id=event.batch_id)
    written = next((s["id"] for s in after["steps"] if s["op"] in ("insert", "restore")), fact_id)
    return FactAction(action, plan, True, written, event.pk, after["steps"])


def store_and_facts() -> tuple[FactsStore, list[Fact]]:
    store = facts_store()
    return store, store.facts()
