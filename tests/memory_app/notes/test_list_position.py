"""Lists say where a page is: "51-55 of 55", counted by the store without a scan when
unfiltered."""

import re

import pytest
from django.urls import reverse

from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.stores import notes_store
from tests.helpers import add_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]


def position(html):
    return re.search(r'class="list-position"[^>]*>([^<]*)<', html).group(1)


def test_the_notes_list_says_which_notes_of_how_many_it_shows(viewer_client):
    for i in range(55):
        add_note(f"note_{i:012x}", f"note number {i}", "Key Topics" if i < 30 else "File Knowledge")
    first = viewer_client.get(reverse("memory_app:notes") + "?sort=created").content.decode()
    assert position(first) == "1-50 of 55"
    next_link = re.search(r'href="\?([^"]*cursor=[^"]+)"', first).group(1).replace("&amp;", "&")
    second = viewer_client.get(reverse("memory_app:notes") + "?" + next_link).content.decode()
    assert position(second) == "51-55 of 55"
    filtered = viewer_client.get(reverse("memory_app:notes") + "?section=Key+Topics")
    assert position(filtered.content.decode()) == "1-30 of 30"


def test_counts_are_capped_and_an_effective_importance_filter_is_not_counted():
    for i in range(5):
        add_note(f"note_{i:012x}", f"note number {i}")
    store = notes_store()
    assert store.count_notes().value == 5 and store.count_notes().estimated
    capped = store.count_notes(NoteFilter(section="Key Topics"), cap=3)
    assert (capped.value, capped.capped) == (3, True)
    assert store.count_notes(NoteFilter(min_effective=0.1)).value is None
