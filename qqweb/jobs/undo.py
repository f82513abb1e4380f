"""Undoing a whole run, as a run of its own in the worker, with progress."""

from __future__ import annotations

from typing import Any

from qqweb.audit.services import batch_undo
from qqweb.jobs.errors import RunRefused
from qqweb.jobs.models import Run
from qqweb.jobs.registry import UNDO_KIND, Job, Progress
from qqweb.lib.actors import Actor


def _actor(run: Run) -> Actor:
    """Who asked for the undo, with the role they hold when the worker runs it (undoing a
    run needs the admin role, checked per change by ``batch_undo``)."""
    kind, _, name = run.started_by.partition(":")
    return Actor.of_user(kind, name, run.params.get("user_id"))


def undo_run_job(run: Run, progress: Progress) -> dict[str, Any]:
    """Undo every change of the run ``undo_of`` (its audit batch), newest first. A change
    whose target moved on since is refused and listed with the reason; cancelling stops
    between two changes (undo again for the rest)."""
    target = run.undo_of
    if target is None:
        raise RunRefused(f"run {run.pk} undoes no run (it was deleted)")
    # the undo's changes are a batch of their own (the undo run's), apart from the run's
    undone, refused = batch_undo(
        actor=_actor(run), batch_id=target.batch_id, progress=progress, undo_batch=run.batch_id
    )
    return {"run": target.pk, "undone": undone, "refused": len(refused), "reasons": refused[:50]}


UNDO_JOB = Job(
    UNDO_KIND,
    "Undo a run",
    "Undo every change a run made (its audit batch), newest first.",
    undo_run_job,
    listed=False,
)
