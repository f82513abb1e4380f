"""A memory tests run is a job (kind ``memory_tests``): its size is the user's (up to
``QQ_MAX_PINS_PER_MEMORY`` pins a memory, one vector search per pinned question), so it
runs in the Celery worker, never in a web request, with what every run has: progress,
cancel, the lock (one at a time), its page at ``/maintenance/runs/<id>/``, the reaper.

The Memory tests page's Run now and ``POST /api/memory-tests/runs`` start one
(:func:`memory_tests_start`) and answer at once; ``manage.py memory_tests`` runs one in
its own process. The run evaluates every pin, then stores the
:class:`~qqweb.recall.models.TestRun` and its results in one transaction: a cancelled or
failed run stores nothing, and a run redelivered after its worker died finds the
``TestRun`` its first try stored (``TestRun.job_run``) and does not store it again."""

from __future__ import annotations

from dataclasses import dataclass

from qqweb.jobs.errors import RunNotFound
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Job, Progress
from qqweb.jobs.runs import run_cancel, run_create
from qqweb.jobs.starting import run_enqueue
from qqweb.lib.actors import Actor
from qqweb.recall.models import TestRun
from qqweb.recall.running import memory_tests_run

MEMORY_TESTS = "memory_tests"


@dataclass(frozen=True)
class MemoryTestsResult:
    """What a memory tests run found (its job run's stats): the stored run
    (``test_run``, at ``/memory-tests/runs/<id>/`` and ``GET /api/memory-tests/runs/<id>``)
    and its measures."""

    test_run: int
    total: int
    passed: int
    failed: int
    recall_at_k: float
    mrr: float


def _actor(label: str) -> Actor:
    kind, _, name = label.partition(":")
    return Actor(kind, name)


def memory_tests_work(run: Run, progress: Progress) -> MemoryTestsResult:
    """The job: every pin, then the stored run (once, whatever the retries)."""
    stored = TestRun.objects.filter(job_run=run).first()
    if stored is None:
        trigger = str(run.params.get("trigger", TestRun.PAGE))
        stored = memory_tests_run(
            actor=_actor(run.started_by), trigger=trigger, progress=progress, job_run=run
        )
    return MemoryTestsResult(
        stored.pk, stored.total, stored.passed, stored.failed, stored.recall_at_k, stored.mrr
    )


# Registered by RecallConfig.ready(): started from the Memory tests page, its API and
# its command (not the jobs page's catalogue), run like every job.
MEMORY_TESTS_JOB = Job(
    MEMORY_TESTS,
    "Memory tests",
    "Run every pinned recall with its agent's own retrieval and store the results.",
    memory_tests_work,
    listed=False,
)


def memory_tests_open() -> Run | None:
    """The memory tests run queued or running now, if any."""
    return Run.objects.defer("plan").filter(kind=MEMORY_TESTS, status__in=Run.OPEN).first()


def memory_tests_create(*, actor: Actor, trigger: str) -> Run:
    """A queued run of the memory tests (to run in the worker, or in a command)."""
    return run_create(kind=MEMORY_TESTS, actor=actor, params={"trigger": trigger})


def memory_tests_start(*, actor: Actor, trigger: str) -> Run:
    """Start a run of every pin in the worker; answers it at once (queued). While one is
    queued or running already, that one is answered instead of a second one (one runs at
    a time: a second would wait for its lock and fail); start again once it ends."""
    return memory_tests_open() or run_enqueue(memory_tests_create(actor=actor, trigger=trigger))


def memory_tests_job(run_id: int) -> Run:
    """Memory tests run ``run_id`` (RunNotFound when there is none of this kind)."""
    run = Run.objects.defer("plan").filter(pk=run_id, kind=MEMORY_TESTS).first()
    if run is None:
        raise RunNotFound(run_id)
    return run


def memory_tests_cancel(*, actor: Actor, run_id: int) -> Run:
    """Cancel a memory tests run (a curator may: it changes nothing); a running one stops
    at its next ``PROGRESS_EVERY`` pins and stores nothing."""
    return run_cancel(actor=actor, run_id=memory_tests_job(run_id).pk)


def memory_tests_latest_job() -> Run | None:
    """The latest memory tests run (open or closed), for the page to show its progress
    or why it failed."""
    return Run.objects.defer("plan").filter(kind=MEMORY_TESTS).first()
