"""The Audit log's fact targets open the fact's page while it is in the agent's
collection, and qqweb's archive of facts once it was deleted (said "archived")."""

from __future__ import annotations

import re
from html import unescape

from django.urls import reverse

from memory_app.facts.lib import FactsStore
from memory_app.facts.services import fact_create, fact_delete
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from tests.memory_app.notes.test_audit_targets import target_cells


def test_a_fact_target_links_while_it_exists_and_to_the_archive_once_deleted(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor, curator_client
) -> None:
    tea = fact_create(actor=curator_actor, content="The master drinks green tea.").fact_id
    cat = fact_create(actor=curator_actor, content="The master's cat Mochi is three.").fact_id
    fact_delete(actor=curator_actor, fact_id=cat)
    html = curator_client.get(reverse("memory_app:audit")).content.decode()
    cells = target_cells(html)
    page = reverse("facts_app:fact_detail", args=[tea])
    assert f'<a href="{page}"' in cells[tea]
    assert curator_client.get(page).status_code == 200
    gone = cells[cat]  # its create and its delete: both say where it is now
    assert "(archived)" in gone
    archive = curator_client.get(unescape(re.search(r'href="([^"]+)"', gone).group(1)))
    assert "three" in archive.content.decode()
