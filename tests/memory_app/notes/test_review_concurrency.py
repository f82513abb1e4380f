"""A pair of the review queue gets one verdict, even when two curators give theirs at the
same moment: both requests really run at once (two threads against the live server, over
HTTP, each released by one barrier), again and again; one verdict is given, the other
request is told 409 ``pair_decided`` (the API) or a message (the Review page), never a
500, and the audit log holds one action, which undoes."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
import requests
from django.conf import settings
from django.test import Client
from django.utils import timezone

from memory_app.notes.errors import PairDecided
from memory_app.notes.models import ReviewPair
from memory_app.notes.services import review_verdict
from memory_app.notes.stores import notes_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.lib.actors import Actor
from qqweb.services import api_token_create
from tests.helpers import add_note

pytestmark = pytest.mark.usefixtures("transactional_db")

ROUNDS = 4  # the report: two "done" merges in 3 of 4 tries
CORA = Actor("user", "cora-curator", role="curator")


def queued_pair(round_: int) -> ReviewPair:
    """Two notes of one fact (the second written later: it can supersede) and their
    pair in the queue."""
    a, b = f"note_{round_:08d}0000a1", f"note_{round_:08d}0000a2"
    add_note(a, f"Lumen uses MongoDB for vector search, round {round_}", importance=0.7)
    add_note(b, f"Lumen uses MongoDB for vector search today, round {round_}", importance=0.4)
    return ReviewPair.objects.create(note_a=a, note_b=b, hash_a="a", hash_b="b", similarity=0.93)


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` in threads released together; their answers in order."""
    barrier = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        answers[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


def api_verdict(base: str, raw: str, pair: ReviewPair, verdict: str) -> Callable[[], Any]:
    def post() -> requests.Response:
        return requests.post(
            f"{base}/api/duplicates/{pair.pk}/verdict",
            json={"verdict": verdict},
            headers={"Authorization": f"Bearer {raw}"},
            timeout=120,
        )

    return post


def verdict_events(pair: ReviewPair) -> list[AuditEvent]:
    """The audit events of verdicts on ``pair`` (merges and supersedes are on its notes)."""
    return list(
        AuditEvent.objects.filter(
            action__in=["pair.merge", "pair.supersede", "pair.reject"],
            target_id__in=[pair.note_a, pair.note_b, f"{pair.note_a} ~ {pair.note_b}"],
        )
    )


@pytest.mark.parametrize(
    "verdicts",
    [
        ("merge", "merge"),
        ("merge", "not_duplicate"),
        ("supersede", "merge"),
        ("not_duplicate", "not_duplicate"),
        ("skip", "merge"),
    ],
)
def test_two_curators_judging_one_pair_at_once_give_one_verdict(
    live_server, curator, django_user_model, mongo, memory_dir, verdicts
):
    other = django_user_model.objects.create_user("carl-curator", password="pw")
    other.groups.add(*curator.groups.all())
    tokens = [api_token_create(user=user, name="review")[1] for user in (curator, other)]
    for round_ in range(ROUNDS):
        pair = queued_pair(round_)
        answers = at_once(
            *(
                api_verdict(live_server.url, raw, pair, verdict)
                for raw, verdict in zip(tokens, verdicts, strict=True)
            )
        )
        codes = sorted(a.status_code for a in answers)
        assert codes == [200, 409], (round_, [a.text for a in answers])
        given = next(a for a in answers if a.status_code == 200).json()
        refused = next(a for a in answers if a.status_code == 409).json()["error"]
        assert refused["code"] == "pair_decided" and refused["pair"] == pair.pk
        assert "already" in refused["message"] or "right now" in refused["message"]
        pair.refresh_from_db()
        assert pair.status == given["status"] and pair.claimed_at is None
        events = verdict_events(pair)
        assert len(events) == (0 if pair.status == "skipped" else 1), events
        if events:
            assert events[0].status == AuditEvent.DONE
            audit_undo(actor=CORA, event_id=events[0].pk)  # the one action undoes
            pair.refresh_from_db()
            assert pair.status == "pending"


def test_two_clicks_on_the_review_pages_merge_at_once_merge_once_and_say_why(
    live_server, curator, mongo, memory_dir
):
    """The Review page's buttons (form posts), from two signed-in browsers: both end on
    the Review page (no 500); the one too late reads why."""
    sessions = [signed_in(live_server.url, curator) for _ in range(2)]
    for round_ in range(ROUNDS):
        pair = queued_pair(round_)
        forms = [review_form(live_server.url, session, pair) for session in sessions]
        pages = at_once(*forms)
        assert [page.status_code for page in pages] == [200, 200]
        said = [page.text for page in pages]
        assert sum("Merged;" in text for text in said) == 1, round_
        assert any(
            "this pair was merged already" in text or "right now: reload the queue" in text
            for text in said
        ), round_
        assert len(verdict_events(pair)) == 1
        assert notes_store().count() == round_ + 1  # each round's pair merged into one note


def test_a_pair_held_by_a_process_that_died_is_taken_over_at_once(mongo, memory_dir, db):
    """A worker killed mid-verdict leaves its claim: the curator's retry takes it over when
    that process runs no more (on this host); one still running keeps the pair."""
    pair = queued_pair(0)
    host = socket.gethostname()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    for process, taken in ((f"{host}:1", False), (f"{host}:{dead.pid}", True)):
        ReviewPair.objects.filter(pk=pair.pk).update(
            claimed_at=timezone.now(), claimed_by="user:carl-curator", claim_process=process
        )
        if taken:
            assert review_verdict(actor=CORA, pair_id=pair.pk, verdict="skip").status == "skipped"
        else:
            with pytest.raises(PairDecided, match="carl-curator is giving this pair a verdict"):
                review_verdict(actor=CORA, pair_id=pair.pk, verdict="skip")


def test_two_backs_or_two_undos_at_once_undo_the_merge_once(
    live_server, curator, mongo, memory_dir
):
    """Back pressed twice (two tabs) and Undo sent twice (the audit API): each merge is
    undone by one undo event; the other request is refused, never a second replay."""
    raw = api_token_create(user=curator, name="review")[1]
    headers = {"Authorization": f"Bearer {raw}"}

    def post(path: str) -> Callable[[], requests.Response]:
        return lambda: requests.post(f"{live_server.url}{path}", headers=headers, timeout=120)

    for round_ in range(ROUNDS):
        pair = queued_pair(round_)
        assert api_verdict(live_server.url, raw, pair, "merge")().status_code == 200
        merge = AuditEvent.objects.get(
            action="pair.merge", target_id__in=[pair.note_a, pair.note_b]
        )
        path = "/api/duplicates/back" if round_ % 2 else f"/api/audit/{merge.pk}/undo"
        answers = at_once(post(path), post(path))
        codes = sorted(a.status_code for a in answers)
        refused = 400 if path.endswith("back") else 409  # Back's refusals are 400s
        assert codes == [200, refused], (round_, [a.text for a in answers])
        message = next(a for a in answers if a.status_code == refused).json()["error"]["message"]
        # while the other undoes it, or after (then Back finds no verdict left to take back)
        assert any(
            said in message
            for said in ("being undone right now", "undone already", "no verdict of yours")
        ), message
        assert AuditEvent.objects.filter(undo_of=merge).count() == 1
        assert notes_store().note(pair.note_a) and notes_store().note(pair.note_b)
        pair.refresh_from_db()
        assert pair.status == "pending"


def test_an_undo_whose_process_died_can_be_tried_again(mongo, memory_dir, db):
    """The undo claims its action before it runs; one whose process died half-way (its
    pid gone from this host, or its undo event closed failed by the reaper) does not
    block the action: the retry undoes it, once."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = {
        "killed": (f"{socket.gethostname()}:{dead.pid}", AuditEvent.PENDING),
        "reaped": ("elsewhere:1", AuditEvent.FAILED),
    }
    for round_, (process, status) in enumerate(left.values()):
        pair = queued_pair(round_)
        review_verdict(actor=CORA, pair_id=pair.pk, verdict="merge")
        merge = AuditEvent.objects.get(
            action="pair.merge", target_id__in=[pair.note_a, pair.note_b]
        )
        AuditEvent.objects.filter(pk=merge.pk).update(  # claimed by a process that then died
            undone_at=timezone.now(), undo_process=process
        )
        AuditEvent.objects.create(
            actor=CORA.label,
            action="undo.pair.merge",
            target_type="note",
            target_id=merge.target_id,
            status=status,
            undo_of=merge,
        )
        audit_undo(actor=CORA, event_id=merge.pk)
        assert AuditEvent.objects.filter(undo_of=merge, status=AuditEvent.DONE).count() == 1
        with pytest.raises(UndoRefused, match="undone already"):
            audit_undo(actor=CORA, event_id=merge.pk)


def test_a_verdict_that_fails_lets_go_of_its_pair(mongo, memory_dir, db):
    """A merge refused half-way (a note gone meanwhile) leaves the pair pending and free:
    the next verdict on it is given."""
    pair = queued_pair(0)
    notes_store().collection.delete_one({"note_id": pair.note_b})
    with pytest.raises(Exception, match=pair.note_b):
        review_verdict(actor=CORA, pair_id=pair.pk, verdict="merge")
    pair.refresh_from_db()
    assert (pair.status, pair.claimed_at) == ("pending", None)
    assert review_verdict(actor=CORA, pair_id=pair.pk, verdict="not_duplicate").status == (
        "rejected"
    )


def signed_in(base: str, user: Any) -> requests.Session:
    client = Client()
    client.force_login(user)
    session = requests.Session()
    session.cookies.set(
        settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value
    )
    return session


def review_form(base: str, session: requests.Session, pair: ReviewPair) -> Callable[[], Any]:
    """The Review page of ``pair`` read now, its Merge button pressed when called."""
    page = session.get(f"{base}/review/?pair={pair.pk}", timeout=60)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    form = {"csrfmiddlewaretoken": token.group(1), "verdict": "merge", "primary": pair.note_a}

    def press() -> requests.Response:
        return session.post(
            f"{base}/review/{pair.pk}/verdict/",
            data=form,
            headers={"Referer": f"{base}/review/"},
            timeout=120,
        )

    return press
