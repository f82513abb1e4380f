"""Audited curation of the knowledge graph. The HTML views and the JSON API call these,
never the store's writes directly.

Each action reads the exact state it will change, writes a ``pending`` audit event with
that state as ``before``, makes the change in one Neo4j transaction that refuses if the
node moved on in between, and records the new state as ``after``. Undo (registered with
the audit app by ``GraphAppConfig.ready()``, so the Audit page and
``POST /api/audit/{id}/undo`` work for graph actions too) puts ``before`` back exactly,
and is refused when the graph has changed since ``after``.

Entities are named ``(label, name)``. A description or a name change re-embeds
``"name: description"`` with the configured embedder, as the agent does, and refuses
when that model's dimension differs from the entity's stored embedding.
"""

from graph_app.services import entities, merge, relationships, verdicts
from graph_app.services._common import MAX_TEXT, NAME_MAX, Updated
from graph_app.services.entities import DeleteOutcome, entity_delete, entity_update
from graph_app.services.merge import MergeOutcome, entity_merge
from graph_app.services.relationships import (
    RELATIONSHIP_TEXT_FIELDS,
    relationship_delete,
    relationship_update,
)
from graph_app.services.verdicts import MERGE, NOT_DUPLICATE, entity_pair_verdict

# Every undo handler of the graph by action, registered in GraphAppConfig.ready().
UNDO_HANDLERS = {
    action: handler
    for module in (entities, merge, relationships, verdicts)
    for action, handler in module.UNDO_HANDLERS.items()
}

__all__ = [
    "MAX_TEXT",
    "MERGE",
    "NAME_MAX",
    "NOT_DUPLICATE",
    "RELATIONSHIP_TEXT_FIELDS",
    "UNDO_HANDLERS",
    "DeleteOutcome",
    "MergeOutcome",
    "Updated",
    "entity_delete",
    "entity_merge",
    "entity_pair_verdict",
    "entity_update",
    "relationship_delete",
    "relationship_update",
]
