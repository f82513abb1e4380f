"""POST/PATCH/DELETE under /api/facts: curators write, viewers read; the preview, the
409 that asks for confirmation, and the 4xx of bad writes."""

from __future__ import annotations

from typing import Any

from bson import ObjectId
from django.test import Client

from memory_app.facts.lib import FactsStore
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."


def test_a_curator_creates_a_fact(
    facts_store: FactsStore, agent: SimulatedAgent, curator_client: Client
) -> None:
    response = curator_client.post(
        "/api/facts", {"content": "The master likes jazz."}, content_type="application/json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["applied"] is True and body["preview"]["add"]["refused"] is False
    assert facts_store.get(body["fact_id"]).text == "The master likes jazz."
    assert agent.start() == set()


def test_a_viewer_cannot_write(facts_store: FactsStore, viewer_client: Client) -> None:
    response = viewer_client.post("/api/facts", {"content": "x"}, content_type="application/json")
    assert response.status_code == 403
    assert facts_store.count() == 0


def test_a_write_that_archives_more_asks_for_confirmation_with_the_preview(
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
    curator_client: Client,
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    response = curator_client.post(
        "/api/facts", {"content": NEW_PORT}, content_type="application/json"
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "confirm" and error["archive"] == [str(old)]
    assert error["preview"]["add"]["refused"] is True
    assert facts_store.count() == 1
    dry = curator_client.post(
        "/api/facts", {"content": NEW_PORT, "dry_run": True}, content_type="application/json"
    )
    assert dry.status_code == 200 and dry.json()["applied"] is False
    confirmed = curator_client.post(
        "/api/facts",
        {"content": NEW_PORT, "archive": [str(old)]},
        content_type="application/json",
    )
    assert confirmed.status_code == 201 and confirmed.json()["archived"] == [str(old)]
    assert agent.start() == set()
    archive = curator_client.get("/api/facts/archive").json()
    assert [a["fact_id"] for a in archive] == [str(old)]


def test_the_hashing_embedder_is_a_422(facts_store: FactsStore, curator_client: Client) -> None:
    response = curator_client.post(
        "/api/facts", {"content": "The master likes jazz."}, content_type="application/json"
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "wrong_embedder"
    assert "all-MiniLM-L6-v2" in response.json()["error"]["message"]


def test_an_edit_on_a_stale_copy_is_a_409(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    fact = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=2)
    response = curator_client.patch(
        f"/api/facts/{fact}",
        {"expected_content": "not what it says", "content": NEW_PORT},
        content_type="application/json",
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "stale"
    ok = curator_client.patch(
        f"/api/facts/{fact}",
        {"expected_content": OLD_PORT, "content": NEW_PORT},
        content_type="application/json",
    )
    assert ok.status_code == 200 and facts_store.get(str(fact)).text == NEW_PORT


def test_an_edit_of_a_fact_the_agent_replaced_is_a_409_naming_the_new_fact(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_client: Client
) -> None:
    """The agent's update deletes the fact and inserts the new text under a new id: the
    edit is refused with nothing written, as docs/facts.md says: 409 ``stale``, with the
    fact in its place in ``replaced_by``."""
    fact = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=2)
    new = agent.update(fact, "The TTS-Provider service moved to port 9200.")
    response = curator_client.patch(
        f"/api/facts/{fact}",
        {"expected_content": OLD_PORT, "content": NEW_PORT},
        content_type="application/json",
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "stale" and error["replaced_by"] == str(new)
    assert error["fact_id"] == str(fact) and "replaced it with an update" in error["message"]
    assert [f.text for f in facts_store.facts()] == ["The TTS-Provider service moved to port 9200."]


def test_a_delete_confirming_more_ids_than_a_url_carries_goes_in_a_body(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    """260 ids (8.6 kB of query string) answered 414 before the app: the query takes at
    most 200 and says where the rest go; POST /api/facts/{id}/delete takes up to 1,000 in
    its JSON body, the same delete."""
    fact = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=2)
    ids = [str(ObjectId()) for _ in range(260)]
    query = "&".join(f"archive={i}" for i in ids)
    refused = curator_client.delete(f"/api/facts/{fact}?dry_run=true&{query}")
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["fields"] == ["archive"]
    assert "at most 200 ids fit in a URL, not 260" in error["message"]
    assert "POST /api/facts/{fact_id}/delete" in error["message"]
    preview = curator_client.post(
        f"/api/facts/{fact}/delete", {"archive": ids, "dry_run": True}, "application/json"
    )
    assert preview.status_code == 200 and preview.json()["applied"] is False
    assert facts_store.count() == 1
    done = curator_client.post(f"/api/facts/{fact}/delete", {"archive": ids}, "application/json")
    assert done.status_code == 200 and done.json()["applied"] is True
    assert facts_store.count() == 0
    few = "&".join(f"archive={i}" for i in ids[:200])  # what a URL carries still works
    gone = curator_client.delete(f"/api/facts/{fact}?dry_run=true&{few}")
    assert gone.status_code == 404


def test_delete_then_restore(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    fact = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=2)
    assert curator_client.delete(f"/api/facts/{fact}").status_code == 200
    assert facts_store.count() == 0
    [row] = curator_client.get("/api/facts/archive").json()
    restored = curator_client.post(
        f"/api/facts/archive/{row['id']}/restore", {}, content_type="application/json"
    )
    assert restored.status_code == 200 and restored.json()["fact_id"] == str(fact)
    assert facts_store.get(str(fact)).text == OLD_PORT


def test_keep_newer_text_through_the_api(
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
    curator_client: Client,
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    response = curator_client.post(
        "/api/facts/next-start/resolve",
        {"anchor_id": str(old), "deleted_id": str(new), "how": "keep-newer-text"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert agent.start() == set()
    assert agent.retrieve("TTS port")[0] == {"_id": str(old), "content": NEW_PORT}
    bad = curator_client.post(
        "/api/facts/next-start/resolve",
        {"anchor_id": str(old), "deleted_id": str(new), "how": "merge"},
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "how"


def test_a_missing_fact_is_404_for_writes(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    response = curator_client.delete(f"/api/facts/{ObjectId()}")
    assert response.status_code == 404


def test_contradiction_verdicts_are_remembered(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    a = agent_writes(facts_store, agent_model, "The master is a backend developer.", days_ago=9)
    b = agent_writes(
        facts_store, agent_model, "The master is a backend developer at a startup.", days_ago=3
    )
    [pair] = curator_client.get("/api/facts/contradictions").json()
    assert {pair["pair"]["anchor_id"], pair["pair"]["deleted_id"]} == {str(a), str(b)}
    response = curator_client.post(
        "/api/facts/contradictions/verdict",
        {"a_id": str(a), "b_id": str(b), "verdict": "both-true"},
        content_type="application/json",
    )
    assert response.status_code == 204
    assert curator_client.get("/api/facts/contradictions").json() == []
    shown: list[dict[str, Any]] = curator_client.get(
        "/api/facts/contradictions", {"dismissed": True}
    ).json()
    assert shown[0]["verdict"] == "both-true"
