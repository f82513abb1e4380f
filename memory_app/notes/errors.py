"""Errors of the notes app's services that are about no note: runs, jobs, schedules and
the review queue's pairs. Each is a kind of ``qqweb.lib.errors.QQError`` whose ``status``
and ``code`` say how the API answers it (the pages show its text)."""

from __future__ import annotations

from qqweb.lib.errors import InvalidInput, NotFound


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


class InvalidSchedule(InvalidInput):
    """A schedule's crontab or options that cannot be saved (400), naming the field."""


class ScheduleNotFound(NotFound):
    """There is no schedule with this id (404)."""

    def __init__(self, task_id: int) -> None:
        super().__init__(f"there is no schedule {task_id}")
        self.task_id = task_id


class PairNotFound(NotFound):
    """There is no such pair in the review queue (404)."""

    def __init__(self, pair_id: int, what: str = "pair") -> None:
        super().__init__(f"there is no {what} {pair_id} in the queue")
        self.pair_id = pair_id

    def details(self) -> dict[str, object]:
        return {"pair": self.pair_id}


class InvalidVerdict(InvalidInput):
    """A verdict on a review pair that cannot be given or taken back (400): not a
    verdict, the pair decided already, no verdict of yours, the note to keep not chosen."""


class InvalidMerge(InvalidInput):
    """Two notes that cannot be merged or superseded as asked (400): the same note twice,
    a primary that is neither, neither newer than the other."""


class CoreItemNotFound(NotFound):
    """core.md has no such item under the section (404)."""

    def __init__(self, section: str) -> None:
        super().__init__(f"content: no such item under {section}")
        self.section = section
