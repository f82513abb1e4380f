"""Errors of the audit app."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied


class AuditError(Exception):
    """Base class of every error the audit app raises on purpose."""


class UndoRefused(AuditError):
    """An audit event cannot be undone (already undone, or the target changed since)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"cannot undo: {reason}")
        self.reason = reason


class UndoForbidden(AuditError, PermissionDenied):
    """The person asking may not undo this action: undo needs the role the action needed
    (403, nothing undone)."""

    def __init__(self, action: str, role: str) -> None:
        super().__init__(f"undoing {action} needs the {role} role")
        self.action = action
        self.role = role
