"""The errors of the jobs app.

A refused request about a run (no such run, nothing to cancel, no plan) is an
``InvalidNote`` and a store outage a ``StoreUnavailable``, the generic errors the front
doors map (400/404/409, 503). They still live in the notes library
(``memory_app/notes/lib/errors.py``) until they move into the kernel; this module is the
one place the jobs app takes them from (the one arrow ``jobs-independent`` in
pyproject.toml lets through), so that move changes one import here.
"""

from __future__ import annotations

from memory_app.notes.lib.errors import InvalidNote, StoreUnavailable

__all__ = ["InvalidNote", "JobBusy", "NoPlanToApply", "RunCancelled", "StoreUnavailable"]


class JobBusy(InvalidNote):
    def __init__(self, kind: str, run_id: int) -> None:
        super().__init__("job", f"{kind} is running already (run {run_id}); wait for it")


class NoPlanToApply(InvalidNote):
    """Asked to apply the plan of a run whose kind keeps none (409): only the dry run of a
    destructive job has a plan."""

    def __init__(self, run_id: int, what: str, planners: list[str]) -> None:
        super().__init__(
            "run",
            f"run {run_id} ({what}) has no plan to apply: only the dry run of a "
            f"destructive job has one ({', '.join(planners)})",
        )


class RunCancelled(Exception):
    """Raised by a run's progress callback at a batch boundary once the run was asked to
    stop (:func:`qqweb.jobs.runs.run_cancel`)."""
