"""Errors of the audit app."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from qqweb.lib.errors import Conflict, Forbidden, NotFound, QQError


class AuditError(QQError):
    """Base class of every error the audit app raises on purpose."""


class UndoRefused(AuditError, Conflict):
    """An audit event cannot be undone (already undone, or the target changed since): 409."""

    code = "undo_refused"

    def __init__(self, reason: str) -> None:
        super().__init__(f"cannot undo: {reason}")
        self.reason = reason


class AuditEventNotFound(UndoRefused, NotFound):
    """There is no audit event with this id (404); an ``UndoRefused``, so whoever takes
    back an action tells it as a refused undo."""

    status = 404
    code = "not_found"

    def __init__(self, event_id: int) -> None:
        super().__init__(f"there is no audit event {event_id}")
        self.event_id = event_id


class UndoForbidden(AuditError, Forbidden, PermissionDenied):
    """The person asking may not undo this action: undo needs the role the action needed
    (403, nothing undone)."""

    def __init__(self, action: str, role: str) -> None:
        super().__init__(f"undoing {action} needs the {role} role")
        self.action = action
        self.role = role
