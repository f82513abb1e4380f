"""The review queue's contradictions: a pair whose texts negate each other is flagged with
both values, keeps no note by default, offers "Not a duplicate" first, and is merged only
into the note the curator chose."""

import re

import pytest
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.services import duplicates_scan
from memory_app.notes.stores import notes_store
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from tests.helpers import plant_note, vector

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

ADA = Actor("user", "ada-admin", role="admin")
OLD, NEW = "note_0000000000c1", "note_0000000000c2"
OLD_TEXT = "The nightly backup of the NAS runs with encryption"
NEW_TEXT = "The nightly backup of the NAS runs without encryption"


@pytest.fixture
def contradiction():
    """Two notes that say the opposite; one vector, so the scan queues them at 1.0. The
    newer has the lower importance: neither rule may pick the survivor here."""
    same = vector(OLD_TEXT)
    plant_note(OLD, 0.7, 30, embedding=same, content=OLD_TEXT)
    plant_note(NEW, 0.4, 1, embedding=same, content=NEW_TEXT)
    run = run_create(kind="dedup_scan", actor=ADA, params={"threshold": 0.85})
    assert duplicates_scan(run=run, threshold=0.85)["queued"] == 1
    return ReviewPair.objects.get()


def page(client) -> str:
    return client.get(reverse("memory_app:review")).content.decode()


def verdict(client, pair, **data):
    return client.post(reverse("memory_app:review_verdict", args=[pair.pk]), data, follow=True)


def test_a_negation_is_flagged_a_contradiction_with_both_values(curator_client, contradiction):
    html = page(curator_client)
    assert 'data-contradiction="true"' in html and 'data-kinds="negation"' in html
    assert '<span class="badge contradiction">contradiction</span>' in html
    assert "<code>encryption</code> → <code>without encryption</code>" in html
    assert "possible update</span>" not in html


def test_no_note_is_pre_selected_and_not_a_duplicate_comes_first(curator_client, contradiction):
    html = page(curator_client)
    radios = re.findall(r'<input type="radio" name="primary"[^>]*>', html)
    assert len(radios) == 2
    assert all("checked" not in r and "required" in r for r in radios)
    assert html.index('id="verdict-reject"') < html.index('id="verdict-merge"')
    assert 'id="merge-choose"' in html


def test_a_merge_without_a_chosen_note_is_refused_and_changes_nothing(
    curator_client, contradiction
):
    html = verdict(curator_client, contradiction, verdict="merge").content.decode()
    assert "contradict each other (encryption / without encryption)" in html
    store = notes_store()
    assert store.get_full_note(OLD)["content"] == OLD_TEXT
    assert store.get_full_note(NEW)["content"] == NEW_TEXT
    contradiction.refresh_from_db()
    assert contradiction.status == ReviewPair.PENDING


def test_a_merge_into_the_chosen_note_keeps_it(curator_client, contradiction):
    html = verdict(curator_client, contradiction, verdict="merge", primary=NEW).content.decode()
    assert f"Merged; {NEW} kept." in html
    store = notes_store()
    assert store.get_full_note(NEW)["content"] == NEW_TEXT and store.get_full_note(OLD) is None


def test_not_a_duplicate_needs_no_choice(curator_client, contradiction):
    html = verdict(curator_client, contradiction, verdict="not_duplicate").content.decode()
    assert "Remembered: not a duplicate." in html
    contradiction.refresh_from_db()
    assert contradiction.status == ReviewPair.REJECTED
