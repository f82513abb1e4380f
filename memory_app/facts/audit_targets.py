"""Where the Audit log's facts targets are now (``qqweb.audit.registry.TargetPage``): a
fact's page while it is in the agent's collection; one in qqweb's archive of facts that
page, said "archived"; otherwise "no longer in the facts", with no link. A pair's target
(``anchor/deleted``) names the fact it kept first, which is the one linked. Registered in
``FactsAppConfig.ready()``; with the facts store off, the ids are shown as they are."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from memory_app.facts.lib.store import FactNotFound
from memory_app.facts.models import ArchivedFact
from memory_app.facts.stores import FactsOff, facts_store
from qqweb.audit.registry import TargetPage

GONE = "no longer in the facts"


def fact_target_pages(events: list[Any]) -> dict[int, TargetPage]:
    try:
        store = facts_store()
    except FactsOff:
        return {}
    known: dict[str, TargetPage] = {}
    for fact_id in {str(e.target_id).split("/", 1)[0] for e in events}:
        try:
            store.get(fact_id)
            known[fact_id] = TargetPage(reverse("facts_app:fact_detail", args=[fact_id]))
        except FactNotFound:
            archived = ArchivedFact.objects.filter(fact_id=fact_id).exists()
            known[fact_id] = (
                TargetPage(reverse("facts_app:archive"), "archived")
                if archived
                else TargetPage(said=GONE)
            )
    return {e.pk: known[str(e.target_id).split("/", 1)[0]] for e in events}
