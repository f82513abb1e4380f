"""Audited curation of the knowledge graph. The HTML views and the JSON API call these,
never the store's writes directly.

Each action reads the exact state it will change, writes a ``pending`` audit event with
that state as ``before``, makes the change in one Neo4j transaction that refuses if the
node moved on in between, and records the new state as ``after``. Undo (registered in
the shared ``UNDO`` registry, so the Audit page and ``POST /api/audit/{id}/undo`` work
for graph actions too) puts ``before`` back exactly, and is refused when the graph has
changed since ``after``.

Entities are named ``(label, name)``. A description or a name change re-embeds
``"name: description"`` with the configured embedder, as the agent does, and refuses
when that model's dimension differs from the entity's stored embedding.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from graph_app.knowledge import InvalidIdentifier, checked_rel_type
from graph_app.knowledge.errors import GraphRefusal, InvalidGraphValue
from graph_app.knowledge.merging import EntityMergePlan, plan_entity_merge
from graph_app.knowledge.states import (
    EntityState,
    RelationshipState,
    RelState,
    entity_key,
    pair_key,
)
from graph_app.models import EntityPairVerdict
from graph_app.stores import graph_store
from memory_app.memory import DimensionMismatch
from memory_app.memory.errors import UndoRefused
from memory_app.services._audit import UNDO, audit_begin, audited
from qqweb.actors import Actor

MAX_TEXT = 4000
NAME_MAX = 300
RELATIONSHIP_TEXT_FIELDS = ("description", "evidence", "notes")
NOT_DUPLICATE = "not_duplicate"
MERGE = "merge"


def _embedding_for(name: str, description: str, old: Any) -> list[float]:
    from qqweb.clients import embedder

    vector = [float(x) for x in embedder().embed([f"{name}: {description}"])[0]]
    if isinstance(old, list) and old and len(old) != len(vector):
        raise DimensionMismatch(len(old), len(vector), "the configured model's vector")
    return vector


def _clean_name(value: str, field_name: str = "name") -> str:
    cleaned = " ".join(str(value).split())
    if not cleaned:
        raise InvalidGraphValue(field_name, "must not be empty")
    if len(cleaned) > NAME_MAX:
        raise InvalidGraphValue(field_name, f"must be at most {NAME_MAX} characters")
    return cleaned


def _writable_type(rel_type: str, field_name: str) -> None:
    """A relationship type we would have to write must pass the identifier check."""
    try:
        checked_rel_type(rel_type)
    except InvalidIdentifier as e:
        raise InvalidGraphValue(field_name, str(e)) from e


def _audit(
    actor: Actor, action: str, target: str, before: Any, batch_id: uuid.UUID | None = None
) -> Any:
    return audit_begin(actor, action, "entity", target[:300], before, batch_id)


def _undoable(handler: Any) -> Any:
    """Graph refusals (changed since, endpoint gone, name taken) become UndoRefused; an
    outage (GraphUnavailable) and a bug (GraphStoreError) pass through as they are."""

    def run(before: Any, after: Any) -> Any:
        try:
            return handler(before, after)
        except GraphRefusal as e:
            raise UndoRefused(str(e)) from e

    return run


@dataclass
class Updated:
    """A state after an action, and the audit event to undo it by (None: nothing to do)."""

    state: Any
    audit_id: int | None


# --- description and name -----------------------------------------------------------------


def entity_update(
    *,
    actor: Actor,
    label: str,
    name: str,
    description: str | None = None,
    new_name: str | None = None,
) -> Updated:
    """Edit the description and/or rename. A rename keeps the old name as an alias and is
    refused when the label already has an entity of the new name."""
    store = graph_store()
    state = store.entity_state(label, name)
    props = dict(state.props)
    if new_name is not None:
        new_name = _clean_name(new_name, "new_name")
        if new_name != state.name:
            aliases = [a for a in props.get("aliases") or [] if a != new_name]
            if state.name not in aliases:
                aliases.append(state.name)
            props["name"], props["aliases"] = new_name, aliases
    if description is not None:
        if len(description) > MAX_TEXT:
            raise InvalidGraphValue("description", f"must be at most {MAX_TEXT} characters")
        props["description"] = description.strip()
    if props == state.props:
        return Updated(state, None)
    props["embedding"] = _embedding_for(
        str(props["name"]), str(props.get("description") or ""), state.props.get("embedding")
    )
    action = "entity.rename" if props["name"] != state.name else "entity.edit"
    event = _audit(actor, action, entity_key(label, name), state.to_json())
    after = audited(event, lambda: store.write_entity_props(state, props).to_json())
    return Updated(EntityState.from_json(after), event.pk)


def _undo_entity_update(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    wanted, done = EntityState.from_json(before), EntityState.from_json(after)
    now = graph_store().entity_state(done.label, done.name)
    if now.props_fingerprint() != done.props_fingerprint():
        raise UndoRefused(f"the {done.label} {done.name!r} was changed since")
    return graph_store().write_entity_props(now, wanted.props).to_json()


UNDO["entity.edit"] = UNDO["entity.rename"] = _undoable(_undo_entity_update)


# --- merge ---------------------------------------------------------------------------------


def _ref_json(rel: RelState) -> dict[str, Any]:
    return {
        "type": rel.type,
        "direction": "out" if rel.outgoing else "in",
        "other_label": rel.other.label,
        "other_name": rel.other.key,
        "provenance": rel.other.is_source,
    }


@dataclass
class MergeOutcome:
    """The preview (``dry_run``) or the result of a merge: the same plan either way."""

    source: dict[str, str]
    target: dict[str, str]
    properties: dict[str, str]
    aliases: list[str]
    moved: list[dict[str, Any]]
    combined: list[dict[str, Any]]
    dropped: list[dict[str, Any]]
    relationships_after: list[dict[str, Any]]
    re_embed: bool
    applied: bool = False
    audit_id: int | None = None
    warnings: list[str] = field(default_factory=list)


def _outcome(plan: EntityMergePlan) -> MergeOutcome:
    shown = {k: str(v) for k, v in plan.props.items() if k not in ("embedding", "aliases")}
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
    return MergeOutcome(
        source={"label": plan.source.label, "name": plan.source.name},
        target={"label": plan.target.label, "name": plan.target.name},
        properties=dict(sorted(shown.items())),
        aliases=list(plan.props.get("aliases") or []),
        moved=[_ref_json(r) for r in plan.moved],
        combined=[_ref_json(r) for r, _ in plan.combined],
        dropped=[_ref_json(r) for r in plan.dropped],
        relationships_after=[
            {"type": t, "direction": "out" if out else "in", "other_label": lab, "other_name": key}
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


UNDO["entity.merge"] = _undoable(_undo_entity_merge)


# --- delete --------------------------------------------------------------------------------


@dataclass
class DeleteOutcome:
    label: str
    name: str
    relationships: list[dict[str, Any]]
    provenance: int
    orphaned: list[dict[str, str]]
    applied: bool = False
    audit_id: int | None = None


def _orphaned_by(state: EntityState) -> list[dict[str, str]]:
    """Entities whose only entity neighbour is ``state``: deleting it leaves them orphans."""
    others = {
        r.other.id: r.other for r in state.rels if not r.other.is_source and r.other.id != state.id
    }
    if not others:
        return []
    degrees = graph_store().degrees(list(others))
    left = []
    for other_id, ref in others.items():
        if degrees.get(other_id, 0) <= 1:  # ``state`` is its only entity neighbour
            left.append({"label": ref.label, "name": str(ref.key)})
    return sorted(left, key=lambda r: (r["label"], r["name"]))


def entity_delete(*, actor: Actor, label: str, name: str, dry_run: bool = False) -> DeleteOutcome:
    """Delete an entity and its relationships. The preview (``dry_run``) lists what goes
    and the entities left without any entity neighbour; the audit event keeps the whole
    node, so undo recreates it with every relationship."""
    store = graph_store()
    state = store.entity_state(label, name)
    outcome = DeleteOutcome(
        label=label,
        name=name,
        relationships=[_ref_json(r) for r in state.rels if not r.other.is_source],
        provenance=sum(1 for r in state.rels if r.other.is_source),
        orphaned=_orphaned_by(state),
    )
    if dry_run:
        return outcome
    event = _audit(actor, "entity.delete", entity_key(label, name), state.to_json())
    audited(event, lambda: store.delete_entity(state))
    outcome.applied, outcome.audit_id = True, event.pk
    return outcome


def _undo_entity_delete(before: dict[str, Any], after: Any) -> dict[str, Any]:
    state = EntityState.from_json(before)
    if graph_store().get_entities(state.label, state.name):
        raise UndoRefused(f"a {state.label} named {state.name!r} exists again; merge instead")
    graph_store().restore_entities(recreate=[state])
    return {"restored": entity_key(state.label, state.name)}


UNDO["entity.delete"] = _undoable(_undo_entity_delete)


# --- relationships -------------------------------------------------------------------------


def _relationship_target(state: RelationshipState) -> str:
    return (
        f"{entity_key(state.start.label, str(state.start.key))} -{state.type}-> "
        f"{entity_key(state.end.label, str(state.end.key))}"
    )


def relationship_update(
    *,
    actor: Actor,
    start: tuple[str, str],
    rel_type: str,
    end: tuple[str, str],
    new_type: str | None = None,
    changes: dict[str, Any] | None = None,
) -> Updated:
    """Change a relationship's description / evidence / notes / confidence (an empty text
    removes the property), or its type (uppercase with underscores, as the agent writes)."""
    store = graph_store()
    state = store.relationship_between(start, rel_type, end)
    props = dict(state.props)
    for key, value in (changes or {}).items():
        if key == "confidence":
            if value is None:
                props.pop(key, None)
                continue
            if not isinstance(value, int | float) or not 0 <= value <= 1:
                raise InvalidGraphValue("confidence", "must be a number from 0 to 1")
            props[key] = float(value)
        elif key in RELATIONSHIP_TEXT_FIELDS:
            text = str(value or "").strip()
            if len(text) > MAX_TEXT:
                raise InvalidGraphValue(key, f"must be at most {MAX_TEXT} characters")
            if text:
                props[key] = text
            else:
                props.pop(key, None)
        else:
            raise InvalidGraphValue(key, "cannot be edited here")
    final_type = new_type.strip() if new_type else state.type
    if final_type != state.type and (not final_type.isupper() or final_type.startswith("_")):
        raise InvalidGraphValue(
            "new_type", "must be UPPERCASE_WITH_UNDERSCORES, as the agent writes"
        )
    if final_type != state.type:
        _writable_type(final_type, "new_type")
    if final_type == state.type and props == state.props:
        return Updated(state, None)
    event = _audit(actor, "relationship.edit", _relationship_target(state), state.to_json())
    after = audited(event, lambda: store.rewrite_relationship(state, final_type, props).to_json())
    return Updated(RelationshipState.from_json(after), event.pk)


def _undo_relationship_edit(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    wanted, done = RelationshipState.from_json(before), RelationshipState.from_json(after)
    now = graph_store().relationship_between(
        (done.start.label, str(done.start.key)), done.type, (done.end.label, str(done.end.key))
    )
    if now.props != done.props:
        raise UndoRefused(f"the relationship {done.describe()} was changed since")
    return graph_store().rewrite_relationship(now, wanted.type, wanted.props).to_json()


UNDO["relationship.edit"] = _undoable(_undo_relationship_edit)


def relationship_delete(
    *, actor: Actor, start: tuple[str, str], rel_type: str, end: tuple[str, str]
) -> Updated:
    store = graph_store()
    state = store.relationship_between(start, rel_type, end)
    event = _audit(actor, "relationship.delete", _relationship_target(state), state.to_json())
    audited(event, lambda: store.delete_relationship(state))
    return Updated(state, event.pk)


def _undo_relationship_delete(before: dict[str, Any], after: Any) -> dict[str, Any]:
    return graph_store().recreate_relationship(RelationshipState.from_json(before)).to_json()


UNDO["relationship.delete"] = _undoable(_undo_relationship_delete)


# --- duplicate-entity verdicts ------------------------------------------------------------


def entity_pair_verdict(
    *,
    actor: Actor,
    a: tuple[str, str],
    b: tuple[str, str],
    verdict: str,
    keep: str = "a",
) -> MergeOutcome | EntityPairVerdict:
    """``merge`` (``b`` into ``a``, or ``a`` into ``b`` when ``keep`` is ``"b"``) or
    ``not_duplicate``, which is remembered so the pair is not proposed again."""
    if verdict == MERGE:
        if keep not in ("a", "b"):
            raise InvalidGraphValue("keep", "must be 'a' or 'b'")
        source, target = (b, a) if keep == "a" else (a, b)
        return entity_merge(actor=actor, source=source, target=target)
    if verdict != NOT_DUPLICATE:
        raise InvalidGraphValue("verdict", f"must be {MERGE} or {NOT_DUPLICATE}")
    if tuple(a) == tuple(b):
        raise InvalidGraphValue("b", "the two entities are the same")
    ka, kb = pair_key(a, b)
    event = audit_begin(actor, "entity_pair.verdict", "entity", f"{ka} ~ {kb}"[:300], None, None)

    def write() -> dict[str, Any]:
        verdict_row, _ = EntityPairVerdict.objects.get_or_create(
            entity_a=ka, entity_b=kb, defaults={"decided_by": actor.label}
        )
        return {"verdict_id": verdict_row.pk, "entity_a": ka, "entity_b": kb}

    audited(event, write)
    return EntityPairVerdict.objects.get(entity_a=ka, entity_b=kb)


def _undo_pair_verdict(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    EntityPairVerdict.objects.filter(
        entity_a=after["entity_a"], entity_b=after["entity_b"]
    ).delete()
    return after


UNDO["entity_pair.verdict"] = _undo_pair_verdict
