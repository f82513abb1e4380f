"""Undoing a whole maintenance run, as a run of its own in the worker, with progress."""

from __future__ import annotations

from typing import Any

from memory_app.notes.errors import RunRefused
from memory_app.notes.models import MaintenanceRun
from memory_app.notes.services.maintenance.common import Progress
from qqweb.audit.services import batch_undo
from qqweb.lib.actors import Actor


def _actor(run: MaintenanceRun) -> Actor:
    """Who asked for the undo, with the role they hold when the worker runs it (undoing a
    run needs the admin role, checked per change by ``batch_undo``)."""
    kind, _, name = run.started_by.partition(":")
    return Actor.of_user(kind, name, run.params.get("user_id"))


def undo_run_job(run: MaintenanceRun, progress: Progress) -> dict[str, Any]:
    """Undo every change of the run ``undo_of`` (its audit batch), newest first. A change
    whose target moved on since is refused and listed with the reason; cancelling stops
    between two changes (undo again for the rest)."""
    target = run.undo_of
    if target is None:
        raise RunRefused(f"run {run.pk} undoes no run (it was deleted)")
    undone, refused = batch_undo(actor=_actor(run), batch_id=target.batch_id, progress=progress)
    return {"run": target.pk, "undone": undone, "refused": len(refused), "reasons": refused[:50]}
