"""The memory tests' errors, on the kernel's kinds (the API maps them once, the pages
with the one middleware)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from qqweb.lib.errors import Conflict, InvalidInput, NotFound

if TYPE_CHECKING:
    from qqweb.recall.pin_lines import LineProblem


class PinNotFound(NotFound):
    code = "pin_not_found"

    def __init__(self, pin_id: int) -> None:
        super().__init__(f"there is no pin {pin_id}")
        self.pin_id = pin_id

    def details(self) -> dict[str, object]:
        return {"pin_id": self.pin_id}


class UnknownSource(InvalidInput):
    """A pin names a memory this qqweb does not have (the facts store unconfigured)."""

    def __init__(self, source: str, known: list[str], field: str = "source") -> None:
        names = ", ".join(known) or "none"
        super().__init__(field, f"there is no memory {source!r} here (known: {names})")


class ItemNotFound(InvalidInput):
    """The pinned item is not in the memory: a pin must name what the agent holds now."""

    def __init__(self, source: str, item_id: str, reason: str = "", field: str = "item_id") -> None:
        why = f": {reason}" if reason else ""
        super().__init__(field, f"{source} has no item {item_id!r}{why}")
        self.item_id = item_id

    def details(self) -> dict[str, object]:
        return {**super().details(), "item_id": self.item_id}


class ItemNotSearchable(InvalidInput):
    """The pinned item is in the memory but no search can recall it (no vector): a pin on
    it would fail every run."""

    code = "item_not_searchable"

    def __init__(self, source: str, item_id: str, why: str, field: str = "item_id") -> None:
        super().__init__(field, why)
        self.source, self.item_id = source, item_id

    def details(self) -> dict[str, object]:
        return {**super().details(), "item_id": self.item_id}


class PinLinesRefused(InvalidInput):
    """A JSONL import refused (400, nothing written) because of the lines in ``problems``
    (every refused line, each with its number, field and reason: a
    :class:`~qqweb.recall.pin_lines.LineProblem`). The message names the first
    ``NAMED`` of them; the API's body lists them all (``lines``), and ``line`` and
    ``field`` are the first one's."""

    NAMED = 20

    def __init__(self, problems: Sequence[LineProblem]) -> None:
        first = problems[0]
        lines = sorted({p.line for p in problems})
        named = "; ".join(str(p) for p in problems[: self.NAMED])
        more = len(problems) - self.NAMED
        rest = f"; and {more} more problem{'s' if more != 1 else ''}" if more > 0 else ""
        count = f"{len(lines)} line{'s' if len(lines) != 1 else ''} refused, nothing imported"
        super().__init__(first.field, f"{count}: {named}{rest}")
        self.args = (self.message,)
        self.problems = list(problems)
        self.line = first.line

    def details(self) -> dict[str, object]:
        return {
            **super().details(),
            "line": self.line,
            "lines": [
                {"line": p.line, "field": p.field, "message": p.message} for p in self.problems
            ],
        }


class TooManyPins(Conflict):
    """A memory holds as many pins as ``QQ_MAX_PINS_PER_MEMORY`` allows (409): unpin
    some, or raise the setting."""

    code = "too_many_pins"

    def __init__(self, source: str, pinned: int, adding: int, limit: int) -> None:
        adds = (
            f"pinning {adding} more would make {pinned + adding}"
            if adding > 1
            else (f"it holds {pinned}")
        )
        super().__init__(
            f"{source} may hold at most {limit} pins (QQ_MAX_PINS_PER_MEMORY) and {adds}: "
            "unpin some first"
        )
        self.source, self.limit = source, limit

    def details(self) -> dict[str, object]:
        return {"source": self.source, "limit": self.limit}


class AlreadyPinned(Conflict):
    code = "already_pinned"

    def __init__(self, query: str, item_id: str) -> None:
        super().__init__(f"{query!r} -> {item_id} is pinned already")
        self.item_id = item_id

    def details(self) -> dict[str, object]:
        return {"item_id": self.item_id}


class RunNotFound(NotFound):
    code = "run_not_found"

    def __init__(self, run_id: int) -> None:
        super().__init__(f"there is no memory tests run {run_id}")
        self.run_id = run_id

    def details(self) -> dict[str, object]:
        return {"run_id": self.run_id}
