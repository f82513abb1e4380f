"""The facts write pages: the next-start review's pair actions (preview, then confirm),
edit and delete from a fact's page, new fact, archive restore, vanished, verdicts."""

from __future__ import annotations

import re

from bson import ObjectId
from django.test import Client

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent
from tests.memory_app.facts.lib.vectors import at_cosine, unit
from tests.memory_app.facts.planted import doc, plant

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
    row = confirmed.content.decode()  # the list stays: its row says what was done
    assert confirmed.status_code == 200 and "HX-Redirect" not in confirmed
    assert row.lstrip().startswith(f'<tr id="pair-{old}-{new}" data-resolved')
    assert "The older fact has the newer text; the newer one is archived." in row
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


def test_an_edit_of_a_replaced_fact_is_a_409_page_linking_the_new_fact(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_client: Client
) -> None:
    fact = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=2)
    new = agent.update(fact, "The TTS-Provider service moved to port 9200.")
    page = curator_client.post(
        f"/facts/{fact}/edit/", {"expected_content": OLD_PORT, "content": NEW_PORT}
    )
    html = page.content.decode()
    assert page.status_code == 409 and "replaced it with an update" in html
    assert f'href="/facts/{new}/" id="replaced-by"' in html


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


def _planted_pair(store: FactsStore) -> tuple[str, str]:
    docs = plant(store)
    return str(docs["old_port"]["_id"]), str(docs["new_port"]["_id"])


def test_a_resolve_asks_in_words_in_the_pairs_row_and_writes_nothing(
    facts_store: FactsStore, curator_client: Client
) -> None:
    old, new = _planted_pair(facts_store)
    fields = {"anchor_id": old, "deleted_id": new, "how": "keep-older", "preview": "1"}
    html = curator_client.post(
        "/facts/next-start/resolve/", fields, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert html.lstrip().startswith(f'<tr id="pair-{old}-{new}"')  # the row, swapped in place
    assert "Keep the older fact, archive the newer one?" in html and "Confirm: pair" not in html
    assert 'id="write-cancel"' in html and 'id="write-confirm"' in html
    assert "The newer fact changes a value (9000 → 9100)" in html  # it may be the correction
    assert facts_store.count() == 6


def test_cancel_gives_back_the_row_with_its_actions(
    facts_store: FactsStore, curator_client: Client
) -> None:
    old, new = _planted_pair(facts_store)
    html = curator_client.get(
        "/facts/next-start/", {"anchor_id": old, "deleted_id": new}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert html.lstrip().startswith(f'<tr id="pair-{old}-{new}"')
    assert 'data-action="keep-older"' in html and 'id="write-confirm"' not in html
    gone = curator_client.get(
        "/facts/next-start/", {"anchor_id": new, "deleted_id": old}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert f'id="pair-{new}-{old}"' in gone and "not in the agent's next-start plan" in gone


def test_a_confirmed_resolve_replaces_its_row_with_the_outcome_and_an_undo(
    facts_store: FactsStore, curator_client: Client
) -> None:
    old, new = _planted_pair(facts_store)
    done = curator_client.post(
        "/facts/next-start/resolve/",
        {"anchor_id": old, "deleted_id": new, "how": "keep-older"},
        HTTP_HX_REQUEST="true",
    )
    row = done.content.decode()
    assert done.status_code == 200 and "HX-Redirect" not in done  # no leaving the list
    assert row.lstrip().startswith(f'<tr id="pair-{old}-{new}" data-resolved')
    assert "Kept the older fact; the newer one is archived." in row
    undo = re.search(r'<form method="post" action="([^"]+)" class="inline undo-form"[^>]*>', row)
    assert undo is not None and 'data-action="undo"' in row
    assert f'name="next" value="/facts/next-start/#pair-{old}-{new}"' in row
    back = curator_client.post(undo.group(1), {"next": f"/facts/next-start/#pair-{old}-{new}"})
    assert back["Location"] == f"/facts/next-start/#pair-{old}-{new}"
    assert facts_store.get(new).text == "The TTS port is 9100."
    assert f'id="pair-{old}-{new}"' in curator_client.get("/facts/next-start/").content.decode()


def test_without_javascript_a_resolve_comes_back_to_the_list_where_it_was(
    facts_store: FactsStore, curator_client: Client
) -> None:
    old, new = _planted_pair(facts_store)
    html = curator_client.get("/facts/next-start/").content.decode()
    nexts = re.findall(r'name="next" value="([^"]+)"', html)
    assert nexts and all(n.startswith("/facts/next-start/#") for n in nexts)
    fields = {"anchor_id": old, "deleted_id": new, "how": "keep-older", "next": nexts[0]}
    preview = curator_client.post("/facts/next-start/resolve/", {**fields, "preview": "1"})
    assert f'name="next" value="{nexts[0]}"' in preview.content.decode()  # kept to confirm
    done = curator_client.post("/facts/next-start/resolve/", fields)
    assert done.status_code == 302 and done["Location"] == nexts[0]
    page = curator_client.get("/facts/next-start/").content.decode()
    assert "Kept the older fact; the newer one is archived." in page and 'id="message-undo"' in page


def test_the_flags_show_the_value_the_newer_fact_changes(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    _planted_pair(facts_store)
    html = viewer_client.get("/facts/next-start/").content.decode()
    assert 'data-flags="number"' in html
    assert '<code data-side="older">9000</code> → <code data-side="newer">9100</code>' in html
    assert "The agent will delete a correction, not a copy" in html


def test_a_verdicts_message_has_an_undo_button(
    facts_store: FactsStore, curator_client: Client
) -> None:
    docs = plant(facts_store)
    a, b = str(docs["old_port"]["_id"]), str(docs["similar"]["_id"])
    fields = {"a_id": a, "b_id": b, "verdict": "both-true"}
    curator_client.post("/facts/contradictions/verdict/", fields)
    html = curator_client.get("/facts/contradictions/").content.decode()
    assert "Remembered: both are true" in html and 'id="message-undo"' in html
    assert f'data-anchor-id="{a}" data-deleted-id="{b}"' not in html  # hidden now
    undo = re.search(r'<form method="post" action="([^"]+)" class="inline undo-form"[^>]*>', html)
    assert undo is not None
    curator_client.post(undo.group(1))
    html = curator_client.get("/facts/contradictions/").content.decode()
    assert f'data-anchor-id="{a}" data-deleted-id="{b}"' in html


def test_make_distinct_checks_the_edit_in_the_pairs_row(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    fields = {
        "anchor_id": str(old),
        "deleted_id": str(new),
        "expected_content": NEW_PORT,
        "content": "The TTS-Provider fallback service runs on port 9100 since May.",
        "preview": "1",
    }
    html = curator_client.post(f"/facts/{new}/edit/", fields, HTTP_HX_REQUEST="true")
    text = html.content.decode()
    assert text.lstrip().startswith(f'<tr id="pair-{old}-{new}"')
    assert "Save this text for the fact?" in text and 'id="write-cancel"' in text
    assert facts_store.get(str(new)).text == NEW_PORT


def test_a_pair_gone_meanwhile_says_so_in_its_row(
    facts_store: FactsStore, curator_client: Client
) -> None:
    old, new = _planted_pair(facts_store)
    facts_store.collection.delete_one({"_id": ObjectId(new)})  # the agent started meanwhile
    fields = {"anchor_id": old, "deleted_id": new, "how": "keep-older", "preview": "1"}
    html = curator_client.post(
        "/facts/next-start/resolve/", fields, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert html.lstrip().startswith(f'<tr id="pair-{old}-{new}"')
    assert "not in the agent's next-start plan any more" in html and 'role="alert"' in html


def test_a_negated_newer_fact_is_flagged_a_contradiction(
    facts_store: FactsStore, viewer_client: Client
) -> None:
    facts_store.collection.insert_many(
        [
            doc("The master likes coffee.", unit(0), 0),
            doc("The master does not like coffee.", at_cosine(0.97), 10),
        ]
    )
    html = viewer_client.get("/facts/next-start/").content.decode()
    assert 'data-flags="negation" data-contradiction' in html
    assert "the agent will delete one side of a contradiction, not a copy" in html


def test_a_new_fact_the_agent_would_refuse_says_it_changes_a_value(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    """The create hazard check reads the pair as the review does: a new port is a
    correction of the old fact, not a copy of it."""
    agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    page = curator_client.post("/facts/new/", {"content": NEW_PORT})
    html = page.content.decode()
    assert page.status_code == 200 and "would not save this text" in html
    assert 'data-flags="id"' in html
    assert '<code data-side="older">port 9000</code>' in html
    assert '<code data-side="newer">port 9100</code>' in html
    assert facts_store.count() == 1
