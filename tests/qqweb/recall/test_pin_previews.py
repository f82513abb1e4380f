"""Every write that can lose a pinned recall (``qqweb.recall.guards.PIN_LOSING_WRITES``)
names the pin it would lose before it writes: for each one, a pinned item the agent
recalls now, the write's first step, and the same box (``_pins_lost.html``) in what the
curator sees, with nothing written yet."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from memory_app.notes import services as notes_services
from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.recall.guards import PIN_LOSING_WRITES
from qqweb.recall.models import TestRun
from qqweb.recall.services import memory_tests_run, pin_create
from tests.helpers import agent_archive_line, plant_note
from tests.memory_app.facts.conftest import agent_model, agent_writes, facts_store

__all__ = ["agent_model", "facts_store"]  # fixtures of the facts tests

ADA = Actor("user", "ada-admin", role="admin")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
TEA = "Ada prefers green tea in the morning"
PORT = "The TTS server listens on port 9000."
QUESTION = "Which port does the TTS server listen on?"
PINNED = "note_lumen000001"


class World:
    """The client and, for a facts write only, the facts store and the agent's model
    (which the notes' scenarios must not request: it changes the notes' embedder)."""

    def __init__(self, client: Client, request: pytest.FixtureRequest) -> None:
        self.client, self.request = client, request

    @property
    def facts(self) -> FactsStore:
        return self.request.getfixturevalue("facts_store")

    @property
    def model(self) -> Embedder:
        return self.request.getfixturevalue("agent_model")

    def post(self, url: str, data: dict[str, Any] | None = None, htmx: bool = False) -> str:
        extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        answer = self.client.post(url, data or {}, **extra)
        assert answer.status_code == 200, answer.content[:500]
        return answer.content.decode()

    def pinned_note(self) -> None:
        plant_note(PINNED, importance=0.6, days_old=0, content=LUMEN)
        plant_note("note_tea00000001", importance=0.9, days_old=0, content=TEA)
        pin_create(actor=ADA, query=LUMEN, item_id=PINNED)

    def pinned_fact(self) -> str:
        fact = str(agent_writes(self.facts, self.model, PORT, days_ago=1))
        agent_writes(self.facts, self.model, "The user likes green tea.", days_ago=3)
        pin_create(actor=ADA, query=QUESTION, item_id=fact, source="facts")
        return fact


def note_archive(w: World) -> str:
    w.pinned_note()
    return w.post(reverse("memory_app:note_archive", args=[PINNED]))


def notes_bulk(w: World) -> str:
    w.pinned_note()
    ask = {"action": "archive", "scope": "selected", "note_ids": [PINNED]}
    return w.post(reverse("memory_app:notes_bulk"), ask)


def archive_purge(w: World) -> str:
    """A pinned note merged away 200 days ago is recalled through the note that kept its
    text, by its archive line: the purge drops the line."""
    plant_note("note_lumen000002", importance=0.7, days_old=1, content=LUMEN)
    plant_note(PINNED, importance=0.4, days_old=1, content=LUMEN + " too")
    pin_create(actor=ADA, query=LUMEN, item_id=PINNED)
    notes_store().collection.delete_one({"note_id": PINNED})
    reason = "Consolidated with note_lumen000002 (similarity: 0.95)"
    archive_manager().append_entries([agent_archive_line(PINNED, 200, reason=reason)])
    return w.post(reverse("memory_app:archive_purge"), {"days": "90"})


def maintenance_run_apply(w: World) -> str:
    """The dry run's page, above its Apply button."""
    w.pinned_note()
    dry = job_create(kind="archival", actor=ADA, dry_run=True, params={"threshold": 0.7})
    job_run(run=dry)
    return w.client.get(reverse("memory_app:maintenance_run", args=[dry.pk])).content.decode()


def _restored(w: World) -> None:
    """A pinned note archived, then restored: undoing the restore archives it again."""
    w.pinned_note()
    notes_services.note_archive(actor=ADA, note_id=PINNED)
    notes_services.archive_restore_many(actor=ADA, note_ids=[PINNED])


def audit_undo(w: World) -> str:
    _restored(w)
    event = AuditEvent.objects.get(action="note.restore")
    return w.post(reverse("memory_app:audit_undo", args=[event.pk]), {"next": "/audit/"})


def audit_batch_undo(w: World) -> str:
    _restored(w)
    batch = AuditEvent.objects.get(action="note.restore").batch_id
    return w.post(reverse("memory_app:audit_batch_undo", args=[batch]), {"next": "/audit/"})


def review_verdict(w: World) -> str:
    """Review's merge keeps the newer note's text, which does not answer the question."""
    plant_note(PINNED, importance=0.7, days_old=2, content=LUMEN)
    plant_note("note_tea00000001", importance=0.4, days_old=1, content=TEA)
    pin_create(actor=ADA, query=LUMEN, item_id=PINNED)
    ReviewPair.objects.create(
        note_a=PINNED, note_b="note_tea00000001", hash_a="a", hash_b="b", similarity=0.9
    )
    return w.client.get(reverse("memory_app:review")).content.decode()


def fact_delete(w: World) -> str:
    fact = w.pinned_fact()
    return w.post(reverse("facts_app:fact_delete", args=[fact]), {"preview": "1"}, htmx=True)


def pair_resolve(w: World) -> str:
    older = str(agent_writes(w.facts, w.model, PORT, days_ago=2))
    newer = w.pinned_fact()
    fields = {"anchor_id": older, "deleted_id": newer, "how": "delete-both", "preview": "1"}
    return w.post(reverse("facts_app:pair_resolve"), fields, htmx=True)


# A fact written with the pinned fact's text makes a pair with it: the guard archives the
# pinned one (the other of the pair), so that the curator's text survives.


def fact_new(w: World) -> str:
    w.pinned_fact()
    return w.post(reverse("facts_app:fact_new"), {"content": PORT, "preview": "1"}, htmx=True)


def fact_edit(w: World) -> str:
    w.pinned_fact()
    other = str(agent_writes(w.facts, w.model, "The user walks to work.", days_ago=0.5))
    fields = {"expected_content": "The user walks to work.", "content": PORT, "preview": "1"}
    return w.post(reverse("facts_app:fact_edit", args=[other]), fields, htmx=True)


def fact_embed(w: World) -> str:
    w.pinned_fact()
    legacy = agent_writes(w.facts, w.model, PORT, days_ago=0.5)
    w.facts.collection.update_one({"_id": legacy}, {"$unset": {"content_embedding": ""}})
    return w.post(reverse("facts_app:fact_embed", args=[str(legacy)]), {"preview": "1"}, htmx=True)


def archive_restore(w: World) -> str:
    copy = str(agent_writes(w.facts, w.model, PORT, days_ago=0.5))
    w.client.post(reverse("facts_app:fact_delete", args=[copy]))  # archived
    row = ArchivedFact.objects.get(fact_id=copy)
    w.pinned_fact()
    return w.post(reverse("facts_app:archive_restore", args=[row.pk]), {"preview": "1"}, htmx=True)


SCENARIOS: dict[str, Callable[[World], str]] = {
    "memory_app:note_archive": note_archive,
    "memory_app:notes_bulk": notes_bulk,
    "memory_app:archive_purge": archive_purge,
    "memory_app:maintenance_run_apply": maintenance_run_apply,
    "memory_app:audit_undo": audit_undo,
    "memory_app:audit_batch_undo": audit_batch_undo,
    "memory_app:review_verdict": review_verdict,
    "facts_app:fact_delete": fact_delete,
    "facts_app:pair_resolve": pair_resolve,
    "facts_app:fact_new": fact_new,
    "facts_app:fact_edit": fact_edit,
    "facts_app:fact_embed": fact_embed,
    "facts_app:archive_restore": archive_restore,
}


def test_every_pin_losing_write_has_a_scenario_here() -> None:
    assert set(SCENARIOS) == set(PIN_LOSING_WRITES)


@pytest.mark.django_db
@pytest.mark.parametrize("write", sorted(PIN_LOSING_WRITES))
def test_a_write_that_would_lose_a_pin_names_it_before_it_writes(
    write: str, admin_client_: Client, stores: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    world = World(admin_client_, request)
    scenario = SCENARIOS[write]
    html = scenario(world)
    assert memory_tests_run(actor=ADA, trigger=TestRun.PAGE).failed == 0  # nothing written
    assert 'data-pins-lost="1"' in html, html[:3000]
    assert "loses 1 of 1 pinned recall:" in html
