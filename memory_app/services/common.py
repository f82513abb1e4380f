"""What the memory services share: MongoDB errors as StoreUnavailable, and the
millisecond comparison of BSON dates."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pymongo.errors import PyMongoError

from memory_app.memory import StoreUnavailable
from qqweb.audit.registry import UndoHandler


def same_time(a: Any, b: Any) -> bool:
    """BSON dates keep milliseconds: compare at that precision."""
    if not isinstance(a, datetime) or not isinstance(b, datetime):
        return False
    return abs((a.replace(tzinfo=None) - b.replace(tzinfo=None)).total_seconds()) < 0.001


def guard_store(work: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return work()
        except PyMongoError as e:
            raise StoreUnavailable("mongodb", str(e)) from e

    return run


def guarded_undo(handler: UndoHandler) -> UndoHandler:
    """An undo handler whose MongoDB errors come out as StoreUnavailable (as guard_store)."""

    def run(before: Any, after: Any) -> Any:
        return guard_store(lambda: handler(before, after))()

    return run
