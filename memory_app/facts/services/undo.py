"""The undo of a facts action, with rule 5 of contract 4.2 applied to it: an undo puts
archived facts back and texts as they were, and an old fact put back can make the agent's
next start delete a fact written *since* the action (the agent saved a corrected value once
the old one was gone, or replaced a fact by an update). Such an undo is refused, naming
those facts: the archive's restore shows them and archives them first.

Facts that existed when the action was done are not counted: the undo only brings back the
plan the review showed before the action (a pair it resolved, a chain it broke)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from memory_app.facts.lib import Fact, FactsStore
from memory_app.facts.lib.domain import MISSING, document_from_bson, new_fact_id, written_since
from memory_app.facts.lib.extjson import document_loads
from memory_app.facts.lib.rules import cleanup_plan
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services.steps import Step, undo_steps
from memory_app.facts.stores import facts_store
from qqweb.audit.errors import UndoRefused


def _state_after_undo(
    facts: list[Fact], done: list[Step]
) -> tuple[list[Fact], set[str], datetime | None]:
    """The facts once ``done`` is undone, the ids the undo writes, and when the action
    archived (the earliest of its archive rows), on a copy: nothing is written."""
    state = {f.hex_id: f for f in facts}
    back: set[str] = set()
    since: datetime | None = None
    for step in reversed(done):
        op, hex_id = step["op"], step.get("id", "")
        if op == "archive":
            row = ArchivedFact.objects.filter(pk=step["archive_pk"]).first()
            if row is None:
                continue
            since = row.archived_at if since is None else min(since, row.archived_at)
            doc = document_from_bson(document_loads(row.document))
            if isinstance(doc, Fact):
                key = doc.hex_id if doc.hex_id not in state else str(new_fact_id())
                state[key] = doc
                back.add(doc.hex_id)
        elif op == "set" and isinstance(state.get(hex_id), Fact):
            vector = step.get("from_vector")
            state[hex_id] = replace(state[hex_id], content=step["from"], content_embedding=vector)
            back.add(hex_id)
        elif op == "embed" and isinstance(state.get(hex_id), Fact):
            state[hex_id] = replace(state[hex_id], content_embedding=MISSING)
        elif op in ("insert", "restore"):
            state.pop(hex_id, None)
    return list(state.values()), back, since


def undo_victims(store: FactsStore, done: list[Step], at: str | None = None) -> list[str]:
    """The facts written since the action (``at``, when it started; else when it archived)
    that the agent's next start would delete once the action is undone."""
    after, back, since = _state_after_undo(store.facts(), done)
    if at:
        since = datetime.fromisoformat(at)
    if since is None:
        return []
    return [
        d.deleted.hex_id
        for d in cleanup_plan(after).deletions
        if d.deleted.hex_id not in back and written_since(d.deleted.hex_id, since)
    ]


def undo_action(before: Any, after: Any) -> Any:
    """The undo handler of every facts action (registered in ``apps.py``)."""
    store = facts_store()
    done = list(after["steps"])
    victims = undo_victims(store, done, after.get("at"))
    if victims:
        raise UndoRefused(
            f"undoing it would let the agent's next start delete {', '.join(victims)}, "
            "written since; restore from the facts archive instead, which archives "
            "them first"
        )
    return {"steps": undo_steps(store, done, "undo")}
