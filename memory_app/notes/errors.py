"""Errors of the notes app's services that are about no note: schedules and the
review queue's pairs. Each is a kind of ``qqweb.lib.errors.QQError`` whose ``status``
and ``code`` say how the API answers it (the pages show its text)."""

from __future__ import annotations

from qqweb.lib.errors import Conflict, InvalidInput, NotFound


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
    verdict, no verdict of yours, the note to keep not chosen."""


class PairDecided(Conflict):
    """A verdict on a pair that has one already, or is being given one right now by
    another request (409, ``pair_decided``): a pair's verdict is given once."""

    code = "pair_decided"

    def __init__(self, pair_id: int, status: str, by: str, *, deciding: bool = False) -> None:
        if deciding:
            message = f"{by or 'someone'} is giving this pair a verdict right now: reload the queue"
        else:
            message = f"this pair was {status} already" + (f" (by {by})" if by else "")
        super().__init__(message)
        self.pair_id = pair_id
        self.pair_status = "deciding" if deciding else status

    def details(self) -> dict[str, object]:
        return {"pair": self.pair_id, "pair_status": self.pair_status}


class InvalidMerge(InvalidInput):
    """Two notes that cannot be merged or superseded as asked (400): the same note twice,
    a primary that is neither, neither newer than the other."""


class CoreItemNotFound(NotFound):
    """core.md has no such item under the section (404)."""

    def __init__(self, section: str) -> None:
        super().__init__(f"content: no such item under {section}")
        self.section = section
