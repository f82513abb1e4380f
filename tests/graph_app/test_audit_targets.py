"""The Audit log's entity targets link to the entity's page while it exists (under its new
name after a rename) and say plainly when it was deleted, with no dead link."""

from __future__ import annotations

import pytest
from django.urls import reverse

from graph_app.services import entity_delete, entity_update
from graph_app.stores import graph_store
from qqweb.lib.actors import Actor
from tests.memory_app.notes.test_audit_targets import target_cells

pytestmark = pytest.mark.django_db
CORA = Actor("user", "cora-curator", role="curator")


def test_an_entity_target_follows_a_rename_and_says_when_it_was_deleted(curator_client, graph):
    entity_update(actor=CORA, label="Project", name="Lumen", new_name="Lumen RAG")
    entity_delete(actor=CORA, label="Software", name="MongoDB")
    html = curator_client.get(reverse("memory_app:audit")).content.decode()
    cells = target_cells(html)
    renamed = cells["Project:Lumen"]
    assert reverse("graph_app:entity", args=["Project", "Lumen RAG"]) in renamed
    assert "now “Lumen RAG”" in renamed
    deleted = cells["Software:MongoDB"]
    assert "(no longer in the graph)" in deleted and "<a " not in deleted
    assert graph_store().get_entities("Project", "Lumen RAG")
