"""'Save my version' after a stale edit merges per field: only what the curator changed in
the form is written over the note as it is now; a field both sides changed is a conflict
the curator picks."""

import pytest
from django.urls import reverse

from memory_app.notes.lib.edits import CONFLICT, MINE, THEIRS, edit_merge
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.services import note_edit
from memory_app.notes.stores import notes_store
from qqweb.lib.actors import Actor
from tests.helpers import add_note

CORA = Actor("user", "cora-curator")
ID = "note_00000000mrg1"
TEXT = "Lumen deploys on Fridays"
pytestmark = pytest.mark.django_db


def loaded():
    doc = notes_store().get_full_note(ID)
    base = {k: doc[k] for k in ("content", "section", "importance")}
    return doc["updated_at"], base


def test_the_curators_text_is_written_over_anothers_importance_change(mongo):
    add_note(ID, TEXT, importance=0.6)
    expected, base = loaded()  # tab B opens the form
    note_edit(actor=CORA, note_id=ID, expected_updated_at=expected, importance=0.7)  # tab A
    mine = {**base, "content": "Lumen deploys on Thursdays"}  # tab B changes only the text
    with pytest.raises(StaleWrite) as refused:
        note_edit(actor=CORA, note_id=ID, expected_updated_at=expected, base=base, **mine)
    current = refused.value.current
    assert {m.field: m.status for m in edit_merge(base, mine, current)} == {
        "content": MINE,
        "section": THEIRS,
        "importance": THEIRS,
    }
    # "Save my version": the form as the stale page posts it, on the version it showed
    note_edit(actor=CORA, note_id=ID, expected_updated_at=current["updated_at"], base=base, **mine)
    note = notes_store().note(ID)
    assert (note.content, note.importance) == ("Lumen deploys on Thursdays", 0.7)


def test_a_text_both_sides_changed_is_a_conflict_and_the_pick_is_written(mongo):
    add_note(ID, TEXT, importance=0.6)
    expected, base = loaded()
    note_edit(actor=CORA, note_id=ID, expected_updated_at=expected, content="Lumen deploys daily")
    mine = {**base, "content": "Lumen deploys on Thursdays", "importance": 0.9}
    current = notes_store().get_full_note(ID)
    merged = {m.field: m.status for m in edit_merge(base, mine, current)}
    assert merged == {"content": CONFLICT, "section": THEIRS, "importance": MINE}
    picked = {**mine, "content": current["content"]}  # the curator keeps the store's text
    note_edit(
        actor=CORA, note_id=ID, expected_updated_at=current["updated_at"], base=base, **picked
    )
    note = notes_store().note(ID)
    assert (note.content, note.importance) == ("Lumen deploys daily", 0.9)


def post_edit(client, expected, base, **mine):
    return client.post(
        reverse("memory_app:note_edit", args=[ID]),
        {
            "expected_updated_at": expected.isoformat(),
            "base_content": base["content"],
            "base_section": base["section"],
            "base_importance": str(base["importance"]),
            **{k: str(v) for k, v in mine.items()},
        },
    )


def test_the_stale_page_offers_to_save_only_the_curators_change(curator_client, mongo):
    add_note(ID, TEXT, importance=0.6)
    expected, base = loaded()
    note_edit(actor=CORA, note_id=ID, expected_updated_at=expected, importance=0.7)
    response = post_edit(curator_client, expected, base, **{**base, "content": "Lumen ships"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "Saving writes your text; it keeps the store's importance (<q>0.7</q>)" in html
    assert 'id="edit-conflicts"' not in html
    assert 'name="importance" value="0.6"' in html and 'name="base_importance" value="0.6"' in html
    assert notes_store().note(ID).content == TEXT


def test_the_stale_page_shows_a_text_both_changed_as_a_conflict_to_pick(curator_client, mongo):
    add_note(ID, TEXT, importance=0.6)
    expected, base = loaded()
    note_edit(actor=CORA, note_id=ID, expected_updated_at=expected, content="Lumen deploys daily")
    response = post_edit(curator_client, expected, base, **{**base, "content": "Lumen ships"})
    html = response.content.decode()
    conflicts = html.split('id="edit-conflicts"')[1].split("</section>")[0]
    assert 'name="content" value="Lumen ships" type="radio"' in conflicts
    assert 'name="content" value="Lumen deploys daily" type="radio"' in conflicts
    assert "the text you pick" in html
