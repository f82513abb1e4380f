"""The pair judge in the review queue: the scan judges each pair it queues once and stores
the verdict with it; Review says the verdict in words, keeps the note that says more, and
offers a merged text that keeps what each note alone says; the API's preview says the
same. The judge is the shipped one (qqweb/lib/judge), run in numpy on these pairs only."""

import pytest
from django.urls import reverse

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.models import ReviewPair
from memory_app.notes.services import duplicates_scan
from memory_app.notes.stores import notes_store
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from qqweb.lib.judge.model import CLASSES
from tests.helpers import plant_note, read_model_caught_up, vector

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

ADA = Actor("user", "ada-admin", role="admin")
OLD, NEW = "note_0000000000e1", "note_0000000000e2"
SHORT = "Priya reviews pull requests on Fridays"
LONGER = "Priya reviews pull requests on Fridays after lunch"
WORKS = "Ada moved to Berlin in May. She works at Acme."
CATS = "Ada moved to Berlin in May. She has two cats."


def scan() -> dict[str, int]:
    run = run_create(kind="dedup_scan", actor=ADA, params={"threshold": 0.85})
    return duplicates_scan(run=run, threshold=0.85)


def queue(old_text: str, new_text: str) -> ReviewPair:
    """Two notes on one vector (the scan finds them at 1.0), the older more important (the
    agent's primary)."""
    same = vector(new_text)
    plant_note(OLD, 0.7, 30, embedding=same, content=old_text)
    plant_note(NEW, 0.4, 1, embedding=same, content=new_text)
    assert scan()["judged"] == 1
    return ReviewPair.objects.get()


def agent_edits(note_id: str, text: str) -> None:
    """The agent rewrites a note straight in MongoDB."""
    notes_store().collection.update_one(
        {"note_id": note_id}, {"$set": {"content": text, "updated_at": utcnow_naive()}}
    )
    read_model_caught_up()


def page(client) -> str:
    return client.get(reverse("memory_app:review")).content.decode()


def test_the_scan_stores_the_judges_verdict_with_the_pair_and_does_not_judge_it_again():
    pair = queue(SHORT, LONGER)
    judged = dict(zip(CLASSES, pair.judged, strict=True))
    assert max(judged, key=lambda k: judged[k]) == "right_more"  # note_b, the newer, says more
    assert abs(sum(judged.values()) - 1.0) < 1e-3
    assert scan()["judged"] == 0  # found again, texts unchanged: not judged again


def test_a_text_changed_since_the_scan_is_judged_again_by_the_next_scan():
    pair = queue(SHORT, LONGER)
    agent_edits(NEW, SHORT + "!")
    ReviewPair.objects.filter(pk=pair.pk).update(status=ReviewPair.REJECTED)
    assert scan()["judged"] == 1
    pair.refresh_from_db()
    judged = dict(zip(CLASSES, pair.judged, strict=True))
    assert max(judged, key=lambda k: judged[k]) == "same"


def test_review_says_the_newer_note_says_more_and_keeps_it(curator_client):
    queue(SHORT, LONGER)
    html = page(curator_client)
    assert 'data-verdict="right_more"' in html
    assert "the newer note says more: “after lunch”" in html
    assert f"kept: <code>{NEW}</code>" in html  # not the agent's primary: the detail stays


def test_each_says_something_offers_a_merged_text_with_both_details(curator_client):
    queue(WORKS, CATS)
    html = page(curator_client)
    assert 'data-verdict="each_more"' in html
    assert "each says something the other does not" in html
    offered = "Ada moved to Berlin in May. She works at Acme. She has two cats."
    assert f">{offered}</textarea>" in html  # shown before the click, editable


def test_the_merge_of_the_offered_text_keeps_both_details(curator_client):
    pair = queue(WORKS, CATS)
    offered = "Ada moved to Berlin in May. She works at Acme. She has two cats."
    curator_client.post(
        reverse("memory_app:review_verdict", args=[pair.pk]),
        {"verdict": "merge", "primary": OLD, "content": offered},
    )
    kept = notes_store().get_full_note(OLD)
    assert kept is not None and "works at Acme" in kept["content"]
    assert "two cats" in kept["content"]


def test_the_api_preview_carries_the_verdict_and_the_merged_text(curator_client):
    pair = queue(WORKS, CATS)
    answer = curator_client.post(
        f"/api/duplicates/{pair.pk}/preview", {}, content_type="application/json"
    ).json()
    assert answer["verdict"]["kind"] == "each_more"
    assert answer["verdict"]["p_same"] < 0.5
    assert "two cats" in answer["verdict"]["merged_both"]
    assert "works at Acme" in answer["verdict"]["merged_both"]
    listed = curator_client.get("/api/duplicates").json()
    assert set(listed[0]["judged"]) == set(CLASSES)


def test_a_pair_whose_text_changed_since_the_scan_is_shown_by_the_rules_alone(curator_client):
    queue(SHORT, LONGER)
    agent_edits(NEW, LONGER + " in room 4")
    html = page(curator_client)
    assert "the pair judge has not judged this pair" in html


def test_calibration_counts_what_curators_did_with_each_verdict(curator_client):
    pair = queue(SHORT, LONGER)
    curator_client.post(
        reverse("memory_app:review_verdict", args=[pair.pk]), {"verdict": "not_duplicate"}
    )
    html = page(curator_client)
    assert 'id="calibration-verdicts"' in html
    row = html.split('<tr data-verdict="right_more">', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num">0</td><td class="num">1</td>' in row


def test_a_pair_the_judge_calls_different_facts_offers_not_a_duplicate_first(curator_client):
    queue("Ada's favourite film is Alien.", "Ada's favourite book is Alien.")
    html = page(curator_client)
    assert 'data-verdict="different"' in html and "different facts" in html
    assert html.index('id="verdict-reject"') < html.index('id="verdict-merge"')
