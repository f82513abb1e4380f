"""Merging two entities: the preview (``dry_run``) is the plan the write then follows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_app.knowledge.agent_names import forgotten_names_warnings
from graph_app.knowledge.domain import EntityRef, RelationshipRef
from graph_app.knowledge.errors import InvalidGraphValue
from graph_app.knowledge.merging import EntityMergePlan, plan_entity_merge
from graph_app.knowledge.states import EntityState, entity_key
from graph_app.knowledge.values import shown as as_shown
from graph_app.services._common import (
    MAX_TEXT,
    _audit,
    _embedding_for,
    _ref,
    _undoable,
    _writable_type,
)
from graph_app.stores import graph_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audited
from qqweb.lib.actors import Actor


@dataclass
class MergeOutcome:
    """The preview (``dry_run``) or the result of a merge: the same plan either way."""

    source: EntityRef
    target: EntityRef
    properties: dict[str, str]  # property -> the value shown (embedding and aliases apart)
    aliases: list[str]
    moved: list[RelationshipRef]
    combined: list[RelationshipRef]
    dropped: list[RelationshipRef]
    relationships_after: list[RelationshipRef]
    re_embed: bool
    applied: bool = False
    audit_id: int | None = None
    warnings: list[str] = field(default_factory=list)


def _outcome(plan: EntityMergePlan) -> MergeOutcome:
    shown = {k: as_shown(v) for k, v in plan.props.items() if k not in ("embedding", "aliases")}
    warnings = []
    if plan.source.label != plan.target.label:
        warnings.append(
            f"the labels differ: the merged entity becomes a {plan.target.label}, "
            f"its {plan.source.label} label is not kept"
        )
    if plan.dropped:
        warnings.append(
            f"{len(plan.dropped)} relationship(s) between the two would become self-loops "
            "and are dropped (kept in the audit log, undo brings them back)"
        )
    warnings.extend(forgotten_names_warnings([plan.source.name], plan.target.name))
    return MergeOutcome(
        source=EntityRef(plan.source.label, plan.source.name),
        target=EntityRef(plan.target.label, plan.target.name),
        properties=dict(sorted(shown.items())),
        aliases=list(plan.props.get("aliases") or []),
        moved=[_ref(r) for r in plan.moved],
        combined=[_ref(r) for r, _ in plan.combined],
        dropped=[_ref(r) for r in plan.dropped],
        relationships_after=[
            RelationshipRef(
                type=t, direction="out" if out else "in", other_label=lab, other_name=key
            )
            for t, out, lab, key in plan.relationships_after()
        ],
        re_embed=plan.description_changed,
        warnings=warnings,
    )


def entity_merge(
    *,
    actor: Actor,
    source: tuple[str, str],
    target: tuple[str, str],
    description: str | None = None,
    dry_run: bool = False,
) -> MergeOutcome:
    """Merge ``source`` into ``target`` (which keeps its label and name): relationships of
    every type move, provenance included; aliases, mentions and seen-dates combine.
    ``dry_run`` returns the plan without writing; the write follows the same plan."""
    if tuple(source) == tuple(target):
        raise InvalidGraphValue("target", "an entity cannot be merged into itself")
    if description is not None and len(description) > MAX_TEXT:
        raise InvalidGraphValue("description", f"must be at most {MAX_TEXT} characters")
    store = graph_store()
    source_state = store.entity_state(*source)
    target_state = store.entity_state(*target)
    for rel in source_state.rels:
        _writable_type(rel.type, "relationships")
    plan = plan_entity_merge(source_state, target_state, description)
    outcome = _outcome(plan)
    if dry_run:
        return outcome
    if plan.description_changed:
        plan.props["embedding"] = _embedding_for(
            target_state.name,
            str(plan.props.get("description") or ""),
            target_state.props.get("embedding"),
        )
    before = {"source": source_state.to_json(), "target": target_state.to_json()}
    event = _audit(
        actor,
        "entity.merge",
        f"{entity_key(*source)} -> {entity_key(*target)}",
        before,
    )
    audited(event, lambda: {"target": store.apply_merge(plan).to_json()})
    outcome.applied, outcome.audit_id = True, event.pk
    return outcome


def _entity_merge_settled(before: dict[str, Any]) -> dict[str, Any] | None:
    """For the reaper: the merge (one transaction) happened when the merged node is gone
    and the survivor is there; the survivor's state now is the ``after``."""
    source = EntityState.from_json(before["source"])
    target = EntityState.from_json(before["target"])
    store = graph_store()
    if any(e.id == source.id for e in store.get_entities(source.label, source.name)):
        return None
    survivors = store.get_entities(target.label, target.name)
    if [e.id for e in survivors] != [target.id]:
        return None
    return {"target": store.entity_state(target.label, target.name).to_json()}


SETTLE_CHECKS = {"entity.merge": _entity_merge_settled}  # registered in GraphAppConfig.ready()


def _undo_entity_merge(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    source = EntityState.from_json(before["source"])
    wanted = EntityState.from_json(before["target"])
    done = EntityState.from_json(after["target"])
    now = graph_store().entity_state(done.label, done.name)
    if now.fingerprint() != done.fingerprint():
        raise UndoRefused(
            f"the {done.label} {done.name!r} was changed since the merge "
            "(its properties or relationships)"
        )
    graph_store().restore_entities(recreate=[source], replace=[(now, wanted)])
    return {"restored": [entity_key(source.label, source.name), entity_key(done.label, done.name)]}


UNDO_HANDLERS = {
    "entity.merge": _undoable(_undo_entity_merge),
}
