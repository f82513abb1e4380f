"""Where the Audit log's graph targets are now (``qqweb.audit.registry.TargetPage``). An
entity event's target is ``Label:name``; a merge's ``Label:a -> Label:b`` (the entity that
kept everything, ``b``, is linked); a relationship's ``Label:a -TYPE-> Label:b`` (its
start); a pair verdict's ``Label:a ~ Label:b`` (the first). The entity's page while it
exists, under its new name when it was renamed since; otherwise "no longer in the graph",
with no link. Registered in ``GraphAppConfig.ready()``."""

from __future__ import annotations

import re
from typing import Any

from django.urls import reverse

from graph_app.knowledge import InvalidIdentifier
from graph_app.stores import graph_store
from qqweb.audit.registry import TargetPage

GONE = "no longer in the graph"
_RELATIONSHIP = re.compile(r"(?P<start>.+?) -[A-Z][A-Z0-9_]*-> .+")


def entity_key_of(target: str) -> tuple[str, str] | None:
    """The (label, name) an entity event's target names, or None when it names none."""
    if " -> " in target and not _RELATIONSHIP.fullmatch(target):
        target = target.split(" -> ", 1)[1]
    elif found := _RELATIONSHIP.fullmatch(target):
        target = found.group("start")
    elif " ~ " in target:
        target = target.split(" ~ ", 1)[0]
    label, colon, name = target.partition(":")
    return (label, name) if colon and label and name else None


def entity_target_pages(events: list[Any]) -> dict[int, TargetPage]:
    store = graph_store()
    known: dict[tuple[str, str], TargetPage | None] = {}
    pages: dict[int, TargetPage] = {}
    for event in events:
        key = entity_key_of(str(event.target_id))
        if key is None:
            continue
        if key not in known:
            known[key] = _page(store, *key)
        page = known[key]
        if page is not None:
            pages[event.pk] = page
    return pages


def _page(store: Any, label: str, name: str) -> TargetPage | None:
    try:
        if store.get_entities(label, name):
            return TargetPage(reverse("graph_app:entity", args=[label, name]))
        renamed = store.name_for_alias(label, name)
    except InvalidIdentifier:  # not a label the graph could hold: nothing to say
        return None
    if renamed is not None:
        return TargetPage(reverse("graph_app:entity", args=[label, renamed]), f"now “{renamed}”")
    return TargetPage(said=GONE)
