"""The errors of the jobs app, each a kind of ``qqweb.lib.errors.QQError`` whose ``status``
and ``code`` the front doors answer: no such run (404), a run that cannot do what was asked
now, an unknown job (400), a job whose lock another run holds, a run with no plan to apply
(409). ``RunCancelled`` is no error of a request: a run's progress callback raises it to
stop the work at a batch boundary."""

from __future__ import annotations

from qqweb.lib.errors import Busy, Conflict, InvalidInput, NotFound


class RunNotFound(NotFound):
    """There is no run with this id (404)."""

    def __init__(self, run_id: int | str) -> None:
        super().__init__(f"there is no run {run_id}")
        self.run_id = run_id

    def details(self) -> dict[str, object]:
        return {"run": self.run_id}


class RunRefused(InvalidInput):
    """The run exists but cannot do what was asked now (cancel a closed run, apply what is
    not a finished dry run or was applied already, undo a run that changed nothing): 400."""

    def __init__(self, message: str) -> None:
        super().__init__("run", message)


class UnknownJob(InvalidInput):
    """A job kind there is no job of (400), naming the jobs there are."""

    def __init__(self, jobs: list[str]) -> None:
        super().__init__("job", f"must be one of {', '.join(jobs)}")


class JobBusy(Busy):
    """A run of the same kind holds the job's lock (409): wait for it."""

    def __init__(self, kind: str, run_id: int) -> None:
        super().__init__(f"job: {kind} is running already (run {run_id}); wait for it")
        self.kind = kind
        self.run_id = run_id

    def details(self) -> dict[str, object]:
        return {"field": "job", "run": self.run_id}


class NoPlanToApply(Conflict):
    """Asked to apply the plan of a run whose kind keeps none (409): only the dry run of a
    destructive job has a plan."""

    code = "no_plan"

    def __init__(self, run_id: int, what: str, planners: list[str]) -> None:
        self.message = (
            f"run {run_id} ({what}) has no plan to apply: only the dry run of a "
            f"destructive job has one ({', '.join(planners)})"
        )
        super().__init__(f"run: {self.message}")
        self.field = "run"

    def client_message(self) -> str:
        return self.message

    def details(self) -> dict[str, object]:
        return {"field": self.field}


class RunCancelled(Exception):
    """Raised by a run's progress callback at a batch boundary once the run was asked to
    stop (:func:`qqweb.jobs.runs.run_cancel`)."""
