"""The undo registry: which function undoes which action; and where each kind of target
has its page (``register_target_pages``: the Audit log links a target while it exists).

Each app registers its handlers in its ``AppConfig.ready()``. A handler takes the event's
``before`` and ``after`` (decoded with :func:`qqweb.audit.snapshots.from_json`), puts
``before`` back, returns what it wrote (recorded as the undo event's ``after``), and raises
:class:`qqweb.audit.errors.UndoRefused` when the target changed since.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

UndoHandler = Callable[[Any, Any], Any]
SettleCheck = Callable[[Any], Any]

_handlers: dict[str, UndoHandler] = {}
_settle_checks: dict[str, SettleCheck] = {}
_roles: dict[str, str] = {}
# The role names of qqweb.lib.auth, spelled here: this module is imported while the apps load,
# before qqweb.lib.auth (which imports Django's auth middleware) can be.
ADMIN = "admin"
ROLES = ("viewer", "curator", "admin")


def _register_once(table: dict[str, Any], key: str, value: Any, what: str) -> None:
    """``table[key] = value``; again with the same value does nothing, another value for
    a key that has one is a programming error (two apps claiming one action)."""
    existing = table.get(key)
    if existing is not None and existing is not value:
        raise ValueError(f"{key} has {what} already: {existing!r}")
    table[key] = value


def register_undo(action: str, handler: UndoHandler, role: str = ADMIN) -> None:
    """Register ``handler`` as the undo of ``action``, which needs ``role`` to be undone:
    the role the action itself needs (an action registered without one needs an admin).
    Registering the same handler again does nothing; another handler for an action that
    has one is a programming error."""
    existing = _handlers.get(action)
    if existing is not None and existing is not handler:
        raise ValueError(f"{action} has an undo handler already: {existing!r}")
    if role not in ROLES:
        raise ValueError(f"{action}: unknown role {role!r}")
    if existing is not None and _roles[action] != role:
        raise ValueError(f"{action} is undone with the {_roles[action]} role already")
    _handlers[action] = handler
    _roles[action] = role


def undo_role(action: str, actor_label: str) -> str:
    """The role needed to undo ``action`` done by ``actor_label``: the role the action
    needed. A job's changes (actor ``job:...``) were started by an admin."""
    if actor_label.startswith("job:"):
        return ADMIN
    return _roles.get(action, ADMIN)


def undo_handler(action: str) -> UndoHandler | None:
    return _handlers.get(action)


def undoable_actions() -> list[str]:
    return sorted(_handlers)


def register_settle(action: str, check: SettleCheck) -> None:
    """Register ``check`` for the events of ``action`` left pending by a process that died:
    it takes the event's ``before`` and returns the ``after`` the action would have
    recorded when its change is whole in the store, None when it is not (the reaper then
    ends the event done, and undoable, or failed)."""
    _register_once(_settle_checks, action, check, "a settle check")


def settle_check(action: str) -> SettleCheck | None:
    return _settle_checks.get(action)


def settled_actions() -> list[str]:
    return sorted(_settle_checks)


@dataclass(frozen=True)
class TargetPage:
    """Where an audit event's target is now: ``url``, its page, while it exists (or where
    it went: an archived note's line); ``said``, words beside it ("archived", "no longer in
    the notes"). Neither: nothing to say (the target is shown as its id)."""

    url: str = ""
    said: str = ""


# events of one target type (AuditEvent rows) -> their TargetPage by event id; may raise
# StoreUnavailable when the store cannot tell (the targets are then shown as their ids)
TargetPages = Callable[[list[Any]], dict[int, TargetPage]]
_target_pages: dict[str, TargetPages] = {}


def register_target_pages(target_type: str, finder: TargetPages) -> None:
    """Register ``finder`` for the events whose ``target_type`` is ``target_type``."""
    _register_once(_target_pages, target_type, finder, "a target finder")


def target_pages_finder(target_type: str) -> TargetPages | None:
    return _target_pages.get(target_type)
