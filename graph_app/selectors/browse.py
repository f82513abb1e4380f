"""Browsing entities: keyset pages of the list, one entity with its relationships and
provenance, orphans, and what a name alone means."""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_app.knowledge import EntityNotFound, InvalidIdentifier
from graph_app.knowledge.domain import (
    Entity,
    EntityRef,
    OrphanEntity,
    ProvenanceLink,
    Relationship,
    RelationshipPage,
)
from graph_app.knowledge.values import plain
from graph_app.knowledge.values import shown as as_shown
from graph_app.selectors.notes import notes_mentioning
from graph_app.stores import graph_store
from qqweb.lib.links import NoteMention


@dataclass
class EntitiesPage:
    items: list[Entity]
    next_cursor: str | None


def _encode(key: Any, element_id: str) -> str:
    raw = json.dumps([key, element_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> tuple[Any, str]:
    try:
        key, element_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(element_id, str) or not isinstance(key, int | float | str):
            raise ValueError("bad cursor")
        if isinstance(key, bool) or len(element_id) > 200:
            raise ValueError("bad cursor")
        if isinstance(key, float) and not math.isfinite(key):
            raise ValueError("not a finite number")
        if isinstance(key, int) and not -(2**63) <= key < 2**63:
            raise ValueError("more than 64 bits")  # Neo4j's integers are 64-bit
        if isinstance(key, str) and len(key) > 64:
            raise ValueError("bad cursor")
    except (ValueError, TypeError, RecursionError) as e:
        raise InvalidIdentifier("cursor", cursor[:40]) from e
    return key, element_id


def entities_page(
    *,
    label: str | None = None,
    q: str | None = None,
    sort: str = "mentions",
    cursor: str | None = None,
    limit: int = 50,
) -> EntitiesPage:
    """Entities filtered by label and name/alias text, sorted by mentions, first seen or
    last seen (newest first), in keyset pages."""
    page = graph_store().list_entities(
        label=label or None,
        q=(q or "").strip() or None,
        sort=sort,
        after=_decode(cursor) if cursor else None,
        limit=max(1, min(int(limit), 200)),
    )
    return EntitiesPage(page.items, _encode(*page.next_after) if page.next_after else None)


def relationships_page(
    *, rel_type: str | None = None, cursor: str | None = None, limit: int = 100
) -> RelationshipPage:
    """The relationships between entities (the graph's counts by type link here), of one
    type or every type, by element id in keyset pages; ``cursor`` is the last id of the
    page before (a bad type is InvalidIdentifier)."""
    if cursor is not None and len(cursor) > 200:
        raise InvalidIdentifier("cursor", cursor[:40])
    return graph_store().list_relationships(
        rel_type=rel_type or None, after=cursor or None, limit=max(1, min(int(limit), 500))
    )


@dataclass
class EntityDetail:
    label: str
    name: str
    labels: list[str]
    properties: list[tuple[str, str]]  # (key, text): the API's
    aliases: list[str]
    embedding_dimension: int | None
    outgoing: list[Relationship]
    incoming: list[Relationship]
    provenance: list[ProvenanceLink]
    notes: list[NoteMention]
    same_name_elsewhere: list[str] = field(default_factory=list)
    description: str = ""
    notes_unavailable: str = ""  # why ``notes`` is empty when MongoDB is down
    # the page's rows: a date stays a datetime, for the ``when`` filter; the API keeps
    # ``properties``, all text
    property_rows: list[tuple[str, Any]] = field(default_factory=list)


def entity_detail(*, label: str, name: str) -> EntityDetail:
    """One entity by (label, name): its properties, relationships both ways with their
    properties, its provenance (:Source nodes), and the notes whose text names it."""
    store = graph_store()
    found = store.get_entities(label, name)
    if not found:
        raise EntityNotFound(label, name)
    entity = found[0]
    aliases = list(entity.aliases)
    shown = {
        k: v
        for k, v in entity.properties().items()
        if k != "name" and not (k == "aliases" and aliases)
    }
    rels = store.relationships_of(entity.id)
    # the graph still shows with MongoDB down; only its notes are missing
    mentions = notes_mentioning([name, *aliases])
    others = [
        r.label
        for r in store.list_entities(q=name.lower(), limit=20).items
        if r.name == name and r.label != label
    ]
    return EntityDetail(
        label=label,
        name=name,
        labels=list(entity.labels),
        properties=sorted((k, as_shown(v)) for k, v in shown.items()),
        property_rows=sorted((k, _shown(v)) for k, v in shown.items()),
        aliases=aliases,
        embedding_dimension=entity.embedding_dimension,
        outgoing=[r for r in rels if r.outgoing],
        incoming=[r for r in rels if not r.outgoing],
        provenance=store.provenance_of(entity.id),
        notes=mentions.notes,
        notes_unavailable=mentions.unavailable,
        same_name_elsewhere=others,
        description=entity.description or "",
    )


def _shown(value: Any) -> Any:
    """A property as the entity page shows it: a date and time stays a ``datetime`` (the
    template's ``when`` shows it in the dashboard's one format, exact in its title), any
    other value as text (``values.shown``)."""
    value = plain(value)
    return value if isinstance(value, datetime) else as_shown(value)


# --- orphans, name lookups ------------------------------------------------------------------


def entity_renamed_to(*, label: str, name: str) -> str | None:
    """The current name of a ``label`` entity that was called ``name`` before (its alias
    now), for the old URL to redirect; None when there is none."""
    return graph_store().name_for_alias(label, name)


RENAMES_LOOKED_BACK = 200  # the recent undone renames an unknown name is looked up in


def entity_renamed_back(*, label: str, name: str) -> str | None:
    """The name a ``label`` entity has again after a rename that had called it ``name``
    was undone (the page the Undo was pressed on, or an old link), for that URL to
    redirect; None when none of the recent undone renames gave that name, or the entity is
    gone since. Undoing a rename leaves no alias (the agent's data is put back exactly), so
    the audit log is where the name is remembered."""
    from graph_app.knowledge.states import EntityState
    from qqweb.audit.models import AuditEvent

    renames = (
        AuditEvent.objects.filter(
            action="entity.rename", undone_at__isnull=False, target_id__startswith=f"{label}:"
        )
        .only("target_id", "after")
        .order_by("-id")[:RENAMES_LOOKED_BACK]
    )
    for event in renames:
        if isinstance(event.after, dict) and EntityState.from_json(event.after).name == name:
            before = event.target_id.split(":", 1)[1]
            return before if graph_store().get_entities(label, before) else None
    return None


def orphans(limit: int = 200) -> list[OrphanEntity]:
    """Entities with no relationship to another entity (provenance does not count)."""
    return graph_store().orphan_entities(limit=max(1, min(int(limit), 1000)))


def entity_lookup(name: str) -> EntityRef:
    """The entity a name alone means, as the agent looks it up; :class:`AmbiguousEntity`
    when the name is used under several labels."""
    from graph_app.knowledge.errors import AmbiguousEntity

    labels = graph_store().labels_named(name)
    if not labels:
        raise EntityNotFound("entity", name)
    if len(labels) > 1:
        raise AmbiguousEntity(name, labels)
    return EntityRef(labels[0], name)
