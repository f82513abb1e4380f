"""What the graph services share: limits, value checks, re-embedding, the audit
event of an action and the undo wrapper."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from graph_app.knowledge import InvalidIdentifier, checked_rel_type
from graph_app.knowledge.domain import RelationshipRef
from graph_app.knowledge.errors import GraphRefusal, InvalidGraphValue
from graph_app.knowledge.states import EntityState, RelationshipState, RelState
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_begin
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import embed_keeping_dimension

MAX_TEXT = 4000
NAME_MAX = 300


def _embedding_for(name: str, description: str, old: Any) -> list[float]:
    from qqweb.lib.clients import embedder

    stored = len(old) if isinstance(old, list) and old else None
    return embed_keeping_dimension(
        embedder(), f"{name}: {description}", stored, what=f"the entity {name!r}"
    )


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


S = TypeVar("S", EntityState, RelationshipState)


@dataclass
class Updated(Generic[S]):
    """A state after an action (or, for a preview, as it would be), the audit event to
    undo it by (None: nothing done), and what the curator must know about it."""

    state: S
    audit_id: int | None
    warnings: list[str] = field(default_factory=list)


def _ref(rel: RelState) -> RelationshipRef:
    """A relationship of an exact state as a preview lists it."""
    return RelationshipRef(
        type=rel.type,
        direction="out" if rel.outgoing else "in",
        other_label=rel.other.label,
        other_name=rel.other.key,
        provenance=rel.other.is_source,
    )
