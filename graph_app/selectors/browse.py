"""Browsing entities: keyset pages of the list, one entity with its relationships and
provenance, orphans, and what a name alone means."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from graph_app.knowledge import EntityNotFound, InvalidIdentifier
from graph_app.stores import graph_store

from .notes import notes_mentioning


@dataclass
class EntitiesPage:
    items: list[dict[str, Any]]
    next_cursor: str | None


def _encode(key: Any, element_id: str) -> str:
    raw = json.dumps([key, element_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> tuple[Any, str]:
    try:
        key, element_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(element_id, str) or not isinstance(key, int | float | str):
            raise ValueError("bad cursor")
    except (ValueError, TypeError) as e:
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
    limit = max(1, min(int(limit), 200))
    rows = graph_store().list_entities(
        label=label or None,
        q=(q or "").strip() or None,
        sort=sort,
        after=_decode(cursor) if cursor else None,
        limit=limit + 1,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    return EntitiesPage(rows, _encode(rows[-1]["key"], rows[-1]["id"]) if more else None)


@dataclass
class EntityDetail:
    label: str
    name: str
    labels: list[str]
    properties: list[tuple[str, str]]
    aliases: list[str]
    embedding_dimension: int | None
    outgoing: list[dict[str, Any]]
    incoming: list[dict[str, Any]]
    provenance: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    same_name_elsewhere: list[str] = field(default_factory=list)
    description: str = ""


def entity_detail(*, label: str, name: str) -> EntityDetail:
    """One entity by (label, name): its properties, relationships both ways with their
    properties, its provenance (:Source nodes), and the notes whose text names it."""
    store = graph_store()
    found = store.get_entities(label, name)
    if not found:
        raise EntityNotFound(label, name)
    entity = found[0]
    props = dict(entity["props"])
    embedding = props.pop("embedding", None)
    aliases = [str(a) for a in props.pop("aliases", None) or []]
    rels = store.relationships_of(entity["id"])
    for rel in rels:
        rel["props"] = {k: v for k, v in rel["props"].items() if k != "embedding"}
    others = [
        r["label"]
        for r in store.list_entities(q=name.lower(), limit=20)
        if r["name"] == name and r["label"] != label
    ]
    return EntityDetail(
        label=label,
        name=name,
        labels=entity["labels"],
        properties=sorted((k, str(v)) for k, v in props.items() if k != "name"),
        aliases=aliases,
        embedding_dimension=len(embedding) if embedding else None,
        outgoing=[r for r in rels if r["outgoing"]],
        incoming=[r for r in rels if not r["outgoing"]],
        provenance=store.provenance_of(entity["id"]),
        notes=notes_mentioning([name, *aliases]),
        same_name_elsewhere=others,
        description=str(props.get("description") or ""),
    )


# --- orphans, name lookups, duplicate candidates --------------------------------------------


def orphans(limit: int = 200) -> list[dict[str, Any]]:
    """Entities with no relationship to another entity (provenance does not count)."""
    return graph_store().orphans(limit=max(1, min(int(limit), 1000)))


def entity_lookup(name: str) -> dict[str, str]:
    """The entity a name alone means, as the agent looks it up; :class:`AmbiguousEntity`
    when the name is used under several labels."""
    from graph_app.knowledge.errors import AmbiguousEntity

    labels = graph_store().labels_named(name)
    if not labels:
        raise EntityNotFound("entity", name)
    if len(labels) > 1:
        raise AmbiguousEntity(name, labels)
    return {"label": labels[0], "name": name}
