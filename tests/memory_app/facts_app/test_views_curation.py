"""The facts write pages: the next-start review's pair actions (preview, then confirm),
edit and delete from a fact's page, new fact, archive restore, vanished, verdicts."""

from __future__ import annotations

import re

from django.test import Client

from memory_app.facts import FactsStore
from memory_app.facts_app.models import ArchivedFact
from memory_app.memory.embeddings import Embedder
from tests.memory_app.facts.agent_simulator import SimulatedAgent

from .conftest import agent_writes

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."


def test_the_review_screen_offers_each_pairs_actions_with_ids_to_drive_it(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    html = curator_client.get("/facts/next-start/").content.decode()
    assert f'id="pair-{old}-{new}"' in html
    assert f'data-anchor-id="{old}" data-deleted-id="{new}"' in html
    for action in ("keep-older", "keep-newer-text", "delete-both", "make-distinct"):
        assert f'data-action="{action}"' in html


def test_a_viewer_sees_the_plan_without_actions_and_cannot_post(
    facts_store: FactsStore, agent_model: Embedder, viewer_client: Client
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    html = viewer_client.get("/facts/next-start/").content.decode()
    assert f'id="pair-{old}-{new}"' in html and 'data-action="keep-older"' not in html
    response = viewer_client.post(
        "/facts/next-start/resolve/",
        {"anchor_id": str(old), "deleted_id": str(new), "how": "keep-older"},
    )
    assert response.status_code == 403
    assert facts_store.count() == 2


def test_keep_newer_text_previews_then_confirms_and_the_next_start_keeps_the_correction(
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
    curator_client: Client,
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    fields = {"anchor_id": str(old), "deleted_id": str(new), "how": "keep-newer-text"}
    preview = curator_client.post(
        "/facts/next-start/resolve/", {**fields, "preview": "1"}, HTTP_HX_REQUEST="true"
    )
    html = preview.content.decode()
    assert preview.status_code == 200 and 'id="write-confirm"' in html
    assert facts_store.count() == 2  # a preview writes nothing
    confirmed = curator_client.post("/facts/next-start/resolve/", fields, HTTP_HX_REQUEST="true")
    assert confirmed.status_code == 204 and confirmed["HX-Redirect"] == f"/facts/{old}/"
    assert agent.start() == set()
    assert agent.retrieve("TTS port")[0] == {"_id": str(old), "content": NEW_PORT}
    assert ArchivedFact.objects.get().fact_id == str(new)


def test_an_edit_that_would_be_deleted_asks_to_archive_the_older_fact(
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
    curator_client: Client,
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    other = agent_writes(facts_store, agent_model, "The TTS voice is Lily.", days_ago=1)
    fields = {"expected_content": "The TTS voice is Lily.", "content": NEW_PORT}
    page = curator_client.post(f"/facts/{other}/edit/", fields)
    html = page.content.decode()
    assert page.status_code == 200 and f'data-archive-id="{old}"' in html
    assert re.search(rf'name="archive" value="{old}"', html)
    assert facts_store.get(str(other)).text == "The TTS voice is Lily."
    done = curator_client.post(f"/facts/{other}/edit/", {**fields, "archive": str(old)})
    assert done.status_code == 302
    assert agent.start() == set()
    assert facts_store.get(str(other)).text == NEW_PORT


def test_a_stale_edit_is_a_409_page(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    fact = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=2)
    page = curator_client.post(
        f"/facts/{fact}/edit/", {"expected_content": "something else", "content": NEW_PORT}
    )
    assert page.status_code == 409 and "another curator" in page.content.decode()


def test_new_fact_then_delete_then_restore_from_the_archive_page(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    assert curator_client.get("/facts/new/").status_code == 200
    created = curator_client.post("/facts/new/", {"content": "The master likes jazz."})
    assert created.status_code == 302
    fact_id = created["Location"].strip("/").split("/")[-1]
    assert curator_client.post(f"/facts/{fact_id}/delete/").status_code == 302
    assert facts_store.count() == 0
    row = ArchivedFact.objects.get(fact_id=fact_id)
    assert f'id="archived-{row.pk}"' in curator_client.get("/facts/archive/").content.decode()
    assert curator_client.post(f"/facts/archive/{row.pk}/restore/").status_code == 302
    assert facts_store.get(fact_id).text == "The master likes jazz."


def test_the_vanished_page_lists_what_the_agent_removed(
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
    curator_client: Client,
) -> None:
    agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    assert curator_client.post("/facts/vanished/scan/").status_code == 302
    assert agent.start() == {str(new)}
    curator_client.post("/facts/vanished/scan/")
    html = curator_client.get("/facts/vanished/").content.decode()
    assert f'data-fact-id="{new}" data-cause="duplicate"' in html
    assert 'data-action="restore"' in html
