"""The read-only facts pages: list (filters, keyset pages), fact page, the next-start
plan, the lint; off (404, no navigation) without QQ_FACTS_MONGO_URI; viewer role."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from memory_app.facts.lib import FactsStore
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.planted import plant


def test_the_facts_pages_are_off_and_not_in_the_navigation_without_a_uri(
    stores: dict[str, Any], settings: Any, viewer_client: Client
) -> None:
    settings.QQ_FACTS_MONGO_URI = ""
    assert viewer_client.get("/facts/").status_code == 404
    assert viewer_client.get("/facts/next-start/").status_code == 404
    page = viewer_client.get("/notes/").content.decode()
    assert 'href="/facts/"' not in page


def test_the_navigation_shows_facts_when_configured(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    assert 'href="/facts/"' in viewer_client.get("/notes/").content.decode()


def test_it_needs_a_role(facts_store: FactsStore, outsider: Any, client: Client) -> None:
    client.force_login(outsider)
    assert client.get("/facts/").status_code == 403


def test_the_list_shows_facts_newest_first_with_their_states(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    docs = plant(facts_store)
    page = viewer_client.get("/facts/").content.decode()
    assert page.index("The user likes tea.") < page.index("The TTS port is 9100.")
    assert page.index("The TTS port is 9100.") < page.index("The TTS port is 9000.")
    assert "legacy turn" in page and "legacy fact" in page
    assert "1 deleted at the agent's next start" in page
    assert str(docs["new_port"]["_id"]) in page


def test_the_list_filters(facts_store: FactsStore, viewer_client: Client) -> None:
    plant(facts_store, broken=True)

    def shown(query: str) -> str:
        return viewer_client.get(f"/facts/?{query}").content.decode()

    assert "9100" in shown("next_start=1") and "9000" not in shown("next_start=1")
    assert "Hanoi" in shown("embedding=missing") and "tea" not in shown("embedding=missing")
    assert "Broken vector." in shown("embedding=invalid")
    assert "Broken vector." not in shown("embedding=ok")
    assert "hello" in shown("legacy=1") and "tea" not in shown("legacy=1")
    assert "likes tea" in shown("q=TEA") and "9000" not in shown("q=TEA")


def test_a_filtered_list_says_how_many_of_the_documents_match(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    plant(facts_store)
    total = len(facts_store.documents())
    whole = viewer_client.get("/facts/").content.decode()
    assert f"{total} documents." in whole and "match the filter" not in whole
    legacy = viewer_client.get("/facts/?legacy=1").content.decode()
    shown = legacy.count('<br><code class="muted">')
    assert 0 < shown < total
    assert f"{shown} of {total} documents match the filter." in legacy
    table = viewer_client.get("/facts/?q=TEA", headers={"HX-Request": "true"}).content.decode()
    assert f"1 of {total} documents match the filter." in table  # htmx: with the rows


def test_the_list_pages_with_a_cursor_and_answers_htmx_with_the_table(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    plant(facts_store)
    first = viewer_client.get("/facts/", {"limit": 50})
    assert "Next page" not in first.content.decode()
    partial = viewer_client.get("/facts/", HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="facts-table">')


def test_the_fact_page(facts_store: FactsStore, viewer_client: Client) -> None:
    docs = plant(facts_store)
    new_id = str(docs["new_port"]["_id"])
    page = viewer_client.get(f"/facts/{new_id}/").content.decode()
    assert "The agent deletes this fact at its next start" in page
    assert '<dd id="fact-vector">384 numbers, length 1.00</dd>' in page
    assert "a duplicate to the agent" in page  # the old port, at 0.989
    assert "≥ 0.85: similar" in page  # the voice, at 0.9 * 0.989
    assert "(the agent's last write)" in page
    old = viewer_client.get(f"/facts/{docs['old_port']['_id']}/").content.decode()
    assert "the agent deletes the newer" in old


def test_the_fact_page_names_its_fields_in_words(
    facts_store: FactsStore, agent_model: Embedder, viewer_client: Client
) -> None:
    plain = agent_writes(facts_store, agent_model, "The user likes tea.", days_ago=2)
    page = viewer_client.get(f"/facts/{plain}/").content.decode()
    assert "<dt>Id</dt>" in page and "_id</dt>" not in page
    assert '<dd id="fact-metadata">none</dd>' in page and "{}" not in page
    assert re.search(
        r"<dt>Written</dt><dd><time class=\"when\" [^>]*>\d+ \w{3} \d{4}, \d\d:\d\d UTC", page
    )
    assert "norm" not in page and "1.000000" not in page

    tagged = agent_writes(
        facts_store,
        agent_model,
        "The user drinks coffee at 8.",
        days_ago=1,
        metadata={"topic_area": "habits", "turns": [3, 4]},
        origin_note={"kept": True},
    )
    page = viewer_client.get(f"/facts/{tagged}/").content.decode()
    assert '<dd id="fact-metadata">topic area: habits · turns: [3, 4]</dd>' in page
    # a field the agent does not read: its name as stored, its value as JSON, not Python
    assert "<code>origin_note</code>" in page and "<code>{&quot;kept&quot;: true}</code>" in page
    assert "True" not in page


def test_a_missing_fact_is_a_404_page(facts_store: FactsStore, viewer_client: Client) -> None:
    response = viewer_client.get("/facts/000000000000000000000000/")
    assert response.status_code == 404
    assert "No such fact" in response.content.decode()


def test_the_next_start_page_lists_the_pair(facts_store: FactsStore, viewer_client: Client) -> None:
    plant(facts_store)
    page = viewer_client.get("/facts/next-start/").content.decode()
    assert "The TTS port is 9000." in page and "The TTS port is 9100." in page
    assert "0.989000" in page


def test_the_next_start_page_says_when_the_pass_aborts(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    plant(facts_store, broken=True)
    page = viewer_client.get("/facts/next-start/").content.decode()
    assert "Today the pass aborts and deletes nothing" in page


def test_the_lint_page(facts_store: FactsStore, viewer_client: Client) -> None:
    plant(facts_store, broken=True)
    facts_store.collection.create_index("note_id", unique=True, sparse=True, name="bad")
    page = viewer_client.get("/facts/lint/").content.decode()
    assert "Something here breaks the agent." in page
    assert "a vector of length 1024, not 384" in page
    assert "index bad" in page


def test_a_uri_without_a_database_says_so(
    stores: dict[str, Any], settings: Any, viewer_client: Client
) -> None:
    settings.QQ_FACTS_MONGO_URI = stores["mongo_uri"]
    settings.QQ_FACTS_MONGO_DB = ""
    response = viewer_client.get("/facts/")
    assert response.status_code == 500
    assert "no database in its path" in response.content.decode()


def test_a_store_that_is_down_gives_the_banner_page(
    stores: dict[str, Any], settings: Any, viewer_client: Client
) -> None:
    settings.QQ_FACTS_MONGO_URI = "mongodb://127.0.0.1:9/lily"
    settings.QQ_STORE_TIMEOUT_MS = 200
    response = viewer_client.get("/facts/next-start/")
    assert response.status_code == 503
    assert "The facts store is unavailable" in response.content.decode()


def test_a_cursor_past_the_dates_python_holds_is_a_400_naming_the_cursor(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    plant(facts_store)
    for cursor in ("d.99999999999999999999999.000000000000000000000000", "d.-62135596800001.0"):
        page = viewer_client.get("/facts/", {"cursor": cursor})
        assert page.status_code == 400, cursor
        assert "cursor: not a cursor this list gave" in page.content.decode()
        assert "likes tea" in page.content.decode()  # the first page, under the message
