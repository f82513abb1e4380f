"""One dashboard for both agents: the facts store on Health, Overview and Search (the
protocol in qqweb/lib/sources.py)."""

from __future__ import annotations

from typing import Any

from django.test import Client

from memory_app.facts.lib import FactsStore
from qqweb.health import forget_cached_health, stores_health
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."


def test_health_checks_the_facts_store_while_it_is_configured(facts_store: FactsStore) -> None:
    facts = [s for s in stores_health() if s.name == "facts"]
    assert len(facts) == 1 and facts[0].up and facts[0].detail.endswith(".memories")


def test_health_has_no_facts_row_while_it_is_off(stores: dict[str, Any], settings: Any) -> None:
    settings.QQ_FACTS_MONGO_URI = ""
    forget_cached_health()
    assert "facts" not in {s.name for s in stores_health()}


def test_the_overview_shows_the_facts_agent_next_to_the_notes(
    facts_store: FactsStore, agent_model: Embedder, viewer_client: Client
) -> None:
    agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    html = viewer_client.get("/").content.decode()
    assert 'id="source-facts"' in html and 'id="notes-card"' in html
    # each count opens the list it counts
    assert '<dt>deleted at the next start</dt><dd><a href="/facts/next-start/">1</a></dd>' in html
    assert '<dt>legacy conversation turns</dt><dd><a href="/facts/?kind=turn">0</a></dd>' in html


def test_search_shows_the_facts_and_what_the_agent_would_inject(
    facts_store: FactsStore, agent_model: Embedder, viewer_client: Client
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    agent_writes(facts_store, agent_model, "The master likes jazz.", days_ago=3)
    html = viewer_client.get("/search/", {"q": "TTS port"}).content.decode()
    assert 'id="results-facts"' in html
    # what it injects is labelled as the agent's own text, verbatim, and kept in a <pre>
    label = html[html.index('id="injected-facts"') : html.index('<pre class="verbatim"')]
    assert "would inject the first 2 of these" in label and "verbatim" in label
    verbatim = html[html.index('<pre class="verbatim"') : html.index("</pre>")]
    assert f"- {{&#x27;_id&#x27;: &#x27;{old}&#x27;" in verbatim


def test_search_with_another_model_says_the_facts_need_the_agents(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    html = viewer_client.get("/search/", {"q": "TTS port"}).content.decode()
    assert 'id="results-facts"' in html and "all-MiniLM-L6-v2" in html


def test_the_api_lists_both_agents_memories_with_what_each_supports(
    facts_store: FactsStore, agent_model: Embedder, viewer_client: Client
) -> None:
    agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    body = viewer_client.get("/api/sources").json()
    by_key = {s["key"]: s for s in body}
    assert set(by_key) == {"notes", "facts"}
    assert by_key["facts"]["layout"] == "facts" and by_key["facts"]["up"] is True
    assert ["facts", 1] in by_key["facts"]["counts"]
    assert "importance" in by_key["notes"]["capabilities"]
    assert "importance" not in by_key["facts"]["capabilities"]
