"""The memory tests' errors, on the kernel's kinds (the API maps them once, the pages
with the one middleware)."""

from __future__ import annotations

from qqweb.lib.errors import Conflict, InvalidInput, NotFound


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


class InvalidPinLine(InvalidInput):
    """A line of a JSONL import that cannot be read (400), naming the line and the field;
    nothing of the import was written."""

    def __init__(self, line: int, field: str, message: str) -> None:
        text = f"line {line}: {field}: {message}"
        super().__init__(field, text)
        self.args = (text,)
        self.line = line

    def details(self) -> dict[str, object]:
        return {**super().details(), "line": self.line}


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
