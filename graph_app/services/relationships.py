"""Editing, retyping and deleting a relationship (audited, undoable)."""

from __future__ import annotations

from typing import Any

from graph_app.knowledge.errors import InvalidGraphValue
from graph_app.knowledge.states import RelationshipState, entity_key
from graph_app.services._common import MAX_TEXT, Updated, _audit, _undoable, _writable_type
from graph_app.stores import graph_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audited
from qqweb.lib.actors import Actor

RELATIONSHIP_TEXT_FIELDS = ("description", "evidence", "notes")


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
) -> Updated[RelationshipState]:
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


def relationship_delete(
    *, actor: Actor, start: tuple[str, str], rel_type: str, end: tuple[str, str]
) -> Updated[RelationshipState]:
    store = graph_store()
    state = store.relationship_between(start, rel_type, end)
    event = _audit(actor, "relationship.delete", _relationship_target(state), state.to_json())
    audited(event, lambda: store.delete_relationship(state))
    return Updated(state, event.pk)


def _undo_relationship_delete(before: dict[str, Any], after: Any) -> dict[str, Any]:
    return graph_store().recreate_relationship(RelationshipState.from_json(before)).to_json()


UNDO_HANDLERS = {
    "relationship.edit": _undoable(_undo_relationship_edit),
    "relationship.delete": _undoable(_undo_relationship_delete),
}
