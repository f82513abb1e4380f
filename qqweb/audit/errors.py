"""Errors of the audit app."""

from __future__ import annotations


class AuditError(Exception):
    """Base class of every error the audit app raises on purpose."""


class UndoRefused(AuditError):
    """An audit event cannot be undone (already undone, or the target changed since)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"cannot undo: {reason}")
        self.reason = reason
