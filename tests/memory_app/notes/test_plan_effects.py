"""A plan's preview says which pinned recalls it would lose before it applies (an
archival, a decay, a bulk archive): the run page names each pin and marks its note's row,
the API's plan carries the same."""

import pytest
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from qqweb.recall.effects import pinned_holders
from qqweb.recall.models import TestRun
from qqweb.recall.services import memory_tests_run, pin_create
from tests.helpers import agent_archive_line
from tests.helpers import plant_note as plant

ADA = Actor("user", "ada-admin", role="admin")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
TEA = "Ada prefers green tea in the morning"
pytestmark = pytest.mark.django_db


def _preview(kind="archival", params=None):
    dry = job_create(kind=kind, actor=ADA, dry_run=True, params=params or {})
    job_run(run=dry)
    dry.refresh_from_db()
    return dry


@pytest.fixture
def pinned(stores):
    """Two pinned notes the agent recalls (effective importance 0.3 and 0.9, above
    QQ_MIN_RETRIEVAL_IMPORTANCE 0.2) and one it does not: an archival at threshold 0.5
    plans the first and the third."""
    plant("note_lumen000001", 0.3, 0, content=LUMEN)
    plant("note_tea00000001", 0.9, 0, content=TEA)
    plant("note_0000000000a3", 0.01, 300)
    pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000001")
    pin_create(actor=ADA, query=TEA, item_id="note_tea00000001")


def _page(client, run):
    return client.get(reverse("memory_app:maintenance_run", args=[run.pk])).content.decode()


@pytest.mark.usefixtures("pinned")
def test_the_archival_preview_names_the_pin_it_would_lose_before_its_apply_button(
    admin_client_,
):
    dry = _preview(params={"threshold": 0.5})
    page = _page(admin_client_, dry)
    warning = page.split('id="plan-pins-lost"')[1].split("</div>")[0]
    assert "This plan loses 1 of 2 pinned recalls:" in warning
    assert f">{LUMEN}</a>” →" in warning and "archived by this plan" in warning
    assert reverse("memory_app:note_detail", args=["note_lumen000001"]) in warning
    assert f'href="{reverse("recall:memory_tests")}#pins-table"' in warning
    assert page.index('id="plan-pins-lost"') < page.index('id="plan-apply-button"')
    assert '<tr data-note-id="note_lumen000001" class="pinned"' in page
    assert '<tr data-note-id="note_0000000000a3">' in page  # not pinned: not marked
    assert notes_store().count() == 3  # the preview wrote nothing


@pytest.mark.usefixtures("pinned")
def test_an_archival_of_notes_the_agent_leaves_out_already_warns_of_nothing(admin_client_):
    """At the default threshold (0.05) the plan only holds notes below
    QQ_MIN_RETRIEVAL_IMPORTANCE (0.2): the agent recalls none of them already."""
    pin_create(actor=ADA, query="anything", item_id="note_0000000000a3")
    dry = _preview()
    page = _page(admin_client_, dry)
    assert [item["note_id"] for item in dry.plan] == ["note_0000000000a3"]
    assert 'id="plan-pins-lost"' not in page and "This plan loses" not in page
    assert '<tr data-note-id="note_0000000000a3" class="pinned"' in page  # failing, marked


@pytest.mark.usefixtures("pinned")
def test_the_api_plan_carries_the_lost_pins(admin_client_):
    dry = _preview(params={"threshold": 0.5})
    body = admin_client_.get(f"/api/maintenance/runs/{dry.pk}/plan").json()
    assert body["pins"]["pins"] == 2 and body["pins"]["error"] == ""
    assert body["pins"]["pinned_items"] == ["note_lumen000001"]
    [lost] = body["pins"]["lost"]
    assert (lost["query"], lost["item_id"], lost["why"]) == (
        LUMEN,
        "note_lumen000001",
        "archived by this plan",
    )


def test_a_decay_that_takes_a_pinned_note_below_the_retrieval_minimum_loses_its_pin(
    stores, admin_client_
):
    """0.35 ten days old is 0.227 today (recalled: at least 0.2); the decay writes 0.227,
    which the agent's retrieval decays again to 0.115: left out. A pinned note the decay
    keeps above 0.2 is not lost."""
    plant("note_lumen000001", 0.35, 10, content=LUMEN)
    plant("note_tea00000001", 0.9, 10, content=TEA)
    pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000001")
    pin_create(actor=ADA, query=TEA, item_id="note_tea00000001")
    dry = _preview(kind="decay")
    body = admin_client_.get(f"/api/maintenance/runs/{dry.pk}/plan").json()
    [lost] = body["pins"]["lost"]
    assert lost["item_id"] == "note_lumen000001"
    assert lost["why"] == "this decay takes its effective importance to 0.12, below 0.2"
    page = _page(admin_client_, dry)
    assert "This plan loses 1 of 2 pinned recalls:" in page
    assert "undoing the run puts the importances back" in page
    assert notes_store().get_full_note("note_lumen000001")["importance"] == 0.35


@pytest.mark.usefixtures("pinned")
def test_once_the_plan_is_applied_its_page_no_longer_warns(admin_client_):
    dry = _preview(params={"threshold": 0.5})
    response = admin_client_.post(reverse("memory_app:maintenance_run_apply", args=[dry.pk]))
    assert response.status_code == 302
    assert 'id="plan-pins-lost"' not in _page(admin_client_, dry)


@pytest.mark.usefixtures("pinned")
def test_the_bulk_archive_confirm_names_the_pin_it_would_lose_and_lists_its_note_first(
    curator_client,
):
    ids = ["note_0000000000a3", "note_lumen000001"]
    ask = {"action": "archive", "scope": "selected", "note_ids": ids, "section": "Key Topics"}
    html = curator_client.post(reverse("memory_app:notes_bulk"), ask).content.decode()
    warning = html.split('id="plan-pins-lost"')[1].split("</div>")[0]
    assert "This plan loses 1 of 2 pinned recalls:" in warning
    assert f">{LUMEN}</a>” →" in warning and "archived by this plan" in warning
    listed = html.split('<ul class="items">')[2]
    assert listed.index("note_lumen000001") < listed.index("note_0000000000a3")
    assert '<li class="pinned"><span class="pill pin-marker">pinned</span> ' + LUMEN in listed
    assert notes_store().count() == 3  # asked, not applied


@pytest.mark.usefixtures("pinned")
def test_a_bulk_importance_change_shows_no_pin_warning(curator_client):
    ask = {
        "action": "set_importance",
        "importance": "0.5",
        "scope": "selected",
        "note_ids": ["note_lumen000001"],
        "section": "Key Topics",
    }
    html = curator_client.post(reverse("memory_app:notes_bulk"), ask).content.decode()
    assert "<strong>1</strong> note" in html and "This plan loses" not in html


def _pair(a, b):
    return ReviewPair.objects.create(note_a=a, note_b=b, hash_a="a", hash_b="b", similarity=0.9)


def test_the_review_merge_says_a_pinned_note_follows_it_to_the_note_kept(stores, curator_client):
    plant("note_lumen000001", 0.7, 2, content=LUMEN)
    plant("note_lumen000002", 0.4, 1, content=LUMEN + " today")
    pin_create(actor=ADA, query=LUMEN + " today", item_id="note_lumen000002")
    _pair("note_lumen000001", "note_lumen000002")
    html = curator_client.get(reverse("memory_app:review")).content.decode()
    assert "kept: <code>note_lumen000001</code>" in html
    kept = html.split('id="merge-pins-kept"')[1].split("</p>")[0]
    # named by the side and the text the curator sees, not by ids
    assert "goes through the second note, “" + LUMEN[:40] in kept
    assert "it follows the merge to the first one, which the agent still" in kept
    assert "note_lumen" not in kept
    assert "This merge loses" not in html and "Keeping the newer text loses" not in html


def test_keeping_the_newer_text_warns_when_it_no_longer_answers_the_pinned_question(
    stores, curator_client
):
    """Supersede keeps the newer note's text: a pin on the older one follows it, and is
    lost when that text does not answer its question."""
    plant("note_lumen000001", 0.7, 2, content=LUMEN)  # older
    plant("note_tea00000001", 0.4, 1, content=TEA)  # newer
    pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000001")
    _pair("note_lumen000001", "note_tea00000001")
    html = curator_client.get(reverse("memory_app:review")).content.decode()
    assert "kept: <code>note_tea00000001</code>" in html  # the merge keeps the newer too
    warning = html.split('id="plan-pins-lost"')[1].split("</div>")[0]
    assert "This merge loses 1 of 1 pinned recall:" in warning
    # in words: the note kept named by its text (its id only a small code beside the pin)
    assert f"merged into “{TEA}” by this merge, and “{TEA}” is not" in warning
    html = curator_client.get(
        reverse("memory_app:review") + "?primary=note_lumen000001"
    ).content.decode()
    assert "This merge loses" not in html  # merged into the pinned note: it stays
    supersede = html.split('id="supersede-pins-lost"')[1].split("</div>")[0]
    assert "Keeping the newer text loses 1 of 1 pinned recall:" in supersede
    assert f"superseded by “{TEA}”, whose text is kept, and" in supersede


def test_a_purge_that_drops_a_merged_pinned_notes_archive_line_loses_its_pin(stores, admin_client_):
    """A pinned note merged away 200 days ago is recalled through the note that kept its
    text, found by its archive line; the purge (90 days) drops that line."""
    plant("note_lumen000001", 0.7, 1, content=LUMEN)
    plant("note_lumen000002", 0.4, 1, content=LUMEN + " too")
    pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000002")
    notes_store().collection.delete_one({"note_id": "note_lumen000002"})
    reason = "Consolidated with note_lumen000001 (similarity: 0.95)"
    archive_manager().append_entries(
        [
            agent_archive_line("note_lumen000002", 200, reason=reason),
            agent_archive_line("note_0000000000b1", 200),
        ]
    )
    result = memory_tests_run(actor=ADA, trigger=TestRun.PAGE).results.get()
    assert result.passed and result.recalled_as == "note_lumen000001"
    dry = _preview(kind="archive_purge", params={"days": 90})
    assert {i["note_id"] for i in dry.plan} == {"note_lumen000002", "note_0000000000b1"}
    body = admin_client_.get(f"/api/maintenance/runs/{dry.pk}/plan").json()
    [lost] = body["pins"]["lost"]
    assert lost["item_id"] == "note_lumen000002"
    assert lost["why"].startswith("its archive line is dropped by this plan")
    assert "undoing the run writes them back" in _page(admin_client_, dry)


def test_an_auto_consolidation_into_a_note_the_agent_leaves_out_loses_the_pin(
    stores, admin_client_
):
    """The merge keeps the note of higher stored importance: here one 400 days old that
    the agent leaves out (effective importance 0), so the fresh copy's pin is lost."""
    old = plant("note_lumen000001", 0.9, 400, content=LUMEN)
    plant("note_lumen000002", 0.5, 1, content=LUMEN, embedding=old["embedding"])
    pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000002")
    dry = _preview(kind="auto_consolidation", params={"force": True})
    assert [(i["note_id"], i["other_id"]) for i in dry.plan] == [
        ("note_lumen000001", "note_lumen000002")
    ]
    body = admin_client_.get(f"/api/maintenance/runs/{dry.pk}/plan").json()
    [lost] = body["pins"]["lost"]
    assert lost["why"].startswith(
        "merged into note_lumen000001 by this plan, and note_lumen000001 is not recalled: "
        "its effective importance 0.00 is below 0.2"
    )
    assert '<tr data-note-id="note_lumen000001" class="pinned"' in _page(admin_client_, dry)


def test_a_preview_finds_where_every_pinned_note_is_in_one_read_not_one_per_pin(stores, recorded):
    """A plan's preview first asks where each pin's note is (a pin on a merged note is
    recalled through the survivor): with many pins, that is one read of them all."""
    pinned = {f"note_pin{i:08d}" for i in range(20)}
    for note_id in sorted(pinned):
        plant(note_id, 0.9, 0, content=f"{note_id} is about the lumen project")
        pin_create(actor=ADA, query=f"what is {note_id} about?", item_id=note_id)
    recorded.commands.clear()
    assert pinned_holders("notes") == pinned
    reads = [c for c in recorded.commands if c["name"] in ("find", "aggregate")]
    assert len(reads) == 1, reads


def test_the_review_api_previews_a_merge_and_names_the_pin_it_would_lose(stores, viewer_client):
    """The Review page's preview, over the API: the merge keeps the newer note (its text
    differs in a value), so the older note's pin follows it to a text that does not answer
    its question; keeping the older note instead loses nothing. Nothing is written."""
    plant("note_lumen000001", 0.7, 2, content=LUMEN)  # older
    plant("note_tea00000001", 0.4, 1, content=TEA)  # newer
    pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000001")
    pair = _pair("note_lumen000001", "note_tea00000001")
    url = f"/api/duplicates/{pair.pk}/preview"

    merge = viewer_client.post(url, {}, content_type="application/json").json()
    assert (merge["primary_id"], merge["secondary_id"]) == ("note_tea00000001", "note_lumen000001")
    [lost] = merge["pins_merge"]["lost"]
    assert (lost["query"], lost["item_id"]) == (LUMEN, "note_lumen000001")
    assert lost["why"].startswith("merged into note_tea00000001 by this merge")
    assert merge["pins_merge"]["pinned_items"] == ["note_lumen000001"]

    kept = viewer_client.post(
        url, {"primary_id": "note_lumen000001"}, content_type="application/json"
    ).json()
    assert kept["pins_merge"] == {"pins": 1, "lost": [], "pinned_items": [], "error": ""}
    assert kept["pins_supersede"]["lost"][0]["item_id"] == "note_lumen000001"

    wrong = viewer_client.post(url, {"primary_id": "note_other"}, content_type="application/json")
    assert wrong.status_code == 400 and "primary_id" in wrong.content.decode()
    missing = viewer_client.post(
        "/api/duplicates/987654/preview", {}, content_type="application/json"
    )
    assert missing.status_code == 404 and "pending pair 987654" in missing.content.decode()
    assert notes_store().count() == 2
    assert ReviewPair.objects.get().status == ReviewPair.PENDING


@pytest.mark.parametrize("content", ["", "  \n "], ids=["empty", "blank"])
def test_a_merge_sent_no_text_keeps_the_primarys_and_its_api_preview_says_so(
    stores, curator_client, content
):
    """An empty or blank ``content`` is no text: the merge keeps the primary's (as the
    page's empty text box does), and the preview of the same body shows that text. A blank
    one wrote an empty note into the agent's memory, and the preview showed an empty note."""
    plant("note_lumen000001", 0.7, 2, content=LUMEN)
    plant("note_lumen000002", 0.4, 1, content=LUMEN + " today")
    pair = _pair("note_lumen000001", "note_lumen000002")
    body = {"primary_id": "note_lumen000001", "content": content}

    preview = curator_client.post(
        f"/api/duplicates/{pair.pk}/preview", body, content_type="application/json"
    ).json()
    assert preview["content"] == LUMEN
    verdict = curator_client.post(
        f"/api/duplicates/{pair.pk}/verdict",
        {"verdict": "merge", **body},
        content_type="application/json",
    )
    assert verdict.status_code == 200, verdict.content
    assert ReviewPair.objects.get().status == ReviewPair.MERGED
    assert notes_store().note("note_lumen000001").content == LUMEN
