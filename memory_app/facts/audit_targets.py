"""Where the Audit log's facts targets are now (``qqweb.audit.registry.TargetPage``): a
fact's page while it is in the agent's collection; one in qqweb's archive of facts that
page, said "archived"; otherwise "no longer in the facts", with no link. A pair's target
(``anchor/deleted``) names the fact it kept first, which is the one linked. Registered in
``FactsAppConfig.ready()``; with the facts store off, the ids are shown as they are."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from memory_app.facts.lib.store import parse_fact_id
from memory_app.facts.models import ArchivedFact
from memory_app.facts.stores import FactsOff, facts_store
from qqweb.audit.registry import TargetPage

GONE = "no longer in the facts"


def fact_target_pages(events: list[Any]) -> dict[int, TargetPage]:
    """One query for the page's facts, one for those of them in qqweb's archive."""
    try:
        store = facts_store()
    except FactsOff:
        return {}
    fact_ids = {str(e.target_id).split("/", 1)[0] for e in events}
    present = store.ids_present(parse_fact_id(i) for i in fact_ids)
    missing = {i for i in fact_ids if parse_fact_id(i) not in present}
    archived = set(
        ArchivedFact.objects.filter(fact_id__in=missing).values_list("fact_id", flat=True)
    )
    known: dict[str, TargetPage] = {}
    for fact_id in fact_ids:
        if fact_id not in missing:
            known[fact_id] = TargetPage(reverse("facts_app:fact_detail", args=[fact_id]))
        elif fact_id in archived:
            known[fact_id] = TargetPage(reverse("facts_app:archive"), "archived")
        else:
            known[fact_id] = TargetPage(said=GONE)
    return {e.pk: known[str(e.target_id).split("/", 1)[0]] for e in events}
