"""The facts API's writes that can lose a pinned recall: a deletion (``DELETE`` and its
``POST .../delete``) and a next-start resolution answer 409 ``would_lose_pins`` naming
the pin, deleting nothing, unless ``confirm_lost_pins=true``; then the audit says so. A
dry run reports the pins, as before."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from qqweb.audit.models import AuditEvent
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.recall.services import pin_create
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.test_api_writes import NEW_PORT, OLD_PORT

pytestmark = pytest.mark.django_db

ADA = Actor("user", "ada", role="curator")
PORT = "The TTS server listens on port 9000."
QUESTION = "Which port does the TTS server listen on?"


@pytest.fixture
def pinned_fact(facts_store: FactsStore, agent_model: Embedder) -> str:
    fact = str(agent_writes(facts_store, agent_model, PORT, days_ago=2))
    agent_writes(facts_store, agent_model, "The user likes green tea.", days_ago=3)
    pin_create(actor=ADA, query=QUESTION, item_id=fact, source="facts")
    return fact


def _refused_naming_the_pin(response: Any, fact: str) -> None:
    assert response.status_code == 409, response.content[:500]
    error = response.json()["error"]
    assert error["code"] == "would_lose_pins"
    [pin] = error["pins"]
    assert (pin["source"], pin["query"], pin["item_id"]) == ("facts", QUESTION, fact)
    assert pin["item_text"] == PORT and f"“{QUESTION}” → “{PORT}”" in error["message"]


@pytest.mark.parametrize("door", ["DELETE", "POST"])
def test_deleting_a_pinned_fact_is_a_409_until_confirmed_and_the_audit_says_so(
    facts_store: FactsStore, pinned_fact: str, curator_client: Client, door: str
) -> None:
    def delete(query: str = "") -> Any:
        if door == "DELETE":
            return curator_client.delete(f"/api/facts/{pinned_fact}{query}")
        return curator_client.post(
            f"/api/facts/{pinned_fact}/delete{query}", {}, content_type="application/json"
        )

    dry = delete("?dry_run=true") if door == "DELETE" else None
    if dry is not None:
        assert dry.status_code == 200 and len(dry.json()["pins"]["lost"]) == 1
    _refused_naming_the_pin(delete(), pinned_fact)
    assert facts_store.get(pinned_fact).hex_id == pinned_fact
    assert not ArchivedFact.objects.exists()

    done = delete("?confirm_lost_pins=true")
    assert done.status_code == 200 and done.json()["applied"]
    assert ArchivedFact.objects.filter(fact_id=pinned_fact).exists()
    event = AuditEvent.objects.get(action="fact.delete")
    assert event.detail.startswith("confirmed (confirm_lost_pins) although it loses 1 pinned")


def test_deleting_a_fact_no_pin_needs_is_done_at_once_as_before(
    facts_store: FactsStore, agent_model: Embedder, pinned_fact: str, curator_client: Client
) -> None:
    other = str(agent_writes(facts_store, agent_model, "The office is in Oslo.", days_ago=4))
    response = curator_client.delete(f"/api/facts/{other}")
    assert response.status_code == 200 and response.json()["applied"]
    assert AuditEvent.objects.get(action="fact.delete").detail == ""


def test_resolving_a_pair_by_deleting_both_is_a_409_when_one_is_pinned(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    old = str(agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20))
    new = str(agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1))
    pin_create(actor=ADA, query="Which port does TTS-Provider use?", item_id=old, source="facts")
    body = {"anchor_id": old, "deleted_id": new, "how": "delete-both"}
    refused = curator_client.post(
        "/api/facts/next-start/resolve", body, content_type="application/json"
    )
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "would_lose_pins"
    assert [p["item_id"] for p in refused.json()["error"]["pins"]] == [old]
    assert facts_store.get(old).hex_id == old and not ArchivedFact.objects.exists()
    done = curator_client.post(
        "/api/facts/next-start/resolve?confirm_lost_pins=true",
        body,
        content_type="application/json",
    )
    assert done.status_code == 200 and done.json()["applied"]
    assert ArchivedFact.objects.filter(fact_id=old).exists()
