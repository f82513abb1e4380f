"""Memory tests over the API: the pins with their latest result, pin, unpin, import a
labelled set, run them, and the stored runs. Viewers read; curators write and run."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Router, Schema, Status

from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Limit200, UtcDateTime, errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role
from qqweb.recall.jobs import memory_tests_cancel, memory_tests_job, memory_tests_start
from qqweb.recall.models import MAX_COMMENT, MAX_ITEM_ID, MAX_QUERY, Pin, TestRun
from qqweb.recall.selectors import PinRow, pins_with_results, run_report, runs_list, stored_run
from qqweb.recall.services import (
    MAX_IMPORT_BYTES,
    pin_create,
    pin_delete,
    pin_snapshot,
    pins_import,
)

router = Router(tags=["memory tests"])


class PinLatestOut(Schema):
    run_id: int
    passed: bool
    rank: int | None
    score: float | None
    reason: str
    recalled_as: str  # the item that holds its text now (a merge's survivor), if recalled so


class PinOut(Schema):
    id: int
    source: str
    query: str
    item_id: str
    item_text: str  # the item's text when it was pinned
    comment: str
    created_by: str
    created_at: UtcDateTime
    latest: PinLatestOut | None  # its result in the latest run; null: not run since


class PinIn(Schema):
    query: str = Field(max_length=MAX_QUERY, description="the message the agent is asked")
    item_id: str = Field(
        max_length=MAX_ITEM_ID,
        description="what it must recall: a note id, ``core:`` and a core note's text, "
        "or a fact id",
    )
    source: str = Field("notes", max_length=20, description="notes or facts")
    comment: str = Field("", max_length=MAX_COMMENT)


class PinsImportIn(Schema):
    jsonl: str = Field(
        max_length=MAX_IMPORT_BYTES,
        description='one JSON object a line: {"query", "item_id", "source", "comment"}',
    )


class PinsImportOut(Schema):
    batch_id: str  # POST /api/audit/batches/{batch_id}/undo undoes the import
    created: list[PinOut]
    already: int  # lines pinned already, left as they were


class RecallSourceOut(Schema):
    label: str
    k: int
    pins: int
    passed: int
    recall_at_k: float
    mrr: float


class TestRunSummaryOut(Schema):
    id: int
    trigger: str
    actor: str
    started_at: UtcDateTime
    finished_at: UtcDateTime | None
    total: int
    passed: int
    failed: int
    recall_at_k: float
    mrr: float
    sources: dict[str, RecallSourceOut]


class OutrankedOut(Schema):
    id: str
    text: str
    score: float | None


class TestRunPinOut(Schema):
    pin_id: int | None  # null once unpinned
    source: str
    query: str
    item_id: str
    item_text: str
    passed: bool
    rank: int | None
    score: float | None
    reason: str
    recalled_as: str
    outranked_by: list[OutrankedOut]


class TestRunOut(TestRunSummaryOut):
    pins: list[TestRunPinOut]


class MemoryTestsJobOut(Schema):
    id: int
    status: str = Field(description="queued, running, done, failed or cancelled")
    started_by: str
    processed: int = Field(description="pins evaluated so far")
    total: int | None = Field(description="pins to evaluate (null until it starts)")
    error: str = Field(description="why it failed or was cancelled")
    created_at: UtcDateTime
    finished_at: UtcDateTime | None
    test_run: int | None = Field(
        description="once done: the stored run, at GET /api/memory-tests/runs/{test_run}"
    )
    url: str = Field(description="the run's page")
    poll: str = Field(description="GET it for the status")


def _job_out(run: Run) -> dict[str, Any]:
    stored = run.stats.get("test_run") if isinstance(run.stats, dict) else None
    return {
        "id": run.pk,
        "status": run.status,
        "started_by": run.started_by,
        "processed": run.processed,
        "total": run.total,
        "error": run.error,
        "created_at": run.created_at,
        "finished_at": run.finished_at,
        "test_run": stored if isinstance(stored, int) else None,
        "url": reverse("memory_app:maintenance_run", args=[run.pk]),
        "poll": f"/api/memory-tests/jobs/{run.pk}",
    }


def _pin_out(pin: Pin, row: PinRow | None = None) -> dict[str, Any]:
    result = row.result if row is not None else None
    latest = None
    if result is not None:
        latest = {
            "run_id": result.run_id,
            "passed": result.passed,
            "rank": result.rank,
            "score": result.score,
            "reason": result.reason,
            "recalled_as": result.recalled_as,
        }
    return {**pin_snapshot(pin), "latest": latest}


def _summary(run: TestRun, *, with_pins: bool = False) -> dict[str, Any]:
    """The run's report, its dates as dates (the schema writes them with their offset)."""
    report = run_report(run, with_pins=with_pins)
    report["started_at"], report["finished_at"] = run.started_at, run.finished_at
    return report


@router.get("/pins", response={200: list[PinOut], **errors()})
def pins_list(request: HttpRequest) -> list[dict[str, Any]]:
    """Every pin with its result in the latest run, failing ones first."""
    require_role(request, VIEWER)
    return [_pin_out(row.pin, row) for row in pins_with_results()]


@router.post("/pins", response={201: PinOut, **errors(409, 503)})
def pin_add(request: HttpRequest, body: PinIn) -> Status:
    """Pin "when the agent is asked ``query``, it must recall ``item_id``" (audited
    ``recall.pin``, undoable). 400 naming the item when the memory does not hold it, or
    holds it without a vector (``item_not_searchable``: no search can recall it, so the
    pin could never pass), or the field holding a NUL; 409 when the same recall is pinned already
    (``already_pinned``) or the memory holds ``QQ_MAX_PINS_PER_MEMORY`` pins
    (``too_many_pins``)."""
    require_role(request, CURATOR)
    pin = pin_create(actor=Actor.from_request(request), **body.model_dump())
    return Status(201, _pin_out(pin))


@router.delete("/pins/{pin_id}", response={204: None, **errors(404)})
def pin_remove(request: HttpRequest, pin_id: int) -> Status:
    """Unpin (audited ``recall.unpin``; its undo brings the pin back with its id). Its
    past results stay in the runs."""
    require_role(request, CURATOR)
    pin_delete(actor=Actor.from_request(request), pin_id=pin_id)
    return Status(204, None)


@router.post("/imports", response={201: PinsImportOut, **errors(409, 503)})
def pins_import_api(request: HttpRequest, body: PinsImportIn) -> Status:
    """Pin every line of a labelled set, checked whole first: any bad line answers 400
    naming every bad line (``lines``: line, field, message; ``line`` and ``field`` the
    first one's), and nothing is written. 409 ``too_many_pins`` when a memory would hold
    more than ``QQ_MAX_PINS_PER_MEMORY``. One audit batch."""
    require_role(request, CURATOR)
    result = pins_import(actor=Actor.from_request(request), text=body.jsonl)
    created = [_pin_out(pin) for pin in result.created]
    return Status(
        201, {"batch_id": str(result.batch_id), "created": created, "already": result.already}
    )


@router.post("/runs", response={202: MemoryTestsJobOut, **errors(503)})
def run_start(request: HttpRequest) -> Status:
    """Run every pin with its agent's retrieval, in the worker: answers the job's run at
    once (202; the one queued or running already, if any). Poll ``poll`` until its
    ``status`` is ``done``; ``test_run`` then names the stored run (``GET
    /runs/{test_run}``). A memory that cannot answer fails its pins with the reason (the
    run itself succeeds). 503 when the task broker does not take the job."""
    require_role(request, CURATOR)
    run = memory_tests_start(actor=Actor.from_request(request), trigger=TestRun.API)
    return Status(202, _job_out(run))


@router.get("/jobs/{job_id}", response={200: MemoryTestsJobOut, **errors(404)})
def job_get(request: HttpRequest, job_id: int) -> dict[str, Any]:
    """A memory tests run in the worker: its status and progress (pins evaluated of
    ``total``), then the stored run (``test_run``) or why it failed (``error``)."""
    require_role(request, VIEWER)
    return _job_out(memory_tests_job(job_id))


@router.post("/jobs/{job_id}/cancel", response={200: MemoryTestsJobOut, **errors(404)})
def job_cancel(request: HttpRequest, job_id: int) -> dict[str, Any]:
    """Cancel a memory tests run: a queued one closes at once, a running one stops within
    the next 20 pins; either stores nothing. 400 when it has ended already."""
    require_role(request, CURATOR)
    return _job_out(memory_tests_cancel(actor=Actor.from_request(request), run_id=job_id))


@router.get("/runs", response={200: list[TestRunSummaryOut], **errors()})
def runs(request: HttpRequest, limit: Limit200 = 50) -> list[dict[str, Any]]:
    """The stored runs, newest first (the history)."""
    require_role(request, VIEWER)
    return [_summary(run) for run in runs_list(limit)]


@router.get("/runs/{run_id}", response={200: TestRunOut, **errors(404)})
def run_get(request: HttpRequest, run_id: int) -> dict[str, Any]:
    """One stored run with every pin's result as it was."""
    require_role(request, VIEWER)
    run = stored_run(run_id)
    return _summary(run, with_pins=True)
