"""GET /api/facts, /api/facts/{id}, /api/facts/next-start, /api/facts/lint."""

from __future__ import annotations

from typing import Any

from django.test import Client

from memory_app.facts.lib import FactsStore
from tests.memory_app.facts.planted import plant


def test_the_list(facts_store: FactsStore, viewer_client: Client) -> None:
    docs = plant(facts_store)
    body = viewer_client.get("/api/facts", {"limit": 3}).json()
    assert [i["content"] for i in body["items"]] == [
        "The user likes tea.",
        "The TTS voice is Lily.",
        "The TTS port is 9100.",
    ]
    assert body["items"][2]["deleted_at_next_start"] is True
    assert body["items"][2]["anchor_id"] == str(docs["old_port"]["_id"])
    assert body["total"] == 6 and body["next_start_deletions"] == 1
    rest = viewer_client.get("/api/facts", {"limit": 3, "cursor": body["next_cursor"]}).json()
    assert [i["kind"] for i in rest["items"]] == ["fact", "fact", "turn"]
    assert rest["next_cursor"] is None


def test_a_fact(facts_store: FactsStore, viewer_client: Client) -> None:
    docs = plant(facts_store)
    body = viewer_client.get(f"/api/facts/{docs['new_port']['_id']}").json()
    assert body["dimension"] == 384
    assert abs(body["norm"] - 1.0) < 1e-12
    assert body["deleted_by"]["anchor_id"] == str(docs["old_port"]["_id"])
    assert body["neighbours"][0]["mark"] == "duplicate"
    assert "content_embedding" not in body["document"]
    assert body["document"]["metadata"] == {}


def test_a_missing_fact_is_404(facts_store: FactsStore, viewer_client: Client) -> None:
    response = viewer_client.get("/api/facts/000000000000000000000000")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_next_start(facts_store: FactsStore, viewer_client: Client) -> None:
    docs = plant(facts_store)
    body = viewer_client.get("/api/facts/next-start").json()
    assert body["aborted"] is False
    assert [(d["anchor_id"], d["deleted_id"]) for d in body["deletions"]] == [
        (str(docs["old_port"]["_id"]), str(docs["new_port"]["_id"]))
    ]


def test_lint(facts_store: FactsStore, viewer_client: Client) -> None:
    plant(facts_store, broken=True)
    body = viewer_client.get("/api/facts/lint").json()
    assert body["agent_broken"] is True
    assert body["findings"][0]["code"] == "vector_length"


def test_off_without_a_uri(stores: dict[str, Any], settings: Any, viewer_client: Client) -> None:
    settings.QQ_FACTS_MONGO_URI = ""
    response = viewer_client.get("/api/facts")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "facts_off"


def test_a_uri_without_a_database_is_a_clear_error(
    stores: dict[str, Any], settings: Any, viewer_client: Client
) -> None:
    settings.QQ_FACTS_MONGO_URI = stores["mongo_uri"]
    settings.QQ_FACTS_MONGO_DB = ""
    response = viewer_client.get("/api/facts")
    assert response.status_code == 500
    assert "no database in its path" in response.json()["error"]["message"]


def test_it_needs_a_login(facts_store: FactsStore, client: Client) -> None:
    assert client.get("/api/facts").status_code == 401


OUT_OF_RANGE_CURSORS = [
    "d.99999999999999999999999.000000000000000000000000",  # past any date
    "d.-62135596800001.000000000000000000000000",  # a millisecond before year 1
    "d.999999999999999.000000000000000000000000",  # past year 9999
]


def test_a_cursor_past_the_dates_python_holds_is_a_400_naming_the_cursor(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    plant(facts_store)
    for cursor in OUT_OF_RANGE_CURSORS:
        response = viewer_client.get("/api/facts", {"cursor": cursor})
        assert response.status_code == 400, cursor
        assert response.json()["error"]["field"] == "cursor"
