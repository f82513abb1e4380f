"""The undo registry: which function undoes which action.

Each app registers its handlers in its ``AppConfig.ready()``. A handler takes the event's
``before`` and ``after`` (decoded with :func:`qqweb.audit.snapshots.from_json`), puts
``before`` back, returns what it wrote (recorded as the undo event's ``after``), and raises
:class:`qqweb.audit.errors.UndoRefused` when the target changed since.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

UndoHandler = Callable[[Any, Any], Any]

_handlers: dict[str, UndoHandler] = {}


def register_undo(action: str, handler: UndoHandler) -> None:
    """Register ``handler`` as the undo of ``action``. Registering the same handler again
    does nothing; another handler for an action that has one is a programming error."""
    existing = _handlers.get(action)
    if existing is not None and existing is not handler:
        raise ValueError(f"{action} has an undo handler already: {existing!r}")
    _handlers[action] = handler


def undo_handler(action: str) -> UndoHandler | None:
    return _handlers.get(action)


def undoable_actions() -> list[str]:
    return sorted(_handlers)
