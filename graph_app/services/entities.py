"""Editing, renaming and deleting an entity (audited, undoable)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph_app.knowledge.agent_names import forgotten_names_warnings
from graph_app.knowledge.domain import EntityRef, RelationshipRef
from graph_app.knowledge.errors import InvalidGraphValue, NameTaken
from graph_app.knowledge.states import EntityState, entity_key
from graph_app.services._common import (
    MAX_TEXT,
    Updated,
    _audit,
    _clean_name,
    _embedding_for,
    _ref,
    _undoable,
)
from graph_app.stores import graph_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audited
from qqweb.lib.actors import Actor

# --- description and name -----------------------------------------------------------------


def entity_update(
    *,
    actor: Actor,
    label: str,
    name: str,
    description: str | None = None,
    new_name: str | None = None,
    dry_run: bool = False,
) -> Updated[EntityState]:
    """Edit the description and/or rename. A rename keeps the old name as an alias and is
    refused when the label already has an entity of the new name; its ``warnings`` say
    what the agent does with the old name. ``dry_run`` returns the state as it would be,
    with the warnings, and writes nothing."""
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
    renamed = props["name"] != state.name
    warnings = forgotten_names_warnings([state.name], str(props["name"])) if renamed else []
    if dry_run:
        if renamed and store.get_entities(label, str(props["name"])):
            raise NameTaken(label, str(props["name"]))  # as the write would
        return Updated(EntityState(state.id, state.labels, props, state.rels), None, warnings)
    props["embedding"] = _embedding_for(
        str(props["name"]), str(props.get("description") or ""), state.props.get("embedding")
    )
    action = "entity.rename" if renamed else "entity.edit"
    event = _audit(actor, action, entity_key(label, name), state.to_json())
    after = audited(event, lambda: store.write_entity_props(state, props).to_json())
    return Updated(EntityState.from_json(after), event.pk, warnings)


def _undo_entity_update(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    wanted, done = EntityState.from_json(before), EntityState.from_json(after)
    now = graph_store().entity_state(done.label, done.name)
    if now.props_fingerprint() != done.props_fingerprint():
        raise UndoRefused(f"the {done.label} {done.name!r} was changed since")
    return graph_store().write_entity_props(now, wanted.props).to_json()


# --- delete --------------------------------------------------------------------------------


@dataclass
class DeleteOutcome:
    label: str
    name: str
    relationships: list[RelationshipRef]
    provenance: int
    orphaned: list[EntityRef]
    applied: bool = False
    audit_id: int | None = None


def _orphaned_by(state: EntityState) -> list[EntityRef]:
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
            left.append(EntityRef(ref.label, str(ref.key)))
    return sorted(left, key=lambda r: (r.label, r.name))


def entity_delete(*, actor: Actor, label: str, name: str, dry_run: bool = False) -> DeleteOutcome:
    """Delete an entity and its relationships. The preview (``dry_run``) lists what goes
    and the entities left without any entity neighbour; the audit event keeps the whole
    node, so undo recreates it with every relationship."""
    store = graph_store()
    state = store.entity_state(label, name)
    outcome = DeleteOutcome(
        label=label,
        name=name,
        relationships=[_ref(r) for r in state.rels if not r.other.is_source],
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


UNDO_HANDLERS = {
    "entity.edit": _undoable(_undo_entity_update),
    "entity.rename": _undoable(_undo_entity_update),
    "entity.delete": _undoable(_undo_entity_delete),
}
