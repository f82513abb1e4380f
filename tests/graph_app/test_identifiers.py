"""Labels and relationship types are formatted into Cypher, so only whole-string matches of
the strict pattern pass: a trailing newline (which ``$`` lets through) is refused."""

from __future__ import annotations

import pytest

from graph_app.knowledge import InvalidIdentifier, checked_label, checked_rel_type

GOOD = ["Person", "Concept", "a", "DEPENDS_ON", "Label_2", "A" * 64]
BAD = ["Person\n", "USES\n", "\nPerson", "Person ", "2Person", "_Person", "", "A" * 65, "Per-son"]


@pytest.mark.parametrize("value", GOOD)
def test_it_passes_whole_identifiers(value):
    assert checked_label(value) == value and checked_rel_type(value) == value


@pytest.mark.parametrize("value", BAD)
def test_it_refuses_anything_else_a_trailing_newline_included(value):
    with pytest.raises(InvalidIdentifier) as label_error:
        checked_label(value)
    assert label_error.value.field == "label"
    with pytest.raises(InvalidIdentifier) as type_error:
        checked_rel_type(value)
    assert type_error.value.field == "relationship type"


def test_a_label_with_a_trailing_newline_is_a_400_naming_it(viewer_client, stores):
    response = viewer_client.get("/api/graph/entities?label=Person%0A")
    assert response.status_code == 400 and response.json()["error"]["field"] == "label"
